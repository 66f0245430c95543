/*
 * wire.h -- what wire.c shares with http.c, ws.c and typist.c, and with no
 * other file: errors, deadlines, the unix socket with deadlines, queued
 * writes, and the reading of a reply's head.  The viewer's interface to all of them is viewer.h.
 */
#ifndef TEND_VIEWER_WIRE_H
#define TEND_VIEWER_WIRE_H

#include <sys/types.h>

#include "viewer.h"

/* The reply to an upgrade or a GET's headers: a few hundred bytes; more is not our server. */
#define HTTP_MAX_HEAD_BYTES (16 * 1024)
/* A request line holds a path of percent-encoded names, well under this. */
#define HTTP_MAX_PATH_BYTES 2048
/* One read from the socket. */
#define WIRE_READ_BYTES (64 * 1024)

/* Fills err (when not NULL) for a person to read. */
void wire_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The monotonic clock in ms, and the ms left before a deadline on it (0 once past). */
long long wire_now_ms(void);
int wire_ms_left(long long deadline);

/* A non-blocking unix socket connected before the deadline; -1 with err. */
int wire_connect_within(const char *path, long long deadline, char *err, size_t errlen);
/* One write(): what it took, or -1 with errno. */
ssize_t wire_send_some(int fd, const void *p, size_t n);
/*
 * Writes what `out` holds as far as the socket takes it (fd non-blocking),
 * dropping what went; 0, or -1 with err ("the connection to PEER broke").
 */
int wire_send_queued(int fd, struct buf *out, const char *peer, char *err, size_t errlen);
/* All of p written before the deadline; 0, or -1 with err. */
int wire_send_all(int fd, const char *p, size_t n, long long deadline, char *err, size_t errlen);
/* One read into `into` before the deadline: the bytes, 0 at the end, -1 (err set), -2 when full. */
ssize_t wire_recv_within(int fd, struct buf *into, long long deadline, const char *waiting_for, char *err, size_t errlen);

/* One header line's name and value (trimmed), within the head's bytes. */
struct http_header_field {
	const char *name, *value;
	size_t name_len, value_len;
};

/* The offset past "\r\n\r\n" in p, or 0 when it is not there. */
size_t http_head_end(const uint8_t *p, size_t n);
/* a[0..alen) equals b, ASCII case aside (header names, "websocket", "chunked"). */
bool http_same_ci(const char *a, size_t alen, const char *b);
/* The next header line after *at (start past the status line); false at the head's end. */
bool http_header_next(const char *head, size_t head_len, size_t *at, struct http_header_field *f);
/* "HTTP/1.x NNN ...": the status, or -1. */
int http_status_code(const char *head, size_t head_len);
/* The status line for messages, without "HTTP/1.1 ". */
void http_status_text(const char *head, size_t head_len, char *out, size_t outlen);

#endif
