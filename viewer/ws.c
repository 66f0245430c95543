/*
 * ws.c -- the WebSocket client the viewer protocol runs on (RFC 6455): the
 * upgrade on the server's unix socket, masked binary frames out, frames in,
 * and the random bytes for the handshake's key and the frames' masks.
 *
 * The reader is a state machine over bytes, as the holder's frame reader:
 * any chunking decodes, a length over WIRE_MAX_MESSAGE_BYTES is refused as
 * soon as its header is whole (before anything is kept), and a frame whose
 * payload is whole in one read is handed over where it lies, uncopied.  On
 * a key's echo that is the common case: one read, one small DATA frame, no
 * copy and no allocation.
 *
 * Writes never block: frames are queued in ws->out and ws_flush writes what
 * the socket takes.  The handshake is blocking with a deadline (wire.c),
 * which is all the start of an attach needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifndef TEND_PORTABLE
#include <sys/random.h>
#endif

#include "wire.h"

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

void
wire_random(uint8_t *out, size_t n)
{
	if (random_at + n > sizeof random_pool) {
		if (!random_fill_system(random_pool, sizeof random_pool))
			random_fill_weak(random_pool, sizeof random_pool);
		random_at = 0;
	}
	memcpy(out, random_pool + random_at, n);
	random_at += n;
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
	buf_init(&ws->reply, HTTP_MAX_HEAD_BYTES);
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
	buf_free(&ws->reply);
	ws->closed = true;
}

void
ws_forget_reply(struct ws *ws)
{
	buf_free(&ws->reply);
}

int
ws_reply_header(const struct ws *ws, const char *name, char *out, size_t outlen)
{
	const char *head = (const char *)ws->reply.data;
	const char *line_end = head != NULL ? memchr(head, '\n', ws->reply.len) : NULL;
	struct http_header_field f;
	size_t at;

	if (line_end == NULL)
		return 0;
	at = (size_t)(line_end - head) + 1;
	while (http_header_next(head, ws->reply.len, &at, &f)) {
		if (!http_same_ci(f.name, f.name_len, name))
			continue;
		if (f.value_len >= outlen)
			return -1;
		memcpy(out, f.value, f.value_len);
		out[f.value_len] = '\0';
		return 1;
	}
	return 0;
}

/* Checks the reply to the upgrade (its head is head[0..head_len)); 0, or -1 with err. */
static int
ws_check_reply(const char *key, const char *head, size_t head_len, const uint8_t *rest, size_t rest_len, char *err, size_t errlen)
{
	char expected[29], status[128];
	struct http_header_field f;
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
		http_status_text(head, head_len, status, sizeof status);
		wire_set_err(err, errlen, "the server refused the viewer socket: %s%s%s%s", status,
		    n > 0 ? " (" : "", body, n > 0 ? ")" : "");
		return -1;
	}
	ws_accept_for(key, expected);
	at = (size_t)((const char *)memchr(head, '\n', head_len) - head) + 1;
	while (http_header_next(head, head_len, &at, &f)) {
		if (http_same_ci(f.name, f.name_len, "upgrade"))
			upgrade = http_same_ci(f.value, f.value_len, "websocket");
		else if (http_same_ci(f.name, f.name_len, "sec-websocket-accept"))
			accepted = f.value_len == 28 && memcmp(f.value, expected, 28) == 0;
		else if (http_same_ci(f.name, f.name_len, "sec-websocket-extensions"))
			extensions = true;
	}
	if (!upgrade || !accepted) {
		wire_set_err(err, errlen, "the server answered the WebSocket handshake wrongly");
		return -1;
	}
	if (extensions) {
		wire_set_err(err, errlen, "the server chose a WebSocket extension that was not offered");
		return -1;
	}
	return 0;
}

int
ws_open_begin(struct ws *ws, const char *socket_path, const char *path, int timeout_ms, char *err, size_t errlen)
{
	uint8_t nonce[16];

	ws_init(ws);
	if (strlen(path) > HTTP_MAX_PATH_BYTES) {
		wire_set_err(err, errlen, "the viewer socket's path is over %d bytes", HTTP_MAX_PATH_BYTES);
		return -1;
	}
	ws->open_timeout_ms = timeout_ms;
	ws->open_deadline = wire_now_ms() + timeout_ms;
	wire_random(nonce, sizeof nonce);
	wire_base64(nonce, sizeof nonce, ws->open_key);
	ws->fd = wire_connect_within(socket_path, ws->open_deadline, err, errlen);
	if (ws->fd < 0)
		return -1;
	/* The request heads the out buffer; frames queued before ws_open_finish follow it in the same write. */
	if (buf_printf(&ws->out,
		"GET %s HTTP/1.1\r\n"
		"Host: localhost\r\n"
		"Upgrade: websocket\r\n"
		"Connection: Upgrade\r\n"
		"Sec-WebSocket-Key: %s\r\n"
		"Sec-WebSocket-Version: 13\r\n\r\n", path, ws->open_key) != 0) {
		wire_set_err(err, errlen, "the WebSocket handshake's request does not fit");
		return -1;
	}
	return 0;
}

int
ws_open_finish(struct ws *ws, char *err, size_t errlen)
{
	struct buf head;
	size_t end = 0;
	int timeout_ms = ws->open_timeout_ms;

	buf_init(&head, HTTP_MAX_HEAD_BYTES);
	if (wire_send_all(ws->fd, (const char *)ws->out.data, ws->out.len, ws->open_deadline, err, errlen) != 0)
		goto fail;
	buf_clear(&ws->out);
	while (end == 0) {
		size_t from = head.len >= 3 ? head.len - 3 : 0;
		ssize_t got = wire_recv_within(ws->fd, &head, ws->open_deadline, "the WebSocket handshake's answer", err, errlen);

		if (got == -1) {
			if (wire_ms_left(ws->open_deadline) == 0)
				wire_set_err(err, errlen, "the server did not answer the WebSocket handshake within %d ms", timeout_ms);
			goto fail;
		}
		if (got == 0) {
			wire_set_err(err, errlen, "the server closed the socket during the WebSocket handshake");
			goto fail;
		}
		if (got == -2) {
			wire_set_err(err, errlen, "the server answered the WebSocket handshake with something else");
			goto fail;
		}
		end = http_head_end(head.data + from, head.len - from);
		if (end != 0)
			end += from;
	}
	if (ws_check_reply(ws->open_key, (const char *)head.data, end, head.data + end, head.len - end, err, errlen) != 0)
		goto fail;
	/* Frames that came with the answer: the first ws_read decodes them. */
	if (buf_append(&ws->early, head.data + end, head.len - end) != 0 || buf_append(&ws->reply, head.data, end) != 0)
		goto fail;
	buf_free(&head);
	return 0;
fail:
	buf_free(&head);
	return -1;
}

int
ws_open(struct ws *ws, const char *socket_path, const char *path, int timeout_ms, char *err, size_t errlen)
{
	if (ws_open_begin(ws, socket_path, path, timeout_ms, err, errlen) != 0 || ws_open_finish(ws, err, errlen) != 0) {
		ws_close(ws);
		return -1;
	}
	return 0;
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
	wire_random(mask, sizeof mask);
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
	if (wire_send_queued(ws->fd, &ws->out, "the server", err, errlen) != 0)
		return -1;
	buf_trim(&ws->out);
	return 0;
}

/* ---- the reader */

static int
ws_fail(struct ws *ws, char *err, size_t errlen, const char *why)
{
	ws->closed = true;
	wire_set_err(err, errlen, "%s", why);
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
		wire_set_err(err, errlen, "%s", reason);
	else if (ws->ctl_len >= 2)
		wire_set_err(err, errlen, "socket closed (%u)", (unsigned)(ws->ctl[0] << 8 | ws->ctl[1]));
	else
		wire_set_err(err, errlen, "socket closed");
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
			wire_set_err(err, errlen, "the connection to the server broke: %s", strerror(errno));
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
