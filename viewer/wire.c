/*
 * wire.c -- what the HTTP GET (http.c) and the WebSocket client (ws.c)
 * both stand on, on the viewer's side of the server's unix socket: errors
 * worded for people, deadlines, a connect, send and receive that never wait
 * past a deadline, and the reading of a reply's head (status line, header
 * fields), which the GET and the upgrade share.  wire.h declares it for
 * those two files only.
 *
 * The handshake and the GET are blocking with a deadline (poll), which is
 * all the start of an attach needs; after the handshake ws.c writes and
 * reads without blocking.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

/* ----------------------------------------------------------------- errors */

void
wire_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- sockets */

long long
wire_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before `deadline`, as poll() takes them (0 once past). */
int
wire_ms_left(long long deadline)
{
	long long left = deadline - wire_now_ms();

	return left > 0 ? (int)left : 0;
}

/* A unix stream socket, close-on-exec (and non-blocking when asked), its address filled. */
static int
unix_socket(const char *path, bool nonblocking, struct sockaddr_un *addr)
{
	int fd, type = SOCK_STREAM;

	if (strlen(path) >= sizeof addr->sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(addr, 0, sizeof *addr);
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, path, strlen(path) + 1);
#if defined(SOCK_CLOEXEC) && !defined(TEND_PORTABLE)
	type |= SOCK_CLOEXEC;
#endif
	fd = socket(AF_UNIX, type, 0);
	if (fd < 0)
		return -1;
#if !defined(SOCK_CLOEXEC) || defined(TEND_PORTABLE)
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
#endif
	if (nonblocking) {
		int flags = fcntl(fd, F_GETFL);

		if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
	}
	return fd;
}

/* After a connect() that did not finish at once: waits for it; 0, or -1 with errno. */
static int
connect_finish(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int ready, soerr = 0;

	do
		ready = poll(&pfd, 1, timeout_ms);
	while (ready < 0 && errno == EINTR);
	if (ready == 0)
		errno = ETIMEDOUT;
	if (ready <= 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
		return -1;
	if (soerr != 0) {
		errno = soerr;
		return -1;
	}
	return 0;
}

int
wire_connect_unix(const char *path)
{
	struct sockaddr_un addr;
	int fd = unix_socket(path, false, &addr), saved;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
		return fd;
	/* Interrupted by a signal, the connect goes on: wait for it. */
	if (errno == EINTR && connect_finish(fd, -1) == 0)
		return fd;
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/*
 * Connects without blocking past the deadline: a stopped server's full
 * backlog (EAGAIN) or a slow accept must not hold the viewer.  The fd is
 * left non-blocking.
 */
int
wire_connect_within(const char *path, long long deadline, char *err, size_t errlen)
{
	struct sockaddr_un addr;
	int fd = unix_socket(path, true, &addr), saved;

	if (fd < 0) {
		wire_set_err(err, errlen, "cannot reach the tend server at %s: %s", path, strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
		return fd;
	if ((errno == EINPROGRESS || errno == EINTR) && connect_finish(fd, wire_ms_left(deadline)) == 0)
		return fd;
	saved = errno;
	close(fd);
	wire_set_err(err, errlen, "cannot reach the tend server at %s: %s", path,
	    saved == EAGAIN ? "it is not accepting connections" : strerror(saved));
	errno = saved;
	return -1;
}

/*
 * write(), not send(MSG_NOSIGNAL): the viewer ignores SIGPIPE (main.c, as
 * the C tests do), and the kernel counts write()'s bytes in /proc/PID/io,
 * which the attach tests read to see the keys reach a stopped server.
 */
ssize_t
wire_send_some(int fd, const void *p, size_t n)
{
	return write(fd, p, n);
}

int
wire_send_queued(int fd, struct buf *out, const char *peer, char *err, size_t errlen)
{
	size_t sent = 0;

	while (sent < out->len) {
		ssize_t n = wire_send_some(fd, out->data + sent, out->len - sent);

		if (n > 0) {
			sent += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		buf_consume(out, sent);
		wire_set_err(err, errlen, "the connection to %s broke: %s", peer, n == 0 ? "nothing written" : strerror(errno));
		return -1;
	}
	buf_consume(out, sent);
	return 0;
}

/* Writes all of p before the deadline (fd non-blocking); 0, or -1 with err. */
int
wire_send_all(int fd, const char *p, size_t n, long long deadline, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	while (n > 0) {
		ssize_t sent = wire_send_some(fd, p, n);

		if (sent > 0) {
			p += sent;
			n -= (size_t)sent;
			continue;
		}
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			wire_set_err(err, errlen, "the tend server's socket broke: %s", strerror(errno));
			return -1;
		}
		if (poll(&pfd, 1, wire_ms_left(deadline)) == 0) {
			wire_set_err(err, errlen, "the tend server did not take a request in time");
			return -1;
		}
	}
	return 0;
}

/*
 * Reads what there is into `into` (up to its cap) before the deadline.
 * Returns the bytes read, 0 at end of stream, -1 on timeout or an error
 * (err set), -2 when `into` is full.
 */
ssize_t
wire_recv_within(int fd, struct buf *into, long long deadline, const char *waiting_for, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t room = into->cap - into->len;
	ssize_t got;

	if (room == 0)
		return -2;
	if (room > WIRE_READ_BYTES)
		room = WIRE_READ_BYTES;
	if (buf_reserve(into, room) != 0) {
		wire_set_err(err, errlen, "out of memory reading %s", waiting_for);
		return -1;
	}
	for (;;) {
		int timeout = wire_ms_left(deadline), ready;

		got = read(fd, into->data + into->len, room);
		if (got >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			wire_set_err(err, errlen, "the tend server's socket broke while waiting for %s: %s", waiting_for, strerror(errno));
			return -1;
		}
		ready = poll(&pfd, 1, timeout);
		if (ready == 0) {
			wire_set_err(err, errlen, "the tend server did not send %s in time", waiting_for);
			return -1;
		}
	}
	into->len += (size_t)got;
	return got;
}

/* ------------------------------------------------------- the reply's head */

/* Where "\r\n\r\n" ends in p (the offset past it), or 0 when it is not there. */
size_t
http_head_end(const uint8_t *p, size_t n)
{
	for (size_t i = 3; i < n; i++) {
		if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r')
			return i + 1;
	}
	return 0;
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool
http_same_ci(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	if (alen != blen)
		return false;
	for (size_t i = 0; i < alen; i++) {
		if (lower(a[i]) != lower(b[i]))
			return false;
	}
	return true;
}

/*
 * The header lines after the status line, one at a time: *at walks the
 * head (which ends in "\r\n\r\n").  False when there are no more.
 */
bool
http_header_next(const char *head, size_t head_len, size_t *at, struct http_header_field *f)
{
	for (;;) {
		const char *line = head + *at, *end, *colon;
		size_t line_len;

		end = memchr(line, '\n', head_len - *at);
		if (end == NULL)
			return false;
		*at = (size_t)(end - head) + 1;
		line_len = (size_t)(end - line);
		if (line_len > 0 && line[line_len - 1] == '\r')
			line_len--;
		if (line_len == 0)
			return false;
		colon = memchr(line, ':', line_len);
		if (colon == NULL || colon == line)
			continue;
		f->name = line;
		f->name_len = (size_t)(colon - line);
		while (f->name_len > 0 && (line[f->name_len - 1] == ' ' || line[f->name_len - 1] == '\t'))
			f->name_len--;
		f->value = colon + 1;
		f->value_len = line_len - (size_t)(f->value - line);
		while (f->value_len > 0 && (*f->value == ' ' || *f->value == '\t'))
			f->value++, f->value_len--;
		while (f->value_len > 0 && (f->value[f->value_len - 1] == ' ' || f->value[f->value_len - 1] == '\t'))
			f->value_len--;
		return true;
	}
}

/* The status line's first line, for messages: without "HTTP/1.1 ", cut at its end. */
void
http_status_text(const char *head, size_t head_len, char *out, size_t outlen)
{
	const char *end = memchr(head, '\r', head_len);
	size_t n = end != NULL ? (size_t)(end - head) : head_len;

	if (n >= 9 && memcmp(head, "HTTP/1.", 7) == 0 && head[8] == ' ')
		head += 9, n -= 9;
	snprintf(out, outlen, "%.*s", (int)n, head);
}

/* "HTTP/1.x NNN ...": the status, or -1. */
int
http_status_code(const char *head, size_t head_len)
{
	if (head_len < 12 || memcmp(head, "HTTP/1.", 7) != 0 || head[8] != ' ')
		return -1;
	for (int i = 9; i < 12; i++) {
		if (head[i] < '0' || head[i] > '9')
			return -1;
	}
	if (head_len > 12 && head[12] != ' ' && head[12] != '\r')
		return -1;
	return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}
