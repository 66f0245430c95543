/*
 * protocol.h -- the holder <-> controller wire protocol, the whole of it.
 *
 * Every frame is a 1-byte type, a 4-byte little-endian payload length and the
 * payload.  All integers in payloads are little-endian.  This header is the
 * single definition: src/protocol/holder-frames.ts mirrors it, and a test
 * checks the two agree, so change both together and never renumber a frame.
 * Retired values stay in the enum as unused.
 */
#ifndef TEND_PROTOCOL_H
#define TEND_PROTOCOL_H

/*
 * PROTOCOL_VERSION is sent by the controller in HELLO and by the holder in
 * STATE.  A holder may run for weeks under servers much newer than itself,
 * so a server must keep speaking every version a running holder can have.
 * This holder accepts a HELLO of any version from OLDEST_PROTOCOL_VERSION
 * to PROTOCOL_VERSION; a version-1 holder accepts only 1, so a controller
 * refused with ERROR_VERSION says HELLO 1 on a new connection.
 *   1  the first version
 *   2  INPUT_FROM and INPUT_TAKEN: input acknowledged once it is taken
 *   3  EXEC and EXEC_FAILED: the holder replaces its own binary in place;
 *      STATE ends with the holder's build id
 *   4  INPUT_FROM from any greeted connection, not only the controller's:
 *      a viewer may type straight to the holder (a typist)
 *   5  WATCH: a connection without the lease is copied the output's small
 *      pieces, best effort (a typist sees its echo without the server)
 * A controller refused with ERROR_VERSION says HELLO again, one version
 * lower, on a new connection, down to OLDEST_PROTOCOL_VERSION.
 */
#define PROTOCOL_VERSION 5
#define OLDEST_PROTOCOL_VERSION 1
/* The first version whose holder can hand over to a new binary (EXEC). */
#define EXEC_PROTOCOL_VERSION 3
/* The first version whose holder takes INPUT_FROM without the lease. */
#define TYPIST_PROTOCOL_VERSION 4
/* The first version whose holder takes WATCH. */
#define WATCH_PROTOCOL_VERSION 5

#define FRAME_HEADER_BYTES 5

/* Holder -> controller payloads (OUTPUT, REPLAY) are at most this long. */
#define MAX_PAYLOAD_BYTES (1024 * 1024)
/*
 * Controller -> holder payloads (INPUT above all) are at most this long: the
 * holder reads them into fixed buffers, and the controller chunks anything
 * bigger.  A larger length is refused before any of the payload is read.
 */
#define MAX_INBOUND_PAYLOAD_BYTES (64 * 1024)

/* Sizes a RESIZE (or the starter) may ask for. */
#define MIN_COLS 1
#define MIN_ROWS 1
#define MAX_COLS 1000
#define MAX_ROWS 1000

enum frame_type {
	/* hello: the first frames of every connection */
	FRAME_HELLO = 0x01,       /* c->h  u32 version */
	FRAME_STATE_REQ = 0x02,   /* c->h  empty */
	FRAME_STATE = 0x03,       /* h->c  struct state, see below */

	/* lease: one controller at a time */
	FRAME_ACQUIRE = 0x10,     /* c->h  empty */
	FRAME_ACQUIRED = 0x11,    /* h->c  empty */
	FRAME_DENIED = 0x12,      /* h->c  text: why */
	FRAME_RELEASE = 0x13,     /* c->h  empty */

	/* stream: output out, input in */
	FRAME_DUMP_SINCE = 0x20,  /* c->h  u64 offset */
	FRAME_REPLAY = 0x21,      /* h->c  u64 offset, u8 flags, bytes */
	FRAME_OUTPUT = 0x22,      /* h->c  u64 offset, bytes */
	FRAME_INPUT = 0x23,       /* c->h  bytes */
	FRAME_INPUT_FROM = 0x24,  /* c->h  u8 writer[16], u64 at, bytes */
	FRAME_INPUT_TAKEN = 0x25, /* h->c  u8 writer[16], u64 total */
	FRAME_WATCH = 0x26,       /* c->h  empty: copy me small OUTPUT pieces (5) */

	/* control */
	FRAME_RESIZE = 0x30,      /* c->h  u16 cols, u16 rows */
	FRAME_SIGNAL = 0x31,      /* c->h  u32 signo */
	FRAME_REDRAW = 0x32,      /* c->h  empty */
	FRAME_KILL = 0x33,        /* c->h  empty */
	FRAME_PING = 0x34,        /* c->h  u64 token */
	FRAME_PONG = 0x35,        /* h->c  u64 token (echoed) */
	FRAME_EXIT = 0x36,        /* h->c  i32 exit code, i32 signal */
	FRAME_EXEC = 0x37,        /* c->h  text: path of the new holder binary */
	FRAME_EXEC_FAILED = 0x38, /* h->c  text: why; the holder goes on as it was */
	FRAME_ERROR = 0x3f,       /* h->c  u16 code, text */
};

/*
 * STATE payload, STATE_PAYLOAD_BYTES long (STATE_V1_PAYLOAD_BYTES from a
 * holder of version 1 or 2, which ends before build), fields in this order:
 *   u32 version          PROTOCOL_VERSION of this holder
 *   u8  generation[16]   random at holder start; offsets mean nothing without it
 *   u64 ring_start       oldest offset a DUMP_SINCE can still return (a safe boundary)
 *   u64 offset           count of every byte ever read from the PTY
 *   u32 child_pid
 *   u32 fg_pgid          foreground process group of the PTY (0 if unknown)
 *   u16 cols, u16 rows
 *   u8  flags            STATE_F_*
 *   i32 exit_code        valid when STATE_F_EXITED (-1 when killed by a signal)
 *   i32 exit_signal      valid when STATE_F_EXITED (0 when it exited normally)
 *   u64 started_at_ms    unix time the holder started, milliseconds
 *   u32 ring_capacity    bytes
 *   u8  build[16]        the holder binary's build id, ASCII, NUL-padded
 *                        (version 3): what `tend-holder --version` says
 * Later versions may append fields; readers ignore what they do not know.
 */
#define GENERATION_BYTES 16
#define BUILD_ID_BYTES 16
#define STATE_V1_PAYLOAD_BYTES 69
#define STATE_PAYLOAD_BYTES (STATE_V1_PAYLOAD_BYTES + BUILD_ID_BYTES)

#define STATE_F_EXITED 0x01      /* the child has exited and been reaped */
#define STATE_F_LEASED 0x02      /* some connection holds the controller lease */
#define STATE_F_YOU_LEASE 0x04   /* ...and it is the connection reading this */

/*
 * Streaming.  After ACQUIRED the holder sends no output until DUMP_SINCE(o).
 * It then sends the ring's bytes from o to its offset at that moment as
 * REPLAY frames (the last one carries REPLAY_F_END, possibly with no bytes),
 * and from there on every new byte as OUTPUT frames.  The u64 in REPLAY and
 * OUTPUT is the offset of the payload's first byte, so the stream is
 * gap-free and checkable.  If o has left the ring, the replay starts at
 * ring_start (a safe boundary: not inside a UTF-8 sequence or an escape
 * sequence) and every REPLAY frame carries REPLAY_F_GAP.  An o past the
 * holder's offset is ERROR_BAD_OFFSET.  A second DUMP_SINCE restarts the
 * stream from its offset.
 */
#define REPLAY_F_GAP 0x01
#define REPLAY_F_END 0x02

/*
 * Input that survives the controller (version 2).  A writer is 16 random
 * bytes naming one source of input (a request, a viewer); it numbers its
 * bytes to this holder 0, 1, 2, ...  INPUT_FROM carries the writer's bytes
 * at..at+n-1.  The holder counts, per writer, the bytes it has taken (into
 * the PTY or its own input buffer), and takes only what lies past that
 * count: a resend of bytes it has is dropped, and an `at` past the count is
 * a hole, of which nothing is taken.  A writer it does not know starts at
 * `at`: it remembers only the WRITERS_REMEMBERED writers used most
 * recently.  Every INPUT_FROM is answered with INPUT_TAKEN, the writer's
 * count once the bytes are taken; an answer not yet written out is updated
 * in place rather than queued again.  An INPUT_FROM with no bytes is a
 * question: answered, changing nothing (for an unknown writer the answer
 * is `at`, where that writer would start).  Controller only, and read
 * under the same flow control as INPUT, so the two keep their order.
 */
#define WRITER_ID_BYTES 16
#define INPUT_FROM_PREFIX_BYTES (WRITER_ID_BYTES + 8)
#define INPUT_TAKEN_PAYLOAD_BYTES (WRITER_ID_BYTES + 8)
#define WRITERS_REMEMBERED 64

/*
 * Watching (version 5).  A connection without the lease that sends WATCH is
 * copied, from then on, each PTY read of at most WATCH_PIECE_MAX_BYTES as
 * an OUTPUT frame (u64 offset of its first byte, then the bytes), while its
 * control buffer has room for it.  Bigger reads (a flood) and reads that
 * find the buffer short are skipped, so a watcher's OUTPUT frames may leave
 * holes: each says where it is, and a watcher takes only what continues
 * what it has.  The copies never hold the ring or the PTY back.  This is
 * how a typist sees its echo without waiting for the controller (the
 * server) to pass it on; the whole stream stays the controller's.  A
 * controller, which has the whole stream, is refused WATCH (BAD_PAYLOAD),
 * and a watcher that takes the lease is copied nothing more.
 */
#define WATCH_PIECE_MAX_BYTES 2048

/*
 * The child's exit: the holder drains the PTY, then sends EXIT to the
 * controller after the last OUTPUT.  It keeps the ring and the status until
 * the controller answers KILL (meaning: recorded, you may go) or the exit
 * grace passes, then removes its socket and exits.
 *
 * KILL on a live child: SIGHUP to its process group, SIGKILL after a short
 * grace, then EXIT to the controller, then the holder exits.
 */

/*
 * Hand-over (version 3).  EXEC asks the holder to replace its own binary
 * with the one at the given absolute path (at most EXEC_PATH_MAX_BYTES,
 * no NUL), keeping its pid, its child, the PTY master, its socket and its
 * state: generation, offset, ring, exit status, the writers' table, the
 * size, the input not yet written.  The holder first runs
 * `PATH --version` and checks that the answer is a holder that can resume
 * its state; it refuses while its child is ending or KILL is under way.
 * A refusal or a failed exec is EXEC_FAILED with the reason, and the
 * holder goes on as it was, connections and all.  On success every
 * connection closes (exec closes them) and the new image listens on the
 * same socket: the controller connects again and goes on with
 * DUMP_SINCE(the offset it has), as after a restart of its own.  Frames
 * sent after EXEC on the old connection are lost.
 */
#define EXEC_PATH_MAX_BYTES 4095

/*
 * ERROR codes.  The holder sends ERROR and closes the connection; it never
 * exits because of what a client sent.
 */
enum error_code {
	ERROR_VERSION = 1,        /* HELLO with a version this holder cannot speak */
	ERROR_UNKNOWN_FRAME = 2,  /* a type not in frame_type, or not for this direction */
	ERROR_TOO_LARGE = 3,      /* a length over MAX_INBOUND_PAYLOAD_BYTES */
	ERROR_BAD_PAYLOAD = 4,    /* wrong payload length or content for the type */
	ERROR_NOT_CONTROLLER = 5, /* a controller-only frame without the lease */
	ERROR_BAD_SIZE = 6,       /* RESIZE outside MIN/MAX_COLS/ROWS */
	ERROR_BAD_OFFSET = 7,     /* DUMP_SINCE past the holder's offset */
	ERROR_NO_HELLO = 8,       /* the first frame was not HELLO */
	ERROR_TRUNCATED = 9,      /* the peer closed in the middle of a frame */
	ERROR_BUSY = 10,          /* too many connections, or the peer reads too slowly */
};

#endif
