/*
 * paint.c -- what the viewer writes to the outer terminal besides the
 * session's own bytes: the repaint that applies a snapshot (or a view), the
 * input modes re-asserted after it, the status line drawn over the bottom
 * row, and what is written on leaving so the shell gets a sane terminal
 * back.  The same bytes as src/cli/attach/outer-modes.ts and
 * src/protocol/input-modes.ts, so the native viewer and the TypeScript one
 * can hand a terminal to each other mid-attach; a test holds the two
 * against each other.  Nothing here queries the terminal: an unanswered
 * query would hang an attach inside tmux or over a slow link.
 *
 * The alternate-screen tracker follows the streamed bytes for the two
 * modes a detach must know about (the alternate screen, origin mode), as a
 * state machine over bytes: a sequence split across reads is still seen.
 */
#include <string.h>

#include "viewer.h"

#define CSI "\x1b["

/* Every mouse reporting mode and encoding a program may have turned on, turned off. */
#define MOUSE_OFF CSI "?1003l" CSI "?1002l" CSI "?1000l" CSI "?9l" \
	CSI "?1016l" CSI "?1015l" CSI "?1006l" CSI "?1005l"
/* The input modes off, without the cursor's visibility (assertInputModes sets that itself). */
#define INPUT_MODES_OFF_KEEP_CURSOR MOUSE_OFF CSI "?2004l" CSI "?1004l" CSI "?1l" "\x1b>"
#define CURSOR_SHOWN CSI "?25h"

const char PAINT_INPUT_MODES_OFF[] = INPUT_MODES_OFF_KEEP_CURSOR CURSOR_SHOWN;

/* Scroll margins (left/right off, top/bottom the whole screen) and origin mode off; homes the cursor. */
#define RESET_MARGINS CSI "?69l" CSI "r" CSI "?6l"

/*
 * What the next printed character depends on, reset without moving the
 * cursor: the pen (tmux does not reset it on DECSTR), the G0-G3 charsets
 * and the shift (a program left in DEC line drawing would draw letters as
 * lines), autowrap on, insert mode off, reverse video off.
 */
#define RESET_PEN CSI "0m" "\x1b(B" "\x1b)B" "\x1b*B" "\x1b+B" "\x0f" \
	CSI "?7h" CSI "4l" CSI "?5l"

/* The cursor back to the terminal's default shape. */
#define CURSOR_STYLE_DEFAULT CSI "0 q"
/* Soft reset (DECSTR), for the terminals that honour it; each piece is reset on its own too. */
#define SOFT_RESET CSI "!p"
#define ALT_SCREEN_ON CSI "?1049h"
#define ALT_SCREEN_OFF CSI "?1049l"

/* Tab stops every 8 columns, as a terminal starts with. */
#define TAB_WIDTH_COLUMNS 8

/* The tracker's states (AltScreenTracker's 'ground' | 'esc' | 'csi' | 'private'). */
enum { TRACK_GROUND, TRACK_ESC, TRACK_CSI, TRACK_PRIVATE };

/* Cleared first, then one every 8 columns: a program may have set others. */
static int
paint_tab_stops(struct buf *out, int cols)
{
	if (buf_appends(out, CSI "3g") < 0)
		return -1;
	for (int col = 1 + TAB_WIDTH_COLUMNS; col <= cols; col += TAB_WIDTH_COLUMNS) {
		if (buf_printf(out, CSI "%dG\x1bH", col) < 0)
			return -1;
	}
	return 0;
}

/*
 * What moves the cursor when reset: scroll margins, origin mode, tab stops.
 * tmux (3.3a) does not honour DECSTR for margins, so each has its sequence.
 */
static int
paint_reset_layout(struct buf *out, int cols)
{
	if (buf_appends(out, RESET_MARGINS) < 0)
		return -1;
	return paint_tab_stops(out, cols);
}

/* inputModesOn: the modes that are on, turned on; those off are not mentioned. */
static int
paint_input_modes_on(struct buf *out, const struct screen_modes *m)
{
	static const int tracking_mode[] = {
		[MT_NONE] = 0, [MT_X10] = 9, [MT_VT200] = 1000, [MT_DRAG] = 1002, [MT_ANY] = 1003,
	};
	static const int encoding_mode[] = {
		[ME_UNKNOWN] = 0, [ME_DEFAULT] = 0, [ME_UTF8] = 1005, [ME_SGR] = 1006,
		[ME_URXVT] = 1015, [ME_SGR_PIXELS] = 1016,
	};
	int tracking = (unsigned)m->mouse_tracking <= MT_ANY ? tracking_mode[m->mouse_tracking] : 0;
	int encoding = (unsigned)m->mouse_encoding <= ME_SGR_PIXELS ? encoding_mode[m->mouse_encoding] : 0;

	if (tracking != 0 && buf_printf(out, CSI "?%dh", tracking) < 0)
		return -1;
	/* An encoding alone means nothing: no reports to encode. */
	if (tracking != 0 && encoding != 0 && buf_printf(out, CSI "?%dh", encoding) < 0)
		return -1;
	if (m->bracketed_paste && buf_appends(out, CSI "?2004h") < 0)
		return -1;
	if (m->send_focus && buf_appends(out, CSI "?1004h") < 0)
		return -1;
	if (m->app_cursor_keys && buf_appends(out, CSI "?1h") < 0)
		return -1;
	if (m->app_keypad && buf_appends(out, "\x1b=") < 0)
		return -1;
	if (m->cursor_hidden && buf_appends(out, CSI "?25l") < 0)
		return -1;
	return 0;
}

static int
paint_input_modes_unchecked(struct buf *out, const struct screen_modes *m)
{
	/* Off first (a mode the program dropped while we were away), then on as the snapshot says. */
	if (buf_appends(out, INPUT_MODES_OFF_KEEP_CURSOR) < 0)
		return -1;
	if (paint_input_modes_on(out, m) < 0)
		return -1;
	if (!m->cursor_hidden && buf_appends(out, CURSOR_SHOWN) < 0)
		return -1;
	return 0;
}

/*
 * The server renders a snapshot for a terminal fresh from a reset; a full
 * RIS would clear the scrollback in some terminals, so its state is set
 * piece by piece.  The screen is blanked by deleting its lines, not by ED 2:
 * tmux pushes a screen cleared with ED into the scrollback, which would put
 * every repaint's old screen into the history.
 */
static int
paint_snapshot_unchecked(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m,
    int outer_rows, int outer_cols, bool in_alt_screen, bool first)
{
	if (in_alt_screen && buf_appends(out, ALT_SCREEN_OFF) < 0)
		return -1;
	if (buf_appends(out, SOFT_RESET) < 0 || paint_reset_layout(out, outer_cols) < 0 ||
	    buf_appends(out, RESET_PEN) < 0 || buf_appends(out, PAINT_INPUT_MODES_OFF) < 0)
		return -1;
	/* The first paint scrolls the user's own screen up into the scrollback instead of erasing it. */
	if (first) {
		if (buf_printf(out, CSI "%d;1H", outer_rows) < 0)
			return -1;
		for (int i = 0; i < outer_rows; i++) {
			if (buf_append(out, "\n", 1) < 0)
				return -1;
		}
	}
	if (buf_printf(out, CSI "H" CSI "%dM", outer_rows) < 0)
		return -1;
	if (buf_append(out, data, len) < 0)
		return -1;
	return paint_input_modes_unchecked(out, m);
}

/*
 * A view is painted in the outer terminal's alternate screen, in place (it
 * addresses every row itself), after the state it needs is set: the stream
 * may have changed the pen, charsets, margins, origin or insert mode.  The
 * cursor is hidden while the rows are drawn.
 */
static int
paint_view_unchecked(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m, bool in_alt_screen)
{
	if (!in_alt_screen && buf_appends(out, ALT_SCREEN_ON) < 0)
		return -1;
	if (buf_appends(out, SOFT_RESET CSI "?25l" RESET_PEN RESET_MARGINS) < 0)
		return -1;
	if (buf_append(out, data, len) < 0)
		return -1;
	return paint_input_modes_unchecked(out, m);
}

/*
 * The cursor's place is kept across the resets that move it (DECSC/DECRC);
 * only with origin mode on is it lost, and then the fresh line is the last.
 */
static int
paint_leave_unchecked(struct buf *out, bool in_alt_screen, bool origin_mode, int cols, int rows)
{
	if (in_alt_screen && buf_appends(out, ALT_SCREEN_OFF) < 0)
		return -1;
	if (buf_appends(out, "\x1b" "7") < 0 || paint_reset_layout(out, cols) < 0 ||
	    buf_appends(out, "\x1b" "8") < 0)
		return -1;
	/* DECRC brought origin mode back if it was on; turning it off homes the cursor. */
	if (origin_mode && buf_printf(out, CSI "?6l" CSI "%d;1H", rows) < 0)
		return -1;
	return buf_appends(out, SOFT_RESET RESET_PEN INPUT_MODES_OFF_KEEP_CURSOR CURSOR_SHOWN
	    CURSOR_STYLE_DEFAULT "\r\n" CSI "J");
}

/* The bytes of the first `chars` characters of UTF-8 text (a character begins at a byte that is not 10xxxxxx). */
static size_t
paint_utf8_prefix_bytes(const char *text, int chars)
{
	size_t i = 0;
	int seen = 0;

	for (; text[i] != '\0'; i++) {
		if (((uint8_t)text[i] & 0xc0) == 0x80)
			continue;
		if (seen == chars)
			break;
		seen++;
	}
	return i;
}

/*
 * Drawn in ASCII charsets (a program may have left DEC line drawing in G0),
 * the cursor, pen and charsets put back after (DECSC/DECRC) so the stream
 * goes on as the program left it.  Cut to `cols` characters, not bytes.
 */
static int
paint_status_line_unchecked(struct buf *out, const char *text, int cols, int rows)
{
	size_t shown = paint_utf8_prefix_bytes(text, cols > 0 ? cols : 0);

	if (buf_printf(out, "\x1b" "7" CSI "%d;1H" "\x1b(B" "\x0f" CSI "0;7m", rows) < 0)
		return -1;
	if (buf_append(out, text, shown) < 0)
		return -1;
	return buf_appends(out, CSI "0m" CSI "K" "\x1b" "8");
}

void
alt_tracker_init(struct alt_tracker *t, bool active)
{
	t->state = TRACK_GROUND;
	t->params_len = 0;
	t->params_overflow = false;
	t->active = active;
	t->origin_mode = false;
}

static bool
alt_tracker_param_is(const char *p, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(p, name, n) == 0;
}

/* CSI ? Pm h or l: each parameter, exactly as written ("01049" is not 1049). */
static void
alt_tracker_mode_set(struct alt_tracker *t, bool on)
{
	size_t start = 0;

	for (size_t i = 0; i <= t->params_len; i++) {
		const char *p = t->params + start;
		size_t n = i - start;

		if (i < t->params_len && t->params[i] != ';')
			continue;
		if (alt_tracker_param_is(p, n, "1049") || alt_tracker_param_is(p, n, "1047") ||
		    alt_tracker_param_is(p, n, "47"))
			t->active = on;
		else if (alt_tracker_param_is(p, n, "6"))
			t->origin_mode = on;
		start = i + 1;
	}
}

static void
alt_tracker_byte(struct alt_tracker *t, uint8_t b)
{
	switch (t->state) {
	case TRACK_GROUND:
		if (b == 0x1b)
			t->state = TRACK_ESC;
		break;
	case TRACK_ESC:
		t->state = b == '[' ? TRACK_CSI : b == 0x1b ? TRACK_ESC : TRACK_GROUND;
		break;
	case TRACK_CSI:
		t->params_len = 0;
		t->state = b == '?' ? TRACK_PRIVATE : b == 0x1b ? TRACK_ESC : TRACK_GROUND;
		break;
	case TRACK_PRIVATE:
		if ((b >= '0' && b <= '9') || b == ';') {
			/* Bounded: a run of parameters this long is not a mode switch. */
			if (t->params_len < sizeof t->params)
				t->params[t->params_len++] = (char)b;
			else
				t->state = TRACK_GROUND;
		} else {
			if (b == 'h' || b == 'l')
				alt_tracker_mode_set(t, b == 'h');
			t->state = b == 0x1b ? TRACK_ESC : TRACK_GROUND;
		}
		break;
	}
}

void
alt_tracker_feed(struct alt_tracker *t, const uint8_t *p, size_t n)
{
	size_t i = 0;

	/* Most streamed bytes are text: skip to the next ESC at memchr's speed. */
	while (i < n) {
		if (t->state == TRACK_GROUND) {
			const uint8_t *esc = memchr(p + i, 0x1b, n - i);

			if (esc == NULL)
				return;
			i = (size_t)(esc - p);
		}
		alt_tracker_byte(t, p[i++]);
	}
}

/*
 * Each write is all or nothing: one that does not fit leaves `out` as it
 * was, so a half-written reset never reaches the terminal.
 */
static int
paint_rollback(struct buf *out, size_t len_before, int rc)
{
	if (rc < 0)
		out->len = len_before;
	return rc;
}

int
paint_input_modes(struct buf *out, const struct screen_modes *m)
{
	size_t before = out->len;

	return paint_rollback(out, before, paint_input_modes_unchecked(out, m));
}

int
paint_snapshot(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m,
    int outer_rows, int outer_cols, bool in_alt_screen, bool first)
{
	size_t before = out->len;

	return paint_rollback(out, before,
	    paint_snapshot_unchecked(out, data, len, m, outer_rows, outer_cols, in_alt_screen, first));
}

int
paint_view(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m, bool in_alt_screen)
{
	size_t before = out->len;

	return paint_rollback(out, before, paint_view_unchecked(out, data, len, m, in_alt_screen));
}

int
paint_leave(struct buf *out, bool in_alt_screen, bool origin_mode, int cols, int rows)
{
	size_t before = out->len;

	return paint_rollback(out, before, paint_leave_unchecked(out, in_alt_screen, origin_mode, cols, rows));
}

int
paint_status_line(struct buf *out, const char *text, int cols, int rows)
{
	size_t before = out->len;

	return paint_rollback(out, before, paint_status_line_unchecked(out, text, cols, rows));
}
