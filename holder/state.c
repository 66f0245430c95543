/*
 * state.c -- the hand-over state file: everything a holder must carry into
 * its new image (handover.c) to go on as if nothing happened, written by
 * the old image and read by the new one.  The reader treats the file as
 * hostile: a versioned header, every length bounded before anything is
 * allocated, every field checked against what a holder could have, the
 * descriptors checked to be what they claim, and the child checked to be
 * ours.  A file that fails any check is refused with the reason.
 *
 * Layout, integers little-endian:
 *   header   u8 magic[8] "tendhst\n", u32 format, u32 prefix bytes,
 *            u64 ring bytes
 *   prefix   the holder, the PTY and its unwritten input, the socket, the
 *            writers' table, the ring's counters and marks (see
 *            state_put_prefix for the order)
 *   ring     the ring's bytes from its start, min(offset, capacity) of them
 * The ring's bytes come last so the reader puts them straight into the
 * ring, never holding two copies of what may be a gigabyte.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "holder.h"

#define STATE_MAGIC "tendhst\n"
#define STATE_MAGIC_BYTES 8
#define STATE_HEADER_BYTES (STATE_MAGIC_BYTES + 4 + 4 + 8)
/* Room for every fixed field of the prefix, with plenty to spare. */
#define STATE_FIXED_BYTES 512
#define STATE_SOCKET_PATH_BYTES (sizeof ((struct sockaddr_un *)0)->sun_path)
#define STATE_WRITER_BYTES (WRITER_ID_BYTES + 8 + 8)
/* The longest prefix a holder can write: the reader refuses more. */
#define STATE_PREFIX_MAX_BYTES (STATE_FIXED_BYTES + PTY_INPUT_BYTES + \
	STATE_SOCKET_PATH_BYTES + WRITERS_REMEMBERED * STATE_WRITER_BYTES + \
	(MAX_RING_BYTES / RING_MARK_BLOCK_BYTES + 2) * 2)

#define HOLDER_F_OUTPUT_DONE 0x01
#define HOLDER_F_HOLDING 0x02
#define PTY_F_REAPED 0x01
#define PTY_F_HUNG_UP 0x02

/* The socket path of a resumed holder: listener.path points here. */
static char resumed_socket_path[STATE_SOCKET_PATH_BYTES];

/* ---- writing ---- */

struct put {
	uint8_t *p;
	size_t at;
};

static void
put_bytes(struct put *w, const void *bytes, size_t n)
{
	memcpy(w->p + w->at, bytes, n);
	w->at += n;
}

static void
put_uint(struct put *w, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		w->p[w->at++] = (uint8_t)(v >> (8 * i));
}

static size_t
state_ring_bytes(const struct ring *r)
{
	return r->offset < r->capacity ? (size_t)r->offset : r->capacity;
}

static void
state_put_prefix(const struct holder *h, struct put *w)
{
	const struct pty *p = &h->pty;
	const struct listener *l = &h->listener;
	const struct conn *c = h->controller;
	int64_t grace_left = 0;
	bool holding = h->holding;
	uint64_t held_from = h->held_from;

	if (h->output_done) {
		grace_left = h->grace_deadline_ms - holder_now_ms();
		if (grace_left < 0)
			grace_left = 0;
	}
	/* What the streaming controller has not had is kept for its return. */
	if (c != NULL && c->streaming) {
		holding = true;
		held_from = c->cursor;
	}
	put_bytes(w, h->generation, GENERATION_BYTES);
	put_uint(w, h->started_at_ms, 8);
	put_uint(w, h->exit_grace_s, 4);
	put_uint(w, (h->output_done ? HOLDER_F_OUTPUT_DONE : 0) |
	    (holding ? HOLDER_F_HOLDING : 0), 1);
	put_uint(w, (uint64_t)grace_left, 8);
	put_uint(w, holding ? held_from : 0, 8);

	put_uint(w, (uint32_t)p->master, 4);
	put_uint(w, (uint32_t)p->child, 4);
	put_uint(w, p->cols, 2);
	put_uint(w, p->rows, 2);
	put_uint(w, (p->reaped ? PTY_F_REAPED : 0) |
	    (p->hung_up ? PTY_F_HUNG_UP : 0), 1);
	put_uint(w, (uint32_t)p->exit_code, 4);
	put_uint(w, (uint32_t)p->exit_signal, 4);
	put_uint(w, p->input_length, 4);
	put_bytes(w, p->input, p->input_length);

	put_uint(w, (uint32_t)l->fd, 4);
	put_uint(w, strlen(l->path), 2);
	put_bytes(w, l->path, strlen(l->path));
	put_uint(w, (uint64_t)l->device, 8);
	put_uint(w, (uint64_t)l->inode, 8);
	put_uint(w, l->rebind_failing ? 1 : 0, 1);

	put_uint(w, h->writers.clock, 8);
	for (size_t i = 0; i < WRITERS_REMEMBERED; i++) {
		const struct writer *wr = &h->writers.slots[i];

		put_bytes(w, wr->id, WRITER_ID_BYTES);
		put_uint(w, wr->taken, 8);
		put_uint(w, wr->used, 8);
	}

	put_uint(w, h->ring.capacity, 8);
	put_uint(w, h->ring.offset, 8);
	put_uint(w, h->ring.scan, 1);
	put_uint(w, h->ring.utf8_left, 1);
	put_uint(w, h->ring.mark_count, 4);
	for (size_t i = 0; i < h->ring.mark_count; i++)
		put_uint(w, h->ring.marks[i], 2);
}

static int
state_write_all(int fd, const uint8_t *bytes, size_t n, char *cause)
{
	while (n > 0) {
		ssize_t done = write(fd, bytes, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			snprintf(cause, CAUSE_BYTES, "cannot write the state "
			    "file: %s", done < 0 ? strerror(errno) : "no room");
			return -1;
		}
		bytes += done;
		n -= (size_t)done;
	}
	return 0;
}

int
state_file_write(const struct holder *h, int fd, char *cause)
{
	size_t room = STATE_HEADER_BYTES + STATE_FIXED_BYTES +
	    h->pty.input_length + strlen(h->listener.path) +
	    WRITERS_REMEMBERED * STATE_WRITER_BYTES + h->ring.mark_count * 2;
	struct put w = { .p = malloc(room), .at = STATE_HEADER_BYTES };
	int r;

	if (w.p == NULL) {
		snprintf(cause, CAUSE_BYTES, "cannot allocate %zu bytes for "
		    "the state", room);
		return -1;
	}
	state_put_prefix(h, &w);
	{
		struct put head = { .p = w.p, .at = 0 };

		put_bytes(&head, STATE_MAGIC, STATE_MAGIC_BYTES);
		put_uint(&head, HANDOVER_FORMAT, 4);
		put_uint(&head, w.at - STATE_HEADER_BYTES, 4);
		put_uint(&head, state_ring_bytes(&h->ring), 8);
	}
	r = state_write_all(fd, w.p, w.at, cause);
	free(w.p);
	if (r == 0)
		r = state_write_all(fd, h->ring.bytes,
		    state_ring_bytes(&h->ring), cause);
	return r;
}

/* ---- reading ---- */

/* A cursor over the prefix: reads past its end yield 0 and mark it short. */
struct get {
	const uint8_t *p;
	size_t left;
	bool short_read;
};

static uint64_t
get_uint(struct get *g, int bytes)
{
	uint64_t v = 0;

	if (g->left < (size_t)bytes) {
		g->short_read = true;
		g->left = 0;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)g->p[i] << (8 * i);
	g->p += bytes;
	g->left -= (size_t)bytes;
	return v;
}

/* `n` bytes in place, or NULL (and short) if fewer are left. */
static const uint8_t *
get_bytes(struct get *g, size_t n)
{
	const uint8_t *at = g->p;

	if (g->left < n) {
		g->short_read = true;
		g->left = 0;
		return NULL;
	}
	g->p += n;
	g->left -= n;
	return at;
}

static int
state_read_exact(int fd, void *out, size_t n, const char *what, char *cause)
{
	uint8_t *p = out;

	while (n > 0) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(cause, CAUSE_BYTES, "the state file ends inside "
			    "%s%s%s", what, got < 0 ? ": " : "",
			    got < 0 ? strerror(errno) : "");
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

static int
bad(char *cause, const char *what)
{
	snprintf(cause, CAUSE_BYTES, "the state file is not one this holder "
	    "can resume: %s", what);
	return -1;
}

static int
state_get_holder(struct holder *h, struct get *g, char *cause)
{
	const uint8_t *generation = get_bytes(g, GENERATION_BYTES);
	uint64_t grace_left;
	uint8_t flags;

	h->started_at_ms = get_uint(g, 8);
	h->exit_grace_s = (uint32_t)get_uint(g, 4);
	flags = (uint8_t)get_uint(g, 1);
	grace_left = get_uint(g, 8);
	h->held_from = get_uint(g, 8);
	if (g->short_read)
		return bad(cause, "it ends inside the holder's fields");
	memcpy(h->generation, generation, GENERATION_BYTES);
	if (h->exit_grace_s > MAX_EXIT_GRACE_S ||
	    grace_left > (uint64_t)h->exit_grace_s * 1000)
		return bad(cause, "an exit grace out of range");
	if (flags & ~(HOLDER_F_OUTPUT_DONE | HOLDER_F_HOLDING))
		return bad(cause, "unknown holder flags");
	h->output_done = (flags & HOLDER_F_OUTPUT_DONE) != 0;
	h->holding = (flags & HOLDER_F_HOLDING) != 0;
	h->hold_deadline_ms = holder_now_ms() + HANDOVER_HOLD_MS;
	/* The other deadlines were reset by the caller (resume in main.c). */
	if (h->output_done)
		h->grace_deadline_ms = holder_now_ms() + (int64_t)grace_left;
	return 0;
}

/* The child must be ours: a state naming another process is refused. */
static int
state_check_child(const struct pty *p, char *cause)
{
	siginfo_t info;

	if (p->reaped)
		return 0;
	memset(&info, 0, sizeof info);
	/* WNOWAIT: the status stays for pty_reap to collect. */
	if (waitid(P_PID, (id_t)p->child, &info,
	    WEXITED | WNOHANG | WNOWAIT) != 0) {
		snprintf(cause, CAUSE_BYTES, "the state names child %d, which "
		    "is not this process's child: %s", (int)p->child,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
state_get_pty(struct pty *p, struct get *g, char *cause)
{
	uint32_t master = (uint32_t)get_uint(g, 4);
	uint32_t child = (uint32_t)get_uint(g, 4);
	uint8_t flags;
	const uint8_t *input;

	p->cols = (uint16_t)get_uint(g, 2);
	p->rows = (uint16_t)get_uint(g, 2);
	flags = (uint8_t)get_uint(g, 1);
	p->exit_code = (int32_t)(uint32_t)get_uint(g, 4);
	p->exit_signal = (int32_t)(uint32_t)get_uint(g, 4);
	p->input_length = (size_t)get_uint(g, 4);
	if (g->short_read)
		return bad(cause, "it ends inside the PTY's fields");
	if (p->input_length > PTY_INPUT_BYTES)
		return bad(cause, "more unwritten input than a holder keeps");
	input = get_bytes(g, p->input_length);
	if (input == NULL)
		return bad(cause, "it ends inside the unwritten input");
	memcpy(p->input, input, p->input_length);
	if (flags & ~(PTY_F_REAPED | PTY_F_HUNG_UP))
		return bad(cause, "unknown PTY flags");
	p->reaped = (flags & PTY_F_REAPED) != 0;
	p->hung_up = (flags & PTY_F_HUNG_UP) != 0;
	if (p->cols < MIN_COLS || p->cols > MAX_COLS || p->rows < MIN_ROWS ||
	    p->rows > MAX_ROWS)
		return bad(cause, "a terminal size out of range");
	if (child == 0 || child > INT32_MAX)
		return bad(cause, "no child pid");
	p->child = (pid_t)child;
	p->master = master == UINT32_MAX ? -1 : (int)master;
	if (master != UINT32_MAX && (master < 3 || master > INT32_MAX))
		return bad(cause, "a PTY descriptor out of range");
	if (p->master < 0 && !p->reaped)
		return bad(cause, "a live child without a PTY");
	if (p->master >= 0 && (fcntl(p->master, F_GETFD) < 0 ||
	    !isatty(p->master)))
		return bad(cause, "its PTY descriptor is not an open terminal");
	return state_check_child(p, cause);
}

static int
state_get_listener(struct listener *l, struct get *g, char *cause)
{
	uint32_t fd = (uint32_t)get_uint(g, 4);
	size_t length = (size_t)get_uint(g, 2);
	const uint8_t *path;
	struct stat st;

	if (g->short_read)
		return bad(cause, "it ends inside the socket's fields");
	if (length == 0 || length >= sizeof resumed_socket_path)
		return bad(cause, "a socket path of impossible length");
	path = get_bytes(g, length);
	l->device = (dev_t)get_uint(g, 8);
	l->inode = (ino_t)get_uint(g, 8);
	l->rebind_failing = get_uint(g, 1) != 0;
	if (g->short_read)
		return bad(cause, "it ends inside the socket's fields");
	if (memchr(path, '\0', length) != NULL)
		return bad(cause, "a NUL inside the socket path");
	memcpy(resumed_socket_path, path, length);
	resumed_socket_path[length] = '\0';
	l->path = resumed_socket_path;
	if (fd < 3 || fd > INT32_MAX)
		return bad(cause, "a socket descriptor out of range");
	l->fd = (int)fd;
	if (fstat(l->fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return bad(cause, "its socket descriptor is not an open socket");
	return 0;
}

static int
state_get_writers(struct writer_table *t, struct get *g, char *cause)
{
	t->clock = get_uint(g, 8);
	for (size_t i = 0; i < WRITERS_REMEMBERED; i++) {
		struct writer *w = &t->slots[i];
		const uint8_t *id = get_bytes(g, WRITER_ID_BYTES);

		w->taken = get_uint(g, 8);
		w->used = get_uint(g, 8);
		if (g->short_read)
			return bad(cause, "it ends inside the writers' table");
		memcpy(w->id, id, WRITER_ID_BYTES);
		if (w->used > t->clock)
			return bad(cause, "a writer used after the table's clock");
	}
	return 0;
}

/* The ring's counters and marks; its memory is allocated here. */
static int
state_get_ring(struct ring *r, struct get *g, uint64_t ring_bytes,
    char *cause)
{
	uint64_t capacity = get_uint(g, 8);
	uint64_t offset = get_uint(g, 8);
	uint8_t scan = (uint8_t)get_uint(g, 1);
	uint8_t utf8_left = (uint8_t)get_uint(g, 1);
	uint64_t mark_count = get_uint(g, 4);
	uint8_t *bytes;
	uint16_t *marks;

	if (g->short_read)
		return bad(cause, "it ends inside the ring's fields");
	if (capacity < MIN_RING_BYTES || capacity > MAX_RING_BYTES ||
	    mark_count != ring_mark_count((size_t)capacity))
		return bad(cause, "a ring size out of range");
	if (offset > (uint64_t)INT64_MAX ||
	    ring_bytes != (offset < capacity ? offset : capacity))
		return bad(cause, "a ring offset that does not match its bytes");
	if (scan >= RING_SCAN_STATES || utf8_left > 3)
		return bad(cause, "a ring scanner state out of range");
	if (g->left != mark_count * 2)
		return bad(cause, "the ring's marks do not fill the prefix");
	bytes = malloc((size_t)capacity);
	marks = malloc((size_t)mark_count * sizeof *marks);
	if (bytes == NULL || marks == NULL) {
		free(bytes);
		free(marks);
		snprintf(cause, CAUSE_BYTES, "cannot allocate a %llu-byte ring",
		    (unsigned long long)capacity);
		return -1;
	}
	ring_init(r, bytes, (size_t)capacity, marks);
	for (size_t i = 0; i < mark_count; i++) {
		marks[i] = (uint16_t)get_uint(g, 2);
		if (marks[i] != RING_MARK_NONE &&
		    marks[i] >= RING_MARK_BLOCK_BYTES)
			return bad(cause, "a ring mark outside its block");
	}
	r->offset = offset;
	r->scan = scan;
	r->utf8_left = utf8_left;
	return 0;
}

static int
state_get_prefix(struct holder *h, struct get *g, uint64_t ring_bytes,
    char *cause)
{
	if (state_get_holder(h, g, cause) != 0 ||
	    state_get_pty(&h->pty, g, cause) != 0 ||
	    state_get_listener(&h->listener, g, cause) != 0 ||
	    state_get_writers(&h->writers, g, cause) != 0 ||
	    state_get_ring(&h->ring, g, ring_bytes, cause) != 0)
		return -1;
	if (h->output_done && !h->pty.reaped)
		return bad(cause, "output done before the child ended");
	if (h->holding && (h->held_from > h->ring.offset ||
	    h->held_from < ring_oldest(&h->ring)))
		return bad(cause, "bytes held for a controller outside the ring");
	return 0;
}

static int
state_read_header(int fd, uint32_t *prefix_bytes, uint64_t *ring_bytes,
    char *cause)
{
	uint8_t head[STATE_HEADER_BYTES];
	struct get g = { .p = head, .left = sizeof head };
	uint32_t format;

	if (state_read_exact(fd, head, sizeof head, "its header", cause) != 0)
		return -1;
	if (memcmp(get_bytes(&g, STATE_MAGIC_BYTES), STATE_MAGIC,
	    STATE_MAGIC_BYTES) != 0)
		return bad(cause, "it does not start as a holder's state does");
	format = (uint32_t)get_uint(&g, 4);
	*prefix_bytes = (uint32_t)get_uint(&g, 4);
	*ring_bytes = get_uint(&g, 8);
	if (format < OLDEST_HANDOVER_FORMAT || format > HANDOVER_FORMAT) {
		snprintf(cause, CAUSE_BYTES, "the state file has format %u; "
		    "this holder reads %d to %d", format,
		    OLDEST_HANDOVER_FORMAT, HANDOVER_FORMAT);
		return -1;
	}
	if (*prefix_bytes > STATE_PREFIX_MAX_BYTES ||
	    *ring_bytes > MAX_RING_BYTES)
		return bad(cause, "a length over what a holder writes");
	return 0;
}

int
state_file_read(struct holder *h, int fd, char *cause)
{
	uint32_t prefix_bytes;
	uint64_t ring_bytes;
	uint8_t *prefix, extra;
	struct get g;
	int r;

	if (state_read_header(fd, &prefix_bytes, &ring_bytes, cause) != 0)
		return -1;
	prefix = malloc(prefix_bytes > 0 ? prefix_bytes : 1);
	if (prefix == NULL) {
		snprintf(cause, CAUSE_BYTES, "cannot allocate %u bytes",
		    prefix_bytes);
		return -1;
	}
	r = state_read_exact(fd, prefix, prefix_bytes, "its fields", cause);
	g = (struct get){ .p = prefix, .left = prefix_bytes };
	if (r == 0)
		r = state_get_prefix(h, &g, ring_bytes, cause);
	free(prefix);
	if (r == 0)
		r = state_read_exact(fd, h->ring.bytes, (size_t)ring_bytes,
		    "the ring's bytes", cause);
	if (r == 0 && read(fd, &extra, 1) != 0)
		r = bad(cause, "bytes after the ring's");
	return r;
}
