/*
 * state.h -- what the files of the attach share, and no other file: the one
 * struct attach the loop runs on, and each file's calls. The files call one
 * way, from the top down, never back up: attach.c (the loop) calls all of
 * them; received.c (what the server sends) calls typing.c, term.c, link.c
 * and outcome.c; typing.c (the keys) calls term.c and link.c; term.c (the
 * writes to the outer terminal) calls link.c for the acks it owes; link.c
 * (the server's socket) calls outcome.c; outcome.c (the end) and all of
 * them call state.c (the outer terminal's size, the owed ack dropped). What
 * a lower file cannot act on it says in a flag here, and the file above
 * acts (a lost link frees the input written to it: input_freed). The
 * viewer's interface to them is attach_run (viewer.h).
 */
#ifndef TEND_VIEWER_STATE_H
#define TEND_VIEWER_STATE_H

#include <sys/types.h>
#include <termios.h>

#include "viewer.h"

/* The channels a CLI viewer subscribes on; a repaint on the same socket moves it to the other one. */
#define CHANNEL_FIRST 1
#define CHANNEL_SECOND 2
/* One read of the terminal. */
#define STDIN_READ_BYTES (64 * 1024)
/* Output for the terminal is written in one go at the end of a turn, or when it reaches this. */
#define TERM_FLUSH_BYTES (1024 * 1024)
/* The terminal buffer's cap: a snapshot (at most a message) and a turn's stream. */
#define TERM_MAX_BYTES (WIRE_MAX_MESSAGE_BYTES + 2 * TERM_FLUSH_BYTES)
/* A frame encoded before it is queued on the socket. */
#define FRAME_SCRATCH_MAX_BYTES (MAX_INPUT_BYTES_PER_FRAME + 4096)
/* The server's socket path, as the home's lock names it (lock.c reads it with the same limit). */
#define SOCKET_PATH_MAX_BYTES 4096

enum outcome_kind { OUT_NONE, OUT_DETACHED, OUT_EXITED, OUT_LOST, OUT_ERROR, OUT_SIGNAL };

/* A session's id or name, as the server names it. */
#define SESSION_ID_BYTES 256
/* A server version or build as WELCOME names it, kept for the exit line (longer ones are cut). */
#define SERVER_NAME_BYTES 128

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
	/* The session: from main.c's lookup, or named by the first link's upgrade. */
	char session_id[SESSION_ID_BYTES];
	char session_name[SESSION_ID_BYTES]; /* "": none */
	/* Where the server listens: found at the start, followed through the home's lock on each reconnect. */
	char socket_path[SOCKET_PATH_MAX_BYTES];
	bool link;
	bool link_opened;
	unsigned link_gen;
	/* Lost while its frames were read: handled once the read returns. */
	bool lost_pending;
	char lost_why[512];
	struct buf scratch;
	/* INPUT (not INPUT_AT) bytes queued on the socket and not yet written. */
	size_t unsent_input;
	/* The link was lost: what was written to it is owed no more, so the loop lets typing read again. */
	bool input_freed;

	/* The session. */
	uint8_t writer[WRITER_ID_BYTES];
	struct untaken untaken;
	/* The socket the untaken input was last (re)sent on. */
	unsigned input_gen;
	/* The route straight to the holder (INPUT_ROUTE): fd -1 while keys go through the server. */
	struct typist typist;
	uint32_t channel;
	bool channel_used[3];
	bool have_written;
	struct resume_point written;
	/*
	 * How far the outer terminal shows the stream written.boot names:
	 * written.seq is where the server's frames brought it (acked, resumed
	 * from), shown_seq may be past it by the holder's pieces (a typist's
	 * echo). Not known (a view, output held back): no piece is shown.
	 */
	bool shown_known;
	uint64_t shown_seq;
	bool history_kept;
	struct alt_tracker alt;
	bool painted, status_shown, view_shown, subscribed;
	/* The subscription asked the server to repaint after its replay (something was drawn over the screen), and no SNAPSHOT came yet. */
	bool repaint_coming;
	bool notice_given;
	bool have_exit;
	int32_t exit_code, exit_signal;
	bool have_fatal;
	char fatal[512];
	/* The server's version and build as the last WELCOME said (build empty: it sent none). */
	bool server_known;
	char server_version[SERVER_NAME_BYTES];
	char server_build[SERVER_NAME_BYTES];
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

/* A panel needs a screen to draw over: nothing is drawn before the first paint. */
static inline bool
attach_can_draw(const struct attach *a)
{
	return a->painted;
}

/* state.c: the outer terminal's size as last read (at the start and on each SIGWINCH: a key costs no ioctl). */
void attach_read_size(void);
void attach_size(int *cols, int *rows);
/* state.c: no ack is owed any more (the channel or the socket changed, or the attach ends). */
void attach_drop_ack(struct attach *a);

/* term.c */
void term_flush(struct attach *a);
void term_room(struct attach *a, size_t n);
void term_write(struct attach *a, const void *p, size_t n);
void term_writes(struct attach *a, const char *s);
void term_wrote_stream(struct attach *a, const char *boot, size_t boot_len, uint64_t seq, size_t bytes);
/* The terminal shows the stream up to seq (a snapshot's), or no known place (a view, bytes held back). */
void term_shown_at(struct attach *a, bool known, uint64_t seq);
/* A DATA ending at seq is written: the terminal shows at least that far (a piece may have gone further). */
void term_shown_reached(struct attach *a, uint64_t seq);
/* Of a DATA's len bytes ending at seq, how many the terminal shows already (a holder's piece came first). */
size_t term_shown_already(const struct attach *a, uint64_t seq, size_t len);
/* A piece of the holder's output at offset in the stream named `stream`: written if it continues what is shown. */
void term_show_piece(struct attach *a, const char *stream, uint64_t offset, const uint8_t *p, size_t n);

/* link.c */
void link_connect(struct attach *a);
/*
 * The first link when main.c did not look the session up: the upgrade names
 * it (?session=), HELLO and SUBSCRIBE ride with the handshake, and the 101
 * fills session_id and session_name. 0; -1 when the server refused (no such
 * session, not running) or did not answer, with nothing written to the
 * terminal and no server started: the TypeScript viewer says why.
 */
int link_open_naming(struct attach *a);
/* A retry: the socket the home's lock names now (lock.c), then link_connect. */
void link_reconnect(struct attach *a);
/* link_connect, link_reconnect, link_settle and link_child_done may lose the link: input_freed says so. */
void link_queue(struct attach *a);
void link_flush(struct attach *a);
void link_send_ack(struct attach *a);
void link_subscribe(struct attach *a);
void link_resubscribe(struct attach *a);
void link_send_untaken(struct attach *a);
void link_send_size(struct attach *a);
void link_lost(struct attach *a, const char *why);
void link_settle(struct attach *a);
void link_child_done(struct attach *a);

/* received.c: one WebSocket message from the server (ws_read's callback). */
void received_message(void *ctx, const uint8_t *data, size_t len);

/* typing.c */
void typing_read_keys(struct attach *a);
/* INPUT_ROUTE: keys go straight to the holder at this socket (len 0: through the server). */
void typing_route(struct attach *a, const char *holder_socket, size_t len);
/* The route to the holder is over (refused, broken, the link lost): keys go through the server, from the holder's count. */
void typing_route_server(struct attach *a);
/* The holder's socket is readable or writable (poll's revents). */
void typing_typist_ready(struct attach *a, short revents);
/* The typist's on_piece: a piece of the holder's output, written if the terminal shows the stream just before it. */
void typing_show_piece(void *ctx, uint64_t offset, const uint8_t *p, size_t n);
void typing_send_carry(struct attach *a);
void typing_resume_if_taken(struct attach *a);

/* outcome.c */
void attach_finish(struct attach *a, enum outcome_kind kind, const char *message);
void attach_restore_terminal(struct attach *a);
int attach_say_outcome(struct attach *a);

#endif
