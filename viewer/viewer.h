/*
 * tend-attach: the native viewer behind `tend attach`. One process, libc
 * only, one poll loop: the outer terminal (stdin/stdout) on one side, the
 * server's viewer socket (a WebSocket over the server's unix socket, the
 * viewer protocol of docs/viewer-protocol.md) on the other. It does what a
 * person feels on every attach and every key — the first paint, the echo —
 * at a C program's cost; anything rarer that needs the CLI's Node side (a
 * session list panel, --json, an error to explain) is handed to the
 * TypeScript viewer, in place (exec), from where this one stands (handoff.c).
 *
 * The modules, each a file:
 *   buf.c      a growable byte buffer with a hard cap
 *   hex.c      the value of a hex digit (chunk sizes, \u escapes), bytes as hex
 *   json.c     a reader for the few top-level fields a reply or a lock holds
 *   digest.c   SHA-1 and base64, for the WebSocket handshake's accept key
 *   wire.c     the unix socket under http.c and ws.c: errors, deadlines,
 *              connect, send and receive, a reply's head (shared in wire.h)
 *   http.c     the HTTP GET that looks a session up (its body framed by
 *              length, chunked or up to the close)
 *   ws.c       the WebSocket client (handshake, framing as a state machine
 *              over bytes, masked sends)
 *   frames.c   the viewer protocol's frames (encode viewer→server, decode
 *              server→viewer), the same bytes as src/protocol/viewer-frames.ts
 *   paint.c    what is written to the outer terminal besides the session's
 *              bytes (src/cli/attach/outer-modes.ts, input-modes.ts)
 *   keys.c     the prefix keys, the detach key's spelling, whole UTF-8 chars
 *   untaken.c  typed input kept until the holder has it (INPUT_AT numbering)
 *   typist.c   the holder's own socket, to type straight to it (INPUT_ROUTE)
 *   attach.c   the attach's loop, on top of the files below it that share
 *              its state (state.h) and call only downward; split by job:
 *   link.c     the server's socket: connect, HELLO, SUBSCRIBE, acks, resize,
 *              reconnect (following the server through the home's lock)
 *   received.c what the server sends: paint, stream, title, exit, errors
 *   term.c     the writes to the outer terminal and the acks they earn
 *   typing.c   the keys: prefix commands, INPUT_AT, pause/resume, hand-off
 *   outcome.c  the end: the terminal put back, the words said, the status
 *   state.c    the bottom of the attach's files: the size, the ack dropped
 *   lock.c     TEND_HOME's lock: the live server's socket
 *   overlays.c the rows drawn over the screen for a while (hint, marker, notice)
 *   outer.c    the outer terminal (raw mode, size, writes, its window's name) and the signals
 *   backoff.c  when a lost server is retried
 *   handoff.c  exec of the TypeScript viewer (`node bin/tend.js attach …`)
 *   launch.c   this binary as the `tend` on PATH (bin/tend links here):
 *              its tree's CLI, the upgraded build to follow
 *   main.c     arguments, finding the server, looking the session up
 *
 * Every buffer has a limit and every parser is a state machine over bytes
 * (any chunking), as in the holder.
 */
#ifndef TEND_VIEWER_H
#define TEND_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------- little-endian fields */

/* Every field of both protocols' frames (the viewer's, the holder's) is little-endian. */
static inline void
le_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
le_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void
le_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t
le_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
le_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t
le_get_u64(const uint8_t *p)
{
	return (uint64_t)le_get_u32(p) | (uint64_t)le_get_u32(p + 4) << 32;
}

/* ------------------------------------------------------------------ buf.c */

/* Bytes with a hard cap: an append past `cap` fails (returns -1), never grows past it. */
struct buf {
	uint8_t *data;
	size_t len;
	size_t alloc;
	size_t cap;
};

void buf_init(struct buf *b, size_t cap);
void buf_free(struct buf *b);
int buf_append(struct buf *b, const void *p, size_t n);
int buf_appends(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Room for n more bytes past len without another allocation (len is not
 * changed): for an encoder that writes in place. -1 past the cap or out of memory.
 */
int buf_reserve(struct buf *b, size_t n);
/* Drops the first n bytes. */
void buf_consume(struct buf *b, size_t n);
void buf_clear(struct buf *b);

/* ------------------------------------------------------------------ hex.c */

/* The value of one hex digit, either case (0-15); -1 when c is not one. */
int hex_digit_value(uint8_t c);
/* n bytes as 2n lowercase hex digits and a NUL (out has room for 2n + 1). */
void hex_encode(const uint8_t *p, size_t n, char *out);
/* encodeURIComponent's text decoded into out, NUL-ended; -1 when malformed, holding a NUL, or too long. */
int percent_decode(const char *s, char *out, size_t outlen);

/* ----------------------------------------------------------------- json.c */

/*
 * Top-level fields of one JSON object (a reply of the API, the home's
 * lock): nested values are skipped whole, strings unescaped to UTF-8
 * (\uXXXX with surrogate pairs). Returns 1 found, 0 absent, -1 the text is
 * not a JSON object or the field is another type. A null string field is
 * reported found with *is_null set (when is_null is not NULL) and out "".
 */
int json_string(const char *text, size_t len, const char *key, char *out, size_t outlen, bool *is_null);
int json_number(const char *text, size_t len, const char *key, double *out, bool *is_null);
int json_bool(const char *text, size_t len, const char *key, bool *out);

/* ----------------------------------------- wire.c, http.c, ws.c, digest.c */

/* The server's limits for what reaches a viewer (DEFAULT_MAX_FRAME_FROM_SERVER_BYTES). */
#define WIRE_MAX_MESSAGE_BYTES (32u * 1024u * 1024u)
#define VIEWER_ENDPOINT "/v1/viewer"
/* Frames queued for the server and not yet written (a paste is cut in 64 KiB frames). */
#define WIRE_MAX_OUT_BYTES (64u * 1024u * 1024u)

/* Connects to a unix socket (blocking, close-on-exec); -1 with errno. */
int wire_connect_unix(const char *path);

/*
 * GET `path` over HTTP/1.1 on the unix socket at `socket_path`, within
 * timeout_ms: the status and the body (at most body->cap bytes). Returns 0,
 * or -1 (cannot connect, timeout, a reply that is not HTTP) with `err` set
 * for people.
 */
int http_get(const char *socket_path, const char *path, int timeout_ms, int *status, struct buf *body, char *err, size_t errlen);

enum ws_state { WS_HEADER, WS_LEN16, WS_LEN64, WS_PAYLOAD };

/* One WebSocket client connection (RFC 6455), non-blocking after the handshake. */
struct ws {
	int fd;
	/* Frames encoded and not yet written (masked, as a client must). */
	struct buf out;
	/* The read side: a state machine over bytes, so any chunking decodes. */
	enum ws_state state;
	uint8_t hdr[8];
	size_t hdr_got, hdr_need;
	uint8_t opcode;
	bool fin;
	uint64_t remaining;
	/* The message being assembled (continuation frames appended). */
	struct buf msg;
	uint8_t msg_opcode;
	/* A control frame's payload (ping → pong, close). */
	uint8_t ctl[125];
	size_t ctl_len;
	bool closed;
	/*
	 * Bytes that came with the handshake's reply, after its headers: the
	 * first frames (WELCOME and more, when HELLO went with the request). The
	 * first ws_read decodes them before it reads the socket; the caller must
	 * not wait for the socket to be readable while they are here.
	 */
	struct buf early;
	/* Between ws_open_begin and ws_open_finish: the handshake's key and deadline. */
	char open_key[25];
	long long open_deadline;
	int open_timeout_ms;
	/* The 101's head, for ws_reply_header; emptied by ws_forget_reply. */
	struct buf reply;
};

/*
 * Connects to `socket_path` and upgrades GET `path` to a WebSocket within
 * timeout_ms (blocking); the fd is then non-blocking. 0, or -1 with err.
 */
int ws_open(struct ws *ws, const char *socket_path, const char *path, int timeout_ms, char *err, size_t errlen);
/*
 * ws_open in two steps, so the first frames ride with the handshake (one
 * write, no round trip waited for: the server reads them once it has
 * upgraded). ws_open_begin connects and queues the request (0, or -1 with
 * err); ws_send then queues frames behind it; ws_open_finish writes it all
 * and reads the answer within the timeout (0, or -1 with err). After a -1
 * from either, ws_close.
 */
int ws_open_begin(struct ws *ws, const char *socket_path, const char *path, int timeout_ms, char *err, size_t errlen);
int ws_open_finish(struct ws *ws, char *err, size_t errlen);
/* A header of the handshake's 101 (name in any case) into out, NUL-ended: 1, 0 when absent, -1 when it does not fit. */
int ws_reply_header(const struct ws *ws, const char *name, char *out, size_t outlen);
/* Lets the 101's head go (ws_close does too). */
void ws_forget_reply(struct ws *ws);
/* Queues one binary message (masked with fresh random keys). -1 when over the out buffer's cap. */
int ws_send(struct ws *ws, const uint8_t *payload, size_t len);
/* Writes what is queued as far as the socket takes; 0, or -1 (the socket is dead) with err. */
int ws_flush(struct ws *ws, char *err, size_t errlen);
/*
 * Reads what the socket has and hands each whole binary message to
 * `on_message` (pings answered, text messages refused). Returns 0 (more may
 * come), or -1 when the connection ended (closed by the server, reset,
 * a protocol error, a message over WIRE_MAX_MESSAGE_BYTES) with err.
 */
int ws_read(struct ws *ws, void (*on_message)(void *ctx, const uint8_t *data, size_t len), void *ctx, char *err, size_t errlen);
/*
 * The reader without the socket (what ws_read calls after each read, and what
 * the fuzz target drives): decodes `n` bytes, handing whole binary messages
 * to `on_message`, queueing a pong for a ping. 0, or -1 as ws_read.
 */
int ws_feed(struct ws *ws, const uint8_t *p, size_t n, void (*on_message)(void *ctx, const uint8_t *data, size_t len), void *ctx, char *err, size_t errlen);
/* A struct ws for feeding alone (no socket): fd -1, buffers with their limits. */
void ws_init(struct ws *ws);
/* Closes the socket and frees the buffers; safe to call twice. */
void ws_close(struct ws *ws);

/* The handshake's pieces, for the tests: SHA-1, base64 (out: 4 * ((n + 2) / 3) + 1 bytes, NUL-ended; returns the length). */
void wire_sha1(const void *p, size_t n, uint8_t digest[20]);
size_t wire_base64(const uint8_t *p, size_t n, char *out);
/* The Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 §4.2.2): 28 characters and a NUL. */
void ws_accept_for(const char *key, char out[29]);
/* n (<= 4096) random bytes: the WebSocket keys and masks, and a viewer's writer id. */
void wire_random(uint8_t *out, size_t n);

/* --------------------------------------------------------------- frames.c */

#define VIEWER_PROTOCOL_VERSION 2
#define WRITER_ID_BYTES 16
#define MAX_INPUT_BYTES_PER_FRAME (64 * 1024)
#define MAX_COLS 1000
#define MAX_ROWS 1000
#define FRAME_HEADER_BYTES 5
/* Session ids, boot ids and version strings on the wire (MAX_NAME_BYTES). */
#define FRAME_MAX_NAME_BYTES 1024
/* The largest seq a frame carries: JavaScript's Number.MAX_SAFE_INTEGER. */
#define FRAME_MAX_SEQ ((UINT64_C(1) << 53) - 1)
/* SNAPSHOT mode flag: a view rendered for this viewer's size (struct server_frame's snapshot.view). */
#define FRAME_SNAPSHOT_VIEW_FLAG 0x200

enum frame_type {
	FT_HELLO = 0x01, FT_SUBSCRIBE = 0x02, FT_UNSUBSCRIBE = 0x03, FT_INPUT = 0x04,
	FT_RESIZE_REQUEST = 0x05, FT_ACK = 0x06, FT_SCROLLBACK_REQUEST = 0x07, FT_INPUT_AT = 0x08,
	FT_WELCOME = 0x81, FT_SNAPSHOT = 0x82, FT_DATA = 0x83, FT_RESIZE = 0x84, FT_TITLE = 0x85,
	FT_EXIT = 0x86, FT_STATE = 0x87, FT_ERROR = 0x88, FT_CLOSED = 0x89, FT_SCROLLBACK = 0x8a,
	FT_INPUT_TAKEN = 0x8b, FT_INPUT_ROUTE = 0x8c,
};

enum viewer_error_code {
	VE_VERSION = 1, VE_UNKNOWN_FRAME = 2, VE_TOO_LARGE = 3, VE_BAD_PAYLOAD = 4, VE_NO_HELLO = 5,
	VE_BAD_ACK = 6, VE_NO_SUCH_SESSION = 7, VE_READ_ONLY = 8, VE_NOT_SUBSCRIBED = 9,
	VE_CHANNEL_IN_USE = 10, VE_INTERNAL = 11, VE_NO_WRITER = 12,
};

enum close_reason { CR_UNSUBSCRIBED = 1, CR_SESSION_ENDED = 2, CR_PROTOCOL_VIOLATION = 3, CR_SERVER_SHUTDOWN = 4 };

enum mouse_tracking { MT_NONE, MT_X10, MT_VT200, MT_DRAG, MT_ANY };
enum mouse_encoding { ME_UNKNOWN, ME_DEFAULT, ME_UTF8, ME_SGR, ME_URXVT, ME_SGR_PIXELS };

/* ScreenModes of viewer-frames.ts. */
struct screen_modes {
	uint16_t cursor_x, cursor_y;
	bool cursor_hidden, alt_screen, app_cursor_keys, app_keypad, bracketed_paste,
		send_focus, origin_mode, insert_mode, wraparound;
	enum mouse_tracking mouse_tracking;
	enum mouse_encoding mouse_encoding;
};

/* A resume point: the stream (a SNAPSHOT's boot) and the position in it. */
struct resume_point {
	char boot[128];
	uint64_t seq;
};

/*
 * A decoded server frame. Strings and bytes point into the message decoded
 * (valid until the next one) with their lengths; nothing is copied.
 */
struct server_frame {
	uint8_t type;
	uint32_t channel;
	union {
		/* server_build: NULL when the server sent none (it is from before build ids, or was not asked). */
		struct { uint32_t protocol_version; const char *server_boot; size_t server_boot_len; const char *server_version; size_t server_version_len;
			const char *server_build; size_t server_build_len; } welcome;
		struct { const char *boot; size_t boot_len; uint64_t seq; uint16_t cols, rows; struct screen_modes modes; const uint8_t *data; size_t data_len; bool view; } snapshot;
		struct { uint64_t seq; const uint8_t *data; size_t data_len; } data;
		struct { uint16_t cols, rows; } resize;
		struct { const char *title; size_t title_len; } title;
		struct { int32_t code; int32_t signal; } exit;
		struct { const char *json; size_t json_len; } state;
		struct { uint16_t code; const char *message; size_t message_len; } error;
		struct { uint8_t reason; const char *message; size_t message_len; } closed;
		struct { uint64_t total; } input_taken;
		/* Empty: through the server. */
		struct { const char *holder_socket; size_t holder_socket_len; } input_route;
	} u;
};

/*
 * Decodes one server→viewer frame (the exact layout of viewer-frames.ts:
 * u8 type, u32 LE channel, payload). Returns 0, or -1 for a frame that is
 * not a well-formed server frame (a viewer frame's type, an unknown type, a
 * short or over-long payload, a seq above 2^53 − 1, broken UTF-8 in a
 * name), with err saying which. SCROLLBACK decodes to its type and channel
 * alone (this viewer never asks for it).
 */
int frame_decode(const uint8_t *p, size_t len, struct server_frame *f, char *err, size_t errlen);

/* Whether n bytes are valid UTF-8 as a fatal TextDecoder judges it (no overlongs, no surrogates). */
bool frame_utf8_valid(const uint8_t *p, size_t n);

/*
 * Encoders: each appends one whole viewer→server frame to `out`, or nothing
 * and -1: when it does not fit its cap, or for a field the TypeScript
 * encoder refuses too (a size outside 1..MAX_COLS x 1..MAX_ROWS, a seq or
 * an INPUT_AT's end past FRAME_MAX_SEQ, a name over FRAME_MAX_NAME_BYTES or
 * not UTF-8, a client kind other than "cli", "web", "script"). A NULL
 * writer leaves it out of the HELLO (a viewer that types with INPUT alone);
 * asks_build asks WELCOME to carry the server's build.
 */
int frame_hello(struct buf *out, bool read_only, bool asks_build, bool types_to_holder, const char *client_kind, const uint8_t writer[WRITER_ID_BYTES]);
/* SUBSCRIBE's window key: 1 to FRAME_MAX_WINDOW_KEY_BYTES bytes of UTF-8 (NULL: none). */
#define FRAME_MAX_WINDOW_KEY_BYTES 64
int frame_subscribe(struct buf *out, uint32_t channel, const char *session_id, const char *window /* NULL: none */,
	uint16_t cols, uint16_t rows, const struct resume_point *resume /* NULL: none */, bool keeps_history, bool repaint);
int frame_unsubscribe(struct buf *out, uint32_t channel);
int frame_input(struct buf *out, uint32_t channel, const uint8_t *data, size_t len);
int frame_input_at(struct buf *out, uint32_t channel, uint64_t at, const uint8_t *data, size_t len);
int frame_resize_request(struct buf *out, uint32_t channel, uint16_t cols, uint16_t rows);
int frame_ack(struct buf *out, uint32_t channel, uint64_t seq);

/* ---------------------------------------------------------------- paint.c */

/* Every input mode a program may have left on, off, and the cursor visible (INPUT_MODES_OFF). */
extern const char PAINT_INPUT_MODES_OFF[];

/* The session's input modes on the outer terminal (assertInputModes). */
int paint_input_modes(struct buf *out, const struct screen_modes *m);
/* One write applying a snapshot (paintSnapshot): reset, data, modes. */
int paint_snapshot(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m,
	int outer_rows, int outer_cols, bool in_alt_screen, bool first);
/* One write painting a VIEW snapshot (paintView). */
int paint_view(struct buf *out, const uint8_t *data, size_t len, const struct screen_modes *m, bool in_alt_screen);
/* What to write on detach or exit (leaveSequence). */
int paint_leave(struct buf *out, bool in_alt_screen, bool origin_mode, int cols, int rows);
/* A message on the bottom row, the cursor and pen put back (statusLine); cut to `cols` characters. */
int paint_status_line(struct buf *out, const char *text, int cols, int rows);

/* Follows the alternate screen and origin mode through streamed bytes (AltScreenTracker). */
struct alt_tracker {
	int state;
	char params[32];
	size_t params_len;
	bool params_overflow;
	bool active;
	bool origin_mode;
};
void alt_tracker_init(struct alt_tracker *t, bool active);
void alt_tracker_feed(struct alt_tracker *t, const uint8_t *p, size_t n);

/* ----------------------------------------------------------------- keys.c */

#define DEFAULT_DETACH_PREFIX 0x1c

/* The detach prefix as a person writes it (parseDetachKey): 0..0x1f, or -1 with err (the TS message). */
int detach_key_parse(const char *spec, char *err, size_t errlen);
/* "Ctrl-\" for 0x1c (describeDetachKey); out holds at least 8 bytes. */
void detach_key_describe(int prefix, char *out, size_t outlen);

enum prefix_command { PC_NONE, PC_DETACH, PC_KEYS, PC_SESSIONS };

/* The filter after the prefix (PrefixKeyFilter): any chunking. */
struct prefix_filter {
	int prefix;
	int state;
	int count;
};
void prefix_filter_init(struct prefix_filter *f, int prefix);
/*
 * Feeds typed bytes: those for the session are appended to `forward`; a
 * command typed stops the feed and is returned, *consumed saying how many
 * of the n bytes were looked at (the rest are fed again after the command).
 */
enum prefix_command prefix_filter_feed(struct prefix_filter *f, const uint8_t *p, size_t n, struct buf *forward, size_t *consumed);

/* The trailing bytes of an incomplete UTF-8 character at the end of p (incompleteUtf8Tail), 0..3. */
size_t utf8_incomplete_tail(const uint8_t *p, size_t n);

/* --------------------------------------------------------------- typist.c */

/* The holder's frames a typist reads (STATE, INPUT_TAKEN, ERROR, a watched piece of output) are well under this. */
#define TYPIST_FRAME_MAX_BYTES 4096
/* Typed input queued for the holder's socket at most (untaken input is capped below it). */
#define TYPIST_OUT_MAX_BYTES (2 * 1024 * 1024)
/* A unix socket's path fits sockaddr_un's (108 bytes on Linux, 104 on macOS). */
#define TYPIST_PATH_BYTES 128

/* A piece of the holder's output (offset of its first byte), copied to a typist that watches. */
typedef void (*typist_piece_fn)(void *ctx, uint64_t offset, const uint8_t *bytes, size_t len);

/* The route to the holder: fd -1 when keys go through the server. */
struct typist {
	int fd;
	char path[TYPIST_PATH_BYTES];
	struct buf out;
	uint8_t in[TYPIST_FRAME_MAX_BYTES + 5];
	size_t in_len;
	/* From the holder's STATE: its generation in hex (the name of the stream its offsets number), "" before. */
	char generation[2 * 16 + 1];
	/* WATCH was sent (the holder speaks version 5): pieces of output come. */
	bool watching;
	/* Called with each piece (NULL: pieces are skipped); set once, kept across routes. */
	typist_piece_fn on_piece;
	void *piece_ctx;
};
void typist_init(struct typist *t);
/* Connects to the holder and queues HELLO; 0, or -1 with err (the keys stay with the server). */
int typist_open(struct typist *t, const char *path, char *err, size_t errlen);
void typist_close(struct typist *t);
/* Queues the writer's bytes at..at+len-1 as INPUT_FROM frames the holder takes; -1 past the queue's cap. */
int typist_input_from(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t at, const uint8_t *data, size_t len);
/* Writes what is queued, as far as the socket takes it; -1 with err when the socket broke. */
int typist_flush(struct typist *t, char *err, size_t errlen);
/*
 * Reads what the holder sent, raising *taken to its latest INPUT_TAKEN for
 * the writer, and passing each piece of output to on_piece; on the holder's
 * STATE, queues WATCH if it speaks version 5 (the caller flushes). -1 with
 * err when the route is over (ERROR, the end, a frame past
 * TYPIST_FRAME_MAX_BYTES). typist_parse is the same over t->in alone.
 */
int typist_read(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t *taken, char *err, size_t errlen);
int typist_parse(struct typist *t, const uint8_t writer[WRITER_ID_BYTES], uint64_t *taken, char *err, size_t errlen);

/* -------------------------------------------------------------- untaken.c */

/* One INPUT_AT's worth. */
struct input_piece {
	uint64_t at;
	uint8_t *data;
	size_t len;
};

/* Typed input to one session, numbered from 0, kept until INPUT_TAKEN covers it (UntakenInput). */
struct untaken {
	struct input_piece *pieces;
	size_t count, alloc;
	uint64_t next, taken, sent_end;
};
void untaken_init(struct untaken *u);
void untaken_free(struct untaken *u);
/* Numbers and keeps bytes, split at MAX_INPUT_BYTES_PER_FRAME without cutting a UTF-8 character; -1 on no memory. */
int untaken_add(struct untaken *u, const uint8_t *p, size_t n);
static inline uint64_t untaken_bytes(const struct untaken *u) { return u->next - u->taken; }
/* A new connection: everything not yet taken is unsent again. */
void untaken_rewind(struct untaken *u);
/* INPUT_TAKEN total: drops covered pieces; true when it covered something new. */
bool untaken_take(struct untaken *u, uint64_t total);
/*
 * Calls `send` for each piece not yet sent on this connection, oldest first;
 * they count as sent from then on.
 */
void untaken_send_unsent(struct untaken *u, void (*send)(void *ctx, const struct input_piece *piece), void *ctx);

/* ---------------------------------------------------------------- attach.c */

struct attach_options {
	const char *socket_path;
	/* The session, when main.c looked it up (GET); NULL: the first link's upgrade names it (?session=). */
	const char *session_id;
	const char *session_name; /* NULL: none */
	/* The target as typed, percent-encoded: what the upgrade's ?session= names when session_id is NULL. */
	const char *target_encoded;
	bool read_only;
	int detach_prefix;
	/* The CLI's entry point (bin/tend.js) and node, for the hand-off and to start a server. */
	const char *tend_js;
	const char *node;
	/* The outer terminal window's key (outer_window_key), sent to a server of this build only; NULL: none. */
	const char *window_key;
	/* This tree's version and build (dist/build-id.json beside tend_js), to tell a server of another build. */
	const char *own_version;
	const char *own_build;
	/* argv[0] as typed, for messages. */
	const char *self_session; /* TEND_SESSION, or NULL */
};

/* attach_run's answer when the server did not name the session for the first link (no such session, not running): main.c hands over. */
#define ATTACH_HAND_OVER (-2)
/* Runs the attach until it ends; returns the process's exit status, or ATTACH_HAND_OVER before anything was written. */
int attach_run(const struct attach_options *o);

/*
 * lock.c (main.c's and the attach's): the socket of the live tend server
 * holding TEND_HOME's lock (~/.tend without TEND_HOME) into socket_path
 * (NUL-ended); 0, or -1 when there is none or anything is unclear (the lock
 * missing, torn, its pid dead or another program's), socket_path then
 * undefined.
 */
int lock_server_socket(char *socket_path, size_t len);
/* TEND_HOME/name (~/.tend/name without TEND_HOME) into out; 0, or -1 when neither is set or it does not fit. */
int home_path(const char *name, char *out, size_t outlen);
/* lock_server_socket, and the server's build as the lock names it into build ("" when it names none). */
int lock_server(char *socket_path, size_t len, char *build, size_t build_len);
/*
 * launch.c (main.c's): this tree's bin/tend.js (malloc'd), found from the
 * binary's own path with links resolved; NULL when it cannot be told. First
 * runs TEND_HOME/versions/current/bin/tend instead (exec, no return) when
 * `tend upgrade` made another tree current and argv[1] is not "upgrade".
 */
char *launch_locate(int argc, char **argv);
/* lock.c: a small file read whole into out (NUL-ended, cut at outlen - 1): the lock, and main.c's build id. Its length, or -1. */
ssize_t read_small_file(const char *path, char *out, size_t outlen);

/* backoff.c (the attach's): when a lost server is retried (backoff.ts: 100 ms doubling to 2 s, given up after 60 s). */
struct backoff {
	int failures; /* since the last success */
	bool since_set;
	int64_t since_ms;
};
void backoff_reset(struct backoff *b);
/* The delay before the next attempt (ms), or -1 when it is time to give up. */
int64_t backoff_next(struct backoff *b, int64_t now_ms);

/* outer.c (the attach's): the outer terminal and the signals. */
struct termios;
struct outer_signals {
	int term_signal; /* SIGTERM, SIGHUP or SIGINT arrived (the first of them), or 0 */
	bool resized;    /* SIGWINCH */
	bool child;      /* SIGCHLD */
};
/* Monotonic milliseconds. */
int64_t outer_now_ms(void);
/* Raw mode as Node's setRawMode plus `stty -opost`; *saved gets what to put back (also at exit). 0, or -1. */
int outer_raw_mode(struct termios *saved);
void outer_restore_mode(const struct termios *saved);
/* The terminal's size (TIOCGWINSZ on stdout) clamped to MAX_COLS x MAX_ROWS; 80x24 when it has none. */
void outer_read_size(int *cols, int *rows);
/* The whole buffer to stdout, blocking; -1 when the terminal is gone. */
int outer_write_all(const uint8_t *p, size_t n);
/*
 * A name for the terminal window stdout is (SUBSCRIBE's window): its tty
 * and the session that owns the tty (the shell the window started), by pid
 * and, on Linux, start time, so a window opened later on the same tty is
 * another. Into out (OUTER_WINDOW_KEY_BYTES); 0, or -1 when stdout is not
 * this process's controlling terminal.
 */
#define OUTER_WINDOW_KEY_BYTES 65
int outer_window_key(char *out, size_t len);
/* Catches SIGWINCH, SIGTERM, SIGHUP, SIGINT and SIGCHLD; returns the fd to poll (a self-pipe), or -1. */
int outer_signals_init(void);
bool outer_signals_pending(void);
/* What arrived since the last call (the pipe drained). */
void outer_signals_take(struct outer_signals *s);

/*
 * overlays.c (the attach's): the one-row overlays drawn over the screen for
 * a while (screen-overlays.ts, overlay.ts): the hint on entry, the
 * read-only marker, the incomplete-screen notice. Each function appends
 * what to write to `out`; those returning bool return true when the server
 * should repaint the screen (the overlay ended).
 */
#define OVERLAY_TEXT_BYTES 1024
#define OVERLAY_LABEL_BYTES 512

enum overlay_kind { OV_NONE, OV_HINT, OV_READ_ONLY, OV_NOTICE };

struct overlays {
	enum overlay_kind kind;
	/* When what is shown ends by itself (monotonic ms); 0: never. */
	int64_t deadline_ms;
	/* Bottom rows drawn over since the last snapshot was painted. */
	int covered;
	/* Rows were blanked where an overlay gave way: the screen waits for a repaint, the stream does not. */
	bool blanked;
	bool hint_given;
	bool read_only;
	char prefix[16];
	char label[OVERLAY_LABEL_BYTES];
};

extern const char OVERLAY_DEGRADED_NOTICE[];

void overlays_init(struct overlays *ov, bool read_only, int prefix, const char *label);
bool overlays_gives_way(const struct overlays *ov);
bool overlays_repaint_owed(const struct overlays *ov);
void overlays_painted(struct overlays *ov);
void overlays_after_paint(struct overlays *ov, bool can_draw, struct buf *out, int cols, int rows, int64_t now_ms);
void overlays_give_way(struct overlays *ov, struct buf *out, int cols, int rows);
/*
 * The attach's status line (paint_status_line on the bottom row) gives way
 * to output as the hint does: its row blanked, a repaint owed.
 */
void overlays_status_give_way(struct overlays *ov, struct buf *out, int cols, int rows);
bool overlays_key_typed(struct overlays *ov, struct buf *out, int cols, int rows);
void overlays_show_notice(struct overlays *ov, struct buf *out, int cols, int rows, int64_t now_ms);
void overlays_show_read_only_marker(struct overlays *ov, bool can_draw, struct buf *out, int cols, int rows, int64_t now_ms);
bool overlays_tick(struct overlays *ov, struct buf *out, int cols, int rows, int64_t now_ms);
void overlays_leaving(struct overlays *ov, struct buf *out, int cols, int rows);
/* drawOverlay of one line, eraseOverlay, fitColumns. */
int overlay_draw_line(struct buf *out, const char *text, int cols, int rows);
int overlay_erase(struct buf *out, int count, int cols, int rows);
int overlay_fit_columns(struct buf *out, const char *text, int width);

/* --------------------------------------------------------------- handoff.c */

struct termios;

/*
 * What the TypeScript viewer needs to go on from where this one stands
 * (`tend attach ID --handoff FD`, FD a file holding this as JSON): the same
 * writer id and input numbering, the position written, what the outer
 * terminal shows, and the command that asked for it.
 */
struct handoff_state {
	const char *session_id;
	const char *session_name;
	bool read_only;
	int detach_prefix;
	const uint8_t *writer;
	bool painted;
	bool have_written;
	struct resume_point written;
	/* The outer terminal's scrollback holds this session's history. */
	bool keeps_history;
	bool view_shown;
	bool alt_active, origin_mode;
	const struct untaken *untaken;
	enum prefix_command command; /* PC_NONE: none */
	/*
	 * Rows were drawn over the screen (a status line, the hint, a notice,
	 * erased as giveWay does before the hand-off): the TypeScript viewer
	 * asks for a repaint with its first subscription.
	 */
	bool covered;
	/* Read from the terminal after the command's key: typed on in the TypeScript viewer (the panel gets them). */
	const uint8_t *typed;
	size_t typed_len;
	/*
	 * The outer terminal's settings before this viewer made it raw (NULL:
	 * unknown). The terminal stays raw across the exec; the TypeScript
	 * viewer puts these back on its way out (handoff.c says why).
	 */
	const struct termios *restore;
};

/*
 * Runs node on the TypeScript viewer: an exec, or with `restore` a child
 * this process waits for, putting `restore` back after it and ending as it
 * ended (handoff.c says why). Returns only on failure (-1, err).
 */
int handoff_exec(const char *node, const char *tend_js, const struct handoff_state *s, char *err, size_t errlen);
/* Execs `node tend.js ARGV...` unchanged (the TypeScript viewer from the start); returns only on failure. */
int handoff_exec_args(const char *node, const char *tend_js, int argc, char **argv);

#endif
