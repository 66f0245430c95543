/*
 * test_holder.c -- unit tests for the parts of the holder without I/O:
 * the golden frames decode to the values in fixtures.h and re-encode to the
 * same bytes; the frame reader gives the same frames under every chunking
 * and refuses oversize lengths before the payload; the ring wraps, keeps
 * offsets, and starts gap replays only on safe boundaries; the writer
 * table drops resent input, takes nothing across a hole and forgets the
 * writer used longest ago.
 *
 * Usage: test-holder FIXTURE_DIR   (make check)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holder.h"
#include "fixtures.h"

static int failures;
static int checks;
static const char *fixture_dir;

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

static void
check(int ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
	}
}

static size_t
load(const char *name, uint8_t *out, size_t room)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
	f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	n = fread(out, 1, room, f);
	fclose(f);
	return n;
}

static struct frame_reader reader;

/* Decode exactly one frame from a whole file. */
static struct frame
decode_one(const uint8_t *bytes, size_t n)
{
	struct frame f = { 0 };
	size_t used;

	frame_reader_reset(&reader);
	CHECK(frame_reader_feed(&reader, bytes, n, &used, &f) == FRAME_READY);
	CHECK(used == n);
	return f;
}

static void
test_golden_state(void)
{
	uint8_t bytes[256], again[256];
	size_t n = load("state.bin", bytes, sizeof bytes);
	struct frame f = decode_one(bytes, n);
	const uint8_t *p = f.payload;
	struct state_fields s;

	CHECK(f.type == FRAME_STATE && f.length == STATE_PAYLOAD_BYTES);
	CHECK(frame_get_u32(p) == PROTOCOL_VERSION);
	for (int i = 0; i < GENERATION_BYTES; i++)
		CHECK(p[4 + i] == i);
	CHECK(frame_get_u64(p + 20) == FIX_RING_START);
	CHECK(frame_get_u64(p + 28) == FIX_OFFSET);
	CHECK(frame_get_u32(p + 36) == FIX_CHILD_PID);
	CHECK(frame_get_u32(p + 40) == FIX_FG_PGID);
	CHECK(frame_get_u16(p + 44) == FIX_COLS);
	CHECK(frame_get_u16(p + 46) == FIX_ROWS);
	CHECK(p[48] == 0x07);
	CHECK((int32_t)frame_get_u32(p + 49) == FIX_EXIT_CODE);
	CHECK((int32_t)frame_get_u32(p + 53) == FIX_EXIT_SIGNAL);
	CHECK(frame_get_u64(p + 57) == FIX_STARTED_AT_MS);
	CHECK(frame_get_u32(p + 65) == FIX_RING_CAPACITY);
	CHECK(memcmp(p + STATE_V1_PAYLOAD_BYTES, FIX_BUILD,
	    sizeof FIX_BUILD) == 0);

	s = (struct state_fields){ .ring_start = FIX_RING_START,
	    .offset = FIX_OFFSET, .child_pid = FIX_CHILD_PID,
	    .fg_pgid = FIX_FG_PGID, .cols = FIX_COLS, .rows = FIX_ROWS,
	    .flags = 7, .exit_code = FIX_EXIT_CODE,
	    .exit_signal = FIX_EXIT_SIGNAL, .started_at_ms = FIX_STARTED_AT_MS,
	    .ring_capacity = FIX_RING_CAPACITY, .build = FIX_BUILD };
	for (int i = 0; i < GENERATION_BYTES; i++)
		s.generation[i] = (uint8_t)i;
	CHECK(frame_encode_state(again, &s) == n && memcmp(again, bytes, n) == 0);
}

static void
expect_stream(const char *name, uint8_t type, uint64_t offset, int flags,
    const char *text)
{
	uint8_t bytes[256];
	size_t n = load(name, bytes, sizeof bytes);
	struct frame f = decode_one(bytes, n);
	size_t prefix = type == FRAME_REPLAY ? 9 : 8;

	CHECK(f.type == type);
	CHECK(f.length == prefix + strlen(text));
	CHECK(frame_get_u64(f.payload) == offset);
	if (type == FRAME_REPLAY)
		CHECK(f.payload[8] == flags);
	CHECK(memcmp(f.payload + prefix, text, strlen(text)) == 0);
}

static void
expect_payload(const char *name, uint8_t type, const void *payload,
    size_t length)
{
	uint8_t bytes[256];
	size_t n = load(name, bytes, sizeof bytes);
	struct frame f = decode_one(bytes, n);

	CHECK(f.type == type && f.length == length);
	CHECK(length == 0 || memcmp(f.payload, payload, length) == 0);
}

/* INPUT_FROM and INPUT_TAKEN: writer a0..af, then the u64, then bytes. */
static void
test_golden_input_frames(void)
{
	uint8_t from[WRITER_ID_BYTES + 8 + sizeof FIX_INPUT_BYTES];
	uint8_t taken[INPUT_TAKEN_PAYLOAD_BYTES];
	size_t n = strlen(FIX_INPUT_BYTES);

	for (int i = 0; i < WRITER_ID_BYTES; i++)
		from[i] = taken[i] = (uint8_t)(FIX_WRITER_FIRST_BYTE + i);
	for (int i = 0; i < 8; i++) {
		from[WRITER_ID_BYTES + i] = (uint8_t)(FIX_INPUT_AT >> (8 * i));
		taken[WRITER_ID_BYTES + i] = (uint8_t)(FIX_INPUT_TAKEN >>
		    (8 * i));
	}
	memcpy(from + INPUT_FROM_PREFIX_BYTES, FIX_INPUT_BYTES, n);
	expect_payload("input-from.bin", FRAME_INPUT_FROM, from,
	    INPUT_FROM_PREFIX_BYTES + n);
	expect_payload("input-taken.bin", FRAME_INPUT_TAKEN, taken,
	    INPUT_TAKEN_PAYLOAD_BYTES);
}

static void
test_golden_frames(void)
{
	const uint8_t version[] = { PROTOCOL_VERSION, 0, 0, 0 };
	const uint8_t dump[] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	const uint8_t token[] = { 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	const uint8_t resize[] = { 120, 0, 40, 0 };
	const uint8_t signo[] = { 2, 0, 0, 0 };
	const uint8_t exit3[] = { 3, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t killed[] = { 0xff, 0xff, 0xff, 0xff, 9, 0, 0, 0 };
	uint8_t error[128] = { ERROR_TOO_LARGE, 0 };

	memcpy(error + 2, FIX_TOO_LARGE_TEXT, strlen(FIX_TOO_LARGE_TEXT));
	expect_payload("hello.bin", FRAME_HELLO, version, 4);
	expect_payload("state-req.bin", FRAME_STATE_REQ, NULL, 0);
	expect_payload("acquire.bin", FRAME_ACQUIRE, NULL, 0);
	expect_payload("acquired.bin", FRAME_ACQUIRED, NULL, 0);
	expect_payload("denied.bin", FRAME_DENIED, FIX_DENIED_TEXT,
	    strlen(FIX_DENIED_TEXT));
	expect_payload("release.bin", FRAME_RELEASE, NULL, 0);
	expect_payload("dump-since.bin", FRAME_DUMP_SINCE, dump, 8);
	expect_payload("input.bin", FRAME_INPUT, FIX_INPUT_BYTES,
	    strlen(FIX_INPUT_BYTES));
	test_golden_input_frames();
	expect_payload("resize.bin", FRAME_RESIZE, resize, 4);
	expect_payload("signal.bin", FRAME_SIGNAL, signo, 4);
	expect_payload("redraw.bin", FRAME_REDRAW, NULL, 0);
	expect_payload("kill.bin", FRAME_KILL, NULL, 0);
	expect_payload("ping.bin", FRAME_PING, token, 8);
	expect_payload("pong.bin", FRAME_PONG, token, 8);
	expect_payload("exit.bin", FRAME_EXIT, exit3, 8);
	expect_payload("exit-signal.bin", FRAME_EXIT, killed, 8);
	expect_payload("exec.bin", FRAME_EXEC, FIX_EXEC_PATH,
	    strlen(FIX_EXEC_PATH));
	expect_payload("exec-failed.bin", FRAME_EXEC_FAILED,
	    FIX_EXEC_FAILED_TEXT, strlen(FIX_EXEC_FAILED_TEXT));
	expect_payload("error-too-large.bin", FRAME_ERROR, error,
	    2 + strlen(FIX_TOO_LARGE_TEXT));
	expect_stream("replay.bin", FRAME_REPLAY, FIX_RING_START, 0,
	    FIX_REPLAY_BYTES);
	expect_stream("replay-gap-end.bin", FRAME_REPLAY, FIX_RING_START,
	    REPLAY_F_GAP | REPLAY_F_END, FIX_GAP_BYTES);
	expect_stream("replay-end-empty.bin", FRAME_REPLAY, FIX_OFFSET,
	    REPLAY_F_END, "");
	expect_stream("output.bin", FRAME_OUTPUT, FIX_OFFSET, 0,
	    FIX_OUTPUT_BYTES);
}

/* Frames seen while feeding `bytes` in pieces of `chunk`, as a digest. */
static size_t
feed_chunked(const uint8_t *bytes, size_t n, size_t chunk, size_t split,
    uint8_t *digest)
{
	size_t at = 0, length = 0;

	frame_reader_reset(&reader);
	while (at < n) {
		size_t piece = split ? (at < split ? split - at : n - at) : chunk;
		size_t done = 0, used;
		struct frame f;

		if (piece > n - at)
			piece = n - at;
		while (done < piece) {
			enum frame_read_result r = frame_reader_feed(&reader,
			    bytes + at + done, piece - done, &used, &f);

			done += used;
			CHECK(r != FRAME_TOO_LARGE);
			if (r != FRAME_READY)
				continue;
			digest[length++] = f.type;
			memcpy(digest + length, f.payload, f.length);
			length += f.length;
		}
		at += piece;
	}
	CHECK(!frame_reader_mid_frame(&reader));
	return length;
}

static void
test_reader_chunkings(void)
{
	uint8_t stream[512], whole[512], other[512];
	size_t n = load("stream.bin", stream, sizeof stream);
	size_t expect = feed_chunked(stream, n, n, 0, whole);

	/* Six frames; each header becomes one type byte in the digest. */
	CHECK(expect == n - 6 * (FRAME_HEADER_BYTES - 1));
	for (size_t chunk = 1; chunk <= n; chunk++) {
		size_t got = feed_chunked(stream, n, chunk, 0, other);

		CHECK(got == expect && memcmp(other, whole, got) == 0);
	}
	for (size_t split = 1; split < n; split++) {
		size_t got = feed_chunked(stream, n, 0, split, other);

		CHECK(got == expect && memcmp(other, whole, got) == 0);
	}
}

static void
test_reader_limits(void)
{
	static uint8_t big[FRAME_HEADER_BYTES + MAX_INBOUND_PAYLOAD_BYTES];
	uint8_t header[FRAME_HEADER_BYTES];
	struct frame f;
	size_t used;

	/* One byte over the limit: refused with the header alone. */
	frame_put_header(header, FRAME_INPUT, MAX_INBOUND_PAYLOAD_BYTES + 1);
	frame_reader_reset(&reader);
	CHECK(frame_reader_feed(&reader, header, 4, &used, &f) ==
	    FRAME_NEED_MORE && used == 4);
	CHECK(frame_reader_feed(&reader, header + 4, 1, &used, &f) ==
	    FRAME_TOO_LARGE && used == 1);
	CHECK(reader.length == MAX_INBOUND_PAYLOAD_BYTES + 1);

	/* Exactly the limit is a frame, even one byte at a time. */
	frame_put_header(big, FRAME_INPUT, MAX_INBOUND_PAYLOAD_BYTES);
	for (size_t i = 0; i < MAX_INBOUND_PAYLOAD_BYTES; i++)
		big[FRAME_HEADER_BYTES + i] = (uint8_t)(i * 7);
	frame_reader_reset(&reader);
	for (size_t i = 0; i < sizeof big; i++) {
		enum frame_read_result r = frame_reader_feed(&reader, big + i, 1,
		    &used, &f);

		if (i + 1 < sizeof big && r != FRAME_NEED_MORE)
			CHECK(!"frame ended early");
		if (i + 1 == sizeof big)
			CHECK(r == FRAME_READY && f.length ==
			    MAX_INBOUND_PAYLOAD_BYTES && memcmp(f.payload,
			    big + FRAME_HEADER_BYTES, f.length) == 0);
	}
	/* A length of 0xffffffff does not wrap around any check. */
	memset(header + 1, 0xff, 4);
	frame_reader_reset(&reader);
	CHECK(frame_reader_feed(&reader, header, 5, &used, &f) ==
	    FRAME_TOO_LARGE);
}

static void
test_ring_wraps(void)
{
	enum { CAP = 4096 };
	static uint8_t bytes[CAP], data[3 * CAP];
	static uint16_t marks[CAP / RING_MARK_BLOCK_BYTES + 2];
	struct ring r;
	struct ring_span s[2];
	uint8_t *at;

	ring_init(&r, bytes, CAP, marks);
	CHECK(ring_oldest(&r) == 0 && ring_start(&r) == 0 && r.offset == 0);
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)('a' + i % 26);
	ring_append(&r, data, 1000);
	CHECK(ring_peek(&r, 0, 5000, s) == 1000 && s[1].length == 0);
	ring_append(&r, data + 1000, sizeof data - 1000);
	CHECK(r.offset == sizeof data && ring_oldest(&r) == 2 * CAP);
	CHECK(ring_peek(&r, 2 * CAP - 1, 10, s) == 0);	/* left the ring */
	CHECK(ring_peek(&r, r.offset, 10, s) == 0);	/* not there yet */
	/* Space at the head is the contiguous run up to the wrap. */
	ring_append(&r, data, 100);
	CHECK(ring_space(&r, &at) == CAP - 100 && at == bytes + 100);
	/* A read across the wrap comes back as two slices, in order. */
	CHECK(ring_peek(&r, r.offset - 300, 300, s) == 300);
	CHECK(s[0].length == 200 && s[1].length == 100);
	CHECK(memcmp(s[0].bytes, data + sizeof data - 200, 200) == 0);
	CHECK(memcmp(s[1].bytes, data, 100) == 0);
}

/* Ring with a mark table sized for it, reset for each test. */
enum { TCAP = 4096 };
static uint8_t ring_bytes[TCAP];
static uint16_t ring_marks[TCAP / RING_MARK_BLOCK_BYTES + 2];

static void
fill(struct ring *r, char c, size_t n)
{
	while (n-- > 0)
		ring_append(r, (const uint8_t *)&c, 1);
}

static void
test_ring_skips_osc(void)
{
	struct ring r;
	const char *open = "\x1b]0;";

	/* Oldest byte in plain text, then an OSC over blocks 1 and 2. */
	ring_init(&r, ring_bytes, TCAP, ring_marks);
	fill(&r, 'a', 1020);
	ring_append(&r, (const uint8_t *)open, 4);
	fill(&r, 'x', 3100 - 1024);
	fill(&r, '\a', 1);		/* BEL at offset 3100 ends it */
	fill(&r, 'b', 2000 - 1);
	CHECK(r.offset == 5100 && ring_oldest(&r) == 1004);
	CHECK(ring_start(&r) == 3101);
}

static void
test_ring_skips_utf8_and_csi(void)
{
	struct ring r;
	struct ring_span s[2];
	const char *e_acute = "\xc3\xa9";

	/* 'a' then two-byte characters: block 1 starts on a continuation. */
	ring_init(&r, ring_bytes, TCAP, ring_marks);
	fill(&r, 'a', 1);
	for (int i = 0; i < 2100; i++)
		ring_append(&r, (const uint8_t *)e_acute, 2);
	CHECK(ring_oldest(&r) == 105 && ring_start(&r) == 1025);
	CHECK(ring_peek(&r, ring_start(&r), 1, s) == 1 && s[0].bytes[0] == 0xc3);

	/* A CSI straddling block 2's first byte: its mark is after 'm'. */
	ring_init(&r, ring_bytes, TCAP, ring_marks);
	fill(&r, 'a', 2045);
	ring_append(&r, (const uint8_t *)"\x1b[38;5;208m", 11);
	fill(&r, 'b', 4096 + 2048 - 2056 + 10);
	CHECK(ring_oldest(&r) == 2048 + 10);
	CHECK(ring_start(&r) == 3072);	/* block 2's mark 2056 was overwritten */
	ring_init(&r, ring_bytes, TCAP, ring_marks);
	fill(&r, 'a', 2045);
	ring_append(&r, (const uint8_t *)"\x1b[38;5;208m", 11);
	fill(&r, 'b', 4096 + 2048 - 2056);
	CHECK(ring_oldest(&r) == 2048 && ring_start(&r) == 2056);
}

static void
test_ring_without_boundary(void)
{
	struct ring r;

	/* A DCS longer than the ring: nowhere is safe, replay nothing. */
	ring_init(&r, ring_bytes, TCAP, ring_marks);
	ring_append(&r, (const uint8_t *)"\x1bPq", 3);
	fill(&r, '#', 3 * TCAP);
	CHECK(ring_start(&r) == r.offset);
	/* ESC \ (ST) ends it; the byte after is the first safe one. */
	ring_append(&r, (const uint8_t *)"\x1b\\", 2);
	CHECK(ring_start(&r) == r.offset);
	fill(&r, 'z', 1);
	CHECK(ring_start(&r) == r.offset - 1);
}

/* Random well-formed output: every ring_start is a token boundary. */
static uint32_t rng = 12345;

static uint32_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static const char *const tokens[] = {
	"a", "\r", "\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
	"\x1b[0m", "\x1b[38;2;10;20;30m", "\x1b]0;title\a", "\x1b]8;;http://x\x1b\\",
	"\x1bPq#0;2;0;0;0\x1b\\", "\x1b(B", "\x1b" "7", "\x1b[?1049h",
};

static void
test_ring_random_boundaries(void)
{
	static uint8_t safe[1 << 20];	/* 1 where a token started */
	struct ring r;
	uint64_t total = 0;

	ring_init(&r, ring_bytes, TCAP, ring_marks);
	while (total < sizeof safe - 64) {
		const char *t = tokens[next_random() % (sizeof tokens /
		    sizeof tokens[0])];
		uint64_t start;

		safe[total] = 1;
		ring_append(&r, (const uint8_t *)t, strlen(t));
		total += strlen(t);
		start = ring_start(&r);
		if (start < ring_oldest(&r) || start > r.offset ||
		    start > ring_oldest(&r) + 2 * RING_MARK_BLOCK_BYTES ||
		    (start < r.offset && !safe[start])) {
			fprintf(stderr, "start %llu oldest %llu offset %llu safe %d\n",
			    (unsigned long long)start, (unsigned long long)ring_oldest(&r),
			    (unsigned long long)r.offset, start < r.offset ? safe[start] : -1);
			CHECK(!"ring_start is not a safe boundary in the ring");
			return;
		}
	}
	CHECK(r.offset == total);
}

static void
writer_id(uint8_t id[WRITER_ID_BYTES], int n)
{
	memset(id, 0, WRITER_ID_BYTES);
	id[0] = (uint8_t)n;
	id[WRITER_ID_BYTES - 1] = (uint8_t)(n >> 8);
}

static void
test_writers_take_once(void)
{
	static struct writer_table t;
	uint8_t id[WRITER_ID_BYTES];
	struct writer *w;
	struct writer_take p;

	memset(&t, 0, sizeof t);
	writer_id(id, 1);
	CHECK(writers_count(&t, id, 0) == 0 && writers_count(&t, id, 7) == 7);
	/* Unknown: starts where it says, takes all. */
	w = writers_use(&t, id, 0);
	p = writers_plan(w, 0, 10);
	CHECK(p.skip == 0 && p.length == 10);
	w->taken += p.length;
	/* The same ten again: all dropped. */
	p = writers_plan(w, 0, 10);
	CHECK(p.skip == 10 && p.length == 0);
	/* Overlapping: 4..13, only 10..13 are new. */
	p = writers_plan(w, 4, 10);
	CHECK(p.skip == 6 && p.length == 4);
	w->taken += p.length;
	/* A hole: 20.. while 14 are taken, nothing. */
	p = writers_plan(w, 20, 5);
	CHECK(p.skip == 0 && p.length == 0 && w->taken == 14);
	/* Right at the count: all new; a question changes nothing. */
	p = writers_plan(w, 14, 3);
	CHECK(p.skip == 0 && p.length == 3);
	CHECK(writers_count(&t, id, 99) == 14);
	/* A writer first seen mid-stream (forgotten, or a server's resend). */
	writer_id(id, 2);
	w = writers_use(&t, id, 5000);
	CHECK(w->taken == 5000 && writers_plan(w, 5000, 1).length == 1);
}

static void
test_writers_forget_oldest(void)
{
	static struct writer_table t;
	uint8_t id[WRITER_ID_BYTES];

	memset(&t, 0, sizeof t);
	for (int i = 0; i < WRITERS_REMEMBERED; i++) {
		writer_id(id, i);
		writers_use(&t, id, (uint64_t)i)->taken += 100;
	}
	/* Writer 0 used again: writer 1 is now the oldest. */
	writer_id(id, 0);
	CHECK(writers_use(&t, id, 0)->taken == 100);
	writer_id(id, 1000);
	writers_use(&t, id, 0);
	writer_id(id, 1);
	CHECK(writers_count(&t, id, 0) == 0);	/* forgotten */
	for (int i = 2; i < WRITERS_REMEMBERED; i++) {
		writer_id(id, i);
		CHECK(writers_count(&t, id, 0) == (uint64_t)i + 100);
	}
	writer_id(id, 0);
	CHECK(writers_count(&t, id, 0) == 100);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-holder FIXTURE_DIR\n");
		return 2;
	}
	fixture_dir = argv[1];
	test_golden_state();
	test_golden_frames();
	test_reader_chunkings();
	test_reader_limits();
	test_ring_wraps();
	test_ring_skips_osc();
	test_ring_skips_utf8_and_csi();
	test_ring_without_boundary();
	test_ring_random_boundaries();
	test_writers_take_once();
	test_writers_forget_oldest();
	printf("test-holder: %d checks, %d failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
