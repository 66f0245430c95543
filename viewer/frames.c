/*
 * frames.c -- the viewer protocol's frames, no I/O: encoders for what a
 * viewer sends, a decoder for what the server sends.  The layout and every
 * check are those of src/protocol/viewer-frames.ts (docs/viewer-protocol.md
 * in prose), so a frame the TypeScript viewer refuses is refused here too:
 * lengths exact, seqs at most 2^53 - 1 (JavaScript's safe integers, which
 * the server counts in), names and texts valid UTF-8 (the TypeScript decoder
 * is fatal), sizes 1..1000, known mouse modes and close reasons, STATE a
 * JSON object, and a frame of the viewer's own direction never read as a
 * server's.  Decoded strings and bytes point into the message: nothing is
 * copied, so a DATA frame costs a header read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "viewer.h"

#define SERVER_DIRECTION_BIT 0x80
#define MIN_COLS 1
#define MIN_ROWS 1

/* SUBSCRIBE flags. */
#define SUBSCRIBE_RESUME 0x01
#define SUBSCRIBE_KEEPS_HISTORY 0x02
#define SUBSCRIBE_REPAINT 0x04
#define SUBSCRIBE_WINDOW 0x08

/* HELLO flags: read-only; WELCOME may carry the server's build (a server from before it ignores the bit). */
#define HELLO_READ_ONLY 0x01
#define HELLO_ASKS_BUILD 0x02
#define HELLO_TYPES_TO_HOLDER 0x04

/* SNAPSHOT mode flags (MODE_FLAG_BITS and SNAPSHOT_VIEW_FLAG). */
#define MODE_CURSOR_HIDDEN 0x001
#define MODE_ALT_SCREEN 0x002
#define MODE_APP_CURSOR_KEYS 0x004
#define MODE_APP_KEYPAD 0x008
#define MODE_BRACKETED_PASTE 0x010
#define MODE_SEND_FOCUS 0x020
#define MODE_ORIGIN 0x040
#define MODE_INSERT 0x080
#define MODE_WRAPAROUND 0x100

/*
 * JSON.parse takes any nesting; a STATE deeper than this is refused here
 * (the server's STATE is a flat object with small values, and the bit
 * stack below stays on the C stack).
 */
#define STATE_MAX_DEPTH 65536

/*
 * Whether n bytes are UTF-8 as a fatal TextDecoder takes it: no overlong
 * forms, no surrogates, nothing past U+10FFFF, no cut sequence.  ASCII runs
 * go eight bytes at a time (a snapshot is mostly ASCII).
 */
bool
frame_utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = p[i];

		if (c < 0x80) {
			uint64_t word;

			while (n - i >= 8) {
				memcpy(&word, p + i, 8);
				if (word & UINT64_C(0x8080808080808080))
					break;
				i += 8;
			}
			while (i < n && p[i] < 0x80)
				i++;
			continue;
		}
		size_t need;
		uint8_t lo = 0x80, hi = 0xbf;

		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else
			return false;
		if (n - i - 1 < need)
			return false;
		if (p[i + 1] < lo || p[i + 1] > hi)
			return false;
		for (size_t k = 2; k <= need; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
		i += need + 1;
	}
	return true;
}

/* ---------------------------------------------------------------- STATE */

static size_t
json_ws(const uint8_t *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool
is_hex(uint8_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string starting at p[i] == '"': the index after its closing quote, or 0. */
static size_t
json_skip_string(const uint8_t *p, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		uint8_t c = p[i];

		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (++i >= n)
			return 0;
		c = p[i];
		if (c == 'u') {
			if (n - i <= 4)
				return 0;
			for (int k = 1; k <= 4; k++)
				if (!is_hex(p[i + k]))
					return 0;
			i += 4;
		} else if (strchr("\"\\/bfnrt", c) == NULL || c == 0)
			return 0;
	}
	return 0;
}

/* A number, true, false or null at p[i]: the index after it, or 0. */
static size_t
json_skip_scalar(const uint8_t *p, size_t n, size_t i)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
		size_t len = strlen(words[w]);

		if (n - i >= len && memcmp(p + i, words[w], len) == 0)
			return i + len;
	}
	if (p[i] == '-')
		i++;
	if (i >= n || !is_digit(p[i]))
		return 0;
	if (p[i] == '0')
		i++;
	else
		while (i < n && is_digit(p[i]))
			i++;
	if (i < n && p[i] == '.') {
		if (++i >= n || !is_digit(p[i]))
			return 0;
		while (i < n && is_digit(p[i]))
			i++;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= n || !is_digit(p[i]))
			return 0;
		while (i < n && is_digit(p[i]))
			i++;
	}
	return i;
}

/*
 * Whether the text is one JSON object as JSON.parse reads it (whitespace
 * around it, nothing after).  Iterative, the open containers a stack of
 * bits (1: object), so no input recurses.
 */
static bool
json_object_valid(const uint8_t *p, size_t n)
{
	enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, AFTER } want = VALUE;
	uint8_t objects[STATE_MAX_DEPTH / 8];
	size_t depth = 0, i = json_ws(p, n, 0);

	if (i >= n || p[i] != '{')
		return false;
	for (;;) {
		i = json_ws(p, n, i);
		if (want == AFTER && depth == 0)
			return i == n;
		if (i >= n)
			return false;
		uint8_t c = p[i];
		bool in_object = depth > 0 && (objects[(depth - 1) / 8] >> ((depth - 1) % 8) & 1);

		switch (want) {
		case VALUE_OR_CLOSE:
		case VALUE:
			if (want == VALUE_OR_CLOSE && c == ']') {
				depth--;
				i++;
				want = AFTER;
			} else if (c == '{' || c == '[') {
				if (depth == STATE_MAX_DEPTH)
					return false;
				if (c == '{')
					objects[depth / 8] |= (uint8_t)(1u << (depth % 8));
				else
					objects[depth / 8] &= (uint8_t)~(1u << (depth % 8));
				depth++;
				i++;
				want = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
			} else if (c == '"') {
				if ((i = json_skip_string(p, n, i)) == 0)
					return false;
				want = AFTER;
			} else {
				if ((i = json_skip_scalar(p, n, i)) == 0)
					return false;
				want = AFTER;
			}
			break;
		case KEY_OR_CLOSE:
		case KEY:
			if (want == KEY_OR_CLOSE && c == '}') {
				depth--;
				i++;
				want = AFTER;
				break;
			}
			if (c != '"' || (i = json_skip_string(p, n, i)) == 0)
				return false;
			i = json_ws(p, n, i);
			if (i >= n || p[i] != ':')
				return false;
			i++;
			want = VALUE;
			break;
		case AFTER:
			if (c == ',') {
				i++;
				want = in_object ? KEY : VALUE;
			} else if (c == (in_object ? '}' : ']')) {
				depth--;
				i++;
			} else
				return false;
			break;
		}
	}
}

/* ---------------------------------------------------------------- decoding */

/* One frame's fields in order; every read checks the bytes are there first. */
struct reader {
	const uint8_t *p;
	size_t len, pos;
	uint8_t type;
	char *err;
	size_t errlen;
};

static int
bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->err != NULL && r->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int
need(struct reader *r, size_t n)
{
	if (r->len - r->pos < n)
		return bad(r, "0x%x frame is truncated: needs %zu bytes, has %zu",
		    r->type, r->pos + n, r->len);
	return 0;
}

static int
read_u8(struct reader *r, uint8_t *v)
{
	if (need(r, 1) < 0)
		return -1;
	*v = r->p[r->pos++];
	return 0;
}

static int
read_u16(struct reader *r, uint16_t *v)
{
	if (need(r, 2) < 0)
		return -1;
	*v = le_get_u16(r->p + r->pos);
	r->pos += 2;
	return 0;
}

static int
read_u32(struct reader *r, uint32_t *v)
{
	if (need(r, 4) < 0)
		return -1;
	*v = le_get_u32(r->p + r->pos);
	r->pos += 4;
	return 0;
}

static int
read_i32(struct reader *r, int32_t *v)
{
	uint32_t u;

	if (read_u32(r, &u) < 0)
		return -1;
	/* Two's complement by arithmetic, not by a cast the standard leaves open. */
	*v = u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
	return 0;
}

static int
read_seq(struct reader *r, uint64_t *v)
{
	if (need(r, 8) < 0)
		return -1;
	*v = le_get_u64(r->p + r->pos);
	r->pos += 8;
	if (*v > FRAME_MAX_SEQ)
		return bad(r, "0x%x seq is past 2^53 - 1", r->type);
	return 0;
}

static int
read_name(struct reader *r, const char *field, const char **s, size_t *n)
{
	uint16_t len;

	if (read_u16(r, &len) < 0)
		return -1;
	if (len > FRAME_MAX_NAME_BYTES)
		return bad(r, "0x%x %s is %u bytes, the limit is %d", r->type,
		    field, len, FRAME_MAX_NAME_BYTES);
	if (need(r, len) < 0)
		return -1;
	if (!frame_utf8_valid(r->p + r->pos, len))
		return bad(r, "0x%x %s is not valid UTF-8", r->type, field);
	*s = (const char *)r->p + r->pos;
	*n = len;
	r->pos += len;
	return 0;
}

/* The rest of the frame, as it is. */
static void
read_rest(struct reader *r, const uint8_t **p, size_t *n)
{
	*p = r->p + r->pos;
	*n = r->len - r->pos;
	r->pos = r->len;
}

static int
read_rest_text(struct reader *r, const char *field, const char **s, size_t *n)
{
	const uint8_t *p;

	read_rest(r, &p, n);
	if (!frame_utf8_valid(p, *n))
		return bad(r, "0x%x %s is not valid UTF-8", r->type, field);
	*s = (const char *)p;
	return 0;
}

static int
read_size(struct reader *r, uint16_t *cols, uint16_t *rows)
{
	if (read_u16(r, cols) < 0 || read_u16(r, rows) < 0)
		return -1;
	if (*cols < MIN_COLS || *cols > MAX_COLS || *rows < MIN_ROWS || *rows > MAX_ROWS)
		return bad(r, "size %ux%u is outside %d..%d x %d..%d", *cols,
		    *rows, MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS);
	return 0;
}

static int
decode_snapshot(struct reader *r, struct server_frame *f)
{
	struct screen_modes *m = &f->u.snapshot.modes;
	uint16_t flags;
	uint8_t tracking, encoding;
	const char *data = NULL;

	if (read_seq(r, &f->u.snapshot.seq) < 0 ||
	    read_size(r, &f->u.snapshot.cols, &f->u.snapshot.rows) < 0 ||
	    read_u16(r, &m->cursor_x) < 0 || read_u16(r, &m->cursor_y) < 0 ||
	    read_u16(r, &flags) < 0 || read_u8(r, &tracking) < 0 ||
	    read_u8(r, &encoding) < 0)
		return -1;
	if (tracking > MT_ANY || encoding > ME_SGR_PIXELS)
		return bad(r, "SNAPSHOT has an unknown mouse mode");
	m->mouse_tracking = (enum mouse_tracking)tracking;
	m->mouse_encoding = (enum mouse_encoding)encoding;
	m->cursor_hidden = flags & MODE_CURSOR_HIDDEN;
	m->alt_screen = flags & MODE_ALT_SCREEN;
	m->app_cursor_keys = flags & MODE_APP_CURSOR_KEYS;
	m->app_keypad = flags & MODE_APP_KEYPAD;
	m->bracketed_paste = flags & MODE_BRACKETED_PASTE;
	m->send_focus = flags & MODE_SEND_FOCUS;
	m->origin_mode = flags & MODE_ORIGIN;
	m->insert_mode = flags & MODE_INSERT;
	m->wraparound = flags & MODE_WRAPAROUND;
	f->u.snapshot.view = flags & FRAME_SNAPSHOT_VIEW_FLAG;
	if (read_name(r, "boot", &f->u.snapshot.boot, &f->u.snapshot.boot_len) < 0)
		return -1;
	if (read_rest_text(r, "screen data", &data, &f->u.snapshot.data_len) < 0)
		return -1;
	f->u.snapshot.data = (const uint8_t *)data;
	return 0;
}

/* SCROLLBACK: checked as the TypeScript decoder does, its fields dropped. */
static int
decode_scrollback(struct reader *r)
{
	uint64_t first_row;
	uint32_t rows, dropped;
	uint8_t flags;
	const char *text;
	size_t text_len;

	if (read_seq(r, &first_row) < 0 || read_u32(r, &rows) < 0 ||
	    read_u32(r, &dropped) < 0 || read_u8(r, &flags) < 0)
		return -1;
	return read_rest_text(r, "scrollback text", &text, &text_len);
}

static int
decode_payload(struct reader *r, struct server_frame *f)
{
	switch (f->type) {
	case FT_WELCOME: {
		uint16_t version;

		if (f->channel != 0)
			return bad(r, "WELCOME belongs to the socket and travels on channel 0, not %u", f->channel);
		if (read_u16(r, &version) < 0)
			return -1;
		f->u.welcome.protocol_version = version;
		if (read_name(r, "server boot", &f->u.welcome.server_boot, &f->u.welcome.server_boot_len) < 0 ||
		    read_name(r, "server version", &f->u.welcome.server_version, &f->u.welcome.server_version_len) < 0)
			return -1;
		/* The build, sent when the HELLO asked for it; fields a later server appends after it are ignored. */
		if (r->pos < r->len &&
		    read_name(r, "server build", &f->u.welcome.server_build, &f->u.welcome.server_build_len) < 0)
			return -1;
		r->pos = r->len;
		return 0;
	}
	case FT_SNAPSHOT:
		return decode_snapshot(r, f);
	case FT_DATA:
		if (read_seq(r, &f->u.data.seq) < 0)
			return -1;
		read_rest(r, &f->u.data.data, &f->u.data.data_len);
		return 0;
	case FT_RESIZE:
		return read_size(r, &f->u.resize.cols, &f->u.resize.rows);
	case FT_TITLE:
		return read_rest_text(r, "title", &f->u.title.title, &f->u.title.title_len);
	case FT_EXIT:
		if (read_i32(r, &f->u.exit.code) < 0 || read_i32(r, &f->u.exit.signal) < 0)
			return -1;
		return 0;
	case FT_STATE:
		if (read_rest_text(r, "state", &f->u.state.json, &f->u.state.json_len) < 0)
			return -1;
		if (!json_object_valid((const uint8_t *)f->u.state.json, f->u.state.json_len))
			return bad(r, "STATE is not a JSON object");
		return 0;
	case FT_ERROR:
		if (read_u16(r, &f->u.error.code) < 0)
			return -1;
		return read_rest_text(r, "message", &f->u.error.message, &f->u.error.message_len);
	case FT_CLOSED:
		if (read_u8(r, &f->u.closed.reason) < 0)
			return -1;
		if (f->u.closed.reason < CR_UNSUBSCRIBED || f->u.closed.reason > CR_SERVER_SHUTDOWN)
			return bad(r, "CLOSED has an unknown reason %u", f->u.closed.reason);
		return read_rest_text(r, "message", &f->u.closed.message, &f->u.closed.message_len);
	case FT_SCROLLBACK:
		return decode_scrollback(r);
	case FT_INPUT_TAKEN:
		return read_seq(r, &f->u.input_taken.total);
	case FT_INPUT_ROUTE:
		return read_name(r, "holder socket", &f->u.input_route.holder_socket, &f->u.input_route.holder_socket_len);
	default:
		return bad(r, "unknown server frame type 0x%x", f->type);
	}
}

int
frame_decode(const uint8_t *p, size_t len, struct server_frame *f, char *err, size_t errlen)
{
	struct reader r = { .p = p, .len = len, .err = err, .errlen = errlen };

	memset(f, 0, sizeof *f);
	if (len > WIRE_MAX_MESSAGE_BYTES)
		return bad(&r, "frame of %zu bytes is over the %u-byte limit", len, WIRE_MAX_MESSAGE_BYTES);
	if (len < FRAME_HEADER_BYTES)
		return bad(&r, "frame of %zu bytes is shorter than its %d-byte header", len, FRAME_HEADER_BYTES);
	r.type = p[0];
	if ((r.type & SERVER_DIRECTION_BIT) == 0)
		return bad(&r, "frame type 0x%x is sent by viewers, not by a server", r.type);
	f->type = r.type;
	f->channel = le_get_u32(p + 1);
	r.pos = FRAME_HEADER_BYTES;
	if (decode_payload(&r, f) < 0)
		return -1;
	if (r.pos != r.len)
		return bad(&r, "0x%x frame has %zu bytes too many", r.type, r.len - r.pos);
	return 0;
}

/* ---------------------------------------------------------------- encoding */

/*
 * Appends header + fixed fields + tail as one frame, or nothing: the
 * buffer is put back as it was when any append fails.
 */
static int
emit(struct buf *out, uint8_t type, uint32_t channel, const uint8_t *fields, size_t fields_len,
    const void *tail, size_t tail_len)
{
	uint8_t header[FRAME_HEADER_BYTES];
	size_t before = out->len;

	header[0] = type;
	le_put_u32(header + 1, channel);
	if (buf_append(out, header, sizeof header) < 0 ||
	    (fields_len > 0 && buf_append(out, fields, fields_len) < 0) ||
	    (tail_len > 0 && buf_append(out, tail, tail_len) < 0)) {
		out->len = before;
		return -1;
	}
	return 0;
}

static bool
size_ok(uint16_t cols, uint16_t rows)
{
	return cols >= MIN_COLS && cols <= MAX_COLS && rows >= MIN_ROWS && rows <= MAX_ROWS;
}

int
frame_hello(struct buf *out, bool read_only, bool asks_build, bool types_to_holder, const char *client_kind, const uint8_t writer[WRITER_ID_BYTES])
{
	static const char *const kinds[] = { "cli", "web", "script" };
	uint8_t fields[4 + WRITER_ID_BYTES];
	uint8_t kind = 0;

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (client_kind != NULL && strcmp(client_kind, kinds[i]) == 0)
			kind = (uint8_t)(i + 1);
	if (kind == 0)
		return -1;
	le_put_u16(fields, VIEWER_PROTOCOL_VERSION);
	fields[2] = kind;
	fields[3] = (read_only ? HELLO_READ_ONLY : 0) | (asks_build ? HELLO_ASKS_BUILD : 0) |
	    (types_to_holder ? HELLO_TYPES_TO_HOLDER : 0);
	if (writer != NULL)
		memcpy(fields + 4, writer, WRITER_ID_BYTES);
	return emit(out, FT_HELLO, 0, fields, writer != NULL ? sizeof fields : 4, NULL, 0);
}

int
frame_subscribe(struct buf *out, uint32_t channel, const char *session_id, const char *window, uint16_t cols, uint16_t rows,
    const struct resume_point *resume, bool keeps_history, bool repaint)
{
	/* u16 cols, u16 rows, u8 flags, u64 seq, then the boot name's length and bytes. */
	uint8_t fields[2 + 2 + 1 + 8 + 2 + sizeof resume->boot];
	uint8_t len_field[2];
	size_t boot_len = 0, id_len, window_len = 0, before = out->len;

	if (session_id == NULL || !size_ok(cols, rows))
		return -1;
	id_len = strlen(session_id);
	if (id_len > FRAME_MAX_NAME_BYTES || !frame_utf8_valid((const uint8_t *)session_id, id_len))
		return -1;
	if (window != NULL) {
		window_len = strlen(window);
		if (window_len == 0 || window_len > FRAME_MAX_WINDOW_KEY_BYTES || !frame_utf8_valid((const uint8_t *)window, window_len))
			return -1;
	}
	if (resume != NULL) {
		boot_len = strnlen(resume->boot, sizeof resume->boot);
		if (boot_len == sizeof resume->boot || resume->seq > FRAME_MAX_SEQ ||
		    !frame_utf8_valid((const uint8_t *)resume->boot, boot_len))
			return -1;
	}
	le_put_u16(fields, cols);
	le_put_u16(fields + 2, rows);
	fields[4] = (uint8_t)((resume != NULL ? SUBSCRIBE_RESUME : 0) |
	    (keeps_history ? SUBSCRIBE_KEEPS_HISTORY : 0) | (repaint ? SUBSCRIBE_REPAINT : 0) |
	    (window != NULL ? SUBSCRIBE_WINDOW : 0));
	le_put_u64(fields + 5, resume != NULL ? resume->seq : 0);
	le_put_u16(fields + 13, (uint16_t)boot_len);
	if (boot_len > 0)
		memcpy(fields + 15, resume->boot, boot_len);
	le_put_u16(len_field, (uint16_t)id_len);
	if (emit(out, FT_SUBSCRIBE, channel, fields, 15 + boot_len, len_field, 2) < 0)
		return -1;
	if (id_len > 0 && buf_append(out, session_id, id_len) < 0)
		goto undo;
	if (window != NULL) {
		le_put_u16(len_field, (uint16_t)window_len);
		if (buf_append(out, len_field, 2) < 0 || buf_append(out, window, window_len) < 0)
			goto undo;
	}
	return 0;
undo:
	out->len = before;
	return -1;
}

int
frame_unsubscribe(struct buf *out, uint32_t channel)
{
	return emit(out, FT_UNSUBSCRIBE, channel, NULL, 0, NULL, 0);
}

int
frame_input(struct buf *out, uint32_t channel, const uint8_t *data, size_t len)
{
	return emit(out, FT_INPUT, channel, NULL, 0, data, len);
}

int
frame_input_at(struct buf *out, uint32_t channel, uint64_t at, const uint8_t *data, size_t len)
{
	uint8_t fields[8];

	/* The server refuses bytes whose last position is not a safe integer. */
	if (at > FRAME_MAX_SEQ || len > FRAME_MAX_SEQ - at)
		return -1;
	le_put_u64(fields, at);
	return emit(out, FT_INPUT_AT, channel, fields, sizeof fields, data, len);
}

int
frame_resize_request(struct buf *out, uint32_t channel, uint16_t cols, uint16_t rows)
{
	uint8_t fields[4];

	if (!size_ok(cols, rows))
		return -1;
	le_put_u16(fields, cols);
	le_put_u16(fields + 2, rows);
	return emit(out, FT_RESIZE_REQUEST, channel, fields, sizeof fields, NULL, 0);
}

int
frame_ack(struct buf *out, uint32_t channel, uint64_t seq)
{
	uint8_t fields[8];

	if (seq > FRAME_MAX_SEQ)
		return -1;
	le_put_u64(fields, seq);
	return emit(out, FT_ACK, channel, fields, sizeof fields, NULL, 0);
}
