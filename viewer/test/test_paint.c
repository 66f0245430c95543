/*
 * test_paint.c -- the painter's exact bytes for a few inputs (the strings
 * below are what src/cli/attach/outer-modes.ts writes for the same inputs;
 * test/viewer-native/paint.test.ts holds many more against it), the status
 * line cut in characters, a full buffer refused, and the alternate-screen
 * tracker fed every split of a stream.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "viewer.h"

#define OFF_KEEP_CURSOR "\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?9l\x1b[?1016l\x1b[?1015l\x1b[?1006l\x1b[?1005l" \
	"\x1b[?2004l\x1b[?1004l\x1b[?1l\x1b>"
#define PEN "\x1b[0m\x1b(B\x1b)B\x1b*B\x1b+B\x0f\x1b[?7h\x1b[4l\x1b[?5l"

/* Prints both sides of a mismatch with the escapes shown, so a failure says where. */
static void
paint_show(const char *label, const uint8_t *p, size_t n)
{
	fprintf(stderr, "  %s: ", label);
	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x20 || p[i] >= 0x7f)
			fprintf(stderr, "\\x%02x", p[i]);
		else
			fputc(p[i], stderr);
	}
	fputc('\n', stderr);
}

static bool
paint_is_bytes(struct buf *b, const char *want, size_t want_len)
{
	bool same = b->len == want_len && (b->len == 0 || memcmp(b->data, want, b->len) == 0);

	if (!same) {
		paint_show("got ", b->data, b->len);
		paint_show("want", (const uint8_t *)want, want_len);
	}
	buf_clear(b);
	return same;
}

static bool
paint_is(struct buf *b, const char *want)
{
	return paint_is_bytes(b, want, strlen(want));
}

static struct screen_modes
paint_default_modes(void)
{
	struct screen_modes m;

	memset(&m, 0, sizeof m);
	m.wraparound = true;
	m.mouse_tracking = MT_NONE;
	m.mouse_encoding = ME_DEFAULT;
	return m;
}

static void
test_paint_input_modes(struct buf *b)
{
	struct screen_modes m = paint_default_modes();

	CHECK(strcmp(PAINT_INPUT_MODES_OFF, OFF_KEEP_CURSOR "\x1b[?25h") == 0);
	CHECK(paint_input_modes(b, &m) == 0);
	CHECK(paint_is(b, OFF_KEEP_CURSOR "\x1b[?25h"));

	m.cursor_hidden = m.bracketed_paste = m.send_focus = m.app_cursor_keys = m.app_keypad = true;
	m.mouse_tracking = MT_DRAG;
	m.mouse_encoding = ME_SGR;
	CHECK(paint_input_modes(b, &m) == 0);
	CHECK(paint_is(b, OFF_KEEP_CURSOR "\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[?1h\x1b=\x1b[?25l"));

	/* An encoding without tracking is not set: there are no reports to encode. */
	m = paint_default_modes();
	m.mouse_encoding = ME_SGR;
	CHECK(paint_input_modes(b, &m) == 0);
	CHECK(paint_is(b, OFF_KEEP_CURSOR "\x1b[?25h"));

	m.mouse_tracking = MT_X10;
	m.mouse_encoding = ME_SGR_PIXELS;
	CHECK(paint_input_modes(b, &m) == 0);
	CHECK(paint_is(b, OFF_KEEP_CURSOR "\x1b[?9h\x1b[?1016h\x1b[?25h"));
}

static void
test_paint_snapshot_and_view(struct buf *b)
{
	struct screen_modes m = paint_default_modes();

	/* First paint from the alternate screen: leave it, reset, scroll the old screen up, blank, data, modes. */
	CHECK(paint_snapshot(b, (const uint8_t *)"hi", 2, &m, 3, 20, true, true) == 0);
	CHECK(paint_is(b, "\x1b[?1049l\x1b[!p\x1b[?69l\x1b[r\x1b[?6l\x1b[3g\x1b[9G\x1bH\x1b[17G\x1bH" PEN
	    OFF_KEEP_CURSOR "\x1b[?25h\x1b[3;1H\n\n\n\x1b[H\x1b[3Mhi" OFF_KEEP_CURSOR "\x1b[?25h"));

	/* A repaint in a terminal 8 wide: no tab stop past the first (column 9 does not exist). */
	CHECK(paint_snapshot(b, (const uint8_t *)"hi", 2, &m, 2, 8, false, false) == 0);
	CHECK(paint_is(b, "\x1b[!p\x1b[?69l\x1b[r\x1b[?6l\x1b[3g" PEN OFF_KEEP_CURSOR "\x1b[?25h"
	    "\x1b[H\x1b[2Mhi" OFF_KEEP_CURSOR "\x1b[?25h"));

	/* The snapshot's bytes go through as they are, NULs and all. */
	{
		static const char want[] = "\x1b[!p\x1b[?69l\x1b[r\x1b[?6l\x1b[3g" PEN OFF_KEEP_CURSOR "\x1b[?25h"
		    "\x1b[H\x1b[1Ma\0b" OFF_KEEP_CURSOR "\x1b[?25h";

		CHECK(paint_snapshot(b, (const uint8_t *)"a\0b", 3, &m, 1, 1, false, false) == 0);
		CHECK(paint_is_bytes(b, want, sizeof want - 1));
	}

	CHECK(paint_view(b, (const uint8_t *)"v", 1, &m, false) == 0);
	CHECK(paint_is(b, "\x1b[?1049h\x1b[!p\x1b[?25l" PEN "\x1b[?69l\x1b[r\x1b[?6lv" OFF_KEEP_CURSOR "\x1b[?25h"));
	CHECK(paint_view(b, (const uint8_t *)"v", 1, &m, true) == 0);
	CHECK(paint_is(b, "\x1b[!p\x1b[?25l" PEN "\x1b[?69l\x1b[r\x1b[?6lv" OFF_KEEP_CURSOR "\x1b[?25h"));
}

static void
test_paint_leave_and_status(struct buf *b)
{
	CHECK(paint_leave(b, true, true, 10, 5) == 0);
	CHECK(paint_is(b, "\x1b[?1049l\x1b" "7\x1b[?69l\x1b[r\x1b[?6l\x1b[3g\x1b[9G\x1bH\x1b" "8\x1b[?6l\x1b[5;1H\x1b[!p" PEN
	    OFF_KEEP_CURSOR "\x1b[?25h\x1b[0 q\r\n\x1b[J"));
	CHECK(paint_leave(b, false, false, 8, 5) == 0);
	CHECK(paint_is(b, "\x1b" "7\x1b[?69l\x1b[r\x1b[?6l\x1b[3g\x1b" "8\x1b[!p" PEN
	    OFF_KEEP_CURSOR "\x1b[?25h\x1b[0 q\r\n\x1b[J"));

	/* Cut to 4 characters, not 4 bytes: "héll" is 5 bytes. */
	CHECK(paint_status_line(b, "h\xc3\xa9llo w\xc3\xb6rld", 4, 24) == 0);
	CHECK(paint_is(b, "\x1b" "7\x1b[24;1H\x1b(B\x0f\x1b[0;7mh\xc3\xa9ll\x1b[0m\x1b[K\x1b" "8"));
	/* A 4-byte character counts once, and a text shorter than the row is whole. */
	CHECK(paint_status_line(b, "\xf0\x9f\x98\x80x", 1, 2) == 0);
	CHECK(paint_is(b, "\x1b" "7\x1b[2;1H\x1b(B\x0f\x1b[0;7m\xf0\x9f\x98\x80\x1b[0m\x1b[K\x1b" "8"));
	CHECK(paint_status_line(b, "ok", 80, 2) == 0);
	CHECK(paint_is(b, "\x1b" "7\x1b[2;1H\x1b(B\x0f\x1b[0;7mok\x1b[0m\x1b[K\x1b" "8"));
	CHECK(paint_status_line(b, "ok", 0, 2) == 0);
	CHECK(paint_is(b, "\x1b" "7\x1b[2;1H\x1b(B\x0f\x1b[0;7m\x1b[0m\x1b[K\x1b" "8"));
}

/* A painter whose buffer cannot take the whole write says so, and leaves no half of it. */
static void
test_paint_full_buffer(void)
{
	struct screen_modes m = paint_default_modes();
	struct buf small;

	buf_init(&small, 64);
	CHECK(buf_appends(&small, "kept") == 0);
	CHECK(paint_snapshot(&small, (const uint8_t *)"x", 1, &m, 24, 80, false, true) == -1);
	CHECK(paint_view(&small, (const uint8_t *)"x", 1, &m, false) == -1);
	CHECK(paint_input_modes(&small, &m) == -1);
	CHECK(paint_leave(&small, false, false, 80, 24) == -1);
	CHECK(paint_status_line(&small, "a long message that does not fit in this buffer", 80, 24) == -1);
	CHECK(paint_is(&small, "kept"));
	buf_free(&small);
}

struct tracked {
	bool active, origin_mode;
};

static struct tracked
track_chunks(const char *s, size_t n, size_t cut1, size_t cut2, bool start_active)
{
	struct alt_tracker t;

	alt_tracker_init(&t, start_active);
	alt_tracker_feed(&t, (const uint8_t *)s, cut1);
	alt_tracker_feed(&t, (const uint8_t *)s + cut1, cut2 - cut1);
	alt_tracker_feed(&t, (const uint8_t *)s + cut2, n - cut2);
	return (struct tracked){ t.active, t.origin_mode };
}

/* Every cut into three reads gives what one read gives. */
static void
check_tracked_every_split(const char *s, bool start_active, bool active, bool origin_mode)
{
	size_t n = strlen(s);
	int wrong = 0;

	for (size_t cut1 = 0; cut1 <= n; cut1++) {
		for (size_t cut2 = cut1; cut2 <= n; cut2++) {
			struct tracked got = track_chunks(s, n, cut1, cut2, start_active);

			if (got.active != active || got.origin_mode != origin_mode)
				wrong++;
		}
	}
	if (wrong > 0)
		paint_show("tracker split wrong for", (const uint8_t *)s, n);
	CHECK(wrong == 0);
}

static void
test_paint_tracker(void)
{
	struct alt_tracker t;

	alt_tracker_init(&t, true);
	CHECK(t.active && !t.origin_mode);

	check_tracked_every_split("plain text, no escapes", false, false, false);
	check_tracked_every_split("ab\x1b[?1049hcd", false, true, false);
	check_tracked_every_split("\x1b[?1049h..\x1b[?1049l", false, false, false);
	check_tracked_every_split("\x1b[?47h", false, true, false);
	check_tracked_every_split("\x1b[?1047h", false, true, false);
	check_tracked_every_split("x\x1b[?1047l", true, false, false);
	check_tracked_every_split("\x1b[?6;1049h", false, true, true);
	check_tracked_every_split("\x1b[?6h\x1b[?1049h\x1b[?6l", false, true, false);
	/* Parameters match whole: 01049 and 10490 are other modes, an empty one is none. */
	check_tracked_every_split("\x1b[?01049h\x1b[?10490h\x1b[?;h\x1b[?h", false, false, false);
	/* Not private: CSI 1049 h is a standard mode (and the bytes after it are text). */
	check_tracked_every_split("\x1b[1049h\x1b[6h", false, false, false);
	/* An ESC inside a sequence starts a new one. */
	check_tracked_every_split("\x1b[?10\x1b[?47h", false, true, false);
	check_tracked_every_split("\x1b\x1b[?47h", false, true, false);
	check_tracked_every_split("\x1b[\x1b[?47h", false, true, false);
	/* Any other final byte ends a sequence without a change. */
	check_tracked_every_split("\x1b[?1049$p\x1b[?6m", false, false, false);
	/* 32 parameter bytes are read; the 33rd ends the sequence unread. */
	check_tracked_every_split("\x1b[?;;;;;;;;;;;;;;;;;;;;;;;;;;;;1049h", false, true, false);
	check_tracked_every_split("\x1b[?;;;;;;;;;;;;;;;;;;;;;;;;;;;;;1049h", false, false, false);
	check_tracked_every_split("\x1b[?;;;;;;;;;;;;;;;;;;;;;;;;;;;;;1049h", true, true, false);
	/* The last of several switches wins. */
	check_tracked_every_split("\x1b[?1049h\x1b[?47l\x1b[?1047h\x1b[?6h\x1b[?6l\x1b[?6h", false, true, true);
}

void
test_paint(void)
{
	struct buf b;

	buf_init(&b, 1 << 20);
	test_paint_input_modes(&b);
	test_paint_snapshot_and_view(&b);
	test_paint_leave_and_status(&b);
	buf_free(&b);
	test_paint_full_buffer();
	test_paint_tracker();
}
