/*
 * attach.c -- `tend attach` at work, in one poll loop: the outer terminal
 * (the user's, stdin and stdout) on one side, the server's viewer socket on
 * the other; a port of src/cli/attach/attach-session.ts for a terminal.
 * This file holds the loop: what is polled, which timer is due, the signals,
 * and the start and end of a run. It is the top of the attach's files
 * (state.h says who calls whom, always downward): received.c what the
 * server sends, typing.c the keys, term.c the writes to the terminal and
 * the acks they earn, link.c the server's socket (connect, HELLO,
 * SUBSCRIBE, acks, reconnecting), outcome.c the end and its words, state.c
 * the size and the struct attach they share. What is drawn over the screen for a
 * while is overlays.c's; raw mode, the size, the writes and the signals'
 * self-pipe are outer.c's; the retry delays backoff.c's. Nothing here
 * queries the terminal, so nothing can hang inside tmux or over ssh.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state.h"

/* The self-pipe the signal handlers write to (outer.c). */
static int signal_fd = -1;

/* The sooner of two deadlines, 0 being none. */
static int64_t
earliest(int64_t a, int64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

/* A lost link frees the input written to it: typing may read the terminal again. */
static void
input_freed_seen(struct attach *a)
{
	if (!a->input_freed)
		return;
	a->input_freed = false;
	typing_resume_if_taken(a);
}

static void
signals_seen(struct attach *a)
{
	struct outer_signals sig;

	outer_signals_take(&sig);
	if (sig.term_signal != 0) {
		attach_finish(a, OUT_SIGNAL, NULL);
		return;
	}
	if (sig.child) {
		link_child_done(a);
		input_freed_seen(a);
	}
	if (sig.resized) {
		attach_read_size();
		link_send_size(a);
	}
}

static void
timers_due(struct attach *a)
{
	int64_t now = outer_now_ms();
	int cols, rows;

	if (a->ack_deadline != 0 && now >= a->ack_deadline)
		link_send_ack(a);
	if (a->carry_deadline != 0 && now >= a->carry_deadline)
		typing_send_carry(a);
	if (a->ov.deadline_ms != 0 && now >= a->ov.deadline_ms) {
		attach_size(&cols, &rows);
		if (overlays_tick(&a->ov, &a->term, cols, rows, now))
			link_resubscribe(a);
	}
	if (!a->finished && !a->link && a->retry_deadline != 0 && now >= a->retry_deadline) {
		link_reconnect(a);
		input_freed_seen(a);
	}
}

/*
 * Until the attach ends: the signals, the keys, the socket, the timers,
 * then what the turn gathered written in one write to the terminal and one
 * to the socket.
 */
static void
loop(struct attach *a)
{
	while (!a->finished) {
		struct pollfd pfd[4];
		int nfds = 0, stdin_at = -1, sock_at = -1, typist_at = -1, timeout = -1;
		int64_t due = earliest(earliest(a->ack_deadline, a->carry_deadline), earliest(a->ov.deadline_ms, a->link ? 0 : a->retry_deadline));
		/*
		 * Frames that came in the handshake's read (HELLO and SUBSCRIBE go
		 * with the request, so WELCOME and a whole small snapshot can come
		 * with the 101): the socket may hold nothing more to wake poll.
		 */
		bool early = a->link && a->ws.early.len > 0;

		if (due != 0) {
			int64_t left = due - outer_now_ms();

			timeout = left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
		}
		if (early)
			timeout = 0;
		pfd[nfds].fd = signal_fd;
		pfd[nfds++].events = POLLIN;
		if (!a->input_paused && !a->stdin_done) {
			stdin_at = nfds;
			pfd[nfds].fd = STDIN_FILENO;
			pfd[nfds++].events = POLLIN;
		}
		if (a->link) {
			sock_at = nfds;
			pfd[nfds].fd = a->ws.fd;
			pfd[nfds++].events = (short)(POLLIN | (a->ws.out.len > 0 ? POLLOUT : 0));
		}
		if (a->typist.fd >= 0) {
			typist_at = nfds;
			pfd[nfds].fd = a->typist.fd;
			pfd[nfds++].events = (short)(POLLIN | (a->typist.out.len > 0 ? POLLOUT : 0));
		}
		if (poll(pfd, (nfds_t)nfds, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents != 0 || outer_signals_pending())
			signals_seen(a);
		/* Keys first: a key is on the socket before this turn's output is written. */
		if (!a->finished && stdin_at >= 0 && (pfd[stdin_at].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0) {
			typing_read_keys(a);
			link_flush(a);
			link_settle(a);
			input_freed_seen(a);
		}
		if (!a->finished && sock_at >= 0 && a->link && (early || (pfd[sock_at].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0)) {
			char err[256];

			if (ws_read(&a->ws, received_message, a, err, sizeof err) != 0 && !a->lost_pending) {
				a->lost_pending = true;
				snprintf(a->lost_why, sizeof a->lost_why, "%s", err);
			}
		}
		/* The INPUT_ROUTE read above may have closed or replaced the fd polled. */
		if (!a->finished && typist_at >= 0 && a->typist.fd == pfd[typist_at].fd && pfd[typist_at].revents != 0)
			typing_typist_ready(a, pfd[typist_at].revents);
		if (!a->finished)
			timers_due(a);
		term_flush(a);
		link_flush(a);
		link_settle(a);
		/* Without the server (lost, or a reconnect under way) keys wait for it, as before the route. */
		if (a->typist.fd >= 0 && (!a->link || a->lost_pending))
			typing_route_server(a);
		input_freed_seen(a);
	}
}

/* How the exit line and the entry hint name the session: ":name (id)" and ":name", or the id. */
static void
name_session(struct attach *a)
{
	/* Cut to fit the label (ids are 8 characters; names this long are not typed). */
	if (a->session_name[0] != '\0') {
		snprintf(a->label, sizeof a->label, ":%.250s (%.250s)", a->session_name, a->session_id);
		snprintf(a->target, sizeof a->target, ":%.255s", a->session_name);
	} else {
		snprintf(a->label, sizeof a->label, "%s", a->session_id);
		snprintf(a->target, sizeof a->target, "%s", a->session_id);
	}
}

int
attach_run(const struct attach_options *o)
{
	static struct attach attach;
	struct attach *a = &attach;
	int status;

	memset(a, 0, sizeof *a);
	a->o = o;
	snprintf(a->socket_path, sizeof a->socket_path, "%s", o->socket_path);
	if (o->session_id != NULL) {
		snprintf(a->session_id, sizeof a->session_id, "%s", o->session_id);
		snprintf(a->session_name, sizeof a->session_name, "%s", o->session_name != NULL ? o->session_name : "");
	}
	buf_init(&a->term, TERM_MAX_BYTES);
	buf_init(&a->scratch, FRAME_SCRATCH_MAX_BYTES);
	buf_init(&a->forward, STDIN_READ_BYTES + 16);
	buf_init(&a->joined, STDIN_READ_BYTES + 32);
	ws_init(&a->ws);
	untaken_init(&a->untaken);
	typist_init(&a->typist);
	a->typist.on_piece = typing_show_piece;
	a->typist.piece_ctx = a;
	prefix_filter_init(&a->prefix, o->detach_prefix);
	alt_tracker_init(&a->alt, false);
	/* This viewer's writer id: the server and the holder number its typing by it (INPUT_AT). */
	wire_random(a->writer, WRITER_ID_BYTES);
	a->channel = CHANNEL_FIRST;
	signal_fd = outer_signals_init();
	if (signal_fd < 0) {
		fprintf(stderr, "tend: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	attach_read_size();
	/* Before the terminal is touched: a refusal hands the whole command over as it was typed. */
	if (a->session_id[0] == '\0' && link_open_naming(a) != 0)
		return ATTACH_HAND_OVER;
	name_session(a);
	overlays_init(&a->ov, o->read_only, o->detach_prefix, a->target);
	a->raw = outer_raw_mode(&a->saved) == 0;
	if (!a->link)
		link_connect(a);
	else
		link_flush(a);
	input_freed_seen(a);
	loop(a);
	if (!a->finished)
		attach_finish(a, OUT_ERROR, "the attach's loop stopped");
	attach_restore_terminal(a);
	fflush(stdout);
	status = attach_say_outcome(a);
	fflush(stdout);
	fflush(stderr);
	return status;
}

