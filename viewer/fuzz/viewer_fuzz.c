/*
 * viewer_fuzz.c -- fuzz target for what the native viewer reads from the
 * server: the WebSocket reader (wire.c), the frame decoder (frames.c) and
 * the JSON reader (json.c).  All three take bytes a server (or anything
 * listening where the server should be) chose, so none may read past what
 * it was given, loop, or hand on a value that breaks its own rules.
 *
 * The first input byte picks what the rest is:
 *   odd   one server frame, decoded whole (and, when short, at every
 *         prefix), then written again from the decoded fields: the bytes
 *         must come back (a misread field shows here);
 *   even  a stream of WebSocket frames from the server, fed once whole and
 *         once in chunks whose sizes come from that first byte: both feeds
 *         must hand on the same messages and stop at the same error, and
 *         every message goes through the decoder as above.
 * Either way the same bytes go through json_string, json_number and
 * json_bool (the reply of a lookup, the home's lock), through the
 * encoders as a session id and as typed input, and through the typist's
 * reader as what a holder says (read whole and a byte at a time, which must
 * agree).  Any broken rule aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prefixes are decoded too for frames this short (cost is quadratic). */
#define PREFIX_DECODE_MAX_BYTES 512
#define MODE_FLAGS_KNOWN 0x1ff

static void
require(bool ok)
{
	if (!ok)
		abort();
}

static bool
inside(const void *p, size_t n, const uint8_t *msg, size_t len)
{
	const uint8_t *q = p;

	return n == 0 || (q >= msg && q <= msg + len && n <= (size_t)(msg + len - q));
}

/* ---------------------------------------------------------------- writing back */

static void
put(struct buf *b, uint64_t v, int bytes)
{
	uint8_t le[8];

	for (int i = 0; i < bytes; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	require(buf_append(b, le, (size_t)bytes) == 0);
}

static void
put_name(struct buf *b, const char *s, size_t n)
{
	put(b, n, 2);
	require(buf_append(b, s, n) == 0);
}

/* The frame's bytes from its decoded fields (the layout of viewer-frames.ts). */
static void
write_back(const struct server_frame *f, struct buf *b)
{
	const struct screen_modes *m;
	uint16_t flags;

	put(b, f->type, 1);
	put(b, f->channel, 4);
	switch (f->type) {
	case FT_WELCOME:
		put(b, f->u.welcome.protocol_version, 2);
		put_name(b, f->u.welcome.server_boot, f->u.welcome.server_boot_len);
		put_name(b, f->u.welcome.server_version, f->u.welcome.server_version_len);
		if (f->u.welcome.server_build != NULL)
			put_name(b, f->u.welcome.server_build, f->u.welcome.server_build_len);
		break;
	case FT_SNAPSHOT:
		m = &f->u.snapshot.modes;
		flags = (uint16_t)(m->cursor_hidden | m->alt_screen << 1 | m->app_cursor_keys << 2 |
		    m->app_keypad << 3 | m->bracketed_paste << 4 | m->send_focus << 5 |
		    m->origin_mode << 6 | m->insert_mode << 7 | m->wraparound << 8 |
		    (f->u.snapshot.view ? FRAME_SNAPSHOT_VIEW_FLAG : 0));
		put(b, f->u.snapshot.seq, 8);
		put(b, f->u.snapshot.cols, 2);
		put(b, f->u.snapshot.rows, 2);
		put(b, m->cursor_x, 2);
		put(b, m->cursor_y, 2);
		put(b, flags, 2);
		put(b, m->mouse_tracking, 1);
		put(b, m->mouse_encoding, 1);
		put_name(b, f->u.snapshot.boot, f->u.snapshot.boot_len);
		require(buf_append(b, f->u.snapshot.data, f->u.snapshot.data_len) == 0);
		break;
	case FT_DATA:
		put(b, f->u.data.seq, 8);
		require(buf_append(b, f->u.data.data, f->u.data.data_len) == 0);
		break;
	case FT_RESIZE:
		put(b, f->u.resize.cols, 2);
		put(b, f->u.resize.rows, 2);
		break;
	case FT_TITLE:
		require(buf_append(b, f->u.title.title, f->u.title.title_len) == 0);
		break;
	case FT_EXIT:
		put(b, (uint32_t)f->u.exit.code, 4);
		put(b, (uint32_t)f->u.exit.signal, 4);
		break;
	case FT_STATE:
		require(buf_append(b, f->u.state.json, f->u.state.json_len) == 0);
		break;
	case FT_ERROR:
		put(b, f->u.error.code, 2);
		require(buf_append(b, f->u.error.message, f->u.error.message_len) == 0);
		break;
	case FT_CLOSED:
		put(b, f->u.closed.reason, 1);
		require(buf_append(b, f->u.closed.message, f->u.closed.message_len) == 0);
		break;
	case FT_INPUT_TAKEN:
		put(b, f->u.input_taken.total, 8);
		break;
	case FT_INPUT_ROUTE:
		put_name(b, f->u.input_route.holder_socket, f->u.input_route.holder_socket_len);
		break;
	}
}

/* ---------------------------------------------------------------- decoding */

/* The rules a decoded frame keeps, whatever the bytes were. */
static void
check_frame(const uint8_t *msg, size_t len, const struct server_frame *f)
{
	require(len >= FRAME_HEADER_BYTES && f->type == msg[0] && (f->type & 0x80) != 0);
	switch (f->type) {
	case FT_WELCOME:
		require(f->channel == 0);
		require(inside(f->u.welcome.server_boot, f->u.welcome.server_boot_len, msg, len));
		require(inside(f->u.welcome.server_version, f->u.welcome.server_version_len, msg, len));
		require(f->u.welcome.server_boot_len <= FRAME_MAX_NAME_BYTES &&
		    f->u.welcome.server_version_len <= FRAME_MAX_NAME_BYTES);
		require(frame_utf8_valid((const uint8_t *)f->u.welcome.server_boot, f->u.welcome.server_boot_len));
		require(frame_utf8_valid((const uint8_t *)f->u.welcome.server_version, f->u.welcome.server_version_len));
		break;
	case FT_SNAPSHOT:
		require(f->u.snapshot.seq <= FRAME_MAX_SEQ);
		require(f->u.snapshot.cols >= 1 && f->u.snapshot.cols <= MAX_COLS);
		require(f->u.snapshot.rows >= 1 && f->u.snapshot.rows <= MAX_ROWS);
		require(f->u.snapshot.modes.mouse_tracking <= MT_ANY && f->u.snapshot.modes.mouse_encoding <= ME_SGR_PIXELS);
		require(inside(f->u.snapshot.boot, f->u.snapshot.boot_len, msg, len) && f->u.snapshot.boot_len <= FRAME_MAX_NAME_BYTES);
		require(f->u.snapshot.data + f->u.snapshot.data_len == msg + len);
		require(frame_utf8_valid(f->u.snapshot.data, f->u.snapshot.data_len));
		break;
	case FT_DATA:
		require(f->u.data.seq <= FRAME_MAX_SEQ);
		require(f->u.data.data == msg + 13 && f->u.data.data_len == len - 13);
		break;
	case FT_RESIZE:
		require(f->u.resize.cols >= 1 && f->u.resize.cols <= MAX_COLS);
		require(f->u.resize.rows >= 1 && f->u.resize.rows <= MAX_ROWS);
		break;
	case FT_TITLE:
		require(inside(f->u.title.title, f->u.title.title_len, msg, len));
		require(frame_utf8_valid((const uint8_t *)f->u.title.title, f->u.title.title_len));
		break;
	case FT_STATE:
		require(inside(f->u.state.json, f->u.state.json_len, msg, len) && f->u.state.json_len >= 2);
		break;
	case FT_ERROR:
		require(inside(f->u.error.message, f->u.error.message_len, msg, len));
		break;
	case FT_CLOSED:
		require(f->u.closed.reason >= CR_UNSUBSCRIBED && f->u.closed.reason <= CR_SERVER_SHUTDOWN);
		require(inside(f->u.closed.message, f->u.closed.message_len, msg, len));
		break;
	case FT_INPUT_TAKEN:
		require(f->u.input_taken.total <= FRAME_MAX_SEQ && len == 13);
		break;
	case FT_INPUT_ROUTE:
		require(inside(f->u.input_route.holder_socket, f->u.input_route.holder_socket_len, msg, len));
		require(len == FRAME_HEADER_BYTES + 2 + f->u.input_route.holder_socket_len);
		break;
	case FT_EXIT:
		require(len == 13);
		break;
	case FT_SCROLLBACK:
		require(len >= FRAME_HEADER_BYTES + 17);
		return;
	default:
		require(false);
	}
	/* Written back from its fields, the frame is the bytes it came from (unknown mode bits aside). */
	{
		struct buf b;

		buf_init(&b, len + 1);
		write_back(f, &b);
		/* WELCOME's fields after the build are a later server's, ignored by design: not written back. */
		require(f->type == FT_WELCOME ? b.len <= len : b.len == len);
		if (f->type == FT_SNAPSHOT) {
			require(memcmp(b.data, msg, 21) == 0 && memcmp(b.data + 23, msg + 23, len - 23) == 0);
			require((b.data[21] | b.data[22] << 8) == ((msg[21] | msg[22] << 8) & (MODE_FLAGS_KNOWN | FRAME_SNAPSHOT_VIEW_FLAG)));
		} else
			require(memcmp(b.data, msg, b.len) == 0);
		buf_free(&b);
	}
}

static void
decode_one(const uint8_t *msg, size_t len)
{
	struct server_frame f;
	char err[256];

	err[0] = '\0';
	if (frame_decode(msg, len, &f, err, sizeof err) == 0)
		check_frame(msg, len, &f);
	else
		require(err[0] != '\0');
}

static void
fuzz_decode(const uint8_t *data, size_t size)
{
	decode_one(data, size);
	if (size <= PREFIX_DECODE_MAX_BYTES)
		for (size_t n = 0; n < size; n++)
			decode_one(data, n);
}

/* ---------------------------------------------------------------- the stream */

/* What one feed handed on: a count and a running FNV-1a over lengths and bytes. */
struct seen {
	size_t messages;
	uint64_t digest;
};

static void
digest_add(struct seen *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->digest = (s->digest ^ p[i]) * UINT64_C(0x100000001b3);
}

static void
on_message(void *ctx, const uint8_t *msg, size_t len)
{
	struct seen *s = ctx;
	uint8_t len_le[8];

	require(msg != NULL && len <= WIRE_MAX_MESSAGE_BYTES);
	for (int i = 0; i < 8; i++)
		len_le[i] = (uint8_t)((uint64_t)len >> (8 * i));
	s->messages++;
	digest_add(s, len_le, sizeof len_le);
	digest_add(s, msg, len);
	decode_one(msg, len);
}

/* Feeds the stream in pieces of the sizes given (cycled); returns ws_feed's last answer. */
static int
feed(const uint8_t *data, size_t size, const size_t *sizes, size_t nsizes, struct seen *s, size_t *pongs_bytes)
{
	struct ws ws;
	char err[256];
	size_t at = 0, k = 0;
	int rc = 0;

	ws_init(&ws);
	s->messages = 0;
	s->digest = UINT64_C(0xcbf29ce484222325);
	while (at < size && rc == 0) {
		size_t piece = sizes[k++ % nsizes];

		if (piece > size - at)
			piece = size - at;
		err[0] = '\0';
		rc = ws_feed(&ws, data + at, piece, on_message, s, err, sizeof err);
		require(rc == 0 || (rc == -1 && err[0] != '\0'));
		at += piece;
	}
	*pongs_bytes = ws.out.len;
	ws_close(&ws);
	return rc;
}

static void
fuzz_stream(const uint8_t *data, size_t size, uint8_t chunking)
{
	/* Chunk sizes from the mode byte: one size, or a cycle that splits headers every way. */
	size_t whole[1] = { size > 0 ? size : 1 };
	size_t one[1] = { (size_t)(chunking % 23) + 1 };
	size_t cycle[5] = { 1, 2, (size_t)chunking % 7 + 3, 1, (size_t)chunking + 10 };
	struct seen a, b;
	size_t pongs_a, pongs_b;
	int rc_a, rc_b;

	rc_a = feed(data, size, whole, 1, &a, &pongs_a);
	rc_b = feed(data, size, chunking & 0x40 ? cycle : one, chunking & 0x40 ? 5 : 1, &b, &pongs_b);
	require(rc_a == rc_b && a.messages == b.messages && a.digest == b.digest);
	/* A pong is as long as its ping, however the ping arrived (its mask is random). */
	require(pongs_a == pongs_b);
}

/* ---------------------------------------------------------------- the typist's reader */

/* What the pieces of output added up to: their count, and a sum over offsets and bytes. */
struct piece_sum {
	uint64_t count, sum;
};

static void
sum_piece(void *ctx, uint64_t offset, const uint8_t *p, size_t n)
{
	struct piece_sum *s = ctx;

	require(n > 0 && n <= TYPIST_FRAME_MAX_BYTES);
	s->count++;
	s->sum = s->sum * 31 + offset;
	for (size_t i = 0; i < n; i++)
		s->sum = s->sum * 131 + p[i];
}

/* Feeds what a holder sent as reads of at most `step` bytes; the reader's answer, the count, the pieces. */
static int
typist_feed(const uint8_t *data, size_t size, size_t step, uint64_t *taken, struct piece_sum *pieces)
{
	static const uint8_t writer[WRITER_ID_BYTES] = { 0 };
	static struct typist t;
	static bool ready;
	char err[256];
	size_t at = 0;

	if (!ready) {
		typist_init(&t);
		ready = true;
	}
	typist_close(&t);
	t.on_piece = sum_piece;
	t.piece_ctx = pieces;
	*taken = 0;
	memset(pieces, 0, sizeof *pieces);
	while (at < size) {
		size_t room = sizeof t.in - t.in_len, n = size - at < step ? size - at : step;

		require(room > 0);
		if (n > room)
			n = room;
		memcpy(t.in + t.in_len, data + at, n);
		t.in_len += n;
		at += n;
		err[0] = '\0';
		if (typist_parse(&t, writer, taken, err, sizeof err) != 0) {
			require(err[0] != '\0');
			return -1;
		}
		require(t.in_len < sizeof t.in);
	}
	return 0;
}

static void
fuzz_typist(const uint8_t *data, size_t size)
{
	uint64_t whole, bytewise;
	struct piece_sum whole_pieces, bytewise_pieces;

	require(typist_feed(data, size, SIZE_MAX, &whole, &whole_pieces) == typist_feed(data, size, 1, &bytewise, &bytewise_pieces));
	require(whole == bytewise);
	require(whole_pieces.count == bytewise_pieces.count && whole_pieces.sum == bytewise_pieces.sum);
}

/* ---------------------------------------------------------------- JSON and encoders */

static void
fuzz_json(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "pid", "socket", "version", "id", "name", "" };
	static const size_t outlens[] = { 1, 8, 4096 };
	const char *text = (const char *)data;

	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		for (size_t o = 0; o < sizeof outlens / sizeof outlens[0]; o++) {
			char out[4096];
			bool is_null = false;
			int rc = json_string(text, size, keys[k], out, outlens[o], &is_null);

			require(rc >= -1 && rc <= 1);
			if (rc == 1)
				require(strnlen(out, outlens[o]) < outlens[o] && (!is_null || out[0] == '\0'));
		}
		{
			double number;
			bool flag, is_null;
			int rc = json_number(text, size, keys[k], &number, &is_null);

			require(rc >= -1 && rc <= 1);
			rc = json_bool(text, size, keys[k], &flag);
			require(rc >= -1 && rc <= 1);
		}
	}
}

/* The input as a session id and as typed bytes: the encoders take or refuse it whole. */
static void
fuzz_encoders(const uint8_t *data, size_t size)
{
	struct buf out;
	char *id = malloc(size + 1);
	size_t id_len;
	uint64_t at = 0;

	require(id != NULL);
	memcpy(id, data, size);
	id[size] = '\0';
	id_len = strlen(id);
	buf_init(&out, 4 * size + 64);
	if (frame_subscribe(&out, 1, id, NULL, 80, 24, NULL, true, false) == 0) {
		require(id_len <= FRAME_MAX_NAME_BYTES && frame_utf8_valid(data, id_len));
		require(out.len == FRAME_HEADER_BYTES + 15 + 2 + id_len);
		require(memcmp(out.data + out.len - id_len, id, id_len) == 0);
	} else
		require(out.len == 0 && (id_len > FRAME_MAX_NAME_BYTES || !frame_utf8_valid(data, id_len)));
	buf_clear(&out);
	/* The same bytes as a window key: 1 to FRAME_MAX_WINDOW_KEY_BYTES of UTF-8, last in the frame. */
	if (frame_subscribe(&out, 1, "s", id, 80, 24, NULL, false, false) == 0) {
		require(id_len >= 1 && id_len <= FRAME_MAX_WINDOW_KEY_BYTES && frame_utf8_valid(data, id_len));
		require(out.len == FRAME_HEADER_BYTES + 15 + 2 + 1 + 2 + id_len);
		require(memcmp(out.data + out.len - id_len, id, id_len) == 0);
	} else
		require(out.len == 0 && (id_len == 0 || id_len > FRAME_MAX_WINDOW_KEY_BYTES || !frame_utf8_valid(data, id_len)));
	free(id);
	buf_clear(&out);
	for (size_t i = 0; i < size && i < 8; i++)
		at = at << 8 | data[i];
	if (frame_input_at(&out, 2, at, data, size) == 0) {
		require(at <= FRAME_MAX_SEQ && size <= FRAME_MAX_SEQ - at);
		require(out.len == FRAME_HEADER_BYTES + 8 + size && (size == 0 || memcmp(out.data + 13, data, size) == 0));
	} else
		require(out.len == 0 && at > FRAME_MAX_SEQ - size);
	buf_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (size == 0)
		return 0;
	mode = data[0];
	data++;
	size--;
	if (mode & 1)
		fuzz_decode(data, size);
	else
		fuzz_stream(data, size, mode >> 1);
	fuzz_json(data, size);
	fuzz_encoders(data, size);
	fuzz_typist(data, size);
	return 0;
}
