/*
 * test_frames.c -- the viewer protocol's frames in C: each encoder's exact
 * bytes (the layout of viewer-frames.ts, written out by hand here), each
 * server frame decoded from hand-built bytes, and the refusals the
 * TypeScript decoder makes (short, long, broken UTF-8, seq 2^53, a
 * viewer's frame from the server, unknown modes and reasons, STATE that is
 * not a JSON object).  Every prefix of every valid frame is decoded from a
 * buffer of exactly that size, so under ASan a read past the end fails.
 * test/viewer-native/frames.test.ts holds the same codec against the
 * TypeScript one, frame by frame.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../viewer.h"

#define FRAME_CAP_BYTES (1024 * 1024)

/* A frame written field by field, as the test spells it out. */
struct built {
	uint8_t bytes[64 * 1024];
	size_t len;
};

static void
b_u8(struct built *b, uint8_t v)
{
	b->bytes[b->len++] = v;
}

static void
b_u16(struct built *b, uint16_t v)
{
	b_u8(b, (uint8_t)v);
	b_u8(b, (uint8_t)(v >> 8));
}

static void
b_u32(struct built *b, uint32_t v)
{
	b_u16(b, (uint16_t)v);
	b_u16(b, (uint16_t)(v >> 16));
}

static void
b_u64(struct built *b, uint64_t v)
{
	b_u32(b, (uint32_t)v);
	b_u32(b, (uint32_t)(v >> 32));
}

static void
b_raw(struct built *b, const void *p, size_t n)
{
	memcpy(b->bytes + b->len, p, n);
	b->len += n;
}

static void
b_name(struct built *b, const char *s)
{
	b_u16(b, (uint16_t)strlen(s));
	b_raw(b, s, strlen(s));
}

static void
b_header(struct built *b, uint8_t type, uint32_t channel)
{
	b->len = 0;
	b_u8(b, type);
	b_u32(b, channel);
}

static int
same_bytes(const struct buf *out, const struct built *want)
{
	return out->len == want->len && memcmp(out->data, want->bytes, want->len) == 0;
}

static int
same_text(const char *p, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(p, want, n) == 0;
}

/*
 * The message last decoded: a heap copy of exactly its length, so ASan sees
 * any read past it; kept until the next decode, as the decoded frame points
 * into it.
 */
static uint8_t *last_message;

static int
decode_exact(const uint8_t *p, size_t len, struct server_frame *f, char *err, size_t errlen)
{
	free(last_message);
	last_message = malloc(len > 0 ? len : 1);
	memcpy(last_message, p, len);
	return frame_decode(last_message, len, f, err, errlen);
}

static int
decodes(const struct built *b, struct server_frame *f)
{
	char err[256];

	return decode_exact(b->bytes, b->len, f, err, sizeof err) == 0;
}

static int
refused(const struct built *b)
{
	struct server_frame f;
	char err[256] = "";
	int rc = decode_exact(b->bytes, b->len, &f, err, sizeof err);

	return rc == -1 && err[0] != '\0';
}

/*
 * Every prefix of a valid frame, from an exact-size copy: those shorter
 * than its fixed fields (everything before a text or bytes that run to the
 * end) are refused; the longer ones are read without reading past them.
 */
static void
check_prefixes(const struct built *b, size_t fixed_len)
{
	struct server_frame f;
	char err[256];
	int accepted_short = 0;

	for (size_t n = 0; n < b->len; n++)
		if (decode_exact(b->bytes, n, &f, err, sizeof err) == 0 && n < fixed_len)
			accepted_short++;
	CHECK(accepted_short == 0);
}

/* ---------------------------------------------------------------- encoders */

static void
test_encode_hello(void)
{
	struct buf out;
	struct built want;
	uint8_t writer[WRITER_ID_BYTES];

	for (int i = 0; i < WRITER_ID_BYTES; i++)
		writer[i] = (uint8_t)(0xa0 + i);
	buf_init(&out, FRAME_CAP_BYTES);
	CHECK(frame_hello(&out, false, false, false, "cli", writer) == 0);
	b_header(&want, FT_HELLO, 0);
	b_u16(&want, 2);
	b_u8(&want, 1);
	b_u8(&want, 0);
	b_raw(&want, writer, sizeof writer);
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_hello(&out, true, false, false, "script", NULL) == 0);
	b_header(&want, FT_HELLO, 0);
	b_u16(&want, 2);
	b_u8(&want, 3);
	b_u8(&want, 0x01);
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_hello(&out, false, false, false, "web", writer) == 0);
	CHECK(out.len == 5 + 4 + WRITER_ID_BYTES && out.data[7] == 2);

	/* Asking for the server's build is flag 0x02, beside read-only. */
	buf_clear(&out);
	CHECK(frame_hello(&out, true, true, false, "cli", writer) == 0);
	CHECK(out.len == 5 + 4 + WRITER_ID_BYTES && out.data[8] == (0x01 | 0x02));
	buf_clear(&out);
	CHECK(frame_hello(&out, false, true, false, "cli", NULL) == 0);
	CHECK(out.len == 5 + 4 && out.data[8] == 0x02);

	buf_clear(&out);
	CHECK(frame_hello(&out, false, false, false, "tty", writer) == -1);
	CHECK(frame_hello(&out, false, false, false, NULL, writer) == -1);
	CHECK(out.len == 0);
	buf_free(&out);
}

static void
test_encode_subscribe(void)
{
	struct buf out;
	struct built want;
	struct resume_point resume = { .boot = "b0", .seq = 0x123456789aULL };
	char long_id[FRAME_MAX_NAME_BYTES + 2];

	buf_init(&out, FRAME_CAP_BYTES);
	CHECK(frame_subscribe(&out, 7, "s1", NULL, 80, 24, &resume, true, true) == 0);
	b_header(&want, FT_SUBSCRIBE, 7);
	b_u16(&want, 80);
	b_u16(&want, 24);
	b_u8(&want, 0x01 | 0x02 | 0x04);
	b_u64(&want, 0x123456789aULL);
	b_name(&want, "b0");
	b_name(&want, "s1");
	CHECK(same_bytes(&out, &want));

	/* No resume point: no flag, a zero seq and an empty stream name, as TS writes it. */
	buf_clear(&out);
	CHECK(frame_subscribe(&out, 1, "w\xc3\xa9", NULL, 1000, 1, NULL, false, false) == 0);
	b_header(&want, FT_SUBSCRIBE, 1);
	b_u16(&want, 1000);
	b_u16(&want, 1);
	b_u8(&want, 0);
	b_u64(&want, 0);
	b_name(&want, "");
	b_name(&want, "w\xc3\xa9");
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_subscribe(&out, 1, "s", NULL, 80, 24, NULL, true, false) == 0);
	CHECK(out.len == 5 + 15 + 3 && out.data[9] == 0x02);

	/* Refusals leave the buffer as it was. */
	buf_clear(&out);
	CHECK(frame_subscribe(&out, 1, "s", NULL, 0, 24, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, "s", NULL, 1001, 24, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, "s", NULL, 80, 0, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, "s", NULL, 80, 1001, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, "\xff", NULL, 80, 24, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, NULL, NULL, 80, 24, NULL, false, false) == -1);
	resume.seq = FRAME_MAX_SEQ + 1;
	CHECK(frame_subscribe(&out, 1, "s", NULL, 80, 24, &resume, false, false) == -1);
	memset(long_id, 'x', sizeof long_id);
	long_id[FRAME_MAX_NAME_BYTES + 1] = '\0';
	CHECK(frame_subscribe(&out, 1, long_id, NULL, 80, 24, NULL, false, false) == -1);
	CHECK(out.len == 0);
	long_id[FRAME_MAX_NAME_BYTES] = '\0';
	resume.seq = FRAME_MAX_SEQ;
	CHECK(frame_subscribe(&out, 1, long_id, NULL, 80, 24, &resume, false, false) == 0);
	CHECK(out.len == 5 + 15 + 2 + 2 + FRAME_MAX_NAME_BYTES);

	/* A window key: the WINDOW flag, and the key as a name after the session's (TS's golden frame). */
	buf_clear(&out);
	CHECK(frame_subscribe(&out, 1, "ab", "w", 80, 24, NULL, true, false) == 0);
	b_header(&want, FT_SUBSCRIBE, 1);
	b_u16(&want, 80);
	b_u16(&want, 24);
	b_u8(&want, 0x02 | 0x08);
	b_u64(&want, 0);
	b_name(&want, "");
	b_name(&want, "ab");
	b_name(&want, "w");
	CHECK(same_bytes(&out, &want));
	/* Empty, too long, or not UTF-8: refused, the buffer as it was. */
	buf_clear(&out);
	CHECK(frame_subscribe(&out, 1, "s", "", 80, 24, NULL, false, false) == -1);
	CHECK(frame_subscribe(&out, 1, "s", "\xff", 80, 24, NULL, false, false) == -1);
	long_id[FRAME_MAX_WINDOW_KEY_BYTES + 1] = '\0';
	CHECK(frame_subscribe(&out, 1, "s", long_id, 80, 24, NULL, false, false) == -1);
	CHECK(out.len == 0);
	long_id[FRAME_MAX_WINDOW_KEY_BYTES] = '\0';
	CHECK(frame_subscribe(&out, 1, "s", long_id, 80, 24, NULL, false, false) == 0);
	CHECK(out.len == 5 + 15 + 2 + 1 + 2 + FRAME_MAX_WINDOW_KEY_BYTES);
	buf_free(&out);
}

static void
test_encode_small_frames(void)
{
	struct buf out;
	struct built want;
	const uint8_t typed[] = { 'l', 's', 0xe2, 0x82, 0xac, '\r' };

	buf_init(&out, FRAME_CAP_BYTES);
	CHECK(frame_unsubscribe(&out, 0xfffffffeu) == 0);
	b_header(&want, FT_UNSUBSCRIBE, 0xfffffffeu);
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_input(&out, 3, typed, sizeof typed) == 0);
	b_header(&want, FT_INPUT, 3);
	b_raw(&want, typed, sizeof typed);
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_input(&out, 3, NULL, 0) == 0);
	b_header(&want, FT_INPUT, 3);
	CHECK(same_bytes(&out, &want));

	buf_clear(&out);
	CHECK(frame_input_at(&out, 2, 0x0102030405ULL, typed, sizeof typed) == 0);
	b_header(&want, FT_INPUT_AT, 2);
	b_u64(&want, 0x0102030405ULL);
	b_raw(&want, typed, sizeof typed);
	CHECK(same_bytes(&out, &want));

	/* Only asks for INPUT_TAKEN: no bytes, even at the last safe position. */
	buf_clear(&out);
	CHECK(frame_input_at(&out, 2, FRAME_MAX_SEQ, NULL, 0) == 0);
	b_header(&want, FT_INPUT_AT, 2);
	b_u64(&want, FRAME_MAX_SEQ);
	CHECK(same_bytes(&out, &want));
	buf_clear(&out);
	CHECK(frame_input_at(&out, 2, FRAME_MAX_SEQ, typed, 1) == -1);
	CHECK(frame_input_at(&out, 2, FRAME_MAX_SEQ + 1, NULL, 0) == -1);
	CHECK(out.len == 0);

	CHECK(frame_resize_request(&out, 9, 132, 50) == 0);
	b_header(&want, FT_RESIZE_REQUEST, 9);
	b_u16(&want, 132);
	b_u16(&want, 50);
	CHECK(same_bytes(&out, &want));
	buf_clear(&out);
	CHECK(frame_resize_request(&out, 9, 0, 50) == -1);
	CHECK(frame_resize_request(&out, 9, 80, 1001) == -1);

	CHECK(frame_ack(&out, 1, FRAME_MAX_SEQ) == 0);
	b_header(&want, FT_ACK, 1);
	b_u64(&want, FRAME_MAX_SEQ);
	CHECK(same_bytes(&out, &want));
	buf_clear(&out);
	CHECK(frame_ack(&out, 1, FRAME_MAX_SEQ + 1) == -1);
	CHECK(frame_ack(&out, 1, UINT64_MAX) == -1);
	CHECK(out.len == 0);
	buf_free(&out);
}

/* A frame that does not fit the buffer's cap appends nothing; frames before it stay. */
static void
test_encode_cap(void)
{
	struct buf out;
	uint8_t data[64] = { 0 };

	buf_init(&out, 40);
	CHECK(frame_ack(&out, 1, 5) == 0);
	CHECK(out.len == 13);
	CHECK(frame_input(&out, 1, data, sizeof data) == -1);
	CHECK(out.len == 13);
	CHECK(frame_subscribe(&out, 1, "a-session-id-longer-than-the-room-left", NULL, 80, 24, NULL, false, false) == -1);
	CHECK(out.len == 13);
	CHECK(frame_input(&out, 1, data, 40 - 13 - 5) == 0);
	CHECK(out.len == 40);
	CHECK(frame_unsubscribe(&out, 1) == -1);
	CHECK(out.len == 40);
	buf_free(&out);
}

/* ---------------------------------------------------------------- decoder */

static void
build_welcome(struct built *b)
{
	b_header(b, FT_WELCOME, 0);
	b_u16(b, 2);
	b_name(b, "boot-\xe2\x9c\x93");
	b_name(b, "0.9.1");
}

static void
build_snapshot(struct built *b, uint16_t flags, const char *data)
{
	b_header(b, FT_SNAPSHOT, 4);
	b_u64(b, FRAME_MAX_SEQ);
	b_u16(b, 120);
	b_u16(b, 40);
	b_u16(b, 7);
	b_u16(b, 39);
	b_u16(b, flags);
	b_u8(b, MT_ANY);
	b_u8(b, ME_SGR_PIXELS);
	b_name(b, "h-1");
	b_raw(b, data, strlen(data));
}

static void
test_decode_welcome(void)
{
	struct built b;
	struct server_frame f;

	build_welcome(&b);
	CHECK(decodes(&b, &f));
	CHECK(f.type == FT_WELCOME && f.channel == 0 && f.u.welcome.protocol_version == 2);
	CHECK(same_text(f.u.welcome.server_boot, f.u.welcome.server_boot_len, "boot-\xe2\x9c\x93"));
	CHECK(same_text(f.u.welcome.server_version, f.u.welcome.server_version_len, "0.9.1"));
	/* Pointers into the message, not copies. */
	CHECK(f.u.welcome.server_boot != NULL);
	/* No build: a server from before build ids, or a HELLO that did not ask. */
	CHECK(f.u.welcome.server_build == NULL && f.u.welcome.server_build_len == 0);
	check_prefixes(&b, b.len);

	b.bytes[1] = 1;		/* channel 1: WELCOME belongs to the socket */
	CHECK(refused(&b));
	build_welcome(&b);
	b_u8(&b, 0);		/* one byte: no whole build name */
	CHECK(refused(&b));

	/* The build after the version; what a later server appends after it is ignored. */
	build_welcome(&b);
	b_name(&b, "0e099afa7fc7de7d");
	CHECK(decodes(&b, &f));
	CHECK(same_text(f.u.welcome.server_build, f.u.welcome.server_build_len, "0e099afa7fc7de7d"));
	b_u8(&b, 7);
	b_name(&b, "later");
	CHECK(decodes(&b, &f));
	CHECK(same_text(f.u.welcome.server_build, f.u.welcome.server_build_len, "0e099afa7fc7de7d"));
	build_welcome(&b);
	b_name(&b, "\xc0\xaf");	/* a build that is not UTF-8 */
	CHECK(refused(&b));

	/* A name of 1024 bytes is taken, 1025 refused before it is read. */
	{
		char name[FRAME_MAX_NAME_BYTES + 2];

		memset(name, 'n', sizeof name);
		name[FRAME_MAX_NAME_BYTES] = '\0';
		b_header(&b, FT_WELCOME, 0);
		b_u16(&b, 2);
		b_name(&b, name);
		b_name(&b, "");
		CHECK(decodes(&b, &f) && f.u.welcome.server_boot_len == FRAME_MAX_NAME_BYTES &&
		    f.u.welcome.server_version_len == 0);
		name[FRAME_MAX_NAME_BYTES] = 'n';
		name[FRAME_MAX_NAME_BYTES + 1] = '\0';
		b_header(&b, FT_WELCOME, 0);
		b_u16(&b, 2);
		b_name(&b, name);
		b_name(&b, "");
		CHECK(refused(&b));
	}
	/* Broken UTF-8 in a name: a truncated sequence, a surrogate, an overlong slash. */
	b_header(&b, FT_WELCOME, 0);
	b_u16(&b, 2);
	b_name(&b, "\xe2\x9c");
	b_name(&b, "v");
	CHECK(refused(&b));
	b_header(&b, FT_WELCOME, 0);
	b_u16(&b, 2);
	b_name(&b, "b");
	b_name(&b, "\xed\xa0\x80");
	CHECK(refused(&b));
	b_header(&b, FT_WELCOME, 0);
	b_u16(&b, 2);
	b_name(&b, "\xc0\xaf");
	b_name(&b, "v");
	CHECK(refused(&b));
}

static void
test_decode_snapshot(void)
{
	struct built b;
	struct server_frame f;
	const struct screen_modes *m = &f.u.snapshot.modes;

	build_snapshot(&b, 0x1ff, "\x1b[1mhi\xe4\xb8\x80\r\n");
	CHECK(decodes(&b, &f));
	CHECK(f.type == FT_SNAPSHOT && f.channel == 4);
	CHECK(f.u.snapshot.seq == FRAME_MAX_SEQ && f.u.snapshot.cols == 120 && f.u.snapshot.rows == 40);
	CHECK(m->cursor_x == 7 && m->cursor_y == 39);
	CHECK(m->cursor_hidden && m->alt_screen && m->app_cursor_keys && m->app_keypad &&
	    m->bracketed_paste && m->send_focus && m->origin_mode && m->insert_mode && m->wraparound);
	CHECK(m->mouse_tracking == MT_ANY && m->mouse_encoding == ME_SGR_PIXELS);
	CHECK(!f.u.snapshot.view);
	CHECK(same_text(f.u.snapshot.boot, f.u.snapshot.boot_len, "h-1"));
	CHECK(same_text((const char *)f.u.snapshot.data, f.u.snapshot.data_len, "\x1b[1mhi\xe4\xb8\x80\r\n"));
	check_prefixes(&b, FRAME_HEADER_BYTES + 22 + 3);

	/* Each mode flag on its own, and the view flag. */
	{
		static const uint16_t bits[] = { 0x001, 0x002, 0x004, 0x008, 0x010, 0x020, 0x040, 0x080, 0x100 };
		int right = 0;

		for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
			build_snapshot(&b, bits[i], "");
			if (!decodes(&b, &f))
				continue;
			bool got[] = { m->cursor_hidden, m->alt_screen, m->app_cursor_keys, m->app_keypad,
			    m->bracketed_paste, m->send_focus, m->origin_mode, m->insert_mode, m->wraparound };
			int on = 0;

			for (size_t k = 0; k < sizeof got / sizeof got[0]; k++)
				on += got[k];
			right += on == 1 && got[i] && !f.u.snapshot.view;
		}
		CHECK(right == (int)(sizeof bits / sizeof bits[0]));
	}
	build_snapshot(&b, FRAME_SNAPSHOT_VIEW_FLAG | 0x100, "");
	CHECK(decodes(&b, &f) && f.u.snapshot.view && m->wraparound && !m->alt_screen);
	CHECK(f.u.snapshot.data_len == 0);
	/* Bits TS does not know are ignored, as TS ignores them. */
	build_snapshot(&b, 0xfc00, "x");
	CHECK(decodes(&b, &f) && !f.u.snapshot.view && !m->wraparound);

	/* Every mouse mode in range, the first out of range refused. */
	for (int t = MT_NONE; t <= MT_ANY + 1; t++) {
		build_snapshot(&b, 0, "");
		b.bytes[5 + 8 + 10] = (uint8_t)t;
		CHECK(t <= MT_ANY ? decodes(&b, &f) && m->mouse_tracking == (enum mouse_tracking)t : refused(&b));
	}
	for (int e = ME_UNKNOWN; e <= ME_SGR_PIXELS + 1; e++) {
		build_snapshot(&b, 0, "");
		b.bytes[5 + 8 + 11] = (uint8_t)e;
		CHECK(e <= ME_SGR_PIXELS ? decodes(&b, &f) && m->mouse_encoding == (enum mouse_encoding)e : refused(&b));
	}
	/* Sizes outside 1..1000, a seq of 2^53, broken UTF-8 in the screen data. */
	build_snapshot(&b, 0, "");
	b.bytes[5 + 8] = 0;
	b.bytes[5 + 9] = 0;
	CHECK(refused(&b));
	build_snapshot(&b, 0, "");
	b.bytes[5 + 10] = 0xe9;	/* rows 1001 */
	b.bytes[5 + 11] = 0x03;
	CHECK(refused(&b));
	build_snapshot(&b, 0, "");
	b.bytes[5 + 6] = 0x20;	/* seq 2^53 */
	b.bytes[5 + 0] = 0;
	b.bytes[5 + 1] = 0;
	b.bytes[5 + 2] = 0;
	b.bytes[5 + 3] = 0;
	b.bytes[5 + 4] = 0;
	b.bytes[5 + 5] = 0;
	CHECK(refused(&b));
	build_snapshot(&b, 0, "ok\xf4\x90\x80\x80");	/* past U+10FFFF */
	CHECK(refused(&b));
	/* A byte-order mark at the start of the data is text, kept. */
	build_snapshot(&b, 0, "\xef\xbb\xbfz");
	CHECK(decodes(&b, &f) && f.u.snapshot.data_len == 4);
}

static void
test_decode_data_and_fixed(void)
{
	struct built b;
	struct server_frame f;
	const uint8_t raw[] = { 0xff, 0x00, 0xc0, 0x1b };

	/* DATA bytes are raw: never judged as UTF-8. */
	b_header(&b, FT_DATA, 1);
	b_u64(&b, 1234567);
	b_raw(&b, raw, sizeof raw);
	CHECK(decodes(&b, &f) && f.type == FT_DATA && f.channel == 1 && f.u.data.seq == 1234567);
	CHECK(f.u.data.data_len == sizeof raw && memcmp(f.u.data.data, raw, sizeof raw) == 0);
	check_prefixes(&b, FRAME_HEADER_BYTES + 8);
	b_header(&b, FT_DATA, 1);
	b_u64(&b, 0);
	CHECK(decodes(&b, &f) && f.u.data.data_len == 0);
	b_header(&b, FT_DATA, 1);
	b_u64(&b, FRAME_MAX_SEQ + 1);
	CHECK(refused(&b));
	b_header(&b, FT_DATA, 1);
	b_u64(&b, UINT64_MAX);
	CHECK(refused(&b));

	b_header(&b, FT_RESIZE, 2);
	b_u16(&b, 1);
	b_u16(&b, 1000);
	CHECK(decodes(&b, &f) && f.u.resize.cols == 1 && f.u.resize.rows == 1000);
	check_prefixes(&b, b.len);
	b_u8(&b, 0);
	CHECK(refused(&b));
	b_header(&b, FT_RESIZE, 2);
	b_u16(&b, 1001);
	b_u16(&b, 1);
	CHECK(refused(&b));

	b_header(&b, FT_EXIT, 3);
	b_u32(&b, 0xffffffffu);
	b_u32(&b, 9);
	CHECK(decodes(&b, &f) && f.u.exit.code == -1 && f.u.exit.signal == 9);
	check_prefixes(&b, b.len);
	b_header(&b, FT_EXIT, 3);
	b_u32(&b, 0x80000000u);
	b_u32(&b, 0x7fffffffu);
	CHECK(decodes(&b, &f) && f.u.exit.code == INT32_MIN && f.u.exit.signal == INT32_MAX);
	b_u8(&b, 0);
	CHECK(refused(&b));

	b_header(&b, FT_INPUT_TAKEN, 5);
	b_u64(&b, FRAME_MAX_SEQ);
	CHECK(decodes(&b, &f) && f.type == FT_INPUT_TAKEN && f.u.input_taken.total == FRAME_MAX_SEQ);
	check_prefixes(&b, b.len);
	b_u8(&b, 0);
	CHECK(refused(&b));
	b_header(&b, FT_INPUT_TAKEN, 5);
	b_u64(&b, FRAME_MAX_SEQ + 1);
	CHECK(refused(&b));

	/* INPUT_ROUTE: a holder's socket, or none (through the server); nothing after it. */
	b_header(&b, FT_INPUT_ROUTE, 1);
	b_name(&b, "/run/tend/h/0123abcd.sock");
	CHECK(decodes(&b, &f) && f.type == FT_INPUT_ROUTE && f.u.input_route.holder_socket_len == 25 &&
	    memcmp(f.u.input_route.holder_socket, "/run/tend/h/0123abcd.sock", 25) == 0);
	check_prefixes(&b, b.len);
	b_u8(&b, 0);
	CHECK(refused(&b));
	b_header(&b, FT_INPUT_ROUTE, 1);
	b_name(&b, "");
	CHECK(decodes(&b, &f) && f.u.input_route.holder_socket_len == 0);
}

static void
test_decode_texts(void)
{
	struct built b;
	struct server_frame f;

	b_header(&b, FT_TITLE, 6);
	b_raw(&b, "vim \xf0\x9f\x98\x80", 8);
	CHECK(decodes(&b, &f) && same_text(f.u.title.title, f.u.title.title_len, "vim \xf0\x9f\x98\x80"));
	b_header(&b, FT_TITLE, 6);
	CHECK(decodes(&b, &f) && f.u.title.title_len == 0);
	b_header(&b, FT_TITLE, 6);
	b_raw(&b, "vim \xf0\x9f\x98", 7);
	CHECK(refused(&b));

	b_header(&b, FT_ERROR, 0);
	b_u16(&b, VE_NO_SUCH_SESSION);
	b_raw(&b, "no session x", 12);
	CHECK(decodes(&b, &f) && f.u.error.code == VE_NO_SUCH_SESSION &&
	    same_text(f.u.error.message, f.u.error.message_len, "no session x"));
	check_prefixes(&b, FRAME_HEADER_BYTES + 2);
	b_header(&b, FT_ERROR, 0);
	b_u16(&b, 0xffff);
	CHECK(decodes(&b, &f) && f.u.error.code == 0xffff && f.u.error.message_len == 0);
	b_header(&b, FT_ERROR, 0);
	b_u16(&b, 1);
	b_u8(&b, 0x80);
	CHECK(refused(&b));

	for (int reason = 0; reason <= CR_SERVER_SHUTDOWN + 1; reason++) {
		b_header(&b, FT_CLOSED, 8);
		b_u8(&b, (uint8_t)reason);
		b_raw(&b, "bye", 3);
		if (reason >= CR_UNSUBSCRIBED && reason <= CR_SERVER_SHUTDOWN)
			CHECK(decodes(&b, &f) && f.u.closed.reason == reason &&
			    same_text(f.u.closed.message, f.u.closed.message_len, "bye"));
		else
			CHECK(refused(&b));
	}
	b_header(&b, FT_CLOSED, 8);
	b_u8(&b, CR_SESSION_ENDED);
	check_prefixes(&b, b.len);
	b_u8(&b, 0xfe);
	CHECK(refused(&b));
}

static int
state_taken(const char *json)
{
	struct built b;
	struct server_frame f;

	b_header(&b, FT_STATE, 1);
	b_raw(&b, json, strlen(json));
	if (!decodes(&b, &f))
		return 0;
	return same_text(f.u.state.json, f.u.state.json_len, json);
}

static void
test_decode_state(void)
{
	/* What JSON.parse takes as an object. */
	CHECK(state_taken("{}"));
	CHECK(state_taken(" \t\r\n{ } \n"));
	CHECK(state_taken("{\"degraded\":true}"));
	CHECK(state_taken("{\"agent\":{\"state\":\"working\",\"n\":[1,-2.5e+3,0,0.1,1E9,null,false,\"\\u00e9\\n\\\"\"]},\"x\":[]}"));
	CHECK(state_taken("{\"\xe2\x9c\x93\":\"\xf0\x9f\x98\x80\",\"a\":[[[[{}]]]]}"));
	CHECK(state_taken("{\"lone\":\"\\ud800\"}"));
	CHECK(state_taken("{\"a\":1,\"a\":2}"));
	/* And what it refuses. */
	CHECK(!state_taken(""));
	CHECK(!state_taken("[]"));
	CHECK(!state_taken("null"));
	CHECK(!state_taken("\"{}\""));
	CHECK(!state_taken("{"));
	CHECK(!state_taken("{}}"));
	CHECK(!state_taken("{} x"));
	CHECK(!state_taken("{,}"));
	CHECK(!state_taken("{\"a\"}"));
	CHECK(!state_taken("{\"a\":}"));
	CHECK(!state_taken("{\"a\":1,}"));
	CHECK(!state_taken("{\"a\":[1,]}"));
	CHECK(!state_taken("{\"a\":[1 2]}"));
	CHECK(!state_taken("{\"a\":[}"));
	CHECK(!state_taken("{\"a\":{]}"));
	CHECK(!state_taken("{a:1}"));
	CHECK(!state_taken("{'a':1}"));
	CHECK(!state_taken("{\"a\":01}"));
	CHECK(!state_taken("{\"a\":1.}"));
	CHECK(!state_taken("{\"a\":.5}"));
	CHECK(!state_taken("{\"a\":+1}"));
	CHECK(!state_taken("{\"a\":1e}"));
	CHECK(!state_taken("{\"a\":-}"));
	CHECK(!state_taken("{\"a\":NaN}"));
	CHECK(!state_taken("{\"a\":tru}"));
	CHECK(!state_taken("{\"a\":nul}"));
	CHECK(!state_taken("{\"a\":\"\\x\"}"));
	CHECK(!state_taken("{\"a\":\"\\u12g4\"}"));
	CHECK(!state_taken("{\"a\":\"\\u12\"}"));
	CHECK(!state_taken("{\"a\":\"tab\there\"}"));
	CHECK(!state_taken("{\"a\":\"unit\x1fseparator\"}"));
	CHECK(state_taken("{\"a\":\"space \x7f del\"}"));
	CHECK(!state_taken("{\"a\":\"open}"));
	CHECK(!state_taken("\xef\xbb\xbf{}"));	/* a BOM is not JSON whitespace */
	CHECK(!state_taken("{\"a\":1}\v"));
	CHECK(!state_taken("{\"\xff\":1}"));	/* not UTF-8 */
	/* Deep nesting is iterative: no recursion to overflow. */
	{
		enum { DEPTH = 20000 };
		char *deep = malloc(2 * DEPTH + 16);
		size_t n = 0;

		n += (size_t)sprintf(deep, "{\"a\":");
		for (int i = 0; i < DEPTH; i++)
			deep[n++] = '[';
		for (int i = 0; i < DEPTH; i++)
			deep[n++] = ']';
		deep[n++] = '}';
		deep[n] = '\0';
		CHECK(state_taken(deep));
		deep[n - 2] = '}';
		CHECK(!state_taken(deep));
		free(deep);
	}
}

static void
test_decode_refusals(void)
{
	struct built b;
	struct server_frame f;
	char err[128];

	/* Shorter than the header, one byte at a time. */
	for (size_t n = 0; n < FRAME_HEADER_BYTES; n++) {
		b.len = 0;
		for (size_t i = 0; i < n; i++)
			b_u8(&b, FT_DATA);
		CHECK(refused(&b));
	}
	/* Every viewer frame type, and every unknown one on either side. */
	for (int type = 0; type < 0x100; type++) {
		b_header(&b, (uint8_t)type, 0);
		b_u64(&b, 0);
		if (type == FT_DATA || type == FT_INPUT_TAKEN)
			CHECK(decodes(&b, &f));
		else if (type < 0x80 || type > FT_INPUT_ROUTE)
			CHECK(refused(&b));
	}
	b_header(&b, FT_INPUT, 1);
	b_raw(&b, "ls\r", 3);
	CHECK(frame_decode(b.bytes, b.len, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "viewers") != NULL);
	b_header(&b, 0x8d, 1);
	CHECK(frame_decode(b.bytes, b.len, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "unknown") != NULL);
	/* An err buffer is optional. */
	CHECK(frame_decode(b.bytes, b.len, &f, NULL, 0) == -1);
	/* Over the 32 MiB limit, refused before anything is read. */
	CHECK(frame_decode(b.bytes, (size_t)WIRE_MAX_MESSAGE_BYTES + 1, &f, err, sizeof err) == -1);
	CHECK(strstr(err, "limit") != NULL);

	/* SCROLLBACK: type and channel alone, but a sane length and valid text. */
	b_header(&b, FT_SCROLLBACK, 3);
	b_u64(&b, 10);
	b_u32(&b, 2);
	b_u32(&b, 0);
	b_u8(&b, 1);
	b_raw(&b, "a\r\nb", 4);
	CHECK(decodes(&b, &f) && f.type == FT_SCROLLBACK && f.channel == 3);
	check_prefixes(&b, FRAME_HEADER_BYTES + 17);
	b_u8(&b, 0xc3);
	CHECK(refused(&b));
	b_header(&b, FT_SCROLLBACK, 3);
	b_u64(&b, FRAME_MAX_SEQ + 1);
	b_u32(&b, 2);
	b_u32(&b, 0);
	b_u8(&b, 1);
	CHECK(refused(&b));
}

static void
test_utf8(void)
{
	static const struct {
		const char *s;
		int valid;
	} cases[] = {
		{ "", 1 }, { "plain ascii text longer than eight", 1 },
		{ "\xc2\x80", 1 }, { "\xdf\xbf", 1 }, { "\xe0\xa0\x80", 1 }, { "\xef\xbf\xbf", 1 },
		{ "\xed\x9f\xbf", 1 }, { "\xee\x80\x80", 1 }, { "\xf0\x90\x80\x80", 1 },
		{ "\xf4\x8f\xbf\xbf", 1 }, { "12345678\xe4\xb8\x80" "12345678", 1 },
		{ "\x80", 0 }, { "\xbf", 0 }, { "\xc0\x80", 0 }, { "\xc1\xbf", 0 }, { "\xc2", 0 },
		{ "\xc2\x41", 0 }, { "\xe0\x9f\xbf", 0 }, { "\xed\xa0\x80", 0 }, { "\xed\xbf\xbf", 0 },
		{ "\xef\xbf", 0 }, { "\xf0\x8f\xbf\xbf", 0 }, { "\xf4\x90\x80\x80", 0 },
		{ "\xf5\x80\x80\x80", 0 }, { "\xf8\x88\x80\x80\x80", 0 }, { "\xff", 0 },
		{ "1234567\xe4\xb8", 0 }, { "\xf0\x9f\x98", 0 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = strlen(cases[i].s);
		uint8_t *copy = malloc(n + 1);

		memcpy(copy, cases[i].s, n);
		if (frame_utf8_valid(copy, n) != (bool)cases[i].valid)
			fprintf(stderr, "utf8 case %zu\n", i);
		CHECK(frame_utf8_valid(copy, n) == (bool)cases[i].valid);
		free(copy);
	}
}

void
test_frames(void)
{
	test_encode_hello();
	test_encode_subscribe();
	test_encode_small_frames();
	test_encode_cap();
	test_decode_welcome();
	test_decode_snapshot();
	test_decode_data_and_fixed();
	test_decode_texts();
	test_decode_state();
	test_decode_refusals();
	test_utf8();
	free(last_message);
	last_message = NULL;
}
