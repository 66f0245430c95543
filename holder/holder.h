/*
 * holder.h -- the structures of tend-holder and the functions each file
 * offers, one banner per file.  The wire format itself is in protocol.h.
 */
#ifndef TEND_HOLDER_H
#define TEND_HOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

/* Room for one error message a person can act on. */
#define CAUSE_BYTES 512

/* ring.c */

/*
 * The ring remembers, per block of this many offsets, the first offset in
 * the block where a replay may safely begin.  Smaller blocks make ring_start
 * tighter and the mark table bigger (2 bytes per block).
 */
#define RING_MARK_BLOCK_BYTES 1024
#define RING_MARK_NONE 0xffff
/* How many states the ring's byte scanner has (enum scan_state, ring.c). */
#define RING_SCAN_STATES 7
/* The sizes --ring accepts, and a resumed state may have. */
#define MIN_RING_BYTES (16 * 1024)
#define MAX_RING_BYTES (1024 * 1024 * 1024)

struct ring_span {
	const uint8_t *bytes;
	size_t length;
};

struct ring {
	uint8_t *bytes;
	size_t capacity;
	uint16_t *marks;	/* one per block, RING_MARK_NONE if none yet */
	size_t mark_count;
	uint64_t offset;	/* every byte ever written */
	uint8_t scan;		/* enum scan_state of the byte scanner */
	uint8_t utf8_left;	/* continuation bytes still expected */
};

size_t	 ring_mark_count(size_t capacity);
void	 ring_init(struct ring *, uint8_t *bytes, size_t capacity,
	     uint16_t *marks);
uint64_t ring_oldest(const struct ring *);
uint64_t ring_start(const struct ring *);
size_t	 ring_space(const struct ring *, uint8_t **at);
void	 ring_commit(struct ring *, size_t length);
void	 ring_append(struct ring *, const uint8_t *data, size_t length);
size_t	 ring_peek(const struct ring *, uint64_t from, size_t length,
	     struct ring_span spans[2]);

/* frame.c */

/* The longest header a holder writes before ring bytes: REPLAY's. */
#define STREAM_HEADER_BYTES (FRAME_HEADER_BYTES + 8 + 1)

enum frame_read_result {
	FRAME_NEED_MORE,	/* every byte was used; feed more */
	FRAME_READY,		/* *out holds one frame */
	FRAME_TOO_LARGE,	/* a length over MAX_INBOUND_PAYLOAD_BYTES */
};

struct frame {
	uint8_t type;
	uint32_t length;
	const uint8_t *payload;	/* valid until the next feed */
};

struct frame_reader {
	uint8_t header[FRAME_HEADER_BYTES];
	size_t header_have;
	uint32_t length;
	size_t payload_have;
	uint8_t payload[MAX_INBOUND_PAYLOAD_BYTES];
};

struct state_fields {
	uint8_t generation[GENERATION_BYTES];
	uint64_t ring_start;
	uint64_t offset;
	uint32_t child_pid;
	uint32_t fg_pgid;
	uint16_t cols;
	uint16_t rows;
	uint8_t flags;
	int32_t exit_code;
	int32_t exit_signal;
	uint64_t started_at_ms;
	uint32_t ring_capacity;
	char build[BUILD_ID_BYTES];	/* NUL-padded, not terminated */
};

void	 frame_reader_reset(struct frame_reader *);
bool	 frame_reader_mid_frame(const struct frame_reader *);
enum frame_read_result frame_reader_feed(struct frame_reader *,
	     const uint8_t *data, size_t length, size_t *used,
	     struct frame *out);
uint16_t frame_get_u16(const uint8_t *);
uint32_t frame_get_u32(const uint8_t *);
uint64_t frame_get_u64(const uint8_t *);
size_t	 frame_put_header(uint8_t *out, uint8_t type, uint32_t length);
size_t	 frame_encode_empty(uint8_t *out, uint8_t type);
size_t	 frame_encode_u32(uint8_t *out, uint8_t type, uint32_t value);
size_t	 frame_encode_u64(uint8_t *out, uint8_t type, uint64_t value);
size_t	 frame_encode_resize(uint8_t *out, uint16_t cols, uint16_t rows);
size_t	 frame_encode_text(uint8_t *out, size_t room, uint8_t type,
	     const char *text);
size_t	 frame_encode_error(uint8_t *out, size_t room, uint16_t code,
	     const char *text);
size_t	 frame_encode_exit(uint8_t *out, int32_t code, int32_t signo);
size_t	 frame_encode_state(uint8_t *out, const struct state_fields *);
size_t	 frame_encode_stream_header(uint8_t *out, uint8_t type,
	     uint64_t offset, uint8_t flags, size_t bytes);
size_t	 frame_encode_input_from(uint8_t *out, const uint8_t *writer,
	     uint64_t at, const uint8_t *bytes, size_t length);
size_t	 frame_encode_input_taken(uint8_t *out, const uint8_t *writer,
	     uint64_t total);

/* pty.c */

/*
 * INPUT bytes the PTY could not take yet.  The controller socket is read
 * only while a whole maximal frame plus one read chunk still fits, so input
 * is never dropped nor reordered.
 */
#define PTY_INPUT_BYTES (2 * MAX_INBOUND_PAYLOAD_BYTES)

struct pty {
	int master;		/* -1 once closed */
	pid_t child;
	uint16_t cols;
	uint16_t rows;
	bool reaped;		/* waitpid() returned the child */
	bool hung_up;		/* EIO or EOF: nobody holds the slave */
	int32_t exit_code;
	int32_t exit_signal;
	size_t input_length;
	uint8_t input[PTY_INPUT_BYTES];
};

struct spawn_request {
	uint16_t cols;
	uint16_t rows;
	const char *cwd;
	char **argv;
};

int	 pty_spawn(struct pty *, const struct spawn_request *, char *cause);
ssize_t	 pty_read_into(struct pty *, struct ring *, size_t budget);
size_t	 pty_write_input(struct pty *, const uint8_t *data, size_t length);
void	 pty_flush_input(struct pty *);
size_t	 pty_input_room(const struct pty *);
int	 pty_resize(struct pty *, uint16_t cols, uint16_t rows);
pid_t	 pty_foreground(const struct pty *);
void	 pty_signal_foreground(const struct pty *, int signo);
void	 pty_signal_group(const struct pty *, int signo);
bool	 pty_reap(struct pty *);
void	 pty_close(struct pty *);

/* writers.c */

/* What the holder has taken from one writer (protocol.h: INPUT_FROM). */
struct writer {
	uint8_t id[WRITER_ID_BYTES];
	uint64_t taken;		/* count of the writer's bytes taken */
	uint64_t used;		/* writer_table.clock when last used; 0: free */
};

struct writer_table {
	struct writer slots[WRITERS_REMEMBERED];
	uint64_t clock;
};

/* Which part of an INPUT_FROM's bytes is new. */
struct writer_take {
	size_t skip;		/* bytes already taken, to drop */
	size_t length;		/* bytes to take after those; 0: none */
};

uint64_t writers_count(const struct writer_table *,
	     const uint8_t id[WRITER_ID_BYTES], uint64_t at);
struct writer *writers_use(struct writer_table *,
	     const uint8_t id[WRITER_ID_BYTES], uint64_t at);
struct writer_take writers_plan(const struct writer *, uint64_t at,
	     size_t length);

/* listen.c */

struct listener {
	int fd;
	const char *path;
	dev_t device;		/* identity of the socket file we bound */
	ino_t inode;
	bool rebind_failing;	/* said once, not every few seconds */
};

int	 listen_check_path(const char *path, char *cause);
void	 listen_dirname(const char *path, char *dir, size_t room);
int	 listen_open(struct listener *, const char *path, char *cause);
void	 listen_check_file(struct listener *);
void	 listen_remove(struct listener *);

/* conn.c */

#define CONN_MAX 8
/* Control frames waiting for a slow reader; when full, the reader is BUSY. */
#define CONN_OUT_BYTES 4096
/* Room kept back in the control buffer for the ERROR that closes it. */
#define CONN_ERROR_RESERVE_BYTES 160

struct conn {
	int fd;			/* -1: free slot */
	bool greeted;
	bool closing;		/* ERROR sent: flush, then close */
	bool shut;		/* our write side is shut down */
	int64_t close_deadline_ms;
	struct frame_reader reader;
	size_t out_length;
	size_t out_sent;
	uint8_t out[CONN_OUT_BYTES];
	/*
	 * A key's INPUT_TAKEN waits (in out) for the key's echo, so the
	 * controller reads the echo first: NEVER_MS when nothing is held.
	 */
	int64_t answers_held_until_ms;
	/* Sent INPUT_FROM without the lease: read only while the PTY's input has room, as the controller. */
	bool typist;
	/* Sent WATCH: copied the output's small pieces (watch.c). */
	bool watching;
	/*
	 * The controller's stream waits (NEVER_MS: it does not) while a watcher
	 * reads the piece it was just copied (watch.c).
	 */
	int64_t stream_held_until_ms;

	/* The stream, for the connection holding the lease. */
	bool streaming;
	bool replaying;
	bool gap;
	bool dump_pending;
	bool exit_sent;
	uint64_t dump_from;
	uint64_t cursor;	/* next ring byte not yet fully sent */
	uint64_t replay_end;
	bool frame_active;	/* a stream frame is partly written */
	bool frame_ends_replay;
	size_t frame_header_length;
	size_t frame_bytes;	/* ring bytes in the frame */
	size_t frame_sent;	/* header + ring bytes written so far */
	uint8_t frame_header[STREAM_HEADER_BYTES];
};

struct holder;

void	 conn_init_all(struct holder *);
void	 conn_accept(struct holder *);
void	 conn_read(struct holder *, struct conn *);
void	 conn_flush(struct holder *, struct conn *);
short	 conn_poll_events(const struct holder *, const struct conn *);
void	 conn_close(struct holder *, struct conn *);
void	 conn_expire(struct holder *, int64_t now_ms);
int64_t	 conn_next_deadline(const struct holder *);
bool	 conn_flushed(const struct holder *);
void	 conn_send_exit(struct holder *, struct conn *);
size_t	 conn_room(struct conn *, size_t reserve);

/* watch.c */

void	 watch_offer(struct holder *, uint64_t from);

/* stream.c */

void	 stream_start(struct holder *, struct conn *);
bool	 stream_pending(const struct holder *, const struct conn *);
enum stream_next {
	STREAM_NONE,		/* nothing to send */
	STREAM_FRAME,		/* a frame is laid out: stream_write_frame */
	STREAM_EXIT		/* the output is all sent: EXIT is due */
};
enum stream_next stream_next_frame(struct holder *, struct conn *);
int	 stream_write_frame(struct holder *, struct conn *);
uint64_t stream_unsent(const struct holder *);

/* main.c */

struct holder {
	struct ring ring;
	struct pty pty;
	struct listener listener;
	struct conn conns[CONN_MAX];
	struct conn *controller;	/* holds the lease, or NULL */
	struct writer_table writers;	/* outlives every controller */
	uint8_t generation[GENERATION_BYTES];
	uint64_t started_at_ms;
	uint32_t exit_grace_s;
	bool output_done;	/* child reaped and its output drained */
	/*
	 * After a hand-over: the bytes from held_from on are owed to the
	 * controller that was streaming, which connects again; the PTY is read
	 * no further ahead of them than for a controller, until one streams or
	 * hold_deadline_ms passes.
	 */
	bool holding;
	uint64_t held_from;
	int64_t hold_deadline_ms;
	bool quitting;		/* KILL or SIGTERM: leave once EXIT is out */
	bool paused;		/* PTY reads stopped for flow control */
	int64_t drain_deadline_ms;
	int64_t kill_deadline_ms;
	int64_t grace_deadline_ms;
	int64_t quit_deadline_ms;
	int64_t socket_check_ms;
};

/* On the way out, the controller gets this long to take its last bytes. */
#define QUIT_FLUSH_MS 3000
/* The exit grace --exit-grace accepts, and a resumed state may have. */
#define MAX_EXIT_GRACE_S (366 * 24 * 60 * 60)

/* handover.c */

/*
 * The hand-over state file's format (state.c): what this binary writes, and
 * the oldest it still reads.  `tend-holder --version` says both, and a
 * holder execs only a binary that reads the format it writes.
 */
#define HANDOVER_FORMAT 2
#define OLDEST_HANDOVER_FORMAT 2
/* How long a new image keeps the old controller's unsent bytes for it. */
#define HANDOVER_HOLD_MS 10000
/* Exit status of an image that could not resume (it says why in the log). */
#define RESUME_FAILED_EXIT 3

extern const char holder_build_id[];

void	 handover_print_version(void);
int	 handover_exec(struct holder *, const char *path, char *cause);

/* state.c */

int	 state_file_write(const struct holder *, int fd, char *cause);
int	 state_file_read(struct holder *, int fd, char *cause);

/* sys.c */

/*
 * Linux's atomic calls, or the POSIX ones plus fcntl: the latter on every
 * other system, and on Linux too when built with -DTEND_PORTABLE (make
 * PORTABLE=1), so the path macOS takes is compiled and tested here.
 */
#if defined(__linux__) && !defined(TEND_PORTABLE)
#define TEND_LINUX_CALLS 1
#else
#define TEND_LINUX_CALLS 0
#endif

/*
 * send() flags that keep a vanished reader from raising SIGPIPE.  Without
 * MSG_NOSIGNAL the holder relies on ignoring SIGPIPE, which it does from
 * its start (main.c), before any connection exists.
 */
#if TEND_LINUX_CALLS
#define SEND_NO_SIGNAL MSG_NOSIGNAL
#else
#define SEND_NO_SIGNAL 0
#endif

/* Each returns a close-on-exec descriptor (pipe: both), or -1 and errno. */
int	 sys_pipe(int fds[2], bool nonblock);
int	 sys_unix_socket(void);	/* non-blocking */
int	 sys_accept(int listener);	/* non-blocking */
int	 sys_open_pty(void);
int	 sys_pty_name(int master, char *out, size_t room);
void	 sys_close_range(int first, int last);
int	 sys_random(uint8_t *out, size_t length);
/* An anonymous, close-on-exec file for the hand-over state: a memfd on
 * Linux; elsewhere a file made in `dir` and unlinked at once. */
int	 sys_state_file(const char *dir, char *cause);

/* wait.c */

struct pollfd;

int	 sys_wait(struct pollfd *fds, size_t count, int timeout_ms);

/* log.c */

void	 holder_log(const char *fmt, ...)
	     __attribute__((format(printf, 1, 2)));
int64_t	 holder_now_ms(void);

/* kill.c */

void	 holder_kill(struct holder *);

/* loop.c */

#define NEVER_MS INT64_MAX

void	 holder_reset_deadlines(struct holder *);

void	 holder_run(struct holder *, int signal_fd)
	     __attribute__((noreturn));

#endif
