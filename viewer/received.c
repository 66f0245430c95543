/*
 * received.c -- what the server sends, in the outer terminal: the snapshot
 * painted in one write (paint.c), the session's bytes passed straight
 * through (the outer terminal keeps its own scrollback), the title, the
 * program's exit, the errors and the channel's end, what the holder has
 * taken of the typing. Every frame is decoded by frames.c; this file says
 * what each one means for a person looking at a terminal, as
 * src/cli/attach/attach-session.ts does. A frame that ends the attach ends it
 * through outcome.c; one that loses the server leaves it to link.c once the
 * read returns.
 */
#include <stdio.h>
#include <string.h>

#include "state.h"

/* After the server said it is stopping, give whoever restarts it this long before starting one. */
#define RESTART_GRACE_MS 5000

static void
show_notice(struct attach *a)
{
	int cols, rows;

	/* Every snapshot of such a screen says so (the repaint that ends the notice too): once is enough. */
	if (a->notice_given)
		return;
	a->notice_given = true;
	attach_size(&cols, &rows);
	overlays_show_notice(&a->ov, &a->term, cols, rows, outer_now_ms());
}

static void
on_snapshot(struct attach *a, const struct server_frame *f)
{
	int cols, rows;

	backoff_reset(&a->backoff);
	attach_size(&cols, &rows);
	a->status_shown = false;
	a->repaint_coming = false;
	overlays_painted(&a->ov);
	a->history_kept = true;
	term_room(a, f->u.snapshot.data_len + 4096);
	if (f->u.snapshot.view) {
		paint_view(&a->term, f->u.snapshot.data, f->u.snapshot.data_len, &f->u.snapshot.modes, a->alt.active);
		term_wrote_stream(a, f->u.snapshot.boot, f->u.snapshot.boot_len, f->u.snapshot.seq, f->u.snapshot.data_len);
		term_shown_at(a, false, 0);
		a->alt.active = true;
		a->view_shown = a->painted = true;
		overlays_after_paint(&a->ov, attach_can_draw(a), &a->term, cols, rows, outer_now_ms());
		return;
	}
	a->view_shown = false;
	/* The paint leaves the outer alternate screen if it is on; the snapshot's data re-enters it if the session is there. */
	paint_snapshot(&a->term, f->u.snapshot.data, f->u.snapshot.data_len, &f->u.snapshot.modes, rows, cols, a->alt.active, !a->painted);
	term_wrote_stream(a, f->u.snapshot.boot, f->u.snapshot.boot_len, f->u.snapshot.seq, f->u.snapshot.data_len);
	term_shown_at(a, true, f->u.snapshot.seq);
	a->alt.active = f->u.snapshot.modes.alt_screen;
	a->alt.origin_mode = f->u.snapshot.modes.origin_mode;
	a->painted = true;
	overlays_after_paint(&a->ov, attach_can_draw(a), &a->term, cols, rows, outer_now_ms());
}

static void
on_data(struct attach *a, const struct server_frame *f)
{
	bool covered = a->ov.covered > 0;
	bool status = a->status_shown;
	size_t shown = term_shown_already(a, f->u.data.seq, f->u.data.data_len);
	const uint8_t *data = f->u.data.data + shown;
	size_t len = f->u.data.data_len - shown;
	int cols, rows;

	backoff_reset(&a->backoff);
	/* The holder's piece of a typist's echo was here first: nothing new to write, only the ack. */
	if (len == 0 && f->u.data.data_len > 0) {
		term_wrote_stream(a, a->written.boot, strlen(a->written.boot), f->u.data.seq, f->u.data.data_len);
		return;
	}
	/*
	 * While rows are drawn over, output would scroll them into the
	 * history. The notice holds it back (the repaint that ends it replaces
	 * it); the hint and the marker give way: their row is blanked, the
	 * output written, and the screen repainted after it.
	 */
	if (covered && !overlays_gives_way(&a->ov)) {
		term_shown_at(a, false, 0);
		return;
	}
	attach_size(&cols, &rows);
	if (covered)
		overlays_give_way(&a->ov, &a->term, cols, rows);
	/*
	 * A status line ("reconnecting…" as the replay of a reconnect begins,
	 * or typing refused) gives way too: left there, the output scrolled it
	 * into the history, or wrote over its start (`tick 394connecting…`).
	 */
	if (status) {
		a->status_shown = false;
		overlays_status_give_way(&a->ov, &a->term, cols, rows);
	}
	alt_tracker_feed(&a->alt, data, len);
	term_write(a, data, len);
	term_wrote_stream(a, a->written.boot, strlen(a->written.boot), f->u.data.seq, f->u.data.data_len);
	term_shown_reached(a, f->u.data.seq);
	/* A subscription that asked for a repaint (a reconnect's, after a status line) gets it after its replay: no second one. */
	if ((covered || status) && !a->repaint_coming)
		link_resubscribe(a);
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
		attach_finish(a, OUT_ERROR, message);
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
		attach_finish(a, OUT_EXITED, NULL);
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
		attach_finish(a, OUT_DETACHED, "server");
		return;
	case CR_PROTOCOL_VIOLATION:
		if (a->have_fatal)
			snprintf(message, sizeof message, "the server closed this viewer: %s", a->fatal);
		else
			snprintf(message, sizeof message, "the server closed this viewer: %.*s", len, f->u.closed.message);
		attach_finish(a, OUT_ERROR, message);
		return;
	}
}

/* One frame of the current channel (or of none: WELCOME), or INPUT_TAKEN of either. */
static void
received(struct attach *a, const struct server_frame *f)
{
	switch (f->type) {
	case FT_WELCOME:
		/* Another build is no error (the protocol is shared): outcome.c says it once, after the exit line. */
		a->server_known = true;
		snprintf(a->server_version, sizeof a->server_version, "%.*s", (int)(f->u.welcome.server_version_len < SERVER_NAME_BYTES ?
		    f->u.welcome.server_version_len : SERVER_NAME_BYTES - 1), f->u.welcome.server_version);
		snprintf(a->server_build, sizeof a->server_build, "%.*s", (int)(f->u.welcome.server_build_len < SERVER_NAME_BYTES ?
		    f->u.welcome.server_build_len : SERVER_NAME_BYTES - 1), f->u.welcome.server_build != NULL ? f->u.welcome.server_build : "");
		/* The subscription went with HELLO (link.c). */
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
			typing_resume_if_taken(a);
		return;
	case FT_INPUT_ROUTE:
		typing_route(a, f->u.input_route.holder_socket, f->u.input_route.holder_socket_len);
		return;
	case FT_RESIZE:
		return;
	}
}

/* A message read from the socket: decoded, then handled if it is for the channel shown. */
void
received_message(void *ctx, const uint8_t *data, size_t len)
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
	/*
	 * Frames of a channel left for a repaint are over; what the holder took
	 * is news on either, and so is an end of the route to the holder (sent
	 * on the old channel as this viewer moved: its keys must pass the server).
	 */
	if (f.type == FT_WELCOME || f.type == FT_INPUT_TAKEN || f.channel == 0 || f.channel == a->channel ||
	    (f.type == FT_INPUT_ROUTE && f.u.input_route.holder_socket_len == 0 && f.channel < 3 && a->channel_used[f.channel]))
		received(a, &f);
}

