/*
 * outer.c -- the outer terminal (the user's, on stdin and stdout) and the
 * signals that reach the attach. Raw mode is what Node's setRawMode gives
 * (libuv's) plus `stty -opost`, so a bare LF from a program stays a LF; the
 * settings saved first are put back on every way out, at exit too. Writes
 * block until the whole buffer is out: a write that returned is on the
 * terminal, which is what an ack says. The signals (a resize, the ones that
 * end an attach, a child's end) only set a flag and write a byte to a
 * self-pipe, which the attach's poll loop reads. The terminal window is
 * named for the server (SUBSCRIBE's window), which remembers the history
 * rows each window was sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "viewer.h"

/* Said when the terminal has no size (not a terminal, or one that does not know). */
#define OUTER_FALLBACK_COLS 80
#define OUTER_FALLBACK_ROWS 24

/*
 * The start time of process pid (field 22 of /proc/PID/stat, in clock ticks
 * since boot): with the pid, it names that process and no later one. 0
 * where there is no /proc.
 */
static unsigned long long
process_start_time(pid_t pid)
{
	char path[64], line[1024];
	unsigned long long start = 0;
	const char *p;
	FILE *f;
	int field;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	p = fgets(line, sizeof line, f) != NULL ? strrchr(line, ')') : NULL;
	fclose(f);
	if (p == NULL)
		return 0;
	/* The name ends at the last ')' and may hold spaces; field 3 (the state) follows it. */
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

int
outer_window_key(char *out, size_t len)
{
	struct stat st;
	pid_t sid;
	int n;

	if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISCHR(st.st_mode))
		return -1;
	sid = tcgetsid(STDOUT_FILENO);
	if (sid <= 0)
		return -1;
	n = snprintf(out, len, "tty-%llx-%ld-%llu", (unsigned long long)st.st_rdev, (long)sid, process_start_time(sid));
	return n > 0 && (size_t)n < len && (size_t)n <= FRAME_MAX_WINDOW_KEY_BYTES ? 0 : -1;
}

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_resize, got_child, got_term;
/* For atexit: the settings to put back while the terminal is raw. */
static struct termios exit_termios;
static volatile sig_atomic_t exit_restore;
static bool exit_registered;

int64_t
outer_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
restore_at_exit(void)
{
	if (exit_restore)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &exit_termios);
}

int
outer_raw_mode(struct termios *saved)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, saved) != 0)
		return -1;
	exit_termios = *saved;
	if (!exit_registered && atexit(restore_at_exit) == 0)
		exit_registered = true;
	t = *saved;
	t.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_cflag |= CS8;
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) != 0)
		return -1;
	exit_restore = 1;
	return 0;
}

void
outer_restore_mode(const struct termios *saved)
{
	tcsetattr(STDIN_FILENO, TCSADRAIN, saved);
	exit_restore = 0;
}

void
outer_read_size(int *cols, int *rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0 || ws.ws_row == 0) {
		*cols = OUTER_FALLBACK_COLS;
		*rows = OUTER_FALLBACK_ROWS;
		return;
	}
	*cols = ws.ws_col > MAX_COLS ? MAX_COLS : ws.ws_col;
	*rows = ws.ws_row > MAX_ROWS ? MAX_ROWS : ws.ws_row;
}

int
outer_write_all(const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* Someone left the terminal non-blocking: wait for room rather than drop bytes. */
			struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

			poll(&pfd, 1, -1);
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig == SIGWINCH)
		got_resize = 1;
	else if (sig == SIGCHLD)
		got_child = 1;
	else if (got_term == 0)
		got_term = sig;
	if (signal_pipe[1] >= 0)
		(void)!write(signal_pipe[1], &c, 1);
	errno = saved;
}

int
outer_signals_init(void)
{
	struct sigaction sa;
	const int caught[] = { SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGCHLD };

	if (pipe(signal_pipe) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(signal_pipe[i], F_SETFL, fcntl(signal_pipe[i], F_GETFL) | O_NONBLOCK);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
		sigaction(caught[i], &sa, NULL);
	return signal_pipe[0];
}

bool
outer_signals_pending(void)
{
	return got_term != 0 || got_resize != 0 || got_child != 0;
}

void
outer_signals_take(struct outer_signals *s)
{
	char drain[64];

	while (read(signal_pipe[0], drain, sizeof drain) > 0)
		;
	s->term_signal = got_term;
	s->resized = got_resize != 0;
	s->child = got_child != 0;
	got_term = 0;
	got_resize = 0;
	got_child = 0;
}
