/*
 * wire.c -- the viewer's side of the server's unix socket: a plain HTTP GET
 * (to look a session up) and the WebSocket client the viewer protocol runs
 * on (RFC 6455: the upgrade, masked binary frames out, frames in).
 *
 * The reader is a state machine over bytes, as the holder's frame reader:
 * any chunking decodes, a length over WIRE_MAX_MESSAGE_BYTES is refused as
 * soon as its header is whole (before anything is kept), and a frame whose
 * payload is whole in one read is handed over where it lies, uncopied.  On
 * a key's echo that is the common case: one read, one small DATA frame, no
 * copy and no allocation.
 *
 * Writes never block: frames are queued in ws->out and ws_flush writes what
 * the socket takes.  The handshake and the GET are blocking with a deadline
 * (poll), which is all the start of an attach needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#ifndef TEND_PORTABLE
#include <sys/random.h>
#endif

#include "viewer.h"

/* RFC 6455 §1.3: appended to the key before hashing it for Sec-WebSocket-Accept. */
#define WS_HANDSHAKE_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
/* The reply to an upgrade or a GET's headers: a few hundred bytes; more is not our server. */
#define HTTP_MAX_HEAD_BYTES (16 * 1024)
/* A request line holds a path of percent-encoded names, well under this. */
#define HTTP_MAX_PATH_BYTES 2048
/* One read from the socket. */
#define WIRE_READ_BYTES (64 * 1024)
/* Mask keys and handshake keys are drawn from a pool this large, refilled when used up. */
#define RANDOM_POOL_BYTES 4096
/* A message buffer larger than this after its message is freed, not kept: a snapshot must not pin megabytes. */
#define WS_KEEP_BUFFER_BYTES (256 * 1024)
/* Of a refusal's body, this much goes into the error. */
#define REFUSAL_BODY_CHARS 200

#define OP_CONTINUATION 0x0
#define OP_TEXT 0x1
#define OP_BINARY 0x2
#define OP_CLOSE 0x8
#define OP_PING 0x9
#define OP_PONG 0xa

#define WS_MAX_CONTROL_BYTES 125

/* ------------------------------------------------------------------ SHA-1 */

static uint32_t
rol32(uint32_t v, int n)
{
	return v << n | v >> (32 - n);
}

static void
sha1_block(uint32_t h[5], const uint8_t *block)
{
	uint32_t w[80], a, b, c, d, e, f, k, t;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		    (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void
wire_sha1(const void *data, size_t n, uint8_t digest[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	const uint8_t *p = data;
	uint8_t last[128];
	uint64_t bits = (uint64_t)n * 8;
	size_t tail, last_len;

	for (; n >= 64; p += 64, n -= 64)
		sha1_block(h, p);
	/* The rest, a 1 bit, zeros, and the length in bits: one block or two. */
	tail = n;
	memset(last, 0, sizeof last);
	memcpy(last, p, tail);
	last[tail] = 0x80;
	last_len = tail + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		last[last_len - 1 - (size_t)i] = (uint8_t)(bits >> (8 * i));
	for (size_t at = 0; at < last_len; at += 64)
		sha1_block(h, last + at);
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = (uint8_t)(h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)h[i];
	}
}

size_t
wire_base64(const uint8_t *p, size_t n, char *out)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = alphabet[v >> 18 & 63];
		out[o++] = alphabet[v >> 12 & 63];
		out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

void
ws_accept_for(const char *key, char out[29])
{
	char joined[128];
	uint8_t digest[20];
	int n;

	n = snprintf(joined, sizeof joined, "%s%s", key, WS_HANDSHAKE_GUID);
	if (n < 0 || (size_t)n >= sizeof joined)
		n = 0;	/* no key of ours is that long: an accept nothing matches */
	wire_sha1(joined, (size_t)n, digest);
	wire_base64(digest, sizeof digest, out);
}

/* ----------------------------------------------------------------- random */

static uint8_t random_pool[RANDOM_POOL_BYTES];
static size_t random_at = RANDOM_POOL_BYTES;

static bool
random_fill_system(uint8_t *p, size_t n)
{
#ifndef TEND_PORTABLE
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		n -= (size_t)got;
	}
	return true;
#else
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (n > 0) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close(fd);
			return false;
		}
		p += got;
		n -= (size_t)got;
	}
	close(fd);
	return true;
#endif
}

/*
 * Masking guards proxies on the web against a page's script (RFC 6455
 * §10.3); on a private unix socket it only has to be there.  So with no
 * system randomness at all, a clock-seeded generator still gives keys.
 */
static void
random_fill_weak(uint8_t *p, size_t n)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)getpid() << 16 ^ 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 32);
	}
}

static void
random_bytes(uint8_t *out, size_t n)
{
	if (random_at + n > sizeof random_pool) {
		if (!random_fill_system(random_pool, sizeof random_pool))
			random_fill_weak(random_pool, sizeof random_pool);
		random_at = 0;
	}
	memcpy(out, random_pool + random_at, n);
	random_at += n;
}

/* ----------------------------------------------------------------- errors */

static void
set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- sockets */

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before `deadline`, as poll() takes them (0 once past). */
static int
ms_left(long long deadline)
{
	long long left = deadline - now_ms();

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
static int
connect_within(const char *path, long long deadline, char *err, size_t errlen)
{
	struct sockaddr_un addr;
	int fd = unix_socket(path, true, &addr), saved;

	if (fd < 0) {
		set_err(err, errlen, "cannot reach the tend server at %s: %s", path, strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
		return fd;
	if ((errno == EINPROGRESS || errno == EINTR) && connect_finish(fd, ms_left(deadline)) == 0)
		return fd;
	saved = errno;
	close(fd);
	set_err(err, errlen, "cannot reach the tend server at %s: %s", path,
	    saved == EAGAIN ? "it is not accepting connections" : strerror(saved));
	errno = saved;
	return -1;
}

/*
 * write(), not send(MSG_NOSIGNAL): the viewer ignores SIGPIPE (main.c, as
 * the C tests do), and the kernel counts write()'s bytes in /proc/PID/io,
 * which the attach tests read to see the keys reach a stopped server.
 */
static ssize_t
send_some(int fd, const void *p, size_t n)
{
	return write(fd, p, n);
}

/* Writes all of p before the deadline (fd non-blocking); 0, or -1 with err. */
static int
send_all(int fd, const char *p, size_t n, long long deadline, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	while (n > 0) {
		ssize_t sent = send_some(fd, p, n);

		if (sent > 0) {
			p += sent;
			n -= (size_t)sent;
			continue;
		}
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			set_err(err, errlen, "the tend server's socket broke: %s", strerror(errno));
			return -1;
		}
		if (poll(&pfd, 1, ms_left(deadline)) == 0) {
			set_err(err, errlen, "the tend server did not take a request in time");
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
static ssize_t
recv_within(int fd, struct buf *into, long long deadline, const char *waiting_for, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t room = into->cap - into->len;
	ssize_t got;

	if (room == 0)
		return -2;
	if (room > WIRE_READ_BYTES)
		room = WIRE_READ_BYTES;
	if (buf_reserve(into, room) != 0) {
		set_err(err, errlen, "out of memory reading %s", waiting_for);
		return -1;
	}
	for (;;) {
		int timeout = ms_left(deadline), ready;

		got = read(fd, into->data + into->len, room);
		if (got >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			set_err(err, errlen, "the tend server's socket broke while waiting for %s: %s", waiting_for, strerror(errno));
			return -1;
		}
		ready = poll(&pfd, 1, timeout);
		if (ready == 0) {
			set_err(err, errlen, "the tend server did not send %s in time", waiting_for);
			return -1;
		}
	}
	into->len += (size_t)got;
	return got;
}

/* Where "\r\n\r\n" ends in p (the offset past it), or 0 when it is not there. */
static size_t
head_end(const uint8_t *p, size_t n)
{
	for (size_t i = 3; i < n; i++) {
		if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r')
			return i + 1;
	}
	return 0;
}

static int
hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
same_ci(const char *a, size_t alen, const char *b)
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

/* One header line's name and value (trimmed), within the head's bytes. */
struct header_field {
	const char *name, *value;
	size_t name_len, value_len;
};

/*
 * The header lines after the status line, one at a time: *at walks the
 * head (which ends in "\r\n\r\n").  False when there are no more.
 */
static bool
header_next(const char *head, size_t head_len, size_t *at, struct header_field *f)
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
static void
status_text(const char *head, size_t head_len, char *out, size_t outlen)
{
	const char *end = memchr(head, '\r', head_len);
	size_t n = end != NULL ? (size_t)(end - head) : head_len;

	if (n >= 9 && memcmp(head, "HTTP/1.", 7) == 0 && head[8] == ' ')
		head += 9, n -= 9;
	snprintf(out, outlen, "%.*s", (int)n, head);
}

/* ------------------------------------------------------------- HTTP GET */

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
			h = hex_digit(c);
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
	struct header_field f;
	size_t at = (size_t)((const char *)memchr(head, '\n', head_len) - head) + 1;
	bool have_length = false;

	memset(r, 0, sizeof *r);
	r->mode = BODY_UNTIL_CLOSE;
	while (header_next(head, head_len, &at, &f)) {
		if (same_ci(f.name, f.name_len, "transfer-encoding")) {
			/* Chunked is the last coding when present ("gzip, chunked"). */
			if (f.value_len >= 7 && same_ci(f.value + f.value_len - 7, 7, "chunked"))
				r->mode = BODY_CHUNKED;
		} else if (same_ci(f.name, f.name_len, "content-length")) {
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

/* "HTTP/1.x NNN ...": the status, or -1. */
static int
status_code(const char *head, size_t head_len)
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

int
http_get(const char *socket_path, const char *path, int timeout_ms, int *status, struct buf *body, char *err, size_t errlen)
{
	long long deadline = now_ms() + timeout_ms;
	struct buf head;
	struct body_reader reader;
	char request[HTTP_MAX_PATH_BYTES + 128];
	size_t end = 0;
	int fd, n, rc = -1;

	*status = 0;
	buf_clear(body);
	if (strlen(path) > HTTP_MAX_PATH_BYTES) {
		set_err(err, errlen, "the request path is over %d bytes", HTTP_MAX_PATH_BYTES);
		return -1;
	}
	n = snprintf(request, sizeof request,
	    "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path);
	fd = connect_within(socket_path, deadline, err, errlen);
	if (fd < 0)
		return -1;
	buf_init(&head, HTTP_MAX_HEAD_BYTES);
	if (send_all(fd, request, (size_t)n, deadline, err, errlen) != 0)
		goto out;
	/* The status line and headers, then what came after them is the body's start. */
	while (end == 0) {
		size_t before = head.len;
		ssize_t got = recv_within(fd, &head, deadline, "its reply", err, errlen);

		if (got == -1)
			goto out;
		if (got == 0 || got == -2) {
			set_err(err, errlen, "the tend server's reply is not HTTP");
			goto out;
		}
		end = head_end(head.data + (before >= 3 ? before - 3 : 0), head.len - (before >= 3 ? before - 3 : 0));
		if (end != 0)
			end += before >= 3 ? before - 3 : 0;
	}
	*status = status_code((const char *)head.data, end);
	if (*status < 0 || body_reader_init(&reader, *status, (const char *)head.data, end) != 0) {
		*status = 0;
		set_err(err, errlen, "the tend server's reply is not HTTP");
		goto out;
	}
	rc = 0;
	n = body_feed(&reader, head.data + end, head.len - end, body);
	while (n == 0 && !reader.done) {
		uint8_t chunk[WIRE_READ_BYTES];
		struct buf piece = { chunk, 0, sizeof chunk, sizeof chunk };
		ssize_t got = recv_within(fd, &piece, deadline, "its reply", err, errlen);

		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 0) {
			if (reader.mode != BODY_UNTIL_CLOSE) {
				set_err(err, errlen, "the tend server closed the connection before its reply was whole");
				rc = -1;
			}
			break;
		}
		n = body_feed(&reader, chunk, (size_t)got, body);
	}
	if (n == -1) {
		set_err(err, errlen, "the tend server's reply is not HTTP (a broken chunked body)");
		rc = -1;
	} else if (n == -2) {
		set_err(err, errlen, "the tend server's reply is over %zu bytes", body->cap);
		rc = -1;
	}
out:
	buf_free(&head);
	close(fd);
	return rc;
}

/* -------------------------------------------------------------- WebSocket */

void
ws_init(struct ws *ws)
{
	memset(ws, 0, sizeof *ws);
	ws->fd = -1;
	buf_init(&ws->out, WIRE_MAX_OUT_BYTES);
	buf_init(&ws->msg, WIRE_MAX_MESSAGE_BYTES);
	buf_init(&ws->early, HTTP_MAX_HEAD_BYTES);
	ws->state = WS_HEADER;
	ws->hdr_need = 2;
}

void
ws_close(struct ws *ws)
{
	if (ws->fd >= 0)
		close(ws->fd);
	ws->fd = -1;
	buf_free(&ws->out);
	buf_free(&ws->msg);
	buf_free(&ws->early);
	ws->closed = true;
}

/* Checks the reply to the upgrade (its head is head[0..head_len)); 0, or -1 with err. */
static int
ws_check_reply(const char *key, const char *head, size_t head_len, const uint8_t *rest, size_t rest_len, char *err, size_t errlen)
{
	char expected[29], status[128];
	struct header_field f;
	size_t at;
	bool upgrade = false, accepted = false, extensions = false;

	if (head_len < 12 || memcmp(head, "HTTP/1.1 101", 12) != 0 ||
	    (head[12] != ' ' && head[12] != '\r')) {
		char body[REFUSAL_BODY_CHARS + 1];
		size_t n = rest_len < REFUSAL_BODY_CHARS ? rest_len : REFUSAL_BODY_CHARS;

		/* The body says why (a 404 names the endpoint): one line of it, printable. */
		for (size_t i = 0; i < n; i++)
			body[i] = rest[i] < 0x20 || rest[i] == 0x7f ? ' ' : (char)rest[i];
		while (n > 0 && body[n - 1] == ' ')
			n--;
		body[n] = '\0';
		status_text(head, head_len, status, sizeof status);
		set_err(err, errlen, "the server refused the viewer socket: %s%s%s%s", status,
		    n > 0 ? " (" : "", body, n > 0 ? ")" : "");
		return -1;
	}
	ws_accept_for(key, expected);
	at = (size_t)((const char *)memchr(head, '\n', head_len) - head) + 1;
	while (header_next(head, head_len, &at, &f)) {
		if (same_ci(f.name, f.name_len, "upgrade"))
			upgrade = same_ci(f.value, f.value_len, "websocket");
		else if (same_ci(f.name, f.name_len, "sec-websocket-accept"))
			accepted = f.value_len == 28 && memcmp(f.value, expected, 28) == 0;
		else if (same_ci(f.name, f.name_len, "sec-websocket-extensions"))
			extensions = true;
	}
	if (!upgrade || !accepted) {
		set_err(err, errlen, "the server answered the WebSocket handshake wrongly");
		return -1;
	}
	if (extensions) {
		set_err(err, errlen, "the server chose a WebSocket extension that was not offered");
		return -1;
	}
	return 0;
}

int
ws_open(struct ws *ws, const char *socket_path, const char *path, int timeout_ms, char *err, size_t errlen)
{
	long long deadline = now_ms() + timeout_ms;
	char request[HTTP_MAX_PATH_BYTES + 256], key[25];
	uint8_t nonce[16];
	struct buf head;
	size_t end = 0;
	int n;

	ws_init(ws);
	if (strlen(path) > HTTP_MAX_PATH_BYTES) {
		set_err(err, errlen, "the viewer socket's path is over %d bytes", HTTP_MAX_PATH_BYTES);
		return -1;
	}
	random_bytes(nonce, sizeof nonce);
	wire_base64(nonce, sizeof nonce, key);
	n = snprintf(request, sizeof request,
	    "GET %s HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "Upgrade: websocket\r\n"
	    "Connection: Upgrade\r\n"
	    "Sec-WebSocket-Key: %s\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n", path, key);
	ws->fd = connect_within(socket_path, deadline, err, errlen);
	if (ws->fd < 0)
		goto fail_early;
	buf_init(&head, HTTP_MAX_HEAD_BYTES);
	if (send_all(ws->fd, request, (size_t)n, deadline, err, errlen) != 0)
		goto fail;
	while (end == 0) {
		size_t from = head.len >= 3 ? head.len - 3 : 0;
		ssize_t got = recv_within(ws->fd, &head, deadline, "the WebSocket handshake's answer", err, errlen);

		if (got == -1) {
			if (ms_left(deadline) == 0)
				set_err(err, errlen, "the server did not answer the WebSocket handshake within %d ms", timeout_ms);
			goto fail;
		}
		if (got == 0) {
			set_err(err, errlen, "the server closed the socket during the WebSocket handshake");
			goto fail;
		}
		if (got == -2) {
			set_err(err, errlen, "the server answered the WebSocket handshake with something else");
			goto fail;
		}
		end = head_end(head.data + from, head.len - from);
		if (end != 0)
			end += from;
	}
	if (ws_check_reply(key, (const char *)head.data, end, head.data + end, head.len - end, err, errlen) != 0)
		goto fail;
	/* Frames that came with the answer: the first ws_read decodes them. */
	if (buf_append(&ws->early, head.data + end, head.len - end) != 0)
		goto fail;
	buf_free(&head);
	return 0;
fail:
	buf_free(&head);
fail_early:
	ws_close(ws);
	return -1;
}

/* to = from XOR the mask, 8 bytes a step (a 64 KiB paste frame is masked in microseconds). */
static void
ws_mask(uint8_t *to, const uint8_t *from, size_t len, const uint8_t mask[4])
{
	uint8_t mask8[8];
	uint64_t m, v;
	size_t i = 0;

	memcpy(mask8, mask, 4);
	memcpy(mask8 + 4, mask, 4);
	memcpy(&m, mask8, 8);
	for (; i + 8 <= len; i += 8) {
		memcpy(&v, from + i, 8);
		v ^= m;
		memcpy(to + i, &v, 8);
	}
	for (; i < len; i++)
		to[i] = from[i] ^ mask[i & 3];
}

/* Appends one masked frame to ws->out; -1 when it does not fit. */
static int
ws_queue_frame(struct ws *ws, uint8_t opcode, const uint8_t *payload, size_t len)
{
	size_t head = 2 + (len < 126 ? 0 : len < 0x10000 ? 2 : 8);
	uint8_t *p, mask[4];

	if (len > WIRE_MAX_OUT_BYTES || buf_reserve(&ws->out, head + 4 + len) != 0)
		return -1;
	p = ws->out.data + ws->out.len;
	p[0] = (uint8_t)(0x80 | opcode);
	if (len < 126) {
		p[1] = (uint8_t)(0x80 | len);
	} else if (len < 0x10000) {
		p[1] = 0x80 | 126;
		p[2] = (uint8_t)(len >> 8);
		p[3] = (uint8_t)len;
	} else {
		p[1] = 0x80 | 127;
		for (int i = 0; i < 8; i++)
			p[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
	}
	random_bytes(mask, sizeof mask);
	memcpy(p + head, mask, 4);
	p += head + 4;
	ws_mask(p, payload, len, mask);
	ws->out.len += head + 4 + len;
	return 0;
}

int
ws_send(struct ws *ws, const uint8_t *payload, size_t len)
{
	return ws_queue_frame(ws, OP_BINARY, payload, len);
}

/* A buffer that grew for one large message or paste goes back to nothing once empty. */
static void
buf_trim(struct buf *b)
{
	if (b->len == 0 && b->alloc > WS_KEEP_BUFFER_BYTES) {
		size_t cap = b->cap;

		buf_free(b);
		buf_init(b, cap);
	}
}

int
ws_flush(struct ws *ws, char *err, size_t errlen)
{
	size_t sent = 0;

	while (sent < ws->out.len) {
		ssize_t n = send_some(ws->fd, ws->out.data + sent, ws->out.len - sent);

		if (n > 0) {
			sent += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		buf_consume(&ws->out, sent);
		set_err(err, errlen, "the connection to the server broke: %s", n == 0 ? "nothing written" : strerror(errno));
		return -1;
	}
	buf_consume(&ws->out, sent);
	buf_trim(&ws->out);
	return 0;
}

/* ---- the reader */

static int
ws_fail(struct ws *ws, char *err, size_t errlen, const char *why)
{
	ws->closed = true;
	set_err(err, errlen, "%s", why);
	return -1;
}

/* The close frame's code and reason, as the TypeScript client words it. */
static int
ws_closed_by_server(struct ws *ws, char *err, size_t errlen)
{
	char reason[WS_MAX_CONTROL_BYTES + 1];
	size_t n = 0;

	ws->closed = true;
	for (size_t i = 2; i < ws->ctl_len; i++)
		reason[n++] = ws->ctl[i] < 0x20 || ws->ctl[i] == 0x7f ? '?' : (char)ws->ctl[i];
	reason[n] = '\0';
	if (n > 0)
		set_err(err, errlen, "%s", reason);
	else if (ws->ctl_len >= 2)
		set_err(err, errlen, "socket closed (%u)", (unsigned)(ws->ctl[0] << 8 | ws->ctl[1]));
	else
		set_err(err, errlen, "socket closed");
	return -1;
}

/* The header is whole (opcode, fin, remaining): checks it. 0, or -1. */
static int
ws_frame_start(struct ws *ws, char *err, size_t errlen)
{
	char why[96];

	if (ws->opcode >= 0x8) {
		if (!ws->fin || ws->remaining > WS_MAX_CONTROL_BYTES)
			return ws_fail(ws, err, errlen, "the server sent a malformed WebSocket control frame");
		if (ws->opcode != OP_CLOSE && ws->opcode != OP_PING && ws->opcode != OP_PONG)
			goto unknown;
		ws->ctl_len = 0;
		return 0;
	}
	switch (ws->opcode) {
	case OP_TEXT:
		return ws_fail(ws, err, errlen, "the server sent text on the viewer socket");
	case OP_BINARY:
		if (ws->msg_opcode != 0)
			return ws_fail(ws, err, errlen, "the server began a WebSocket message inside another");
		ws->msg_opcode = OP_BINARY;
		break;
	case OP_CONTINUATION:
		if (ws->msg_opcode == 0)
			return ws_fail(ws, err, errlen, "the server continued a WebSocket message it had not begun");
		break;
	default:
		goto unknown;
	}
	if (ws->remaining > WIRE_MAX_MESSAGE_BYTES - ws->msg.len) {
		snprintf(why, sizeof why, "the server sent a message over %u bytes", WIRE_MAX_MESSAGE_BYTES);
		return ws_fail(ws, err, errlen, why);
	}
	return 0;
unknown:
	snprintf(why, sizeof why, "the server sent an unknown WebSocket opcode %u", ws->opcode);
	return ws_fail(ws, err, errlen, why);
}

/* The frame's payload is all in: acts on it. 0, or -1 (a close, no memory). */
static int
ws_frame_end(struct ws *ws, void (*on_message)(void *, const uint8_t *, size_t), void *ctx, char *err, size_t errlen)
{
	ws->state = WS_HEADER;
	ws->hdr_got = 0;
	ws->hdr_need = 2;
	switch (ws->opcode) {
	case OP_PING:
		if (ws_queue_frame(ws, OP_PONG, ws->ctl, ws->ctl_len) != 0)
			return ws_fail(ws, err, errlen, "the viewer's queue to the server is full");
		return 0;
	case OP_PONG:
		return 0;
	case OP_CLOSE:
		return ws_closed_by_server(ws, err, errlen);
	}
	if (!ws->fin)
		return 0;
	ws->msg_opcode = 0;
	/* An empty message has no buffer yet: a pointer to nothing, never NULL. */
	on_message(ctx, ws->msg.data != NULL ? ws->msg.data : (const uint8_t *)"", ws->msg.len);
	buf_clear(&ws->msg);
	buf_trim(&ws->msg);
	return 0;
}

/* The 2 header bytes are in ws->hdr: fin, opcode, the length or where it comes from. */
static int
ws_header(struct ws *ws, char *err, size_t errlen)
{
	uint8_t b0 = ws->hdr[0], b1 = ws->hdr[1];

	if ((b0 & 0x70) != 0)
		return ws_fail(ws, err, errlen, "the server set reserved bits in a WebSocket frame");
	if ((b1 & 0x80) != 0)
		return ws_fail(ws, err, errlen, "the server masked a WebSocket frame");
	ws->fin = (b0 & 0x80) != 0;
	ws->opcode = b0 & 0x0f;
	ws->hdr_got = 0;
	switch (b1 & 0x7f) {
	case 126:
		ws->state = WS_LEN16;
		ws->hdr_need = 2;
		return 0;
	case 127:
		ws->state = WS_LEN64;
		ws->hdr_need = 8;
		return 0;
	default:
		ws->remaining = b1 & 0x7f;
		return ws_frame_start(ws, err, errlen);
	}
}

int
ws_feed(struct ws *ws, const uint8_t *p, size_t n, void (*on_message)(void *, const uint8_t *, size_t), void *ctx, char *err, size_t errlen)
{
	size_t i = 0;

	if (ws->closed)
		return ws_fail(ws, err, errlen, "the connection to the server has ended");
	while (i < n) {
		size_t take;

		if (ws->state != WS_PAYLOAD) {
			take = ws->hdr_need - ws->hdr_got;
			if (take > n - i)
				take = n - i;
			memcpy(ws->hdr + ws->hdr_got, p + i, take);
			ws->hdr_got += take;
			i += take;
			if (ws->hdr_got < ws->hdr_need)
				break;
			if (ws->state == WS_HEADER) {
				if (ws_header(ws, err, errlen) != 0)
					return -1;
				if (ws->state != WS_HEADER)
					continue;	/* its extended length is next */
			} else {
				ws->remaining = 0;
				for (size_t k = 0; k < ws->hdr_need; k++)
					ws->remaining = ws->remaining << 8 | ws->hdr[k];
				if (ws->remaining >> 63 != 0)
					return ws_fail(ws, err, errlen, "the server sent a WebSocket frame longer than 2^63 bytes");
				if (ws_frame_start(ws, err, errlen) != 0)
					return -1;
			}
			ws->state = WS_PAYLOAD;
			if (ws->remaining == 0) {
				if (ws_frame_end(ws, on_message, ctx, err, errlen) != 0)
					return -1;
				if (ws->closed)
					return ws_fail(ws, err, errlen, "the connection to the server has ended");
			}
			continue;
		}
		take = n - i < ws->remaining ? n - i : (size_t)ws->remaining;
		if (ws->opcode >= 0x8) {
			memcpy(ws->ctl + ws->ctl_len, p + i, take);
			ws->ctl_len += take;
		} else if (ws->fin && ws->msg.len == 0 && take == ws->remaining) {
			/* A whole message in this chunk, the common case: handed over where it lies. */
			i += take;
			ws->remaining = 0;
			ws->msg_opcode = 0;
			ws->state = WS_HEADER;
			ws->hdr_got = 0;
			ws->hdr_need = 2;
			on_message(ctx, p + i - take, take);
			if (ws->closed)
				return ws_fail(ws, err, errlen, "the connection to the server has ended");
			continue;
		} else {
			/* Room for the rest of this frame at once, not a doubling per read. */
			if (buf_reserve(&ws->msg, (size_t)ws->remaining) != 0)
				return ws_fail(ws, err, errlen, "out of memory for a message from the server");
			memcpy(ws->msg.data + ws->msg.len, p + i, take);
			ws->msg.len += take;
		}
		i += take;
		ws->remaining -= take;
		if (ws->remaining == 0) {
			if (ws_frame_end(ws, on_message, ctx, err, errlen) != 0)
				return -1;
			if (ws->closed)
				return ws_fail(ws, err, errlen, "the connection to the server has ended");
		}
	}
	return 0;
}

int
ws_read(struct ws *ws, void (*on_message)(void *, const uint8_t *, size_t), void *ctx, char *err, size_t errlen)
{
	uint8_t chunk[WIRE_READ_BYTES];
	struct buf early;
	int rc;

	if (ws->early.len > 0) {
		/* Taken out first: a callback may read again. */
		early = ws->early;
		buf_init(&ws->early, early.cap);
		rc = ws_feed(ws, early.data, early.len, on_message, ctx, err, errlen);

		buf_free(&early);
		if (rc != 0)
			return -1;
	}
	for (;;) {
		ssize_t n = read(ws->fd, chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			ws->closed = true;
			set_err(err, errlen, "the connection to the server broke: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			return ws_fail(ws, err, errlen, "the server closed the connection");
		if (ws_feed(ws, chunk, (size_t)n, on_message, ctx, err, errlen) != 0)
			return -1;
		/* A short read drained the socket: the next read would only say EAGAIN. */
		if ((size_t)n < sizeof chunk)
			return 0;
	}
}
