/*
 * ptytool.h -- the benchmark harness: run a program on a fresh PTY and time
 * what comes back, or speak the holder's frame protocol as a bare client.
 * Every mode prints one JSON object on stdout and exits 0, or prints a
 * reason on stderr and exits 1.
 */
#ifndef PTYTOOL_H
#define PTYTOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CAUSE_BYTES 256

/* clock.c */
int64_t now_ns(void);
double ns_to_ms(int64_t ns);
/* Waits until fd is readable or timeout_ms passes: 1 readable, 0 timeout, -1 error. */
int wait_readable(int fd, int timeout_ms);
int compare_i64(const void *a, const void *b);
/* Prints {"keys":..,"timeouts":..,"p50_us":..,...} from per-key latencies in ns. */
void print_latencies(int64_t *lat_ns, int keys, int timeouts, int per_key);

/* pty_spawn.c */
struct pty_child {
	int master;
	pid_t pid;
};
int pty_spawn(struct pty_child *out, unsigned cols, unsigned rows,
    char *const argv[], char *cause);
/* Reaps the child: its exit code, or -signal. */
int pty_reap(pid_t pid);
int write_all(int fd, const void *buf, size_t len);

/* pty_modes.c: the raw-PTY modes */
struct pty_opts {
	unsigned cols, rows;
	int keys;           /* echo: how many timed keys */
	int gap_ms;         /* echo: quiet gap between keys */
	int settle_ms;      /* echo: quiet that means the program has painted */
	int timeout_ms;     /* echo: a key not echoed by then is a timeout */
	int quiet_ms;       /* attach: quiet that ends the paint */
	int per_key;        /* echo: print every latency, not just percentiles */
	int await_paint;    /* echo: wait for the first byte before settling */
	const char *go_fifo;   /* watch: written once the viewer has painted; the clock starts there */
	const char *until;     /* watch: the bytes whose arrival stops the clock */
	char *const *argv;
};
int mode_drain(const struct pty_opts *o);
int mode_echo(const struct pty_opts *o);
int mode_attach(const struct pty_opts *o);
int mode_watch(const struct pty_opts *o);
/* Reads and discards until fd has been quiet for quiet_ms (or closed). */
size_t drain_until_quiet(int fd, int quiet_ms, int max_ms);

/* holder_wire.c: frames to and from a holder */
struct frame_in {
	uint8_t type;
	uint32_t len;
	uint8_t *payload;   /* points into the reader's buffer until the next read */
};
struct frame_reader {
	int fd;
	uint8_t *buf;
	size_t cap, start, end;
};
int holder_connect(const char *path, char *cause);
int frame_send(int fd, uint8_t type, const void *payload, uint32_t len);
int frame_reader_init(struct frame_reader *r, int fd);
void frame_reader_free(struct frame_reader *r);
/* 1 a frame, 0 the peer closed, -1 error (cause filled). Blocks. */
int frame_next(struct frame_reader *r, struct frame_in *f, char *cause);
/* 1 if a whole frame is already buffered, so frame_next will not block. */
int frame_buffered(const struct frame_reader *r);
/* HELLO, ACQUIRE, DUMP_SINCE(offset); returns after ACQUIRED. */
int holder_take_lease(int fd, struct frame_reader *r, uint64_t since, char *cause);
uint64_t get_u64(const uint8_t *p);
uint32_t get_u32(const uint8_t *p);

/* holder_modes.c */
struct holder_opts {
	const char *socket;
	const char *go_fifo;   /* drain: written once the stream is set up; the clock starts there */
	int keys, gap_ms, settle_ms, timeout_ms, per_key;
};
int mode_holder_drain(const struct holder_opts *o);
int mode_holder_echo(const struct holder_opts *o);

#endif
