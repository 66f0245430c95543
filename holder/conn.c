/*
 * conn.c -- connections on the holder's socket: accept (at most CONN_MAX),
 * HELLO, the controller lease, the frames a controller sends, the small
 * control-frame buffer, writing and closing.  The output stream itself is
 * in stream.c.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "holder.h"

/* One read from a socket.  Small, so input flow control stays exact. */
#define CONN_READ_BYTES (16 * 1024)
/* A closing connection gets this long to read its ERROR. */
#define CONN_LINGER_MS 2000
/* Read at most this many chunks per connection per turn, to be fair. */
#define CONN_READS_PER_TURN 4
/*
 * Input this short is a key (or a mouse report, a short escape): its
 * answer waits for the output that follows it, up to ANSWER_HOLD_MS.
 */
#define KEY_INPUT_BYTES 64
#define ANSWER_HOLD_MS 4

/* Scratch for socket reads: every chunk is parsed before the next read. */
static uint8_t conn_chunk[CONN_READ_BYTES];

struct frame_rule {
	uint8_t type;
	int32_t length;		/* exact payload length, or -1 for any */
	bool controller_only;
	void (*handle)(struct holder *, struct conn *, const struct frame *);
};

static void conn_fail(struct holder *, struct conn *, uint16_t, const char *);

void
conn_init_all(struct holder *h)
{
	for (size_t i = 0; i < CONN_MAX; i++)
		h->conns[i].fd = -1;
	h->controller = NULL;
}

static void
conn_setup(struct holder *h, struct conn *c, int fd)
{
	c->fd = fd;
	c->greeted = c->closing = c->shut = false;
	c->out_length = c->out_sent = 0;
	c->streaming = c->replaying = c->dump_pending = false;
	c->exit_sent = c->frame_active = false;
	c->answers_held_until_ms = c->stream_held_until_ms = NEVER_MS;
	c->typist = c->watching = false;
	c->cursor = h->ring.offset;
	frame_reader_reset(&c->reader);
}

/* Discard what the peer sent, so closing does not reset its connection. */
static void
conn_discard_input(int fd)
{
	ssize_t n;

	do
		n = read(fd, conn_chunk, sizeof conn_chunk);
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* Beyond CONN_MAX: say BUSY on the fresh socket (its buffer is empty). */
static void
conn_refuse(int fd)
{
	uint8_t frame[128];
	size_t n = frame_encode_error(frame, sizeof frame, ERROR_BUSY,
	    "too many connections to this holder");

	if (send(fd, frame, n, SEND_NO_SIGNAL | MSG_DONTWAIT) < 0)
		holder_log("refuse: %s", strerror(errno));
	shutdown(fd, SHUT_WR);
	conn_discard_input(fd);
	close(fd);
}

static struct conn *
conn_free_slot(struct holder *h)
{
	for (size_t i = 0; i < CONN_MAX; i++) {
		if (h->conns[i].fd < 0)
			return &h->conns[i];
	}
	return NULL;
}

void
conn_accept(struct holder *h)
{
	for (;;) {
		int fd = sys_accept(h->listener.fd);
		struct conn *c;

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				holder_log("accept: %s", strerror(errno));
			return;
		}
		c = conn_free_slot(h);
		if (c == NULL)
			conn_refuse(fd);
		else
			conn_setup(h, c, fd);
	}
}

void
conn_close(struct holder *h, struct conn *c)
{
	if (c->fd < 0)
		return;
	if (h->controller == c)
		h->controller = NULL;
	if (close(c->fd) != 0)
		holder_log("close connection: %s", strerror(errno));
	c->fd = -1;
	c->frame_active = c->streaming = false;
}

/* A whole control frame's length, from its header in the buffer. */
static size_t
conn_frame_bytes(const uint8_t *frame)
{
	return FRAME_HEADER_BYTES + frame_get_u32(frame + 1);
}

/*
 * Room for a control frame, keeping back the ERROR reserve.  Only wholly
 * sent frames are dropped, so the buffer always starts on a frame: an
 * unsent INPUT_TAKEN can then be found, and updated, by walking it.
 */
size_t
conn_room(struct conn *c, size_t reserve)
{
	size_t sent = 0;

	while (sent < c->out_sent &&
	    sent + conn_frame_bytes(c->out + sent) <= c->out_sent)
		sent += conn_frame_bytes(c->out + sent);
	if (sent > 0) {
		memmove(c->out, c->out + sent, c->out_length - sent);
		c->out_length -= sent;
		c->out_sent -= sent;
	}
	if (c->out_length + reserve >= CONN_OUT_BYTES)
		return 0;
	return CONN_OUT_BYTES - reserve - c->out_length;
}

static void
conn_queue(struct holder *h, struct conn *c, const uint8_t *frame, size_t n)
{
	if (c->closing)
		return;
	if (conn_room(c, CONN_ERROR_RESERVE_BYTES) < n) {
		conn_fail(h, c, ERROR_BUSY, "the client reads too slowly");
		return;
	}
	memcpy(c->out + c->out_length, frame, n);
	c->out_length += n;
}

/*
 * ERROR, then close once it is out.  A stream frame cut in half cannot be
 * followed by anything readable, so then the connection just closes.
 */
static void
conn_fail(struct holder *h, struct conn *c, uint16_t code, const char *text)
{
	if (c->closing)
		return;
	holder_log("closing a connection: error %u: %s", code, text);
	if (h->controller == c)
		h->controller = NULL;
	c->streaming = false;
	if (c->frame_active) {
		conn_close(h, c);
		return;
	}
	c->out_length += frame_encode_error(c->out + c->out_length,
	    conn_room(c, 0), code, text);
	c->closing = true;
	c->close_deadline_ms = holder_now_ms() + CONN_LINGER_MS;
}

/* What STATE says: the holder, its child and this connection's place. */
static void
conn_fill_state(const struct holder *h, const struct conn *c,
    struct state_fields *s)
{
	memcpy(s->generation, h->generation, GENERATION_BYTES);
	s->ring_start = ring_start(&h->ring);
	s->offset = h->ring.offset;
	s->child_pid = (uint32_t)h->pty.child;
	s->fg_pgid = (uint32_t)pty_foreground(&h->pty);
	s->cols = h->pty.cols;
	s->rows = h->pty.rows;
	s->flags = (h->pty.reaped ? STATE_F_EXITED : 0) |
	    (h->controller ? STATE_F_LEASED : 0) |
	    (h->controller == c ? STATE_F_YOU_LEASE : 0);
	s->exit_code = h->pty.reaped ? h->pty.exit_code : 0;
	s->exit_signal = h->pty.reaped ? h->pty.exit_signal : 0;
	s->started_at_ms = h->started_at_ms;
	s->ring_capacity = (uint32_t)h->ring.capacity;
	memset(s->build, 0, BUILD_ID_BYTES);
	memcpy(s->build, holder_build_id, strnlen(holder_build_id,
	    BUILD_ID_BYTES));
}

static void
conn_send_state(struct holder *h, struct conn *c)
{
	uint8_t frame[FRAME_HEADER_BYTES + STATE_PAYLOAD_BYTES];
	struct state_fields s;

	conn_fill_state(h, c, &s);
	conn_queue(h, c, frame, frame_encode_state(frame, &s));
}

void
conn_send_exit(struct holder *h, struct conn *c)
{
	uint8_t frame[FRAME_HEADER_BYTES + 8];

	conn_queue(h, c, frame, frame_encode_exit(frame, h->pty.exit_code,
	    h->pty.exit_signal));
	c->exit_sent = true;
}

static void
conn_on_hello(struct holder *h, struct conn *c, const struct frame *f)
{
	uint32_t version = frame_get_u32(f->payload);
	char text[160];

	if (version < OLDEST_PROTOCOL_VERSION || version > PROTOCOL_VERSION) {
		snprintf(text, sizeof text, "this holder speaks protocol "
		    "versions %d to %d, not %u; use a tend that speaks one "
		    "of them", OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION,
		    version);
		conn_fail(h, c, ERROR_VERSION, text);
		return;
	}
	c->greeted = true;
	conn_send_state(h, c);
}

static void
conn_on_state_req(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)f;
	conn_send_state(h, c);
}

static void
conn_on_acquire(struct holder *h, struct conn *c, const struct frame *f)
{
	uint8_t frame[128];

	(void)f;
	if (h->controller != NULL && h->controller != c) {
		conn_queue(h, c, frame, frame_encode_text(frame, sizeof frame,
		    FRAME_DENIED, "another controller holds the lease"));
		return;
	}
	if (h->controller == NULL) {
		/* The stream starts at DUMP_SINCE; a frame still in flight
		 * from before a RELEASE finishes from its own cursor. */
		h->controller = c;
		c->streaming = c->replaying = c->dump_pending = false;
	}
	conn_queue(h, c, frame, frame_encode_empty(frame, FRAME_ACQUIRED));
}

static void
conn_on_release(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)f;
	h->controller = NULL;
	/* A frame already half written is finished; no new ones start. */
	c->streaming = c->replaying = c->dump_pending = false;
}

static void
conn_on_dump_since(struct holder *h, struct conn *c, const struct frame *f)
{
	uint64_t from = frame_get_u64(f->payload);
	char text[160];

	if (from > h->ring.offset) {
		snprintf(text, sizeof text, "offset %llu is past this "
		    "holder's offset %llu", (unsigned long long)from,
		    (unsigned long long)h->ring.offset);
		conn_fail(h, c, ERROR_BAD_OFFSET, text);
		return;
	}
	c->dump_from = from;
	c->dump_pending = true;
	h->holding = false;	/* a controller streams again: its cursor rules */
	c->streaming = true;
	if (!c->frame_active)
		stream_start(h, c);
}

static void
conn_on_input(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)c;
	pty_write_input(&h->pty, f->payload, f->length);
}

/*
 * The writer's count, to the controller.  An answer still waiting in the
 * buffer, not begun, is rewritten with the new count instead: a fast
 * stream of keys from a controller busy elsewhere then costs one frame per
 * writer, not one per key, and cannot fill the buffer.
 */
static void
conn_answer_taken(struct holder *h, struct conn *c, const uint8_t *writer,
    uint64_t total)
{
	uint8_t frame[FRAME_HEADER_BYTES + INPUT_TAKEN_PAYLOAD_BYTES];

	for (size_t at = 0; at < c->out_length && !c->closing;
	    at += conn_frame_bytes(c->out + at)) {
		if (at >= c->out_sent && c->out[at] == FRAME_INPUT_TAKEN &&
		    memcmp(c->out + at + FRAME_HEADER_BYTES, writer,
		    WRITER_ID_BYTES) == 0) {
			frame_encode_input_taken(c->out + at, writer, total);
			return;
		}
	}
	conn_queue(h, c, frame, frame_encode_input_taken(frame, writer,
	    total));
}

/*
 * After a key, the controller streaming this session (or a typist that
 * watches) is about to be sent its echo.  Its answer waits for that echo (or
 * ANSWER_HOLD_MS), so the echo is not queued behind the answer: a reader
 * busy with the answer when the echo comes shows the echo that much later.
 * Only when nothing else is unsent, so every held frame is whole and a
 * stream frame may go before them.
 */
static void
conn_hold_answers(struct holder *h, struct conn *c, size_t taken)
{
	/* The controller's echo comes in its stream; a watcher's as a piece. */
	bool echo_comes = c == h->controller ? c->streaming : c->watching;

	if (taken == 0 || taken > KEY_INPUT_BYTES || !echo_comes ||
	    c->out_sent != c->out_length ||
	    c->answers_held_until_ms != NEVER_MS)
		return;
	c->answers_held_until_ms = holder_now_ms() + ANSWER_HOLD_MS;
}

static bool
conn_answers_held(const struct conn *c)
{
	/* An ERROR is never held: the connection closes after it. */
	return c->answers_held_until_ms != NEVER_MS && !c->closing;
}

/* Takes the part of the writer's bytes the holder has not had yet. */
static void
conn_on_input_from(struct holder *h, struct conn *c, const struct frame *f)
{
	const uint8_t *writer = f->payload;
	size_t length;
	uint64_t at;
	struct writer *w;
	struct writer_take take;
	char text[160];

	if (f->length < INPUT_FROM_PREFIX_BYTES) {
		snprintf(text, sizeof text, "INPUT_FROM needs a %d-byte writer "
		    "and a u64 position before its bytes, not %u bytes in all",
		    WRITER_ID_BYTES, f->length);
		conn_fail(h, c, ERROR_BAD_PAYLOAD, text);
		return;
	}
	at = frame_get_u64(f->payload + WRITER_ID_BYTES);
	length = f->length - INPUT_FROM_PREFIX_BYTES;
	if (at > UINT64_MAX - length) {
		conn_fail(h, c, ERROR_BAD_PAYLOAD, "INPUT_FROM position plus "
		    "its bytes is past 2^64");
		return;
	}
	if (length == 0) {
		conn_answer_taken(h, c, writer,
		    writers_count(&h->writers, writer, at));
		return;
	}
	c->typist = c != h->controller;
	w = writers_use(&h->writers, writer, at);
	take = writers_plan(w, at, length);
	if (take.length > 0)
		w->taken += pty_write_input(&h->pty, f->payload +
		    INPUT_FROM_PREFIX_BYTES + take.skip, take.length);
	conn_hold_answers(h, c, take.length);
	conn_answer_taken(h, c, writer, w->taken);
}

/* A connection without the lease asks for the output's small pieces. */
static void
conn_on_watch(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)f;
	if (c == h->controller) {
		conn_fail(h, c, ERROR_BAD_PAYLOAD, "WATCH is for a connection "
		    "without the lease: the controller has the whole stream");
		return;
	}
	c->watching = true;
}

static void
conn_on_resize(struct holder *h, struct conn *c, const struct frame *f)
{
	uint16_t cols = frame_get_u16(f->payload);
	uint16_t rows = frame_get_u16(f->payload + 2);
	char text[128];

	if (cols < MIN_COLS || cols > MAX_COLS || rows < MIN_ROWS ||
	    rows > MAX_ROWS) {
		snprintf(text, sizeof text, "%u columns by %u rows is outside "
		    "%d to %d columns and %d to %d rows", cols, rows, MIN_COLS,
		    MAX_COLS, MIN_ROWS, MAX_ROWS);
		conn_fail(h, c, ERROR_BAD_SIZE, text);
		return;
	}
	pty_resize(&h->pty, cols, rows);
}

static void
conn_on_signal(struct holder *h, struct conn *c, const struct frame *f)
{
	uint32_t signo = frame_get_u32(f->payload);
	char text[128];

	if (signo < 1 || signo >= NSIG) {
		snprintf(text, sizeof text, "%u is not a signal number (1 to "
		    "%d)", signo, NSIG - 1);
		conn_fail(h, c, ERROR_BAD_PAYLOAD, text);
		return;
	}
	pty_signal_foreground(&h->pty, (int)signo);
}

static void
conn_on_redraw(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)c;
	(void)f;
	/* What tmux does on attach: the program repaints its screen. */
	pty_signal_foreground(&h->pty, SIGWINCH);
}

static void
conn_on_kill(struct holder *h, struct conn *c, const struct frame *f)
{
	(void)c;
	(void)f;
	holder_kill(h);
}

static void
conn_on_ping(struct holder *h, struct conn *c, const struct frame *f)
{
	uint8_t frame[FRAME_HEADER_BYTES + 8];

	conn_queue(h, c, frame, frame_encode_u64(frame, FRAME_PONG,
	    frame_get_u64(f->payload)));
}

/*
 * Hand over to another binary (handover.c).  On success this never
 * returns: the new image has every descriptor that matters, and exec has
 * closed the connections.  Otherwise the reason goes back, and nothing
 * else changes.
 */
static void
conn_on_exec(struct holder *h, struct conn *c, const struct frame *f)
{
	char path[EXEC_PATH_MAX_BYTES + 1], cause[CAUSE_BYTES];
	uint8_t frame[FRAME_HEADER_BYTES + CAUSE_BYTES];

	if (f->length == 0 || f->length > EXEC_PATH_MAX_BYTES ||
	    memchr(f->payload, '\0', f->length) != NULL) {
		snprintf(cause, sizeof cause, "EXEC needs a path of 1 to %d "
		    "bytes without NUL, not %u bytes", EXEC_PATH_MAX_BYTES,
		    f->length);
		conn_fail(h, c, ERROR_BAD_PAYLOAD, cause);
		return;
	}
	memcpy(path, f->payload, f->length);
	path[f->length] = '\0';
	if (handover_exec(h, path, cause) == 0)
		return;
	holder_log("hand-over to %s refused: %s", path, cause);
	conn_queue(h, c, frame, frame_encode_text(frame, sizeof frame,
	    FRAME_EXEC_FAILED, cause));
}

static const struct frame_rule frame_rules[] = {
	{ FRAME_HELLO, 4, false, conn_on_hello },
	{ FRAME_STATE_REQ, 0, false, conn_on_state_req },
	{ FRAME_ACQUIRE, 0, false, conn_on_acquire },
	{ FRAME_RELEASE, 0, true, conn_on_release },
	{ FRAME_DUMP_SINCE, 8, true, conn_on_dump_since },
	{ FRAME_INPUT, -1, true, conn_on_input },
	/* Counted input is safe from anyone: the writers' counts keep it once. */
	{ FRAME_INPUT_FROM, -1, false, conn_on_input_from },
	{ FRAME_WATCH, 0, false, conn_on_watch },
	{ FRAME_RESIZE, 4, true, conn_on_resize },
	{ FRAME_SIGNAL, 4, true, conn_on_signal },
	{ FRAME_REDRAW, 0, true, conn_on_redraw },
	{ FRAME_KILL, 0, true, conn_on_kill },
	{ FRAME_PING, 8, false, conn_on_ping },
	{ FRAME_EXEC, -1, true, conn_on_exec },
};

static const struct frame_rule *
conn_find_rule(uint8_t type)
{
	for (size_t i = 0; i < sizeof frame_rules / sizeof frame_rules[0]; i++) {
		if (frame_rules[i].type == type)
			return &frame_rules[i];
	}
	return NULL;
}

static void
conn_dispatch(struct holder *h, struct conn *c, const struct frame *f)
{
	const struct frame_rule *rule = conn_find_rule(f->type);
	char text[128];

	if (!c->greeted && f->type != FRAME_HELLO) {
		conn_fail(h, c, ERROR_NO_HELLO, "the first frame must be HELLO");
		return;
	}
	if (rule == NULL) {
		snprintf(text, sizeof text, "frame type 0x%02x is not one a "
		    "controller sends", f->type);
		conn_fail(h, c, ERROR_UNKNOWN_FRAME, text);
		return;
	}
	if (rule->controller_only && h->controller != c) {
		conn_fail(h, c, ERROR_NOT_CONTROLLER,
		    "this frame needs the lease (ACQUIRE first)");
		return;
	}
	if (rule->length >= 0 && f->length != (uint32_t)rule->length) {
		snprintf(text, sizeof text, "frame type 0x%02x needs a %d-byte "
		    "payload, not %u", f->type, rule->length, f->length);
		conn_fail(h, c, ERROR_BAD_PAYLOAD, text);
		return;
	}
	rule->handle(h, c, f);
}

static void
conn_parse(struct holder *h, struct conn *c, const uint8_t *data, size_t n)
{
	size_t at = 0;
	char text[128];

	while (at < n && c->fd >= 0 && !c->closing) {
		struct frame f;
		size_t used;
		enum frame_read_result r = frame_reader_feed(&c->reader,
		    data + at, n - at, &used, &f);

		at += used;
		if (r == FRAME_TOO_LARGE) {
			snprintf(text, sizeof text, "a frame of %u bytes is over "
			    "the %d-byte limit", c->reader.length,
			    MAX_INBOUND_PAYLOAD_BYTES);
			conn_fail(h, c, ERROR_TOO_LARGE, text);
		} else if (r == FRAME_READY)
			conn_dispatch(h, c, &f);
	}
}

/* The controller waits while its input could not fit the PTY buffer. */
static bool
conn_may_read(const struct holder *h, const struct conn *c)
{
	/* A typist's input waits for room as the controller's does. */
	if ((c != h->controller && !c->typist) || c->closing)
		return true;
	return pty_input_room(&h->pty) >=
	    MAX_INBOUND_PAYLOAD_BYTES + CONN_READ_BYTES;
}

static void
conn_read_closing(struct holder *h, struct conn *c)
{
	ssize_t n;

	do
		n = read(c->fd, conn_chunk, sizeof conn_chunk);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
		conn_close(h, c);
}

void
conn_read(struct holder *h, struct conn *c)
{
	for (int turn = 0; turn < CONN_READS_PER_TURN; turn++) {
		ssize_t n;

		if (c->fd < 0 || !conn_may_read(h, c))
			return;
		if (c->closing) {
			/* Only once the ERROR had its chance to go out. */
			if (turn == 0)
				conn_read_closing(h, c);
			return;
		}
		n = read(c->fd, conn_chunk, sizeof conn_chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0 && frame_reader_mid_frame(&c->reader))
			conn_fail(h, c, ERROR_TRUNCATED,
			    "the connection closed inside a frame");
		else if (n <= 0)
			conn_close(h, c);
		else
			conn_parse(h, c, conn_chunk, (size_t)n);
	}
}

static int
conn_write_control(struct holder *h, struct conn *c)
{
	ssize_t n = send(c->fd, c->out + c->out_sent,
	    c->out_length - c->out_sent, SEND_NO_SIGNAL);

	if (n < 0 && errno == EINTR)
		return 1;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0) {
		conn_close(h, c);
		return -1;
	}
	c->out_sent += (size_t)n;
	return 1;
}

/* Write until the socket is full: a frame in flight, control, stream. */
void
conn_flush(struct holder *h, struct conn *c)
{
	int r = 1;

	while (r > 0 && c->fd >= 0) {
		if (c->frame_active) {
			r = stream_write_frame(h, c);
			if (r < 0)
				conn_close(h, c);
		} else if (c->out_sent < c->out_length && !conn_answers_held(c))
			r = conn_write_control(h, c);
		else if (c->closing) {
			if (!c->shut && shutdown(c->fd, SHUT_WR) != 0)
				conn_close(h, c);
			c->shut = true;
			return;
		} else if (c->stream_held_until_ms != NEVER_MS) {
			return;
		} else {
			enum stream_next next = stream_next_frame(h, c);

			if (next == STREAM_NONE)
				return;
			/* The echo goes first; the answers follow it. */
			c->answers_held_until_ms = NEVER_MS;
			if (next == STREAM_EXIT)
				conn_send_exit(h, c);
		}
	}
}

short
conn_poll_events(const struct holder *h, const struct conn *c)
{
	short events = 0;

	if (c->fd < 0)
		return 0;
	if (conn_may_read(h, c))
		events |= POLLIN;
	if (c->frame_active ||
	    (stream_pending(h, c) && c->stream_held_until_ms == NEVER_MS) ||
	    (c->out_sent < c->out_length && !conn_answers_held(c)))
		events |= POLLOUT;
	return events;
}

void
conn_expire(struct holder *h, int64_t now_ms)
{
	for (size_t i = 0; i < CONN_MAX; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd >= 0 && c->closing && now_ms >= c->close_deadline_ms)
			conn_close(h, c);
		else if (c->fd >= 0) {
			bool due = false;

			/* No echo came: the answers go alone. */
			if (now_ms >= c->answers_held_until_ms) {
				c->answers_held_until_ms = NEVER_MS;
				due = true;
			}
			/* The watcher had its moment (watch.c). */
			if (now_ms >= c->stream_held_until_ms) {
				c->stream_held_until_ms = NEVER_MS;
				due = true;
			}
			if (due)
				conn_flush(h, c);
		}
	}
}

/* The soonest a connection's timer is due: a closing one's, held answers'. */
int64_t
conn_next_deadline(const struct holder *h)
{
	int64_t next = NEVER_MS;

	for (size_t i = 0; i < CONN_MAX; i++) {
		const struct conn *c = &h->conns[i];

		if (c->fd < 0)
			continue;
		if (c->closing && c->close_deadline_ms < next)
			next = c->close_deadline_ms;
		if (c->answers_held_until_ms < next)
			next = c->answers_held_until_ms;
		if (c->stream_held_until_ms < next)
			next = c->stream_held_until_ms;
	}
	return next;
}

/* True once nothing is waiting to be written to any connection. */
bool
conn_flushed(const struct holder *h)
{
	for (size_t i = 0; i < CONN_MAX; i++) {
		const struct conn *c = &h->conns[i];

		if (c->fd < 0 || c->closing)
			continue;
		if (c->frame_active || c->out_sent < c->out_length ||
		    stream_pending(h, c))
			return false;
	}
	return true;
}
