/*
 * typist.c -- the session holder's own socket, for typing straight to it
 * when the server says so (INPUT_ROUTE): a key then crosses one process on
 * its way to the program, not the server's event loop and the holder both.
 * The viewer says HELLO (holder protocol 4) and sends its counted input as
 * INPUT_FROM, under the writer id and the numbers it uses with the server;
 * it reads INPUT_TAKEN back (docs/protocol.md: typists).  It takes no lease.
 * The holder answers HELLO with STATE: one of version 5 or later is sent
 * WATCH, and copies the typist its output's small pieces (a key's echo)
 * as it reads them, each at its offset in the stream named by the STATE's
 * generation; on_piece shows them (term.c takes only what continues the
 * screen; the whole stream still comes from the server).  Anything else
 * the holder says is skipped; an ERROR (an older holder says VERSION), the
 * socket's end, or a frame past the limit ends the route, and typing.c
 * sends again through the server from the holder's last count.
 *
 * The reader is a state machine over a bounded buffer: a frame is parsed
 * once its header and payload are whole, and a header announcing more than
 * TYPIST_FRAME_MAX_BYTES ends the route before anything is kept.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "viewer.h"
#include "wire.h"

#define HOLDER_HEADER_BYTES 5
#define HOLDER_FRAME_HELLO 0x01
#define HOLDER_FRAME_STATE 0x03
#define HOLDER_FRAME_OUTPUT 0x22
#define HOLDER_FRAME_INPUT_FROM 0x24
#define HOLDER_FRAME_INPUT_TAKEN 0x25
#define HOLDER_FRAME_WATCH 0x26
#define HOLDER_FRAME_ERROR 0x3f
/* The version whose holder takes INPUT_FROM without the lease (holder/protocol.h). */
#define HOLDER_TYPIST_VERSION 4
/* The version whose holder takes WATCH. */
#define HOLDER_WATCH_VERSION 5
/* STATE: u32 version, then the generation (the rest is not a typist's). */
#define HOLDER_GENERATION_BYTES 16
#define HOLDER_STATE_MIN_BYTES (4 + HOLDER_GENERATION_BYTES)
/* An INPUT_FROM's payload is at most the holder's inbound limit, its writer and position included. */
#define HOLDER_INBOUND_MAX_BYTES (64 * 1024)
#define HOLDER_INPUT_FROM_PREFIX_BYTES (WRITER_ID_BYTES + 8)
/* How long the connect may take: the holder is on this machine, and a key waits. */
#define TYPIST_CONNECT_MS 200

void
typist_init(struct typist *t)
{
	memset(t, 0, sizeof *t);
	t->fd = -1;
	buf_init(&t->out, TYPIST_OUT_MAX_BYTES);
}

void
typist_close(struct typist *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->path[0] = '\0';
	t->generation[0] = '\0';
	t->watching = false;
	t->in_len = 0;
	buf_clear(&t->out);
}

/* The holder's STATE: its stream's name, and WATCH if it can copy pieces. */
static void
typist_on_state(struct typist *t, const uint8_t *payload, uint32_t length)
{
	static const uint8_t watch[HOLDER_HEADER_BYTES] = { HOLDER_FRAME_WATCH, 0, 0, 0, 0 };

	if (length < HOLDER_STATE_MIN_BYTES)
		return;
	hex_encode(payload + 4, HOLDER_GENERATION_BYTES, t->generation);
	/* Without room for five bytes the keys' queue is full, and the route is ending anyway. */
	if (!t->watching && le_get_u32(payload) >= HOLDER_WATCH_VERSION && buf_append(&t->out, watch, sizeof watch) == 0)
		t->watching = true;
}

int
typist_open(struct typist *t, const char *path, char *err, size_t errlen)
{
	uint8_t hello[HOLDER_HEADER_BYTES + 4];

	typist_close(t);
	if (strlen(path) >= sizeof t->path) {
		wire_set_err(err, errlen, "the holder's socket path is %zu bytes, past %zu", strlen(path), sizeof t->path - 1);
		return -1;
	}
	t->fd = wire_connect_within(path, wire_now_ms() + TYPIST_CONNECT_MS, err, errlen);
	if (t->fd < 0)
		return -1;
	memcpy(t->path, path, strlen(path) + 1);
	hello[0] = HOLDER_FRAME_HELLO;
	le_put_u32(hello + 1, 4);
	le_put_u32(hello + HOLDER_HEADER_BYTES, HOLDER_TYPIST_VERSION);
	if (buf_append(&t->out, hello, sizeof hello) != 0) {
		typist_close(t);
		wire_set_err(err, errlen, "no memory for the holder's HELLO");
		return -1;
	}
	return 0;
}

int
typist_input_from(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t at, const uint8_t *data, size_t len)
{
	/* In pieces the holder takes: its inbound limit counts the writer and the position too. */
	do {
		size_t n = len < HOLDER_INBOUND_MAX_BYTES - HOLDER_INPUT_FROM_PREFIX_BYTES ? len :
		    HOLDER_INBOUND_MAX_BYTES - HOLDER_INPUT_FROM_PREFIX_BYTES;
		uint8_t head[HOLDER_HEADER_BYTES + HOLDER_INPUT_FROM_PREFIX_BYTES];

		head[0] = HOLDER_FRAME_INPUT_FROM;
		le_put_u32(head + 1, (uint32_t)(HOLDER_INPUT_FROM_PREFIX_BYTES + n));
		memcpy(head + HOLDER_HEADER_BYTES, writer, WRITER_ID_BYTES);
		le_put_u64(head + HOLDER_HEADER_BYTES + WRITER_ID_BYTES, at);
		if (buf_reserve(&t->out, sizeof head + n) != 0)
			return -1;
		buf_append(&t->out, head, sizeof head);
		buf_append(&t->out, data, n);
		data += n;
		len -= n;
		at += n;
	} while (len > 0);
	return 0;
}

int
typist_flush(struct typist *t, char *err, size_t errlen)
{
	return wire_send_queued(t->fd, &t->out, "the holder", err, errlen);
}

int
typist_parse(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t *taken, char *err, size_t errlen)
{
	size_t at = 0;

	while (t->in_len - at >= HOLDER_HEADER_BYTES) {
		const uint8_t *f = t->in + at;
		uint32_t length = le_get_u32(f + 1);

		if (length > TYPIST_FRAME_MAX_BYTES) {
			wire_set_err(err, errlen, "the holder sent a frame of %u bytes (type 0x%02x), past the %d a typist reads",
			    length, f[0], TYPIST_FRAME_MAX_BYTES);
			return -1;
		}
		if (t->in_len - at < HOLDER_HEADER_BYTES + (size_t)length)
			break;
		if (f[0] == HOLDER_FRAME_INPUT_TAKEN && length == WRITER_ID_BYTES + 8 &&
		    memcmp(f + HOLDER_HEADER_BYTES, writer, WRITER_ID_BYTES) == 0) {
			uint64_t total = le_get_u64(f + HOLDER_HEADER_BYTES + WRITER_ID_BYTES);

			if (total > *taken)
				*taken = total;
		} else if (f[0] == HOLDER_FRAME_STATE) {
			typist_on_state(t, f + HOLDER_HEADER_BYTES, length);
		} else if (f[0] == HOLDER_FRAME_OUTPUT && length > 8 && t->watching && t->on_piece != NULL) {
			t->on_piece(t->piece_ctx, le_get_u64(f + HOLDER_HEADER_BYTES), f + HOLDER_HEADER_BYTES + 8, length - 8);
		} else if (f[0] == HOLDER_FRAME_ERROR) {
			/* u16 code, then the holder's words. */
			int words = length > 2 ? (int)(length - 2) : 0;

			wire_set_err(err, errlen, "the holder refused: %.*s", words > 300 ? 300 : words,
			    (const char *)f + HOLDER_HEADER_BYTES + 2);
			return -1;
		}
		at += HOLDER_HEADER_BYTES + length;
	}
	memmove(t->in, t->in + at, t->in_len - at);
	t->in_len -= at;
	return 0;
}

int
typist_read(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t *taken, char *err, size_t errlen)
{
	for (;;) {
		ssize_t n = read(t->fd, t->in + t->in_len, sizeof t->in - t->in_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			wire_set_err(err, errlen, "the holder closed its socket%s%s", n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			return -1;
		}
		t->in_len += (size_t)n;
		if (typist_parse(t, writer, taken, err, errlen) != 0)
			return -1;
	}
}
