/*
 * typing.c -- the keys: what is read from the outer terminal, on its way to
 * the session. A read goes through the overlays (a key ends the hint), the
 * prefix keys (keys.c: the detach key, and `prefix ?`/`prefix s`, which hand
 * the attach to the TypeScript viewer, handoff.c), the read-only marker,
 * then out as INPUT_AT, numbered and kept until INPUT_TAKEN says the
 * session's holder has it (untaken.c; the holder outlives the server, so a
 * reconnect sends again only what it lacks). A key is written to the socket
 * as soon as it is read -- the echo path is read, encode, write, nothing
 * else -- with the owed ack riding along. An incomplete UTF-8 character
 * waits a moment for its rest; the terminal is not read while too much
 * typed input is owed (a paste into a server that is away), and typing past
 * what is kept is refused out loud.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

/* Stop reading the terminal while this much typed input is owed to the session... */
#define INPUT_PAUSE_BYTES (256 * 1024)
/* ...and read again below this. */
#define INPUT_RESUME_BYTES (64 * 1024)
/* Typed input kept until the holder has it; past this it is refused out loud. */
#define UNTAKEN_MAX_BYTES (1024 * 1024)
/* How long an incomplete UTF-8 character read from the terminal waits for its rest. */
#define UTF8_CARRY_FLUSH_MS 10

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

void
typing_resume_if_taken(struct attach *a)
{
	if (a->input_paused && !a->finished && owed_input_bytes(a) < INPUT_RESUME_BYTES)
		a->input_paused = false;
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
	attach_size(&cols, &rows);
	a->status_shown = true;
	term_writes(a, "\x07");
	paint_status_line(&a->term, text, cols, rows);
}

/* ---- the route: through the server, or straight to the holder ------------ */

/* What send_piece_to_holder needs: the attach, and whether a piece did not fit the typist's queue. */
struct holder_send {
	struct attach *a;
	bool full;
};

/* One piece of the untaken input as the holder's INPUT_FROM (untaken_send_unsent calls it). */
static void
send_piece_to_holder(void *ctx, const struct input_piece *piece)
{
	struct holder_send *s = ctx;

	if (!s->full && typist_input_from(&s->a->typist, s->a->writer, piece->at, piece->data, piece->len) != 0)
		s->full = true;
}

static void
flush_typist(struct attach *a)
{
	char err[256];

	if (a->typist.fd >= 0 && typist_flush(&a->typist, err, sizeof err) != 0)
		typing_route_server(a);
}

/* What the holder has not been sent on this route, straight to it, written at once. */
static void
send_untaken_to_holder(struct attach *a)
{
	struct holder_send send = { .a = a, .full = false };

	untaken_send_unsent(&a->untaken, send_piece_to_holder, &send);
	/* The route ends once the send is done: typing_route_server resends everything through the server. */
	if (send.full) {
		typing_route_server(a);
		return;
	}
	flush_typist(a);
}

void
typing_route_server(struct attach *a)
{
	if (a->typist.fd < 0)
		return;
	typist_close(&a->typist);
	/*
	 * What went to the holder and is not known taken goes again, through the
	 * server, from the holder's last count: it drops what it has, so a byte
	 * that was on its way both ways reaches the program once.
	 */
	untaken_rewind(&a->untaken);
	if (a->link && !a->lost_pending && a->subscribed)
		link_send_untaken(a);
}

void
typing_route(struct attach *a, const char *holder_socket, size_t len)
{
	char path[TYPIST_PATH_BYTES], err[256];

	if (len == 0 || len >= sizeof path || a->o->read_only) {
		typing_route_server(a);
		return;
	}
	memcpy(path, holder_socket, len);
	path[len] = '\0';
	if (a->typist.fd >= 0 && strcmp(a->typist.path, path) == 0)
		return;
	typing_route_server(a);
	/* A holder this viewer cannot reach (another machine's, say) leaves the keys with the server. */
	if (typist_open(&a->typist, path, err, sizeof err) != 0)
		return;
	/* From the holder's last count, as after a reconnect: a resend of what it has is dropped. */
	untaken_rewind(&a->untaken);
	send_untaken_to_holder(a);
}

void
typing_typist_ready(struct attach *a, short revents)
{
	uint64_t taken = a->untaken.taken;
	char err[256];

	if (a->typist.fd < 0)
		return;
	if ((revents & POLLOUT) != 0)
		flush_typist(a);
	if (a->typist.fd < 0 || (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) == 0)
		return;
	if (typist_read(&a->typist, a->writer, &taken, err, sizeof err) != 0) {
		/* INPUT_TAKEN read before the end still counts. */
		if (untaken_take(&a->untaken, taken))
			typing_resume_if_taken(a);
		typing_route_server(a);
		return;
	}
	if (untaken_take(&a->untaken, taken))
		typing_resume_if_taken(a);
	/* The holder's STATE may have asked for WATCH. */
	if (a->typist.out.len > 0)
		flush_typist(a);
}

void
typing_show_piece(void *ctx, uint64_t offset, const uint8_t *p, size_t n)
{
	struct attach *a = ctx;

	/*
	 * Only onto the stream as the terminal shows it: not under a status
	 * line or an overlay (the server's DATA makes them give way), not on a
	 * view, not on a screen a repaint is about to replace, not without the
	 * server (a reconnect replays or repaints).
	 */
	if (a->finished || !a->link || a->lost_pending || !a->painted || a->view_shown || a->status_shown ||
	    a->repaint_coming || a->ov.covered > 0)
		return;
	term_show_piece(a, a->typist.generation, offset, p, n);
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
		link_send_ack(a);
		while (n > 0) {
			size_t len = n > MAX_INPUT_BYTES_PER_FRAME ? MAX_INPUT_BYTES_PER_FRAME : n;

			while (len < n && len > 0 && (p[len] & 0xc0) == 0x80)
				len--;
			if (len == 0)
				len = n > MAX_INPUT_BYTES_PER_FRAME ? MAX_INPUT_BYTES_PER_FRAME : n;
			if (frame_input(&a->scratch, a->channel, p, len) == 0) {
				link_queue(a);
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
	if (a->typist.fd >= 0)
		send_untaken_to_holder(a);
	else if (live) {
		/* The ack rides along: the server reads both in the wakeup the key causes. */
		link_send_ack(a);
		link_send_untaken(a);
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

void
typing_send_carry(struct attach *a)
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

		attach_size(&cols, &rows);
		if (overlays_key_typed(&a->ov, &a->term, cols, rows))
			link_resubscribe(a);
		buf_clear(&a->forward);
		command = prefix_filter_feed(&a->prefix, p, n, &a->forward, &consumed);
		if (a->forward.len > 0) {
			/* The terminal's own reports (the mouse moving, focus) are not typing: they bring no marker. */
			if (a->o->read_only && !holds_mouse_report(a->forward.data, a->forward.len) &&
			    !is_focus_report(a->forward.data, a->forward.len))
				overlays_show_read_only_marker(&a->ov, attach_can_draw(a), &a->term, cols, rows, outer_now_ms());
			else if (!a->o->read_only)
				send_input_carried(a, a->forward.data, a->forward.len);
		}
		if (command == PC_NONE)
			break;
		if (a->carry_len > 0)
			typing_send_carry(a);
		if (consumed > n)
			consumed = n;
		p += consumed;
		n -= consumed;
		if (command == PC_DETACH) {
			attach_finish(a, OUT_DETACHED, "detach-key");
			return;
		}
		/* A panel needs a screen to draw over: before the first paint the key does nothing. */
		if (attach_can_draw(a)) {
			hand_off(a, command, p, n);
			return;
		}
		if (n == 0)
			return;
	}
	if (a->carry_len > 0 && a->carry_deadline == 0)
		a->carry_deadline = outer_now_ms() + UTF8_CARRY_FLUSH_MS;
}

/* The terminal is readable: one read, typed. */
void
typing_read_keys(struct attach *a)
{
	static uint8_t chunk[STDIN_READ_BYTES];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* The terminal hung up (a raw tty reads 0 or EIO only then): the attach ends as a SIGHUP ends it. */
		a->stdin_done = true;
		a->term_dead = true;
		attach_finish(a, OUT_SIGNAL, NULL);
		return;
	}
	typed(a, chunk, (size_t)n);
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

	attach_size(&cols, &rows);
	/* The hint or the marker gives way (its row blanked); the other viewer repaints over it. */
	if (overlays_gives_way(&a->ov))
		overlays_give_way(&a->ov, &a->term, cols, rows);
	term_flush(a);
	if (a->link) {
		link_send_ack(a);
		link_flush(a);
	}
	memset(&s, 0, sizeof s);
	s.session_id = a->session_id;
	s.session_name = a->session_name[0] != '\0' ? a->session_name : NULL;
	s.read_only = a->o->read_only;
	s.detach_prefix = a->o->detach_prefix;
	s.writer = a->writer;
	s.painted = a->painted;
	s.have_written = a->have_written;
	s.written = a->written;
	/* The holder's pieces may have shown more than the server sent: the other viewer resumes after them. */
	if (a->have_written && a->shown_known && a->shown_seq > s.written.seq)
		s.written.seq = a->shown_seq;
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
	attach_finish(a, OUT_ERROR, message);
}

