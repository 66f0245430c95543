/*
 * overlays.c -- the rows `tend attach` draws over the session's screen, for
 * a while: the hint on entry, the read-only marker, the notice that the
 * screen is incomplete (src/cli/attach/screen-overlays.ts and overlay.ts,
 * the same texts, timings and rules; the panels are the TypeScript viewer's,
 * which this one hands off to). tend keeps no status line: the session gets
 * every row, so what is drawn must go again, and the server repaints the
 * screen after it (the attach asks, when a function here returns true).
 *
 * The notice holds the stream back until that repaint (output would scroll
 * the drawn row into the outer scrollback). The hint and the marker, shown
 * on every attach and every key typed read-only, must not cost a row of
 * history: they give way -- their row blanked before the output is written,
 * the repaint after puts it back. The attach's status line (paint.c's:
 * "reconnecting…", typing refused) gives way the same way
 * (overlays_status_give_way).
 */
#include <stdio.h>
#include <string.h>

#include "viewer.h"

/* How long the hint on entry stays if no output or key ends it sooner. */
#define HINT_SHOW_MS 4000
/* How long the notice that the screen is incomplete stays (a key ends it sooner). */
#define NOTICE_SHOW_MS 4000
/* How long the read-only marker stays after the last key typed into a read-only attach. */
#define READ_ONLY_MARKER_SHOW_MS 3000

const char OVERLAY_DEGRADED_NOTICE[] = "tend: part of this session's output was lost; the screen is incomplete";

/*
 * Columns a character takes (overlay.ts's columnsOf): 2 for the wide
 * ranges, 0 for combining marks and controls, else 1. Approximate, and
 * erring wide is harmless: a row cut a column early never wraps.
 */
static int
columns_of(uint32_t code)
{
	if (code < 0x20 || (code >= 0x7f && code < 0xa0))
		return 0;
	if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) ||
	    (code >= 0xfe00 && code <= 0xfe0f))
		return 0;
	if ((code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
	    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
	    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
	    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
	    (code >= 0x20000 && code <= 0x3fffd))
		return 2;
	return 1;
}

/* One UTF-8 character at p (n bytes left): its code point and length; a stray byte is itself, one byte. */
static size_t
utf8_next(const uint8_t *p, size_t n, uint32_t *code)
{
	size_t need = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t c;

	if (need <= 1 || need > n) {
		*code = p[0] < 0x80 ? p[0] : 0xfffd;
		return 1;
	}
	c = p[0] & (0x7f >> need);
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*code = 0xfffd;
			return 1;
		}
		c = (c << 6) | (p[i] & 0x3f);
	}
	*code = c;
	return need;
}

int
overlay_fit_columns(struct buf *out, const char *text, int width)
{
	const uint8_t *p = (const uint8_t *)text;
	size_t n = strlen(text);
	int used = 0;

	while (n > 0) {
		uint32_t code;
		size_t len = utf8_next(p, n, &code);
		int w = columns_of(code);

		if (used + w > width)
			break;
		/* Control characters are left out; combining marks (also 0 wide) are kept. */
		if (!(w == 0 && (code < 0x20 || (code >= 0x7f && code < 0xa0))) && buf_append(out, p, len) != 0)
			return -1;
		used += w;
		p += len;
		n -= len;
	}
	for (; used < width; used++)
		if (buf_append(out, " ", 1) != 0)
			return -1;
	return 0;
}

int
overlay_draw_line(struct buf *out, const char *text, int cols, int rows)
{
	int width = cols > 1 ? cols - 1 : 0;

	/* Cursor, pen and charsets saved and put back; the text in ASCII G0, reverse video, never to the last column. */
	if (buf_printf(out, "\x1b" "7\x1b(B\x0f\x1b[%d;1H\x1b[0;7m", rows) != 0 ||
	    overlay_fit_columns(out, text, width) != 0 ||
	    buf_appends(out, "\x1b[0m\x1b[K\x1b" "8") != 0)
		return -1;
	return 0;
}

int
overlay_erase(struct buf *out, int count, int cols, int rows)
{
	(void)cols;
	if (buf_appends(out, "\x1b" "7") != 0)
		return -1;
	for (int row = rows - count + 1 > 1 ? rows - count + 1 : 1; row <= rows; row++)
		if (buf_printf(out, "\x1b[%d;1H\x1b[0m\x1b[2K", row) != 0)
			return -1;
	return buf_appends(out, "\x1b" "8");
}

void
overlays_init(struct overlays *ov, bool read_only, int prefix, const char *label)
{
	memset(ov, 0, sizeof *ov);
	ov->kind = OV_NONE;
	ov->read_only = read_only;
	detach_key_describe(prefix, ov->prefix, sizeof ov->prefix);
	snprintf(ov->label, sizeof ov->label, "%s", label);
}

static void
ov_clear(struct overlays *ov)
{
	ov->deadline_ms = 0;
	ov->kind = OV_NONE;
}

static void
ov_draw(struct overlays *ov, struct buf *out, int cols, int rows)
{
	char text[OVERLAY_TEXT_BYTES];

	switch (ov->kind) {
	case OV_NONE:
		return;
	case OV_HINT:
		snprintf(text, sizeof text, "tend: %s %s%s \xc2\xb7 %s d detaches, %s ? lists the keys",
		    ov->read_only ? "watching" : "attached to", ov->label, ov->read_only ? " read-only" : "",
		    ov->prefix, ov->prefix);
		break;
	case OV_READ_ONLY:
		snprintf(text, sizeof text, "tend: read-only: what you type is not sent to %s \xc2\xb7 %s d detaches",
		    ov->label, ov->prefix);
		break;
	case OV_NOTICE:
		snprintf(text, sizeof text, "%s", OVERLAY_DEGRADED_NOTICE);
		break;
	}
	if (ov->covered < 1 && rows >= 1)
		ov->covered = 1;
	overlay_draw_line(out, text, cols, rows);
}

static void
ov_show(struct overlays *ov, enum overlay_kind kind, struct buf *out, int cols, int rows, int64_t now_ms)
{
	ov_clear(ov);
	ov->kind = kind;
	ov_draw(ov, out, cols, rows);
	ov->deadline_ms = now_ms + (kind == OV_HINT ? HINT_SHOW_MS : kind == OV_NOTICE ? NOTICE_SHOW_MS : READ_ONLY_MARKER_SHOW_MS);
}

bool
overlays_gives_way(const struct overlays *ov)
{
	return ov->kind == OV_HINT || ov->kind == OV_READ_ONLY;
}

bool
overlays_repaint_owed(const struct overlays *ov)
{
	return ov->covered > 0 || ov->blanked;
}

void
overlays_painted(struct overlays *ov)
{
	if (ov->kind != OV_READ_ONLY)
		ov_clear(ov);
	ov->covered = 0;
	ov->blanked = false;
}

void
overlays_after_paint(struct overlays *ov, bool can_draw, struct buf *out, int cols, int rows, int64_t now_ms)
{
	if (ov->kind == OV_READ_ONLY) {
		ov_draw(ov, out, cols, rows);
		return;
	}
	if (ov->hint_given || !can_draw)
		return;
	ov->hint_given = true;
	ov_show(ov, OV_HINT, out, cols, rows, now_ms);
}

void
overlays_give_way(struct overlays *ov, struct buf *out, int cols, int rows)
{
	ov_clear(ov);
	overlay_erase(out, ov->covered, cols, rows);
	ov->covered = 0;
	ov->blanked = true;
}

void
overlays_status_give_way(struct overlays *ov, struct buf *out, int cols, int rows)
{
	overlay_erase(out, 1, cols, rows);
	ov->blanked = true;
}

/* Ends what is drawn (giving way first if it does); the caller repaints. */
static void
ov_end(struct overlays *ov, struct buf *out, int cols, int rows)
{
	if (overlays_gives_way(ov))
		overlays_give_way(ov, out, cols, rows);
	ov_clear(ov);
}

bool
overlays_key_typed(struct overlays *ov, struct buf *out, int cols, int rows)
{
	if (ov->kind == OV_NONE || ov->kind == OV_READ_ONLY)
		return false;
	ov_end(ov, out, cols, rows);
	return true;
}

void
overlays_show_notice(struct overlays *ov, struct buf *out, int cols, int rows, int64_t now_ms)
{
	ov_show(ov, OV_NOTICE, out, cols, rows, now_ms);
}

void
overlays_show_read_only_marker(struct overlays *ov, bool can_draw, struct buf *out, int cols, int rows, int64_t now_ms)
{
	if (!can_draw)
		return;
	if (ov->kind != OV_READ_ONLY) {
		ov_show(ov, OV_READ_ONLY, out, cols, rows, now_ms);
		return;
	}
	ov->deadline_ms = now_ms + READ_ONLY_MARKER_SHOW_MS;
}

bool
overlays_tick(struct overlays *ov, struct buf *out, int cols, int rows, int64_t now_ms)
{
	if (ov->kind == OV_NONE || ov->deadline_ms == 0 || now_ms < ov->deadline_ms)
		return false;
	ov_end(ov, out, cols, rows);
	return true;
}

void
overlays_leaving(struct overlays *ov, struct buf *out, int cols, int rows)
{
	ov_clear(ov);
	if (ov->covered > 0)
		overlay_erase(out, ov->covered, cols, rows);
}
