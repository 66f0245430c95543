/*
 * main.c -- tend-holder: arguments, detaching from the starter, signals,
 * and the one poll() loop that moves bytes between the PTY, the ring and
 * the connections.
 *
 * tend-holder --socket PATH --cols N --rows N --cwd DIR [--ring BYTES]
 *             [--exit-grace SECONDS] [--ready-fd FD] [--log PATH]
 *             -- PROGRAM [ARGS...]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"

#define DEFAULT_RING_BYTES (4 * 1024 * 1024)
#define MIN_RING_BYTES (16 * 1024)
#define MAX_RING_BYTES (1024 * 1024 * 1024)
#define DEFAULT_EXIT_GRACE_S (24 * 60 * 60)
#define MAX_EXIT_GRACE_S (366 * 24 * 60 * 60)

/* Flow control marks, per docs/protocol.md. */
#define HIGH_WATER_BYTES (1024 * 1024)
#define LOW_WATER_BYTES (256 * 1024)
/* PTY bytes read per loop turn at most, so sockets get their turn. */
#define PTY_TURN_BYTES (256 * 1024)
/* After the child is reaped, wait this long for the PTY to hang up. */
#define DRAIN_AFTER_EXIT_MS 500
/* KILL: SIGHUP first, SIGKILL if the child is still there after this. */
#define KILL_GRACE_MS 2000
/* On the way out, the controller gets this long to take its last bytes. */
#define QUIT_FLUSH_MS 3000
/* How often to look whether the socket file was deleted. */
#define SOCKET_CHECK_MS 3000

#define NEVER_MS INT64_MAX

struct options {
	const char *socket_path;
	const char *cwd;
	const char *log_path;
	long cols;
	long rows;
	long ring_bytes;
	long exit_grace_s;
	long ready_fd;
	char **argv;
};

/* Written by the signal handler: the self-pipe that wakes poll(). */
static int signal_pipe_write = -1;

void
holder_log(const char *fmt, ...)
{
	char line[CAUSE_BYTES * 2];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ ", &tm);
	n += snprintf(line + n, sizeof line - (size_t)n, "tend-holder[%d]: ",
	    (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

int64_t
holder_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t
holder_unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void __attribute__((noreturn))
usage_exit(void)
{
	fprintf(stderr, "usage: tend-holder --socket PATH --cols N --rows N "
	    "--cwd DIR [--ring BYTES]\n                   [--exit-grace "
	    "SECONDS] [--ready-fd FD] [--log PATH] -- PROGRAM [ARGS...]\n");
	exit(2);
}

/* Tell the starter what went wrong, on the ready fd if there is one. */
static void __attribute__((noreturn))
fail_exit(int ready_fd, const char *cause)
{
	char line[CAUSE_BYTES + 8];
	int n = snprintf(line, sizeof line, "ERR %s\n", cause);

	if (ready_fd >= 0 && write(ready_fd, line, (size_t)n) < 0)
		fprintf(stderr, "tend-holder: ready fd: %s\n", strerror(errno));
	fprintf(stderr, "tend-holder: %s\n", cause);
	exit(1);
}

static int
parse_number(const char *name, const char *text, long min, long max,
    long *out, char *cause)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
		snprintf(cause, CAUSE_BYTES, "--%s needs a whole number from "
		    "%ld to %ld, not '%s'", name, min, max, text);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_option(struct options *o, int opt, const char *arg, char *cause)
{
	switch (opt) {
	case 's': o->socket_path = arg; return 0;
	case 'd': o->cwd = arg; return 0;
	case 'l': o->log_path = arg; return 0;
	case 'c': return parse_number("cols", arg, MIN_COLS, MAX_COLS,
	    &o->cols, cause);
	case 'r': return parse_number("rows", arg, MIN_ROWS, MAX_ROWS,
	    &o->rows, cause);
	case 'R': return parse_number("ring", arg, MIN_RING_BYTES,
	    MAX_RING_BYTES, &o->ring_bytes, cause);
	case 'g': return parse_number("exit-grace", arg, 0,
	    MAX_EXIT_GRACE_S, &o->exit_grace_s, cause);
	case 'f': return parse_number("ready-fd", arg, 3, INT_MAX,
	    &o->ready_fd, cause);
	default: usage_exit();
	}
}

/* Parse everything; the first problem goes to `cause`. */
static int
parse_options(struct options *o, int argc, char **argv, char *cause)
{
	static const struct option longs[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "cols", required_argument, NULL, 'c' },
		{ "rows", required_argument, NULL, 'r' },
		{ "cwd", required_argument, NULL, 'd' },
		{ "ring", required_argument, NULL, 'R' },
		{ "exit-grace", required_argument, NULL, 'g' },
		{ "ready-fd", required_argument, NULL, 'f' },
		{ "log", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	char scratch[CAUSE_BYTES];
	int opt, bad = 0;

	*o = (struct options){ .cols = -1, .rows = -1, .ready_fd = -1,
	    .ring_bytes = DEFAULT_RING_BYTES,
	    .exit_grace_s = DEFAULT_EXIT_GRACE_S };
	cause[0] = '\0';
	while ((opt = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
		if (parse_option(o, opt, optarg, bad ? scratch : cause) != 0)
			bad = 1;
	}
	o->argv = argv + optind;
	return bad ? -1 : 0;
}

static int
check_required(const struct options *o, char *cause)
{
	const char *missing = o->socket_path == NULL ? "--socket" :
	    o->cols < 0 ? "--cols" : o->rows < 0 ? "--rows" :
	    o->cwd == NULL ? "--cwd" : o->argv[0] == NULL ? "PROGRAM" : NULL;

	if (missing == NULL)
		return 0;
	snprintf(cause, CAUSE_BYTES, "%s is missing (see tend-holder --help)",
	    missing);
	return -1;
}

static int
check_cwd(const char *cwd, char *cause)
{
	struct stat st;

	if (stat(cwd, &st) != 0) {
		snprintf(cause, CAUSE_BYTES, "cannot use '%s' as the working "
		    "directory: %s", cwd, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || access(cwd, X_OK) != 0) {
		snprintf(cause, CAUSE_BYTES, "cannot use '%s' as the working "
		    "directory: %s", cwd, S_ISDIR(st.st_mode) ?
		    strerror(errno) : "not a directory");
		return -1;
	}
	return 0;
}

static int
check_ready_fd(long fd, char *cause)
{
	if (fd < 0)
		return 0;
	if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) {
		snprintf(cause, CAUSE_BYTES, "--ready-fd %ld: %s", fd,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static void
validate(struct options *o, int argc, char **argv)
{
	char cause[CAUSE_BYTES], scratch[CAUSE_BYTES];
	int bad = parse_options(o, argc, argv, cause);
	int ready = -1;

	if (check_ready_fd(o->ready_fd, bad ? scratch : cause) == 0)
		ready = (int)o->ready_fd;
	else
		bad = 1, o->ready_fd = -1;
	if (!bad && (check_required(o, cause) != 0 ||
	    check_cwd(o->cwd, cause) != 0 ||
	    listen_check_path(o->socket_path, cause) != 0))
		bad = 1;
	if (bad)
		fail_exit(ready, cause);
}

/* Without --ready-fd the first process waits for the daemon's line. */
static int
starter_wait(int fd)
{
	char line[CAUSE_BYTES + 8];
	size_t have = 0;
	ssize_t n;

	while (have < sizeof line - 1) {
		n = read(fd, line + have, sizeof line - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (memchr(line, '\n', have) != NULL)
			break;
	}
	line[have] = '\0';
	if (strncmp(line, "OK ", 3) == 0) {
		fputs(line, stdout);
		return 0;
	}
	line[strcspn(line, "\n")] = '\0';
	fprintf(stderr, "tend-holder: %s\n", strncmp(line, "ERR ", 4) == 0 ?
	    line + 4 : "the holder ended before it was ready");
	return 1;
}

/*
 * Fork once: the first process leaves at once (or when the daemon reports,
 * without --ready-fd), so the starter has no child left; the daemon starts
 * its own session and leaves the starter's process group.
 */
static void
detach(struct options *o)
{
	int pipefd[2] = { -1, -1 };
	pid_t pid;

	if (o->ready_fd < 0) {
		if (pipe2(pipefd, O_CLOEXEC) != 0)
			fail_exit(-1, "pipe failed");
		o->ready_fd = pipefd[1];
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail_exit((int)o->ready_fd, "fork failed");
	if (pid > 0) {
		if (pipefd[0] < 0)
			_exit(0);
		close(pipefd[1]);
		exit(starter_wait(pipefd[0]));
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (setsid() < 0)
		fail_exit((int)o->ready_fd, "setsid failed");
}

/* Descriptors the starter leaked must not keep its pipes open. */
static void
close_inherited_fds(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned)keep - 1, 0);
	close_range((unsigned)keep + 1, ~0U, 0);
}

static void
on_signal(int signo)
{
	int saved = errno;
	uint8_t b = (uint8_t)signo;

	if (write(signal_pipe_write, &b, 1) < 0) {
		/* The pipe is full: poll() wakes up anyway. */
	}
	errno = saved;
}

static int
signals_setup(char *cause)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(cause, CAUSE_BYTES, "pipe: %s", strerror(errno));
		return -1;
	}
	signal_pipe_write = p[1];
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	if (sigaction(SIGCHLD, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0) {
		snprintf(cause, CAUSE_BYTES, "sigaction: %s", strerror(errno));
		return -1;
	}
	return p[0];
}

static void
generation_fill(uint8_t *out)
{
	ssize_t n = getrandom(out, GENERATION_BYTES, 0);
	int fd;

	if (n == GENERATION_BYTES)
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, out, GENERATION_BYTES) != GENERATION_BYTES) {
		/* Still unique enough per holder: time and pid. */
		uint64_t t = holder_unix_ms() ^ ((uint64_t)getpid() << 40);
		memcpy(out, &t, sizeof t);
		memcpy(out + 8, &t, sizeof t);
	}
	if (fd >= 0)
		close(fd);
}

static int
ring_setup(struct holder *h, size_t capacity, char *cause)
{
	uint8_t *bytes = malloc(capacity);
	uint16_t *marks = malloc(ring_mark_count(capacity) * sizeof *marks);

	if (bytes == NULL || marks == NULL) {
		snprintf(cause, CAUSE_BYTES, "cannot allocate a %zu-byte ring",
		    capacity);
		return -1;
	}
	ring_init(&h->ring, bytes, capacity, marks);
	return 0;
}

static int
stdio_setup(const char *log_path, char *cause)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int out = log_path == NULL ? null : open(log_path,
	    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (null < 0 || out < 0) {
		snprintf(cause, CAUSE_BYTES, "cannot open %s: %s",
		    out < 0 && log_path ? log_path : "/dev/null",
		    strerror(errno));
		return -1;
	}
	if (dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
		snprintf(cause, CAUSE_BYTES, "dup2: %s", strerror(errno));
		return -1;
	}
	if (out != null)
		close(out);
	close(null);
	return 0;
}

/*
 * `h` is static, so already zero: clearing it again would dirty every page
 * of the connection and input buffers, which stay untouched until used.
 */
static void
holder_init(struct holder *h, const struct options *o)
{
	h->listener.fd = -1;
	h->pty.master = -1;
	h->exit_grace_s = (uint32_t)o->exit_grace_s;
	h->started_at_ms = holder_unix_ms();
	h->drain_deadline_ms = h->kill_deadline_ms = NEVER_MS;
	h->grace_deadline_ms = h->quit_deadline_ms = NEVER_MS;
	h->socket_check_ms = holder_now_ms() + SOCKET_CHECK_MS;
	generation_fill(h->generation);
	conn_init_all(h);
}

/* The daemon's set-up; returns the signal pipe, or exits with ERR. */
static int
daemon_start(struct holder *h, const struct options *o)
{
	struct spawn_request req = { .cols = (uint16_t)o->cols,
	    .rows = (uint16_t)o->rows, .cwd = o->cwd, .argv = o->argv };
	char cause[CAUSE_BYTES], line[64];
	int ready = (int)o->ready_fd, sig;

	close_inherited_fds(ready);
	holder_init(h, o);
	if ((sig = signals_setup(cause)) < 0 ||
	    ring_setup(h, (size_t)o->ring_bytes, cause) != 0 ||
	    stdio_setup(o->log_path, cause) != 0 ||
	    listen_open(&h->listener, o->socket_path, cause) != 0)
		fail_exit(ready, cause);
	if (pty_spawn(&h->pty, &req, cause) != 0) {
		listen_remove(&h->listener);
		fail_exit(ready, cause);
	}
	snprintf(line, sizeof line, "OK %d %d\n", (int)getpid(),
	    (int)h->pty.child);
	if (write(ready, line, strlen(line)) < 0)
		holder_log("ready fd: %s", strerror(errno));
	close(ready);
	holder_log("started pid %d for %s", (int)h->pty.child, o->argv[0]);
	return sig;
}

void
holder_fill_state(const struct holder *h, const struct conn *c,
    struct state_fields *s)
{
	memcpy(s->generation, h->generation, GENERATION_BYTES);
	s->ring_start = ring_start(&h->ring);
	s->offset = h->ring.offset;
	s->child_pid = (uint32_t)h->pty.child;
	s->fg_pgid = (uint32_t)pty_foreground(&h->pty);
	s->cols = h->pty.cols;
	s->rows = h->pty.rows;
	s->flags = (h->pty.reaped ? STATE_F_EXITED : 0) |
	    (h->controller ? STATE_F_LEASED : 0) |
	    (h->controller == c ? STATE_F_YOU_LEASE : 0);
	s->exit_code = h->pty.reaped ? h->pty.exit_code : 0;
	s->exit_signal = h->pty.reaped ? h->pty.exit_signal : 0;
	s->started_at_ms = h->started_at_ms;
	s->ring_capacity = (uint32_t)h->ring.capacity;
}

static void __attribute__((noreturn))
holder_exit(struct holder *h)
{
	holder_log("leaving: child %s %d", h->pty.exit_signal ? "signal" :
	    "exit", h->pty.exit_signal ? h->pty.exit_signal : h->pty.exit_code);
	for (size_t i = 0; i < CONN_MAX; i++)
		conn_close(h, &h->conns[i]);
	listen_remove(&h->listener);
	pty_close(&h->pty);
	exit(0);
}

/* KILL or SIGTERM: hang the terminal up, then leave once EXIT is out. */
void
holder_kill(struct holder *h)
{
	int64_t now = holder_now_ms();

	if (h->quitting)
		return;
	h->quitting = true;
	h->quit_deadline_ms = now + QUIT_FLUSH_MS;
	if (h->pty.reaped)
		return;
	pty_signal_foreground(&h->pty, SIGHUP);
	pty_signal_group(&h->pty, SIGHUP);
	pty_signal_group(&h->pty, SIGCONT);	/* a stopped job must see it */
	h->kill_deadline_ms = now + KILL_GRACE_MS;
}

static void
holder_flush_all(struct holder *h)
{
	for (size_t i = 0; i < CONN_MAX; i++) {
		if (h->conns[i].fd >= 0)
			conn_flush(h, &h->conns[i]);
	}
}

/*
 * Flow control: stop reading the PTY while the controller owes more than
 * the high-water mark, so the kernel holds the program back; resume below
 * the low-water mark.
 */
static void
holder_update_pause(struct holder *h)
{
	size_t cap = h->ring.capacity;
	uint64_t high = cap / 2 < HIGH_WATER_BYTES ? cap / 2 : HIGH_WATER_BYTES;
	uint64_t low = cap / 8 < LOW_WATER_BYTES ? cap / 8 : LOW_WATER_BYTES;
	uint64_t unsent = conn_unsent(h);

	if (h->paused && unsent <= low)
		h->paused = false;
	else if (!h->paused && unsent >= high)
		h->paused = true;
}

static void
holder_read_pty(struct holder *h)
{
	uint64_t room = h->ring.capacity - conn_unsent(h);
	size_t budget = room < PTY_TURN_BYTES ? (size_t)room : PTY_TURN_BYTES;

	if (budget > 0 && pty_read_into(&h->pty, &h->ring, budget) > 0)
		holder_flush_all(h);
}

static void
holder_on_signals(struct holder *h, int fd)
{
	uint8_t got[64];
	ssize_t n;

	while ((n = read(fd, got, sizeof got)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (got[i] == SIGTERM)
				holder_kill(h);
			else if (got[i] == SIGCHLD && !h->pty.reaped &&
			    pty_reap(&h->pty)) {
				h->drain_deadline_ms = holder_now_ms() +
				    DRAIN_AFTER_EXIT_MS;
				holder_read_pty(h);
			}
		}
	}
}

/*
 * The child is gone and the PTY hung up (or stayed quiet past the drain
 * time, when a grandchild keeps the slave open): no byte can follow.
 */
static void
holder_try_finish_output(struct holder *h, int64_t now)
{
	if (!h->pty.hung_up && now < h->drain_deadline_ms)
		return;
	if (!h->pty.hung_up && h->paused && !h->quitting) {
		h->drain_deadline_ms = now + DRAIN_AFTER_EXIT_MS;
		return;		/* bytes are still in the PTY, held back */
	}
	pty_close(&h->pty);
	h->output_done = true;
	h->grace_deadline_ms = now + (int64_t)h->exit_grace_s * 1000;
	if (h->quitting)
		h->quit_deadline_ms = now + QUIT_FLUSH_MS;
	if (h->quitting && h->controller && !h->controller->streaming)
		conn_send_exit(h, h->controller);
	holder_flush_all(h);
}

static void
holder_tick(struct holder *h)
{
	int64_t now = holder_now_ms();

	conn_expire(h, now);
	if (h->pty.reaped && !h->output_done)
		holder_try_finish_output(h, now);
	if (h->quitting && !h->pty.reaped && now >= h->kill_deadline_ms) {
		pty_signal_group(&h->pty, SIGKILL);
		h->kill_deadline_ms = NEVER_MS;
	}
	if (h->output_done && h->quitting &&
	    (conn_flushed(h) || now >= h->quit_deadline_ms))
		holder_exit(h);
	if (h->output_done && !h->quitting && now >= h->grace_deadline_ms)
		holder_exit(h);
	if (now >= h->socket_check_ms) {
		listen_check_file(&h->listener);
		h->socket_check_ms = now + SOCKET_CHECK_MS;
	}
}

static int64_t
earliest(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int
holder_timeout(const struct holder *h)
{
	int64_t next = h->socket_check_ms, wait;

	if (h->pty.reaped && !h->output_done)
		next = earliest(next, h->drain_deadline_ms);
	if (h->quitting)
		next = earliest(next, earliest(h->kill_deadline_ms,
		    h->quit_deadline_ms));
	if (h->output_done)
		next = earliest(next, h->grace_deadline_ms);
	for (size_t i = 0; i < CONN_MAX; i++) {
		if (h->conns[i].fd >= 0 && h->conns[i].closing)
			next = earliest(next, h->conns[i].close_deadline_ms);
	}
	wait = next - holder_now_ms();
	return wait < 0 ? 0 : wait > INT_MAX ? INT_MAX : (int)wait;
}

enum { SLOT_SIGNAL, SLOT_LISTEN, SLOT_PTY, SLOT_CONNS };

static void
holder_fill_poll(const struct holder *h, int sig, struct pollfd *fds)
{
	const struct pty *p = &h->pty;
	short pty_events = (h->paused ? 0 : POLLIN) |
	    (p->input_length > 0 ? POLLOUT : 0);

	fds[SLOT_SIGNAL] = (struct pollfd){ .fd = sig, .events = POLLIN };
	fds[SLOT_LISTEN] = (struct pollfd){ .fd = h->listener.fd,
	    .events = POLLIN };
	/* After a hang-up the master only reports POLLHUP: stop asking. */
	fds[SLOT_PTY] = (struct pollfd){ .fd = p->hung_up || !pty_events ?
	    -1 : p->master, .events = pty_events };
	for (size_t i = 0; i < CONN_MAX; i++) {
		short events = conn_poll_events(h, &h->conns[i]);

		/* Polled even with no events: a hang-up must still be seen. */
		fds[SLOT_CONNS + i] = (struct pollfd){ .fd = h->conns[i].fd,
		    .events = events };
	}
}

static void
holder_handle_events(struct holder *h, const struct pollfd *fds)
{
	const short broken = POLLHUP | POLLERR | POLLNVAL;

	if (fds[SLOT_SIGNAL].revents)
		holder_on_signals(h, fds[SLOT_SIGNAL].fd);
	if (fds[SLOT_LISTEN].revents)
		conn_accept(h);
	if (fds[SLOT_PTY].revents & POLLOUT)
		pty_flush_input(&h->pty);
	if (fds[SLOT_PTY].revents & (POLLIN | broken))
		holder_read_pty(h);
	for (size_t i = 0; i < CONN_MAX; i++) {
		struct conn *c = &h->conns[i];
		short got = fds[SLOT_CONNS + i].revents;

		if (got & (POLLIN | broken) && fds[SLOT_CONNS + i].events &
		    POLLIN)
			conn_read(h, c);
		if (got && c->fd >= 0)
			conn_flush(h, c);
		/*
		 * Gone while its input waits for the PTY: what it still had
		 * queued is dropped, so the lease is not held by a dead peer.
		 */
		if (got & broken && c->fd >= 0 &&
		    !(fds[SLOT_CONNS + i].events & POLLIN))
			conn_close(h, c);
	}
}

static void __attribute__((noreturn))
holder_run(struct holder *h, int sig)
{
	struct pollfd fds[SLOT_CONNS + CONN_MAX];

	for (;;) {
		holder_update_pause(h);
		holder_fill_poll(h, sig, fds);
		if (poll(fds, SLOT_CONNS + CONN_MAX, holder_timeout(h)) < 0) {
			if (errno != EINTR)
				holder_log("poll: %s", strerror(errno));
			continue;
		}
		holder_handle_events(h, fds);
		holder_tick(h);
	}
}

int
main(int argc, char **argv)
{
	static struct holder holder;	/* big (input buffers): not on stack */
	struct options o;
	int sig;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0))
		usage_exit();
	validate(&o, argc, argv);
	detach(&o);
	sig = daemon_start(&holder, &o);
	holder_run(&holder, sig);
}
