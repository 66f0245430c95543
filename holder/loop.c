/*
 * loop.c -- the holder's one poll() loop (select() where poll() fails on
 * a PTY: wait.c): PTY bytes into the ring and out
 * to the controller, with flow control; signals; the child's exit, KILL,
 * the exit grace; the socket-file check.  Every timer is a deadline here,
 * turned into poll()'s timeout.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "holder.h"

/* Flow control marks, per docs/protocol.md. */
#define HIGH_WATER_BYTES (1024 * 1024)
#define LOW_WATER_BYTES (256 * 1024)
/* PTY bytes read per loop turn at most, so sockets get their turn. */
#define PTY_TURN_BYTES (256 * 1024)
/* After the child is reaped, wait this long for the PTY to hang up. */
#define DRAIN_AFTER_EXIT_MS 500
/* How often to look whether the socket file was deleted. */
#define SOCKET_CHECK_MS 3000

static void __attribute__((noreturn))
holder_exit(struct holder *h)
{
	holder_log("leaving: child %s %d", h->pty.exit_signal ? "signal" :
	    "exit", h->pty.exit_signal ? h->pty.exit_signal : h->pty.exit_code);
	for (size_t i = 0; i < CONN_MAX; i++)
		conn_close(h, &h->conns[i]);
	listen_remove(&h->listener);
	pty_close(&h->pty);
	exit(0);
}

static void
holder_flush_where(struct holder *h, bool watching)
{
	for (size_t i = 0; i < CONN_MAX; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd >= 0 && c->watching == watching)
			conn_flush(h, c);
	}
}

/*
 * Watchers first: a piece copied to one is a person's echo, and the
 * controller's frame can wait a write.
 */
static void
holder_flush_all(struct holder *h)
{
	holder_flush_where(h, true);
	holder_flush_where(h, false);
}

/*
 * Flow control: stop reading the PTY while the controller owes more than
 * the high-water mark, so the kernel holds the program back; resume below
 * the low-water mark.
 */
static void
holder_update_pause(struct holder *h)
{
	size_t cap = h->ring.capacity;
	uint64_t high = cap / 2 < HIGH_WATER_BYTES ? cap / 2 : HIGH_WATER_BYTES;
	uint64_t low = cap / 8 < LOW_WATER_BYTES ? cap / 8 : LOW_WATER_BYTES;
	uint64_t unsent = stream_unsent(h);

	if (h->paused && unsent <= low)
		h->paused = false;
	else if (!h->paused && unsent >= high)
		h->paused = true;
}

static void
holder_read_pty(struct holder *h)
{
	uint64_t room = h->ring.capacity - stream_unsent(h);
	size_t budget = room < PTY_TURN_BYTES ? (size_t)room : PTY_TURN_BYTES;
	uint64_t from = h->ring.offset;

	if (budget > 0 && pty_read_into(&h->pty, &h->ring, budget) > 0) {
		watch_offer(h, from);
		holder_flush_all(h);
	}
}

static void
holder_on_signals(struct holder *h, int fd)
{
	uint8_t got[64];
	ssize_t n;

	while ((n = read(fd, got, sizeof got)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (got[i] == SIGTERM)
				holder_kill(h);
			else if (got[i] == SIGCHLD && !h->pty.reaped &&
			    pty_reap(&h->pty)) {
				h->drain_deadline_ms = holder_now_ms() +
				    DRAIN_AFTER_EXIT_MS;
				holder_read_pty(h);
			}
		}
	}
}

/*
 * The child is gone and the PTY hung up (or stayed quiet past the drain
 * time, when a grandchild keeps the slave open): no byte can follow.
 */
static void
holder_try_finish_output(struct holder *h, int64_t now)
{
	if (!h->pty.hung_up && now < h->drain_deadline_ms)
		return;
	if (!h->pty.hung_up && h->paused && !h->quitting) {
		h->drain_deadline_ms = now + DRAIN_AFTER_EXIT_MS;
		return;		/* bytes are still in the PTY, held back */
	}
	pty_close(&h->pty);
	h->output_done = true;
	h->grace_deadline_ms = now + (int64_t)h->exit_grace_s * 1000;
	if (h->quitting)
		h->quit_deadline_ms = now + QUIT_FLUSH_MS;
	if (h->quitting && h->controller && !h->controller->streaming)
		conn_send_exit(h, h->controller);
	holder_flush_all(h);
}

static void
holder_tick(struct holder *h)
{
	int64_t now = holder_now_ms();

	conn_expire(h, now);
	if (h->pty.reaped && !h->output_done)
		holder_try_finish_output(h, now);
	if (h->quitting && !h->pty.reaped && now >= h->kill_deadline_ms) {
		/* A job in its own group (vim run from the shell) too. */
		pty_signal_foreground(&h->pty, SIGKILL);
		pty_signal_group(&h->pty, SIGKILL);
		h->kill_deadline_ms = NEVER_MS;
	}
	if (h->output_done && h->quitting &&
	    (conn_flushed(h) || now >= h->quit_deadline_ms))
		holder_exit(h);
	if (h->output_done && !h->quitting && now >= h->grace_deadline_ms)
		holder_exit(h);
	if (h->holding && now >= h->hold_deadline_ms) {
		holder_log("nobody came back for the bytes held since the "
		    "hand-over; reading on");
		h->holding = false;
	}
	if (now >= h->socket_check_ms) {
		listen_check_file(&h->listener);
		h->socket_check_ms = now + SOCKET_CHECK_MS;
	}
}

static int64_t
earliest(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int
holder_timeout(const struct holder *h)
{
	int64_t next = h->socket_check_ms, wait;

	if (h->pty.reaped && !h->output_done)
		next = earliest(next, h->drain_deadline_ms);
	if (h->quitting)
		next = earliest(next, earliest(h->kill_deadline_ms,
		    h->quit_deadline_ms));
	if (h->output_done)
		next = earliest(next, h->grace_deadline_ms);
	if (h->holding)
		next = earliest(next, h->hold_deadline_ms);
	next = earliest(next, conn_next_deadline(h));
	wait = next - holder_now_ms();
	return wait < 0 ? 0 : wait > INT_MAX ? INT_MAX : (int)wait;
}

enum { SLOT_SIGNAL, SLOT_LISTEN, SLOT_PTY, SLOT_CONNS };

static void
holder_fill_poll(const struct holder *h, int sig, struct pollfd *fds)
{
	const struct pty *p = &h->pty;
	short pty_events = (h->paused ? 0 : POLLIN) |
	    (p->input_length > 0 ? POLLOUT : 0);

	fds[SLOT_SIGNAL] = (struct pollfd){ .fd = sig, .events = POLLIN };
	fds[SLOT_LISTEN] = (struct pollfd){ .fd = h->listener.fd,
	    .events = POLLIN };
	/* After a hang-up the master only reports POLLHUP: stop asking. */
	fds[SLOT_PTY] = (struct pollfd){ .fd = p->hung_up || !pty_events ?
	    -1 : p->master, .events = pty_events };
	for (size_t i = 0; i < CONN_MAX; i++) {
		short events = conn_poll_events(h, &h->conns[i]);

		/* Polled even with no events: a hang-up must still be seen. */
		fds[SLOT_CONNS + i] = (struct pollfd){ .fd = h->conns[i].fd,
		    .events = events };
	}
}

static void
holder_handle_events(struct holder *h, const struct pollfd *fds)
{
	const short broken = POLLHUP | POLLERR | POLLNVAL;

	if (fds[SLOT_SIGNAL].revents)
		holder_on_signals(h, fds[SLOT_SIGNAL].fd);
	if (fds[SLOT_LISTEN].revents)
		conn_accept(h);
	if (fds[SLOT_PTY].revents & POLLOUT)
		pty_flush_input(&h->pty);
	if (fds[SLOT_PTY].revents & (POLLIN | broken))
		holder_read_pty(h);
	for (size_t i = 0; i < CONN_MAX; i++) {
		struct conn *c = &h->conns[i];
		short got = fds[SLOT_CONNS + i].revents;

		if (got & (POLLIN | broken) && fds[SLOT_CONNS + i].events &
		    POLLIN)
			conn_read(h, c);
		if (got && c->fd >= 0)
			conn_flush(h, c);
		/*
		 * Gone while its input waits for the PTY: what it still had
		 * queued is dropped, so the lease is not held by a dead peer.
		 */
		if (got & broken && c->fd >= 0 &&
		    !(fds[SLOT_CONNS + i].events & POLLIN))
			conn_close(h, c);
	}
}

/* No timer set: a fresh start, or a resumed one before it sets its own. */
void
holder_reset_deadlines(struct holder *h)
{
	h->drain_deadline_ms = h->kill_deadline_ms = NEVER_MS;
	h->grace_deadline_ms = h->quit_deadline_ms = NEVER_MS;
}

void
holder_run(struct holder *h, int sig)
{
	struct pollfd fds[SLOT_CONNS + CONN_MAX];

	h->socket_check_ms = holder_now_ms() + SOCKET_CHECK_MS;
	for (;;) {
		holder_update_pause(h);
		holder_fill_poll(h, sig, fds);
		if (sys_wait(fds, SLOT_CONNS + CONN_MAX, holder_timeout(h)) < 0) {
			if (errno != EINTR)
				holder_log("wait: %s", strerror(errno));
			continue;
		}
		holder_handle_events(h, fds);
		holder_tick(h);
	}
}

