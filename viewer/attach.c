/*
 * attach.c -- `tend attach` at work, in one poll loop: the outer terminal
 * (the user's, stdin and stdout) on one side, the server's viewer socket on
 * the other; a port of src/cli/attach/attach-session.ts for a terminal.
 *
 * The snapshot is painted in one write, then the session's bytes go
 * straight through (the outer terminal keeps its own scrollback). Bytes are
 * acked once their write to the terminal returned: at once past 32 KiB, else
 * with the next key or 50 ms later, so a key wakes the server once. All that
 * a turn of the loop read from the socket is written in one write(). Keys go
 * out as INPUT_AT, numbered, kept until INPUT_TAKEN says the session's holder
 * has them (it outlives the server), and are written to the socket as soon
 * as they are read: the echo path is read, encode, write, nothing else.
 *
 * When the server goes away without saying the channel is over, the attach
 * reconnects with backoff (starting a server when none answers, as every
 * verb does) and resumes from the position written, sending again what the
 * holder has not taken. The prefix keys that open a panel (`prefix ?`,
 * `prefix s`) hand the attach to the TypeScript viewer (handoff.c), which
 * goes on from where this one stands. Nothing here queries the terminal, so
 * nothing can hang inside tmux or over ssh. What is drawn over the screen for
 * a while is overlays.c's; raw mode, the size, the writes and the signals'
 * self-pipe are outer.c's; the retry delays backoff.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "viewer.h"

/* The channels a CLI viewer subscribes on; a repaint on the same socket moves it to the other one. */
#define CHANNEL_FIRST 1
#define CHANNEL_SECOND 2
/* Stop reading the terminal while this much typed input is owed to the session... */
#define INPUT_PAUSE_BYTES (256 * 1024)
/* ...and read again below this. */
#define INPUT_RESUME_BYTES (64 * 1024)
/* Typed input kept until the holder has it; past this it is refused out loud. */
#define UNTAKEN_MAX_BYTES (1024 * 1024)
/* After the server said it is stopping, give whoever restarts it this long before starting one. */
#define RESTART_GRACE_MS 5000
/* Written bytes that are acked at once (the server stops sending at 256 KiB unacked)... */
#define ACK_EAGER_BYTES (32 * 1024)
/* ...else acked this long after the write, or sooner with the next key. */
#define ACK_DELAY_MS 50
/* How long an incomplete UTF-8 character read from the terminal waits for its rest. */
#define UTF8_CARRY_FLUSH_MS 10
/* The WebSocket handshake's wait (server-link.ts). */
#define HANDSHAKE_TIMEOUT_MS 10000
/* One read of the terminal. */
#define STDIN_READ_BYTES (64 * 1024)
/* Output for the terminal is written in one go at the end of a turn, or when it reaches this. */
#define TERM_FLUSH_BYTES (1024 * 1024)
/* The terminal buffer's cap: a snapshot (at most a message) and a turn's stream. */
#define TERM_MAX_BYTES (WIRE_MAX_MESSAGE_BYTES + 2 * TERM_FLUSH_BYTES)
/* A frame encoded before it is queued on the socket. */
#define FRAME_SCRATCH_MAX_BYTES (MAX_INPUT_BYTES_PER_FRAME + 4096)

static const char RECONNECTING_TEXT[] =
    "tend: reconnecting\xe2\x80\xa6 (the session keeps running; what you type is sent when it is back)";

enum outcome_kind { OUT_NONE, OUT_DETACHED, OUT_EXITED, OUT_LOST, OUT_ERROR, OUT_SIGNAL };

struct attach {
	const struct attach_options *o;
	char label[OVERLAY_LABEL_BYTES];
	char target[OVERLAY_LABEL_BYTES];

	/* The outer terminal. */
	struct termios saved;
	bool raw;
	bool term_dead;
	bool stdin_done;
	struct buf term;
	/* Stream bytes in `term` owe an ack once written: the last seq, the bytes, the socket and channel. */
	bool pend_have;
	uint64_t pend_seq;
	size_t pend_bytes;
	unsigned pend_gen;
	uint32_t pend_channel;

	/* The socket. */
	struct ws ws;
	bool link;
	bool link_opened;
	unsigned link_gen;
	/* Lost while its frames were read: handled once the read returns. */
	bool lost_pending;
	char lost_why[512];
	struct buf scratch;
	/* INPUT (not INPUT_AT) bytes queued on the socket and not yet written. */
	size_t unsent_input;

	/* The session. */
	uint8_t writer[WRITER_ID_BYTES];
	struct untaken untaken;
	/* The socket the untaken input was last (re)sent on. */
	unsigned input_gen;
	uint32_t channel;
	bool channel_used[3];
	bool have_written;
	struct resume_point written;
	bool history_kept;
	struct alt_tracker alt;
	bool painted, status_shown, view_shown, subscribed;
	bool notice_given;
	bool have_exit;
	int32_t exit_code, exit_signal;
	bool have_fatal;
	char fatal[512];
	int64_t restart_grace_until;
	pid_t starter;
	uint64_t dropped_input;

	/* Acks. */
	bool have_last_acked;
	uint64_t last_acked;
	bool ack_owed;
	uint64_t ack_owed_seq;
	size_t ack_owed_bytes;
	int64_t ack_deadline;

	/* Keys. */
	struct prefix_filter prefix;
	uint8_t carry[4];
	size_t carry_len;
	int64_t carry_deadline;
	struct buf forward;
	/* A held character's start joined with the next read. */
	struct buf joined;
	bool input_paused;
	struct overlays ov;

	/* Reconnecting. */
	struct backoff backoff;
	int64_t retry_deadline;

	/* The end. */
	bool finished;
	enum outcome_kind outcome;
	char message[1024];
	bool exited_code_known, exited_signal_known;
	int32_t exited_code, exited_signal;
};

/* The outer terminal as it concerns the loop (outer.c does the rest). */

/* The size as last read: at the start and on each SIGWINCH (a key costs no ioctl). */
static int outer_cols, outer_rows;
/* The self-pipe the signal handlers write to (outer.c). */
static int signal_fd = -1;

static void
outer_size(int *cols, int *rows)
{
	*cols = outer_cols;
	*rows = outer_rows;
}

static void send_ack(struct attach *a);
static void finish(struct attach *a, enum outcome_kind kind, const char *message);

/*
 * Writes what is queued for the terminal; then the stream bytes in it are
 * written, and their ack is owed -- to the socket and channel they came on
 * (after a reconnect or a repaint the new channel starts from its resume
 * point, and an older ack would go backwards).
 */
static void
term_flush(struct attach *a)
{
	bool pend = a->pend_have;

	if (a->term.len > 0 && !a->term_dead) {
		if (outer_write_all(a->term.data, a->term.len) != 0) {
			a->term_dead = true;
			pend = false;
			/* The terminal is gone (hung up): nothing is shown any more. */
			finish(a, OUT_SIGNAL, NULL);
		}
	}
	buf_clear(&a->term);
	a->pend_have = false;
	if (!pend || a->finished || !a->link || a->pend_gen != a->link_gen || a->pend_channel != a->channel)
		return;
	a->ack_owed = true;
	a->ack_owed_seq = a->pend_seq;
	a->ack_owed_bytes += a->pend_bytes;
	if (a->ack_owed_bytes >= ACK_EAGER_BYTES)
		send_ack(a);
	else if (a->ack_deadline == 0)
		a->ack_deadline = outer_now_ms() + ACK_DELAY_MS;
}

/* Room in the terminal buffer: written out first when it has grown large. */
static void
term_room(struct attach *a, size_t n)
{
	if (a->term.len > 0 && a->term.len + n > TERM_FLUSH_BYTES)
		term_flush(a);
}

static void
term_write(struct attach *a, const void *p, size_t n)
{
	term_room(a, n);
	if (buf_append(&a->term, p, n) != 0) {
		term_flush(a);
		if (!a->term_dead && outer_write_all(p, n) != 0)
			a->term_dead = true;
	}
}

static void
term_writes(struct attach *a, const char *s)
{
	term_write(a, s, strlen(s));
}

/* Stream bytes (or a snapshot's paint, already in `term`) written: an ack of seq is owed once they are out. */
static void
wrote_stream(struct attach *a, const char *boot, size_t boot_len, uint64_t seq, size_t bytes)
{
	if (boot != a->written.boot) {
		size_t n = boot_len < sizeof a->written.boot - 1 ? boot_len : sizeof a->written.boot - 1;

		memmove(a->written.boot, boot, n);
		a->written.boot[n] = '\0';
	}
	a->written.seq = seq;
	a->have_written = true;
	if (a->pend_have && (a->pend_gen != a->link_gen || a->pend_channel != a->channel))
		a->pend_bytes = 0;
	if (!a->pend_have)
		a->pend_bytes = 0;
	a->pend_have = true;
	a->pend_seq = seq;
	a->pend_bytes += bytes;
	a->pend_gen = a->link_gen;
	a->pend_channel = a->channel;
}

/* ---- the socket ----------------------------------------------------------- */

/* Queues one frame built in the scratch buffer; a frame that cannot be queued loses the link. */
static void link_lost(struct attach *a, const char *why);

static void
queue_scratch(struct attach *a)
{
	if (a->link && a->scratch.len > 0 && ws_send(&a->ws, a->scratch.data, a->scratch.len) != 0 && !a->lost_pending) {
		a->lost_pending = true;
		snprintf(a->lost_why, sizeof a->lost_why, "more is queued for the server than it reads");
	}
	buf_clear(&a->scratch);
}

static void
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

static void
drop_ack(struct attach *a)
{
	a->ack_deadline = 0;
	a->ack_owed = false;
	a->ack_owed_bytes = 0;
}

static void
send_ack(struct attach *a)
{
	bool owed = a->ack_owed;
	uint64_t seq = a->ack_owed_seq;

	drop_ack(a);
	if (!owed || !a->link || a->lost_pending)
		return;
	if (a->have_last_acked && seq <= a->last_acked)
		return;
	a->have_last_acked = true;
	a->last_acked = seq;
	if (frame_ack(&a->scratch, a->channel, seq) == 0)
		queue_scratch(a);
}

/* ---- typed input ---------------------------------------------------------- */

static uint64_t
owed_input_bytes(const struct attach *a)
{
	return untaken_bytes(&a->untaken) + a->unsent_input;
}

static void
pause_input_if_owed(struct attach *a)
{
	if (!a->input_paused && owed_input_bytes(a) > INPUT_PAUSE_BYTES)
		a->input_paused = true;
}

static void
resume_input_if_taken(struct attach *a)
{
	if (a->input_paused && !a->finished && owed_input_bytes(a) < INPUT_RESUME_BYTES)
		a->input_paused = false;
}

static void
send_piece(void *ctx, const struct input_piece *piece)
{
	struct attach *a = ctx;

	if (frame_input_at(&a->scratch, a->channel, piece->at, piece->data, piece->len) == 0)
		queue_scratch(a);
}

/* Sends what this socket has not had, at its numbers: on a new socket, everything not yet taken. */
static void
send_untaken(struct attach *a)
{
	if (a->input_gen != a->link_gen)
		untaken_rewind(&a->untaken);
	a->input_gen = a->link_gen;
	untaken_send_unsent(&a->untaken, send_piece, a);
}

/* Whether typed bytes hold the start of a mouse report (SGR `CSI <`, or `CSI M`). */
static bool
holds_mouse_report(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if (p[i] == 0x1b && p[i + 1] == '[' && (p[i + 2] == '<' || p[i + 2] == 'M'))
			return true;
	return false;
}

/* Focus in or out (`CSI I`, `CSI O`). */
static bool
is_focus_report(const uint8_t *p, size_t n)
{
	return n == 3 && p[0] == 0x1b && p[1] == '[' && (p[2] == 'I' || p[2] == 'O');
}

/* Typing past what is kept until the session has it: a bell, and the status line says so. */
static void
refuse_input(struct attach *a)
{
	char text[256];
	int cols, rows;

	snprintf(text, sizeof text, "tend: the session has not taken %d KiB typed yet; past that typing is not kept: %" PRIu64 " bytes were not sent",
	    UNTAKEN_MAX_BYTES / 1024, a->dropped_input);
	outer_size(&cols, &rows);
	a->status_shown = true;
	term_writes(a, "\x07");
	paint_status_line(&a->term, text, cols, rows);
}

static void
send_input(struct attach *a, const uint8_t *p, size_t n)
{
	bool live = a->link && !a->lost_pending && a->subscribed && a->input_gen == a->link_gen;

	if (n == 0)
		return;
	if (live && a->view_shown && holds_mouse_report(p, n)) {
		/*
		 * Shown a view, the server moves mouse reports from the view's
		 * cells to the session's: the program's bytes are not these, so
		 * a chunk with a report goes as INPUT, outside the numbering.
		 */
		send_ack(a);
		while (n > 0) {
			size_t len = n > MAX_INPUT_BYTES_PER_FRAME ? MAX_INPUT_BYTES_PER_FRAME : n;

			while (len < n && len > 0 && (p[len] & 0xc0) == 0x80)
				len--;
			if (len == 0)
				len = n > MAX_INPUT_BYTES_PER_FRAME ? MAX_INPUT_BYTES_PER_FRAME : n;
			if (frame_input(&a->scratch, a->channel, p, len) == 0) {
				queue_scratch(a);
				a->unsent_input += len;
			}
			p += len;
			n -= len;
		}
		pause_input_if_owed(a);
		return;
	}
	if (untaken_bytes(&a->untaken) + n > UNTAKEN_MAX_BYTES) {
		a->dropped_input += n;
		refuse_input(a);
		return;
	}
	/* Kept until the holder has it; not subscribed, it goes with the next subscription. */
	if (untaken_add(&a->untaken, p, n) != 0) {
		a->dropped_input += n;
		refuse_input(a);
		return;
	}
	if (live) {
		/* The ack rides along: the server reads both in the wakeup the key causes. */
		send_ack(a);
		send_untaken(a);
	}
	pause_input_if_owed(a);
}

/* Joins a held incomplete character with the next bytes (Utf8Carry.push); sends what ends on a character boundary. */
static void
send_input_carried(struct attach *a, const uint8_t *p, size_t n)
{
	size_t cut;

	if (a->carry_len > 0) {
		buf_clear(&a->joined);
		if (buf_append(&a->joined, a->carry, a->carry_len) == 0 && buf_append(&a->joined, p, n) == 0) {
			p = a->joined.data;
			n = a->joined.len;
		} else {
			/* Cannot happen (a read is at most STDIN_READ_BYTES): the held bytes go as they are. */
			send_input(a, a->carry, a->carry_len);
		}
		a->carry_len = 0;
	}
	cut = utf8_incomplete_tail(p, n);
	send_input(a, p, n - cut);
	memcpy(a->carry, p + n - cut, cut);
	a->carry_len = cut;
}

static void
send_carry(struct attach *a)
{
	uint8_t held[sizeof a->carry];
	size_t n = a->carry_len;

	a->carry_deadline = 0;
	if (n == 0)
		return;
	memcpy(held, a->carry, n);
	a->carry_len = 0;
	send_input(a, held, n);
}

/* ---- subscribing ---------------------------------------------------------- */

/*
 * Subscribes on the current channel, resuming from what was written: the
 * server replays what the outer terminal lacks, or sends the screen alone.
 * Something drawn over the screen asks for a repaint after the replay.
 */
static void
subscribe(struct attach *a)
{
	const struct resume_point *resume = a->view_shown || !a->have_written ? NULL : &a->written;
	bool repaint = resume != NULL && (a->status_shown || overlays_repaint_owed(&a->ov));
	int cols, rows;

	outer_size(&cols, &rows);
	a->channel_used[a->channel] = true;
	if (frame_subscribe(&a->scratch, a->channel, a->o->session_id, (uint16_t)cols, (uint16_t)rows, resume, a->history_kept, repaint) == 0)
		queue_scratch(a);
	a->subscribed = true;
	a->have_last_acked = false;
	/* A new socket: everything not yet taken goes again; a repaint's channel gets only what is new. */
	send_untaken(a);
}

/*
 * Repaints the screen from the server: subscribes again on the other channel
 * of the same socket (the output held back is replayed, then the screen
 * repainted), and only then leaves the old one. With the server away, the
 * next subscription repaints.
 */
static void
resubscribe(struct attach *a)
{
	uint32_t old = a->channel;

	if (!a->link || a->lost_pending || !a->subscribed)
		return;
	a->channel = old == CHANNEL_FIRST ? CHANNEL_SECOND : CHANNEL_FIRST;
	drop_ack(a);
	subscribe(a);
	if (frame_unsubscribe(&a->scratch, old) == 0)
		queue_scratch(a);
}

/* ---- what the server sends ------------------------------------------------ */

static bool
can_draw(const struct attach *a)
{
	return a->painted;
}

static void
show_notice(struct attach *a)
{
	int cols, rows;

	/* Every snapshot of such a screen says so (the repaint that ends the notice too): once is enough. */
	if (a->notice_given)
		return;
	a->notice_given = true;
	outer_size(&cols, &rows);
	overlays_show_notice(&a->ov, &a->term, cols, rows, outer_now_ms());
}

static void
on_snapshot(struct attach *a, const struct server_frame *f)
{
	int cols, rows;

	backoff_reset(&a->backoff);
	outer_size(&cols, &rows);
	a->status_shown = false;
	overlays_painted(&a->ov);
	a->history_kept = true;
	term_room(a, f->u.snapshot.data_len + 4096);
	if (f->u.snapshot.view) {
		paint_view(&a->term, f->u.snapshot.data, f->u.snapshot.data_len, &f->u.snapshot.modes, a->alt.active);
		wrote_stream(a, f->u.snapshot.boot, f->u.snapshot.boot_len, f->u.snapshot.seq, f->u.snapshot.data_len);
		a->alt.active = true;
		a->view_shown = a->painted = true;
		overlays_after_paint(&a->ov, can_draw(a), &a->term, cols, rows, outer_now_ms());
		return;
	}
	a->view_shown = false;
	/* The paint leaves the outer alternate screen if it is on; the snapshot's data re-enters it if the session is there. */
	paint_snapshot(&a->term, f->u.snapshot.data, f->u.snapshot.data_len, &f->u.snapshot.modes, rows, cols, a->alt.active, !a->painted);
	wrote_stream(a, f->u.snapshot.boot, f->u.snapshot.boot_len, f->u.snapshot.seq, f->u.snapshot.data_len);
	a->alt.active = f->u.snapshot.modes.alt_screen;
	a->alt.origin_mode = f->u.snapshot.modes.origin_mode;
	a->painted = true;
	overlays_after_paint(&a->ov, can_draw(a), &a->term, cols, rows, outer_now_ms());
}

static void
on_data(struct attach *a, const struct server_frame *f)
{
	bool covered = a->ov.covered > 0;

	backoff_reset(&a->backoff);
	/*
	 * While rows are drawn over, output would scroll them into the
	 * history. The notice holds it back (the repaint that ends it replaces
	 * it); the hint and the marker give way: their row is blanked, the
	 * output written, and the screen repainted after it.
	 */
	if (covered && !overlays_gives_way(&a->ov))
		return;
	if (covered) {
		int cols, rows;

		outer_size(&cols, &rows);
		overlays_give_way(&a->ov, &a->term, cols, rows);
	}
	alt_tracker_feed(&a->alt, f->u.data.data, f->u.data.data_len);
	term_write(a, f->u.data.data, f->u.data.data_len);
	wrote_stream(a, a->written.boot, strlen(a->written.boot), f->u.data.seq, f->u.data.data_len);
	if (covered)
		resubscribe(a);
}

static void
on_title(struct attach *a, const struct server_frame *f)
{
	term_room(a, f->u.title.title_len + 8);
	term_writes(a, "\x1b]2;");
	for (size_t i = 0; i < f->u.title.title_len; i++) {
		unsigned char c = (unsigned char)f->u.title.title[i];

		if (c >= 0x20 && c != 0x7f)
			buf_append(&a->term, &c, 1);
	}
	term_writes(a, "\x07");
}

static bool
is_fatal_code(unsigned code)
{
	return code == VE_VERSION || code == VE_UNKNOWN_FRAME || code == VE_TOO_LARGE || code == VE_BAD_PAYLOAD ||
	    code == VE_NO_HELLO;
}

static void
on_error(struct attach *a, const struct server_frame *f)
{
	unsigned code = f->u.error.code;
	int len = (int)(f->u.error.message_len < 400 ? f->u.error.message_len : 400);

	if (is_fatal_code(code) || code == VE_NO_SUCH_SESSION || code == VE_BAD_ACK || code == VE_INTERNAL) {
		a->have_fatal = true;
		snprintf(a->fatal, sizeof a->fatal, "%.*s", len, f->u.error.message);
	}
	if (code == VE_NO_SUCH_SESSION) {
		char message[512];

		snprintf(message, sizeof message, "the session is gone: %.*s", len, f->u.error.message);
		finish(a, OUT_ERROR, message);
	}
}

static void
on_closed(struct attach *a, const struct server_frame *f)
{
	int len = (int)(f->u.closed.message_len < 400 ? f->u.closed.message_len : 400);
	char message[600];

	switch (f->u.closed.reason) {
	case CR_SESSION_ENDED:
		a->exited_code_known = a->have_exit;
		a->exited_code = a->exit_code;
		a->exited_signal_known = a->have_exit && a->exit_signal != 0;
		a->exited_signal = a->exit_signal;
		finish(a, OUT_EXITED, NULL);
		return;
	case CR_SERVER_SHUTDOWN:
		/* The server is going away on purpose; a new one will pick the session up. */
		a->restart_grace_until = outer_now_ms() + RESTART_GRACE_MS;
		if (!a->lost_pending) {
			a->lost_pending = true;
			if (len > 0)
				snprintf(a->lost_why, sizeof a->lost_why, "%.*s", len, f->u.closed.message);
			else
				snprintf(a->lost_why, sizeof a->lost_why, "the server is stopping");
		}
		return;
	case CR_UNSUBSCRIBED:
		finish(a, OUT_DETACHED, "server");
		return;
	case CR_PROTOCOL_VIOLATION:
		if (a->have_fatal)
			snprintf(message, sizeof message, "the server closed this viewer: %s", a->fatal);
		else
			snprintf(message, sizeof message, "the server closed this viewer: %.*s", len, f->u.closed.message);
		finish(a, OUT_ERROR, message);
		return;
	}
}

static void
received(struct attach *a, const struct server_frame *f)
{
	switch (f->type) {
	case FT_WELCOME:
		subscribe(a);
		return;
	case FT_SNAPSHOT:
		on_snapshot(a, f);
		return;
	case FT_DATA:
		on_data(a, f);
		return;
	case FT_TITLE:
		on_title(a, f);
		return;
	case FT_EXIT:
		a->have_exit = true;
		a->exit_code = f->u.exit.code;
		a->exit_signal = f->u.exit.signal;
		return;
	case FT_ERROR:
		on_error(a, f);
		return;
	case FT_CLOSED:
		on_closed(a, f);
		return;
	case FT_STATE: {
		bool degraded = false;

		if (json_bool(f->u.state.json, f->u.state.json_len, "degraded", &degraded) == 1 && degraded)
			show_notice(a);
		return;
	}
	case FT_INPUT_TAKEN:
		if (f->channel < 3 && a->channel_used[f->channel] && untaken_take(&a->untaken, f->u.input_taken.total))
			resume_input_if_taken(a);
		return;
	case FT_RESIZE:
		return;
	}
}

static void
on_message(void *ctx, const uint8_t *data, size_t len)
{
	struct attach *a = ctx;
	struct server_frame f;
	char err[256];

	if (a->finished || a->lost_pending)
		return;
	if (frame_decode(data, len, &f, err, sizeof err) != 0) {
		a->lost_pending = true;
		snprintf(a->lost_why, sizeof a->lost_why, "the server sent a frame this viewer cannot read (%s)", err);
		return;
	}
	/* Frames of a channel left for a repaint are over; what the holder took is news on either. */
	if (f.type == FT_WELCOME || f.type == FT_INPUT_TAKEN || f.channel == 0 || f.channel == a->channel)
		received(a, &f);
}

/* ---- connecting ----------------------------------------------------------- */

static void
connect_link(struct attach *a)
{
	char err[256];

	a->retry_deadline = 0;
	a->link_opened = false;
	a->lost_pending = false;
	if (ws_open(&a->ws, a->o->socket_path, VIEWER_ENDPOINT, HANDSHAKE_TIMEOUT_MS, err, sizeof err) != 0) {
		ws_close(&a->ws);
		a->link = false;
		link_lost(a, err);
		return;
	}
	a->link = true;
	a->link_opened = true;
	a->link_gen++;
	a->unsent_input = 0;
	if (frame_hello(&a->scratch, a->o->read_only, "cli", a->writer) == 0)
		queue_scratch(a);
	link_flush(a);
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
	outer_size(&cols, &rows);
	paint_status_line(&a->term, RECONNECTING_TEXT, cols, rows);
}

/*
 * The socket is gone without the channel said to be over: reconnect with
 * backoff, starting a server when none answers (unless one said it is
 * stopping, and is probably being restarted right now).
 */
static void
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
	drop_ack(a);
	if (a->have_fatal) {
		finish(a, OUT_ERROR, a->fatal);
		return;
	}
	/* Bytes written to the dead socket are owed no more: they wait in the untaken input. */
	resume_input_if_taken(a);
	delay = backoff_next(&a->backoff, outer_now_ms());
	if (delay < 0) {
		uint64_t unsent = untaken_bytes(&a->untaken) + a->dropped_input;

		if (unsent > 0)
			snprintf(message, sizeof message, "%s; %" PRIu64 " bytes typed may not have reached the session", why, unsent);
		else
			snprintf(message, sizeof message, "%s", why);
		finish(a, OUT_LOST, message);
		return;
	}
	/* A blip caught by the first retry shows nothing; a longer outage says so. */
	if (a->backoff.failures > 1)
		show_reconnecting(a);
	if (refused && outer_now_ms() >= a->restart_grace_until)
		start_server(a);
	a->retry_deadline = outer_now_ms() + delay;
}

static void
child_done(struct attach *a)
{
	int status;

	if (a->starter <= 0)
		return;
	if (waitpid(a->starter, &status, WNOHANG) != a->starter)
		return;
	a->starter = 0;
	/* Up now: no need to sit out the rest of the backoff. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !a->finished && !a->link && a->retry_deadline != 0)
		connect_link(a);
}

/* ---- keys ----------------------------------------------------------------- */

static void hand_off(struct attach *a, enum prefix_command command, const uint8_t *rest, size_t rest_len);

/* A chunk read from the terminal: the overlays, the prefix keys, the read-only marker, then the session. */
static void
typed(struct attach *a, const uint8_t *p, size_t n)
{
	while (!a->finished) {
		enum prefix_command command;
		size_t consumed = n;
		int cols, rows;

		outer_size(&cols, &rows);
		if (overlays_key_typed(&a->ov, &a->term, cols, rows))
			resubscribe(a);
		buf_clear(&a->forward);
		command = prefix_filter_feed(&a->prefix, p, n, &a->forward, &consumed);
		if (a->forward.len > 0) {
			/* The terminal's own reports (the mouse moving, focus) are not typing: they bring no marker. */
			if (a->o->read_only && !holds_mouse_report(a->forward.data, a->forward.len) &&
			    !is_focus_report(a->forward.data, a->forward.len))
				overlays_show_read_only_marker(&a->ov, can_draw(a), &a->term, cols, rows, outer_now_ms());
			else if (!a->o->read_only)
				send_input_carried(a, a->forward.data, a->forward.len);
		}
		if (command == PC_NONE)
			break;
		if (a->carry_len > 0)
			send_carry(a);
		if (consumed > n)
			consumed = n;
		p += consumed;
		n -= consumed;
		if (command == PC_DETACH) {
			finish(a, OUT_DETACHED, "detach-key");
			return;
		}
		/* A panel needs a screen to draw over: before the first paint the key does nothing. */
		if (can_draw(a)) {
			hand_off(a, command, p, n);
			return;
		}
		if (n == 0)
			return;
	}
	if (a->carry_len > 0 && a->carry_deadline == 0)
		a->carry_deadline = outer_now_ms() + UTF8_CARRY_FLUSH_MS;
}

static void
read_keys(struct attach *a)
{
	static uint8_t chunk[STDIN_READ_BYTES];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* The terminal hung up (a raw tty reads 0 or EIO only then): the attach ends as a SIGHUP ends it. */
		a->stdin_done = true;
		a->term_dead = true;
		finish(a, OUT_SIGNAL, NULL);
		return;
	}
	typed(a, chunk, (size_t)n);
}

static void
outer_resized(struct attach *a)
{
	int cols, rows;

	/* Read-only too: it never sizes the PTY, but the server renders its view for its size. */
	if (!a->link || a->lost_pending || !a->subscribed)
		return;
	outer_size(&cols, &rows);
	if (frame_resize_request(&a->scratch, a->channel, (uint16_t)cols, (uint16_t)rows) == 0)
		queue_scratch(a);
}

/*
 * `prefix ?` or `prefix s`: the TypeScript viewer shows the panel and goes
 * on from here (the same writer and numbering, the position written, what
 * the terminal shows, the keys read after the command's). The terminal stays
 * raw across the exec; the socket is closed (it opens its own).
 */
static void
hand_off(struct attach *a, enum prefix_command command, const uint8_t *rest, size_t rest_len)
{
	struct handoff_state s;
	char err[256], message[512];
	int cols, rows;

	outer_size(&cols, &rows);
	/* The hint or the marker gives way (its row blanked); the other viewer repaints over it. */
	if (overlays_gives_way(&a->ov))
		overlays_give_way(&a->ov, &a->term, cols, rows);
	term_flush(a);
	if (a->link) {
		send_ack(a);
		link_flush(a);
	}
	memset(&s, 0, sizeof s);
	s.session_id = a->o->session_id;
	s.session_name = a->o->session_name;
	s.read_only = a->o->read_only;
	s.detach_prefix = a->o->detach_prefix;
	s.writer = a->writer;
	s.painted = a->painted;
	s.have_written = a->have_written;
	s.written = a->written;
	s.keeps_history = a->history_kept;
	s.view_shown = a->view_shown;
	s.alt_active = a->alt.active;
	s.origin_mode = a->alt.origin_mode;
	s.untaken = &a->untaken;
	s.command = command;
	s.covered = a->status_shown || overlays_repaint_owed(&a->ov);
	s.typed = rest;
	s.typed_len = rest_len;
	s.restore = a->raw ? &a->saved : NULL;
	if (a->link) {
		ws_close(&a->ws);
		a->link = false;
	}
	handoff_exec(a->o->node, a->o->tend_js, &s, err, sizeof err);
	snprintf(message, sizeof message, "could not hand the attach to the TypeScript viewer: %s", err);
	finish(a, OUT_ERROR, message);
}

/* ---- the end -------------------------------------------------------------- */

static void
finish(struct attach *a, enum outcome_kind kind, const char *message)
{
	if (a->finished)
		return;
	a->finished = true;
	a->outcome = kind;
	snprintf(a->message, sizeof a->message, "%s", message != NULL ? message : "");
	a->retry_deadline = a->carry_deadline = 0;
	drop_ack(a);
}

/* Puts the outer terminal back: rows drawn over blanked, the session's modes left, the settings restored. */
static void
restore_terminal(struct attach *a)
{
	int cols, rows;
	bool covered = a->ov.covered > 0;

	outer_size(&cols, &rows);
	if (a->link) {
		ws_close(&a->ws);
		a->link = false;
	}
	if (a->painted || a->status_shown || covered) {
		overlays_leaving(&a->ov, &a->term, cols, rows);
		paint_leave(&a->term, a->alt.active, a->alt.origin_mode, cols, rows);
	}
	a->pend_have = false;
	if (a->term.len > 0 && !a->term_dead)
		outer_write_all(a->term.data, a->term.len);
	buf_clear(&a->term);
	if (a->raw) {
		outer_restore_mode(&a->saved);
		a->raw = false;
	}
}

/* What the program did (describeExit): "exited with code 2", "was killed by signal 9 (SIGKILL)", "ended". */
static void
describe_exit(bool code_known, int32_t code, bool signal_known, int32_t sig, char *out, size_t outlen)
{
	static const char *const names[32] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
		"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
		"SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
		"SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",
		"SIGPWR", "SIGSYS",
	};

	if (signal_known && sig > 0) {
		if (sig < 32 && names[sig] != NULL)
			snprintf(out, outlen, "was killed by signal %" PRId32 " (%s)", sig, names[sig]);
		else
			snprintf(out, outlen, "was killed by signal %" PRId32, sig);
	} else if (!code_known) {
		snprintf(out, outlen, "ended");
	} else {
		snprintf(out, outlen, "exited with code %" PRId32, code);
	}
}

/* Says how the attach ended, as `tend attach` in TypeScript does; returns the exit status. */
static int
say_outcome(struct attach *a)
{
	char how[128];

	switch (a->outcome) {
	case OUT_DETACHED:
		printf("[detached from %s]\n", a->label);
		return 0;
	case OUT_EXITED:
		describe_exit(a->exited_code_known, a->exited_code, a->exited_signal_known, a->exited_signal, how, sizeof how);
		printf("[session %s %s]\n", a->label, how);
		return 0;
	case OUT_LOST:
		fprintf(stderr, "tend: lost the server and could not reconnect (%s); session %s is still running \xe2\x80\x94 `tend attach %s` to try again\n",
		    a->message, a->label, a->target);
		return 1;
	case OUT_ERROR:
		fprintf(stderr, "tend: %s\n", a->message);
		return 1;
	case OUT_SIGNAL:
	case OUT_NONE:
		return 1;
	}
	return 1;
}

/* ---- the loop ------------------------------------------------------------- */

static void
random_writer(uint8_t writer[WRITER_ID_BYTES])
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd >= 0) {
		while (got < WRITER_ID_BYTES) {
			ssize_t n = read(fd, writer + got, WRITER_ID_BYTES - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
	}
	if (got < WRITER_ID_BYTES) {
		/* No /dev/urandom: the time and the pid, mixed; unique enough for one writer's numbering. */
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
		for (size_t i = 0; i < WRITER_ID_BYTES; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			writer[i] = (uint8_t)x;
		}
	}
}

static int64_t
earliest(int64_t a, int64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

static void
signals_seen(struct attach *a)
{
	struct outer_signals sig;

	outer_signals_take(&sig);
	if (sig.term_signal != 0) {
		finish(a, OUT_SIGNAL, NULL);
		return;
	}
	if (sig.child)
		child_done(a);
	if (sig.resized) {
		outer_read_size(&outer_cols, &outer_rows);
		outer_resized(a);
	}
}

static void
timers_due(struct attach *a)
{
	int64_t now = outer_now_ms();
	int cols, rows;

	if (a->ack_deadline != 0 && now >= a->ack_deadline)
		send_ack(a);
	if (a->carry_deadline != 0 && now >= a->carry_deadline)
		send_carry(a);
	if (a->ov.deadline_ms != 0 && now >= a->ov.deadline_ms) {
		outer_size(&cols, &rows);
		if (overlays_tick(&a->ov, &a->term, cols, rows, now))
			resubscribe(a);
	}
	if (!a->finished && !a->link && a->retry_deadline != 0 && now >= a->retry_deadline)
		connect_link(a);
}

/* Socket trouble noticed while reading or writing becomes a lost link, once nothing is mid-read. */
static void
settle_link(struct attach *a)
{
	if (a->lost_pending && !a->finished) {
		char why[sizeof a->lost_why];

		memcpy(why, a->lost_why, sizeof why);
		link_lost(a, why);
	}
}

static void
loop(struct attach *a)
{
	while (!a->finished) {
		struct pollfd pfd[3];
		int nfds = 0, stdin_at = -1, sock_at = -1, timeout = -1;
		int64_t due = earliest(earliest(a->ack_deadline, a->carry_deadline), earliest(a->ov.deadline_ms, a->link ? 0 : a->retry_deadline));

		if (due != 0) {
			int64_t left = due - outer_now_ms();

			timeout = left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
		}
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
		if (poll(pfd, (nfds_t)nfds, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents != 0 || outer_signals_pending())
			signals_seen(a);
		/* Keys first: a key is on the socket before this turn's output is written. */
		if (!a->finished && stdin_at >= 0 && (pfd[stdin_at].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
			read_keys(a);
			link_flush(a);
			settle_link(a);
		}
		if (!a->finished && sock_at >= 0 && a->link && (pfd[sock_at].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
			char err[256];

			if (ws_read(&a->ws, on_message, a, err, sizeof err) != 0 && !a->lost_pending) {
				a->lost_pending = true;
				snprintf(a->lost_why, sizeof a->lost_why, "%s", err);
			}
		}
		if (!a->finished)
			timers_due(a);
		term_flush(a);
		link_flush(a);
		settle_link(a);
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
	if (o->session_name != NULL && o->session_name[0] != '\0') {
		snprintf(a->label, sizeof a->label, ":%s (%s)", o->session_name, o->session_id);
		snprintf(a->target, sizeof a->target, ":%s", o->session_name);
	} else {
		snprintf(a->label, sizeof a->label, "%s", o->session_id);
		snprintf(a->target, sizeof a->target, "%s", o->session_id);
	}
	overlays_init(&a->ov, o->read_only, o->detach_prefix, a->target);
	buf_init(&a->term, TERM_MAX_BYTES);
	buf_init(&a->scratch, FRAME_SCRATCH_MAX_BYTES);
	buf_init(&a->forward, STDIN_READ_BYTES + 16);
	buf_init(&a->joined, STDIN_READ_BYTES + 32);
	ws_init(&a->ws);
	untaken_init(&a->untaken);
	prefix_filter_init(&a->prefix, o->detach_prefix);
	alt_tracker_init(&a->alt, false);
	random_writer(a->writer);
	a->channel = CHANNEL_FIRST;
	signal_fd = outer_signals_init();
	if (signal_fd < 0) {
		fprintf(stderr, "tend: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	outer_read_size(&outer_cols, &outer_rows);
	a->raw = outer_raw_mode(&a->saved) == 0;
	connect_link(a);
	loop(a);
	if (!a->finished)
		finish(a, OUT_ERROR, "the attach's loop stopped");
	restore_terminal(a);
	fflush(stdout);
	status = say_outcome(a);
	fflush(stdout);
	fflush(stderr);
	return status;
}
