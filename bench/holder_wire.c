/*
 * holder_wire.c -- a bare client of the holder protocol (holder/protocol.h),
 * so the holder's own cost can be measured without a Node process on the
 * other side of the socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../holder/protocol.h"
#include "ptytool.h"

/* one whole largest frame plus room for the reads that follow it */
#define READER_BYTES (FRAME_HEADER_BYTES + MAX_PAYLOAD_BYTES + 256 * 1024)

uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t
get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int
holder_connect(const char *path, char *cause)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		snprintf(cause, CAUSE_BYTES, "socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		snprintf(cause, CAUSE_BYTES, "cannot connect to %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
frame_send(int fd, uint8_t type, const void *payload, uint32_t len)
{
	uint8_t head[FRAME_HEADER_BYTES];

	head[0] = type;
	put_u32(head + 1, len);
	if (write_all(fd, head, sizeof head) < 0)
		return -1;
	return len ? write_all(fd, payload, len) : 0;
}

int
frame_reader_init(struct frame_reader *r, int fd)
{
	r->fd = fd;
	r->cap = READER_BYTES;
	r->start = r->end = 0;
	r->buf = malloc(r->cap);
	return r->buf ? 0 : -1;
}

void
frame_reader_free(struct frame_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

int
frame_buffered(const struct frame_reader *r)
{
	size_t have = r->end - r->start;

	return have >= FRAME_HEADER_BYTES &&
	    have >= FRAME_HEADER_BYTES + (size_t)get_u32(r->buf + r->start + 1);
}

int
frame_next(struct frame_reader *r, struct frame_in *f, char *cause)
{
	for (;;) {
		size_t have = r->end - r->start;
		ssize_t n;

		if (have >= FRAME_HEADER_BYTES) {
			uint32_t len = get_u32(r->buf + r->start + 1);

			if (len > MAX_PAYLOAD_BYTES) {
				snprintf(cause, CAUSE_BYTES, "holder sent a %u-byte payload", len);
				return -1;
			}
			if (have >= FRAME_HEADER_BYTES + (size_t)len) {
				f->type = r->buf[r->start];
				f->len = len;
				f->payload = r->buf + r->start + FRAME_HEADER_BYTES;
				r->start += FRAME_HEADER_BYTES + len;
				return 1;
			}
		}
		if (r->cap - r->end < 64 * 1024) {
			memmove(r->buf, r->buf + r->start, have);
			r->start = 0;
			r->end = have;
		}
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(cause, CAUSE_BYTES, "read from holder: %s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			if (have == 0)
				return 0;
			snprintf(cause, CAUSE_BYTES, "holder closed in the middle of a frame");
			return -1;
		}
		r->end += (size_t)n;
	}
}

/* Reads frames until one of type want; an ERROR or DENIED ends the run. */
static int
expect(struct frame_reader *r, uint8_t want, char *cause)
{
	struct frame_in f;

	for (;;) {
		int got = frame_next(r, &f, cause);

		if (got <= 0) {
			if (got == 0)
				snprintf(cause, CAUSE_BYTES, "holder closed the connection");
			return -1;
		}
		if (f.type == want)
			return 0;
		if (f.type == FRAME_ERROR || f.type == FRAME_DENIED) {
			size_t skip = f.type == FRAME_ERROR ? 2 : 0;
			int textlen = f.len > skip ? (int)(f.len - skip) : 0;

			snprintf(cause, CAUSE_BYTES, "holder said %s: %.*s",
			    f.type == FRAME_ERROR ? "ERROR" : "DENIED", textlen, f.payload + skip);
			return -1;
		}
	}
}

int
holder_take_lease(int fd, struct frame_reader *r, uint64_t since, char *cause)
{
	uint8_t version[4], offset[8];

	put_u32(version, PROTOCOL_VERSION);
	put_u32(offset, (uint32_t)since);
	put_u32(offset + 4, (uint32_t)(since >> 32));
	if (frame_send(fd, FRAME_HELLO, version, sizeof version) < 0)
		goto write_failed;
	if (expect(r, FRAME_STATE, cause) < 0)
		return -1;
	if (frame_send(fd, FRAME_ACQUIRE, NULL, 0) < 0)
		goto write_failed;
	if (expect(r, FRAME_ACQUIRED, cause) < 0)
		return -1;
	if (frame_send(fd, FRAME_DUMP_SINCE, offset, sizeof offset) < 0)
		goto write_failed;
	return 0;
write_failed:
	snprintf(cause, CAUSE_BYTES, "write to holder: %s", strerror(errno));
	return -1;
}
