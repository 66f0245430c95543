/*
 * test_typist.c -- the typist's bytes (typist.c): INPUT_FROM as the holder
 * reads it, in pieces under its inbound limit, and the reader of what the
 * holder says back: INPUT_TAKEN of this writer only, frames cut anywhere,
 * ERROR and oversized frames ending the route; STATE naming the stream and
 * asking for WATCH of a holder that speaks it, and the pieces of output.
 */
#include <string.h>

#include "../viewer.h"
#include "check.h"

static const uint8_t WRITER[WRITER_ID_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static size_t
put_frame(uint8_t *p, uint8_t type, const void *payload, uint32_t len)
{
	p[0] = type;
	for (int i = 0; i < 4; i++)
		p[1 + i] = (uint8_t)(len >> (8 * i));
	memcpy(p + 5, payload, len);
	return 5 + len;
}

static size_t
input_taken(uint8_t *p, const uint8_t *writer, uint64_t total)
{
	uint8_t payload[WRITER_ID_BYTES + 8];

	memcpy(payload, writer, WRITER_ID_BYTES);
	for (int i = 0; i < 8; i++)
		payload[WRITER_ID_BYTES + i] = (uint8_t)(total >> (8 * i));
	return put_frame(p, 0x25, payload, sizeof payload);
}

/* Feeds bytes to the reader as if read from the socket. */
static int
feed(struct typist *t, const uint8_t *p, size_t n, uint64_t *taken, char *err, size_t errlen)
{
	memcpy(t->in + t->in_len, p, n);
	t->in_len += n;
	return typist_parse(t, WRITER, taken, err, errlen);
}

static void
test_input_from(void)
{
	struct typist t;
	static uint8_t big[70000];

	typist_init(&t);
	CHECK(typist_input_from(&t, WRITER, 0x0102030405ull, (const uint8_t *)"ls\r", 3) == 0);
	CHECK(t.out.len == 5 + 16 + 8 + 3);
	CHECK(t.out.data[0] == 0x24 && t.out.data[1] == 27 && t.out.data[2] == 0 && t.out.data[4] == 0);
	CHECK(memcmp(t.out.data + 5, WRITER, 16) == 0);
	CHECK(t.out.data[21] == 0x05 && t.out.data[22] == 0x04 && t.out.data[25] == 0x01 && t.out.data[26] == 0);
	CHECK(memcmp(t.out.data + 29, "ls\r", 3) == 0);
	buf_clear(&t.out);
	/* Past the holder's 64 KiB inbound limit: two frames, the second at its own position. */
	memset(big, 'x', sizeof big);
	CHECK(typist_input_from(&t, WRITER, 100, big, sizeof big) == 0);
	CHECK(t.out.len == 2 * (5 + 24) + sizeof big);
	{
		uint32_t first = (uint32_t)t.out.data[1] | (uint32_t)t.out.data[2] << 8 | (uint32_t)t.out.data[3] << 16;
		const uint8_t *second = t.out.data + 5 + first;
		uint64_t at = 0;

		CHECK(first == 64 * 1024);
		CHECK(second[0] == 0x24);
		for (int i = 0; i < 8; i++)
			at |= (uint64_t)second[5 + 16 + i] << (8 * i);
		CHECK(at == 100 + (64 * 1024 - 24));
	}
	typist_close(&t);
	buf_free(&t.out);
}

static void
test_reader(void)
{
	struct typist t;
	uint8_t bytes[4 * TYPIST_FRAME_MAX_BYTES], other[WRITER_ID_BYTES] = { 9 };
	uint64_t taken = 5;
	char err[256];
	size_t n;

	typist_init(&t);
	/* STATE is skipped; another writer's count is not ours; a lower count changes nothing. */
	n = put_frame(bytes, 0x03, "\x04\0\0\0", 4);
	n += input_taken(bytes + n, other, 99);
	n += input_taken(bytes + n, WRITER, 3);
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0 && taken == 5 && t.in_len == 0);
	/* A frame cut anywhere waits for its rest. */
	n = input_taken(bytes, WRITER, 42);
	for (size_t cut = 0; cut < n; cut++) {
		taken = 0;
		t.in_len = 0;
		CHECK(feed(&t, bytes, cut, &taken, err, sizeof err) == 0 && taken == 0);
		CHECK(feed(&t, bytes + cut, n - cut, &taken, err, sizeof err) == 0 && taken == 42 && t.in_len == 0);
	}
	/* ERROR ends the route, in the holder's words. */
	n = put_frame(bytes, 0x3f, "\x01\0this holder speaks protocol versions 1 to 3", 45);
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == -1 && strstr(err, "versions 1 to 3") != NULL);
	/* A header announcing more than a typist reads ends it before anything is kept. */
	t.in_len = 0;
	bytes[0] = 0x22;
	bytes[1] = 0x01;
	bytes[2] = 0x10;
	bytes[3] = bytes[4] = 0;
	CHECK(feed(&t, bytes, 5, &taken, err, sizeof err) == -1 && strstr(err, "past") != NULL);
	/* The largest frame a typist reads fits whole. */
	t.in_len = 0;
	{
		static const uint8_t zeros[TYPIST_FRAME_MAX_BYTES];

		n = put_frame(bytes, 0x35, zeros, TYPIST_FRAME_MAX_BYTES);
	}
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0 && t.in_len == 0);
	buf_free(&t.out);
}

/* The pieces on_piece was given, joined, and where the first began. */
struct pieces {
	int count;
	uint64_t first_offset;
	char bytes[64];
	size_t len;
};

static void
collect_piece(void *ctx, uint64_t offset, const uint8_t *p, size_t n)
{
	struct pieces *got = ctx;

	if (got->count++ == 0)
		got->first_offset = offset;
	if (got->len + n <= sizeof got->bytes) {
		memcpy(got->bytes + got->len, p, n);
		got->len += n;
	}
}

static size_t
state_frame(uint8_t *p, uint32_t version)
{
	uint8_t payload[85] = { 0 };

	for (int i = 0; i < 4; i++)
		payload[i] = (uint8_t)(version >> (8 * i));
	for (int i = 0; i < 16; i++)
		payload[4 + i] = (uint8_t)(0xa0 + i);
	return put_frame(p, 0x03, payload, sizeof payload);
}

static size_t
output_frame(uint8_t *p, uint64_t offset, const char *text)
{
	uint8_t payload[64];
	size_t n = strlen(text);

	for (int i = 0; i < 8; i++)
		payload[i] = (uint8_t)(offset >> (8 * i));
	memcpy(payload + 8, text, n);
	return put_frame(p, 0x22, payload, (uint32_t)(8 + n));
}

static void
test_pieces(void)
{
	struct typist t;
	struct pieces got;
	uint8_t bytes[512];
	uint64_t taken = 0;
	char err[256];
	size_t n;

	/* A version-4 holder: its stream is named, no WATCH is asked, and an OUTPUT it should not send is skipped. */
	typist_init(&t);
	memset(&got, 0, sizeof got);
	t.on_piece = collect_piece;
	t.piece_ctx = &got;
	n = state_frame(bytes, 4);
	n += output_frame(bytes + n, 7, "x");
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0);
	CHECK(strcmp(t.generation, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf") == 0);
	CHECK(!t.watching && t.out.len == 0 && got.count == 0);
	/* Version 5: WATCH is queued once, and each piece goes to on_piece with its offset, cut anywhere. */
	n = state_frame(bytes, 5);
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0);
	CHECK(t.watching && t.out.len == 5 && t.out.data[0] == 0x26 && t.out.data[1] == 0);
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0 && t.out.len == 5);
	n = output_frame(bytes, 0x0102030405ull, "echo");
	n += input_taken(bytes + n, WRITER, 9);
	n += output_frame(bytes + n, 0x0102030409ull, "!");
	for (size_t cut = 0; cut <= n; cut++) {
		memset(&got, 0, sizeof got);
		t.in_len = 0;
		taken = 0;
		CHECK(feed(&t, bytes, cut, &taken, err, sizeof err) == 0);
		CHECK(feed(&t, bytes + cut, n - cut, &taken, err, sizeof err) == 0);
		CHECK(got.count == 2 && got.first_offset == 0x0102030405ull && got.len == 5 && memcmp(got.bytes, "echo!", 5) == 0);
		CHECK(taken == 9 && t.in_len == 0);
	}
	/* An OUTPUT without bytes, or too short for its offset, is nothing to show. */
	memset(&got, 0, sizeof got);
	n = put_frame(bytes, 0x22, "\1\2\3", 3);
	n += output_frame(bytes + n, 40, "");
	CHECK(feed(&t, bytes, n, &taken, err, sizeof err) == 0 && got.count == 0);
	/* A new route starts unnamed and not watching. */
	typist_close(&t);
	CHECK(t.generation[0] == '\0' && !t.watching);
	buf_free(&t.out);
}

void
test_typist(void)
{
	test_input_from();
	test_reader();
	test_pieces();
}
