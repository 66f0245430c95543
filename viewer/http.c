/*
 * http.c -- a plain HTTP/1.1 GET on the server's unix socket: how main.c
 * looks a session up before it attaches (one request a connection,
 * Connection: close).
 *
 * The body reader is a state machine over bytes, as the WebSocket reader:
 * any chunking decodes, whether the body is framed by Content-Length,
 * chunked or runs to the close, and it never keeps more than the body's cap.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

/* ------------------------------------------------------------------- body */

enum body_mode { BODY_LENGTH, BODY_CHUNKED, BODY_UNTIL_CLOSE };

enum chunk_state {
	CHUNK_SIZE,		/* hex digits of a chunk's size */
	CHUNK_EXTENSION,	/* ";name=value" after the size, ignored */
	CHUNK_SIZE_LF,
	CHUNK_DATA,
	CHUNK_DATA_CR,
	CHUNK_DATA_LF,
	CHUNK_TRAILER_START,	/* after the last chunk: a trailer line or the end */
	CHUNK_TRAILER,
	CHUNK_END_LF,
	CHUNK_DONE,
};

/* The body as it arrives: by Content-Length, chunked, or up to the close. */
struct body_reader {
	enum body_mode mode;
	uint64_t remaining;	/* BODY_LENGTH: bytes to go; chunked: of this chunk */
	enum chunk_state chunk;
	int size_digits;
	bool done;
};

/* 0, or -1 for a malformed chunked body, -2 for a body over its cap. */
static int
body_feed(struct body_reader *r, const uint8_t *p, size_t n, struct buf *body)
{
	size_t i = 0;

	while (i < n && !r->done) {
		uint8_t c = p[i];
		size_t take;
		int h;

		if (r->mode != BODY_CHUNKED || r->chunk == CHUNK_DATA) {
			take = n - i;
			if (r->mode != BODY_UNTIL_CLOSE && take > r->remaining)
				take = (size_t)r->remaining;
			if (buf_append(body, p + i, take) != 0)
				return -2;
			i += take;
			if (r->mode == BODY_UNTIL_CLOSE)
				continue;
			r->remaining -= take;
			if (r->remaining == 0) {
				if (r->mode == BODY_LENGTH)
					r->done = true;
				else
					r->chunk = CHUNK_DATA_CR;
			}
			continue;
		}
		i++;
		switch (r->chunk) {
		case CHUNK_SIZE:
			h = hex_digit_value(c);
			if (h >= 0 && r->size_digits < 15) {
				r->remaining = r->remaining << 4 | (uint64_t)h;
				r->size_digits++;
			} else if (r->size_digits > 0 && (c == ';' || c == ' ' || c == '\t')) {
				r->chunk = CHUNK_EXTENSION;
			} else if (r->size_digits > 0 && c == '\r') {
				r->chunk = CHUNK_SIZE_LF;
			} else {
				return -1;
			}
			break;
		case CHUNK_EXTENSION:
			if (c == '\r')
				r->chunk = CHUNK_SIZE_LF;
			break;
		case CHUNK_SIZE_LF:
			if (c != '\n')
				return -1;
			r->chunk = r->remaining == 0 ? CHUNK_TRAILER_START : CHUNK_DATA;
			break;
		case CHUNK_DATA_CR:
			if (c != '\r')
				return -1;
			r->chunk = CHUNK_DATA_LF;
			break;
		case CHUNK_DATA_LF:
			if (c != '\n')
				return -1;
			r->chunk = CHUNK_SIZE;
			r->remaining = 0;
			r->size_digits = 0;
			break;
		case CHUNK_TRAILER_START:
			r->chunk = c == '\r' ? CHUNK_END_LF : CHUNK_TRAILER;
			break;
		case CHUNK_TRAILER:
			if (c == '\n')
				r->chunk = CHUNK_TRAILER_START;
			break;
		case CHUNK_END_LF:
			if (c != '\n')
				return -1;
			r->chunk = CHUNK_DONE;
			r->done = true;
			break;
		case CHUNK_DATA:
		case CHUNK_DONE:
			break;
		}
	}
	return 0;
}

/* How the reply's body is framed, from its status and headers; -1 for a Content-Length that is not a number. */
static int
body_reader_init(struct body_reader *r, int status, const char *head, size_t head_len)
{
	struct http_header_field f;
	size_t at = (size_t)((const char *)memchr(head, '\n', head_len) - head) + 1;
	bool have_length = false;

	memset(r, 0, sizeof *r);
	r->mode = BODY_UNTIL_CLOSE;
	while (http_header_next(head, head_len, &at, &f)) {
		if (http_same_ci(f.name, f.name_len, "transfer-encoding")) {
			/* Chunked is the last coding when present ("gzip, chunked"). */
			if (f.value_len >= 7 && http_same_ci(f.value + f.value_len - 7, 7, "chunked"))
				r->mode = BODY_CHUNKED;
		} else if (http_same_ci(f.name, f.name_len, "content-length")) {
			uint64_t v = 0;

			if (f.value_len == 0 || f.value_len > 15)
				return -1;
			for (size_t i = 0; i < f.value_len; i++) {
				if (f.value[i] < '0' || f.value[i] > '9')
					return -1;
				v = v * 10 + (uint64_t)(f.value[i] - '0');
			}
			r->remaining = v;
			have_length = true;
		}
	}
	/* Chunked wins over a length (RFC 9112 §6.3). */
	if (r->mode == BODY_CHUNKED) {
		r->remaining = 0;
	} else if (have_length) {
		r->mode = BODY_LENGTH;
		r->done = r->remaining == 0;
	}
	if (status == 204 || status == 304 || (status >= 100 && status < 200))
		r->done = true;
	return 0;
}

/* --------------------------------------------------------------- HTTP GET */

int
http_get(const char *socket_path, const char *path, int timeout_ms, int *status, struct buf *body, char *err, size_t errlen)
{
	long long deadline = wire_now_ms() + timeout_ms;
	struct buf head;
	struct body_reader reader;
	char request[HTTP_MAX_PATH_BYTES + 128];
	size_t end = 0;
	int fd, n, rc = -1;

	*status = 0;
	buf_clear(body);
	if (strlen(path) > HTTP_MAX_PATH_BYTES) {
		wire_set_err(err, errlen, "the request path is over %d bytes", HTTP_MAX_PATH_BYTES);
		return -1;
	}
	n = snprintf(request, sizeof request,
	    "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path);
	fd = wire_connect_within(socket_path, deadline, err, errlen);
	if (fd < 0)
		return -1;
	buf_init(&head, HTTP_MAX_HEAD_BYTES);
	if (wire_send_all(fd, request, (size_t)n, deadline, err, errlen) != 0)
		goto out;
	/* The status line and headers, then what came after them is the body's start. */
	while (end == 0) {
		size_t before = head.len;
		ssize_t got = wire_recv_within(fd, &head, deadline, "its reply", err, errlen);

		if (got == -1)
			goto out;
		if (got == 0 || got == -2) {
			wire_set_err(err, errlen, "the tend server's reply is not HTTP");
			goto out;
		}
		end = http_head_end(head.data + (before >= 3 ? before - 3 : 0), head.len - (before >= 3 ? before - 3 : 0));
		if (end != 0)
			end += before >= 3 ? before - 3 : 0;
	}
	*status = http_status_code((const char *)head.data, end);
	if (*status < 0 || body_reader_init(&reader, *status, (const char *)head.data, end) != 0) {
		*status = 0;
		wire_set_err(err, errlen, "the tend server's reply is not HTTP");
		goto out;
	}
	rc = 0;
	n = body_feed(&reader, head.data + end, head.len - end, body);
	while (n == 0 && !reader.done) {
		uint8_t chunk[WIRE_READ_BYTES];
		struct buf piece = { chunk, 0, sizeof chunk, sizeof chunk };
		ssize_t got = wire_recv_within(fd, &piece, deadline, "its reply", err, errlen);

		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 0) {
			if (reader.mode != BODY_UNTIL_CLOSE) {
				wire_set_err(err, errlen, "the tend server closed the connection before its reply was whole");
				rc = -1;
			}
			break;
		}
		n = body_feed(&reader, chunk, (size_t)got, body);
	}
	if (n == -1) {
		wire_set_err(err, errlen, "the tend server's reply is not HTTP (a broken chunked body)");
		rc = -1;
	} else if (n == -2) {
		wire_set_err(err, errlen, "the tend server's reply is over %zu bytes", body->cap);
		rc = -1;
	}
out:
	buf_free(&head);
	close(fd);
	return rc;
}
