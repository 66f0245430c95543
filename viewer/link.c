/*
 * link.c -- the attach's link to the server: one WebSocket on the server's
 * unix socket (ws.c), and what this viewer says on it. HELLO with this
 * viewer's writer id; SUBSCRIBE resuming from the position written, so the
 * server replays only what the outer terminal lacks; a repaint as a second
 * subscription on the other channel of the same socket; ACKs; the size.
 * Frames are queued as they are built and written once a turn (or at once
 * after a key: the echo path is read, encode, write).
 *
 * When the socket goes without the server saying the channel is over, the
 * attach reconnects with backoff (backoff.c), following the server through
 * TEND_HOME's lock to whatever socket it is on now, and starts a server
 * when none answers, as every verb does; on the new socket it resumes from
 * the position written and sends again what the holder has not taken
 * (untaken.c keeps it; typing.c adds to it). What the server sends is
 * received.c's. Nothing here calls the files above it (typing.c, term.c,
 * received.c, attach.c): a lost link says so in input_freed and the loop
 * lets typing read again.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "state.h"

/* The WebSocket handshake's wait (server-link.ts). */
#define HANDSHAKE_TIMEOUT_MS 10000

static const char RECONNECTING_TEXT[] =
    "tend: reconnecting\xe2\x80\xa6 (the session keeps running; what you type is sent when it is back)";
/* ---- frames out ----------------------------------------------------------- */

/* Queues one frame built in the scratch buffer; a frame that cannot be queued loses the link. */
void
link_queue(struct attach *a)
{
	if (a->link && a->scratch.len > 0 && ws_send(&a->ws, a->scratch.data, a->scratch.len) != 0 && !a->lost_pending) {
		a->lost_pending = true;
		snprintf(a->lost_why, sizeof a->lost_why, "more is queued for the server than it reads");
	}
	buf_clear(&a->scratch);
}

void
link_flush(struct attach *a)
{
	char err[256];

	if (!a->link || a->lost_pending)
		return;
	if (ws_flush(&a->ws, err, sizeof err) != 0) {
		a->lost_pending = true;
		snprintf(a->lost_why, sizeof a->lost_why, "%s", err);
		return;
	}
	if (a->ws.out.len == 0)
		a->unsent_input = 0;
}

void
link_send_ack(struct attach *a)
{
	bool owed = a->ack_owed;
	uint64_t seq = a->ack_owed_seq;

	attach_drop_ack(a);
	if (!owed || !a->link || a->lost_pending)
		return;
	if (a->have_last_acked && seq <= a->last_acked)
		return;
	a->have_last_acked = true;
	a->last_acked = seq;
	if (frame_ack(&a->scratch, a->channel, seq) == 0)
		link_queue(a);
}

/* One piece of the untaken input as INPUT_AT at its number (untaken_send_unsent calls it). */
static void
send_piece(void *ctx, const struct input_piece *piece)
{
	struct attach *a = ctx;

	if (frame_input_at(&a->scratch, a->channel, piece->at, piece->data, piece->len) == 0)
		link_queue(a);
}

/* Sends what this socket has not had, at its numbers: on a new socket, everything not yet taken. */
void
link_send_untaken(struct attach *a)
{
	if (a->input_gen != a->link_gen)
		untaken_rewind(&a->untaken);
	a->input_gen = a->link_gen;
	untaken_send_unsent(&a->untaken, send_piece, a);
}

/* ---- subscribing ---------------------------------------------------------- */

/*
 * Subscribes on the current channel, resuming from what was written: the
 * server replays what the outer terminal lacks, or sends the screen alone.
 * Something drawn over the screen asks for a repaint after the replay.
 */
void
link_subscribe(struct attach *a)
{
	const struct resume_point *resume = a->view_shown || !a->have_written ? NULL : &a->written;
	bool repaint = resume != NULL && (a->status_shown || overlays_repaint_owed(&a->ov));
	int cols, rows;

	attach_size(&cols, &rows);
	a->channel_used[a->channel] = true;
	a->repaint_coming = repaint;
	if (frame_subscribe(&a->scratch, a->channel, a->session_id, a->o->window_key, (uint16_t)cols, (uint16_t)rows, resume, a->history_kept, repaint) == 0)
		link_queue(a);
	a->subscribed = true;
	a->have_last_acked = false;
	/* A new socket: everything not yet taken goes again; a repaint's channel gets only what is new. */
	link_send_untaken(a);
}

/*
 * Repaints the screen from the server: subscribes again on the other channel
 * of the same socket (the output held back is replayed, then the screen
 * repainted), and only then leaves the old one. With the server away, the
 * next subscription repaints.
 */
void
link_resubscribe(struct attach *a)
{
	uint32_t old = a->channel;

	if (!a->link || a->lost_pending || !a->subscribed)
		return;
	a->channel = old == CHANNEL_FIRST ? CHANNEL_SECOND : CHANNEL_FIRST;
	attach_drop_ack(a);
	link_subscribe(a);
	if (frame_unsubscribe(&a->scratch, old) == 0)
		link_queue(a);
}

/* ---- connecting ----------------------------------------------------------- */

/* HELLO and SUBSCRIBE queued behind the handshake's request: one write for all three. */
static void
link_say_hello(struct attach *a)
{
	a->link = true;
	a->link_gen++;
	a->unsent_input = 0;
	/* A viewer that types may be told to type straight to the holder (INPUT_ROUTE, typist.c). */
	if (frame_hello(&a->scratch, a->o->read_only, true, !a->o->read_only, "cli", a->writer) == 0)
		link_queue(a);
	link_subscribe(a);
}

/*
 * Opens the socket, says HELLO and subscribes, in one write with the
 * handshake: the server reads the frames in order once it has upgraded, so
 * the first paint waits for no round trip but the snapshot's (the
 * handshake's and WELCOME's cost ~1 ms each on a small machine).
 */
void
link_connect(struct attach *a)
{
	char err[256];

	a->retry_deadline = 0;
	a->link_opened = false;
	a->lost_pending = false;
	if (ws_open_begin(&a->ws, a->socket_path, VIEWER_ENDPOINT, HANDSHAKE_TIMEOUT_MS, err, sizeof err) != 0) {
		ws_close(&a->ws);
		a->link = false;
		link_lost(a, err);
		return;
	}
	link_say_hello(a);
	if (ws_open_finish(&a->ws, err, sizeof err) != 0) {
		link_lost(a, err);
		return;
	}
	ws_forget_reply(&a->ws);
	a->link_opened = true;
	link_flush(a);
}

int
link_open_naming(struct attach *a)
{
	/* Room past a request's longest path (2 KiB): ws_open_begin refuses those, as no session has such a target. */
	static char path[4096];
	char err[256], raw_name[3 * SESSION_ID_BYTES];
	int r;

	/* The SUBSCRIBE names no session (an empty id): the one the upgrade named. */
	a->session_id[0] = '\0';
	a->session_name[0] = '\0';
	if (snprintf(path, sizeof path, "%s?session=%s", VIEWER_ENDPOINT, a->o->target_encoded) >= (int)sizeof path ||
	    ws_open_begin(&a->ws, a->socket_path, path, HANDSHAKE_TIMEOUT_MS, err, sizeof err) != 0)
		goto refused;
	link_say_hello(a);
	if (ws_open_finish(&a->ws, err, sizeof err) != 0 ||
	    ws_reply_header(&a->ws, "Tend-Session-Id", a->session_id, sizeof a->session_id) != 1 || a->session_id[0] == '\0')
		goto refused;
	r = ws_reply_header(&a->ws, "Tend-Session-Name", raw_name, sizeof raw_name);
	if (r < 0 || (r == 1 && percent_decode(raw_name, a->session_name, sizeof a->session_name) != 0))
		goto refused;
	ws_forget_reply(&a->ws);
	a->link_opened = true;
	return 0;
refused:
	ws_close(&a->ws);
	a->link = false;
	a->subscribed = false;
	a->session_id[0] = '\0';
	a->session_name[0] = '\0';
	return -1;
}

/* Starts a server as the CLI does (`tend server start`, in the background); the loop hears when it is done. */
static void
start_server(struct attach *a)
{
	pid_t pid;

	if (a->starter > 0)
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setsid();
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp(a->o->node, a->o->node, a->o->tend_js, "server", "start", (char *)NULL);
		_exit(127);
	}
	a->starter = pid;
}

static void
show_reconnecting(struct attach *a)
{
	int cols, rows;

	if (a->status_shown)
		return;
	a->status_shown = true;
	attach_size(&cols, &rows);
	paint_status_line(&a->term, RECONNECTING_TEXT, cols, rows);
}

/*
 * The socket is gone without the channel said to be over: reconnect with
 * backoff, starting a server when none answers (unless one said it is
 * stopping, and is probably being restarted right now).
 */
void
link_lost(struct attach *a, const char *why)
{
	bool refused = !a->link_opened;
	int64_t delay;
	char message[1024];

	if (a->finished)
		return;
	if (a->link)
		ws_close(&a->ws);
	a->link = false;
	a->lost_pending = false;
	a->subscribed = false;
	a->unsent_input = 0;
	attach_drop_ack(a);
	if (a->have_fatal) {
		attach_finish(a, OUT_ERROR, a->fatal);
		return;
	}
	/* Bytes written to the dead socket are owed no more (they wait in the untaken input): the loop may read keys again. */
	a->input_freed = true;
	delay = backoff_next(&a->backoff, outer_now_ms());
	if (delay < 0) {
		uint64_t unsent = untaken_bytes(&a->untaken) + a->dropped_input;

		if (unsent > 0)
			snprintf(message, sizeof message, "%s; %" PRIu64 " bytes typed may not have reached the session", why, unsent);
		else
			snprintf(message, sizeof message, "%s", why);
		attach_finish(a, OUT_LOST, message);
		return;
	}
	/* A blip caught by the first retry shows nothing; a longer outage says so. */
	if (a->backoff.failures > 1)
		show_reconnecting(a);
	if (refused && outer_now_ms() >= a->restart_grace_until)
		start_server(a);
	a->retry_deadline = outer_now_ms() + delay;
}

/*
 * A retry: the server of TEND_HOME may be back on another socket than the
 * last one (started with another runtime directory: by this attach, whose
 * environment may name another one than the server's did, or by anyone), so
 * the home's lock is read again, as main.c reads it at the start. With no
 * live server in it, the last socket is tried: one may come back there.
 */
void
link_reconnect(struct attach *a)
{
	char found[sizeof a->socket_path];

	if (lock_server_socket(found, sizeof found) == 0)
		memcpy(a->socket_path, found, sizeof found);
	link_connect(a);
}

/* The server started by start_server is done starting (SIGCHLD). */
void
link_child_done(struct attach *a)
{
	int status;

	if (a->starter <= 0)
		return;
	if (waitpid(a->starter, &status, WNOHANG) != a->starter)
		return;
	a->starter = 0;
	/* Up now: no need to sit out the rest of the backoff. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !a->finished && !a->link && a->retry_deadline != 0)
		link_reconnect(a);
}

/* The outer terminal was resized: the server renders for this viewer's size. */
void
link_send_size(struct attach *a)
{
	int cols, rows;

	/* Read-only too: it never sizes the PTY, but the server renders its view for its size. */
	if (!a->link || a->lost_pending || !a->subscribed)
		return;
	attach_size(&cols, &rows);
	if (frame_resize_request(&a->scratch, a->channel, (uint16_t)cols, (uint16_t)rows) == 0)
		link_queue(a);
}

/* Socket trouble noticed while reading or writing becomes a lost link, once nothing is mid-read. */
void
link_settle(struct attach *a)
{
	if (a->lost_pending && !a->finished) {
		char why[sizeof a->lost_why];

		memcpy(why, a->lost_why, sizeof why);
		link_lost(a, why);
	}
}

