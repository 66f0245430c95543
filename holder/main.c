/*
 * main.c -- tend-holder's start: arguments and their checks, detaching
 * from the starter, signals, the daemon's set-up and its ready line.  The
 * loop that then runs is in loop.c.
 *
 * tend-holder --socket PATH --cols N --rows N --cwd DIR [--ring BYTES]
 *             [--exit-grace SECONDS] [--ready-fd FD] [--log PATH]
 *             -- PROGRAM [ARGS...]
 * tend-holder --version
 * tend-holder --resume-fd FD     (only as exec'd by a holder handing over)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"

#define DEFAULT_RING_BYTES (4 * 1024 * 1024)
#define DEFAULT_EXIT_GRACE_S (24 * 60 * 60)


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
	    "SECONDS] [--ready-fd FD] [--log PATH] -- PROGRAM [ARGS...]\n"
	    "       tend-holder --version\n"
	    "       tend-holder --resume-fd FD\n"
	    "--version prints the build id, the protocol and the hand-over "
	    "state\nformats this binary resumes.  --resume-fd is how a running "
	    "holder hands\nover to a new binary (EXEC): FD holds its state, "
	    "and the PTY and socket\nit names are already open.  It is not "
	    "for people to run.\n");
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
		if (sys_pipe(pipefd, false) != 0)
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
		sys_close_range(3, keep - 1);
	sys_close_range(keep + 1, INT_MAX);
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

	if (sys_pipe(p, true) != 0) {
		snprintf(cause, CAUSE_BYTES, "pipe: %s", strerror(errno));
		return -1;
	}
	signal_pipe_write = p[1];
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	/* A vanished reader is an EPIPE to handle, not a death. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    signal(SIGHUP, SIG_IGN) == SIG_ERR ||
	    sigaction(SIGCHLD, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0) {
		snprintf(cause, CAUSE_BYTES, "sigaction: %s", strerror(errno));
		return -1;
	}
	return p[0];
}

static void
generation_fill(uint8_t *out)
{
	if (sys_random(out, GENERATION_BYTES) != 0) {
		/* Still unique enough per holder: time and pid. */
		uint64_t t = holder_unix_ms() ^ ((uint64_t)getpid() << 40);
		memcpy(out, &t, sizeof t);
		memcpy(out + 8, &t, sizeof t);
	}
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
	holder_reset_deadlines(h);
	h->exit_grace_s = (uint32_t)o->exit_grace_s;
	h->started_at_ms = holder_unix_ms();
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

/*
 * The new image of a holder that handed over (handover.c): its state from
 * the file at `fd_text`, its PTY and socket already open.  Whatever fails
 * is said in the holder's log (stderr, kept across exec) and ends the
 * holder with RESUME_FAILED_EXIT; it never waits for anything.
 */
static int
resume(struct holder *h, const char *fd_text)
{
	char cause[CAUSE_BYTES];
	sigset_t taken;
	long fd;
	int sig = -1;

	conn_init_all(h);
	/* No timer of the old image's runs on, but the grace the state carries. */
	holder_reset_deadlines(h);
	if (parse_number("resume-fd", fd_text, 0, INT_MAX, &fd, cause) != 0 ||
	    state_file_read(h, (int)fd, cause) != 0 ||
	    (sig = signals_setup(cause)) < 0) {
		holder_log("cannot resume: %s", cause);
		exit(RESUME_FAILED_EXIT);
	}
	close((int)fd);
	/* Closed on exec again, as a fresh holder has them. */
	if (fcntl(h->listener.fd, F_SETFD, FD_CLOEXEC) != 0 ||
	    (h->pty.master >= 0 &&
	    fcntl(h->pty.master, F_SETFD, FD_CLOEXEC) != 0))
		holder_log("resume: close-on-exec: %s", strerror(errno));
	holder_log("resumed as build %s: child %d, offset %llu",
	    holder_build_id, (int)h->pty.child,
	    (unsigned long long)h->ring.offset);
	/* A child that ended during exec: its SIGCHLD went to the old image. */
	on_signal(SIGCHLD);
	sigemptyset(&taken);
	sigaddset(&taken, SIGCHLD);
	sigaddset(&taken, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &taken, NULL);
	return sig;
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
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		handover_print_version();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--resume-fd") == 0)
		holder_run(&holder, resume(&holder, argv[2]));
	validate(&o, argc, argv);
	detach(&o);
	sig = daemon_start(&holder, &o);
	holder_run(&holder, sig);
}
