/*
 * pty.c -- the PTY and the child on it: spawn the child as session leader
 * with the PTY as its controlling terminal, move bytes both ways, resize,
 * signal, reap.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "holder.h"

/* Set for the child when the starter did not say which terminal this is. */
#define DEFAULT_TERM "xterm-256color"

static int
pty_open_master(uint16_t cols, uint16_t rows, char *slave, size_t room,
    char *cause)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };
	int fd = sys_open_pty();

	if (fd < 0) {
		snprintf(cause, CAUSE_BYTES, "cannot open a PTY: %s",
		    strerror(errno));
		return -1;
	}
	if (grantpt(fd) != 0 || unlockpt(fd) != 0 ||
	    sys_pty_name(fd, slave, room) != 0 ||
	    ioctl(fd, TIOCSWINSZ, &ws) != 0) {
		snprintf(cause, CAUSE_BYTES, "cannot set up the PTY: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* In the child: tell the parent why, through the close-on-exec pipe. */
static void __attribute__((noreturn))
child_fail(int report, const char *what, const char *name)
{
	char line[CAUSE_BYTES];
	int n = snprintf(line, sizeof line, "%s '%s': %s", what, name,
	    strerror(errno));

	if (n > 0 && write(report, line, (size_t)n) < 0)
		_exit(126);
	_exit(127);
}

/* Undo what the holder changed for itself, which exec would keep. */
static void
child_reset_signals(void)
{
	sigset_t none;

	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void
child_set_utf8(int fd)
{
#ifdef IUTF8	/* Linux and macOS have it; not every BSD does */
	struct termios t;

	/* Line editing then erases whole characters, as tmux does. */
	if (tcgetattr(fd, &t) == 0) {
		t.c_iflag |= IUTF8;
		tcsetattr(fd, TCSANOW, &t);
	}
#else
	(void)fd;
#endif
}

static void __attribute__((noreturn))
child_run(const char *slave, const struct spawn_request *req, int report)
{
	int fd;

	child_reset_signals();
	if (setsid() < 0)
		child_fail(report, "cannot start a session for", req->argv[0]);
	fd = open(slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) != 0)
		child_fail(report, "cannot open the terminal", slave);
	child_set_utf8(fd);
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		child_fail(report, "cannot attach the terminal", slave);
	if (fd > 2)
		close(fd);
	if (chdir(req->cwd) != 0)
		child_fail(report, "cannot change to directory", req->cwd);
	if (getenv("TERM") == NULL && setenv("TERM", DEFAULT_TERM, 1) != 0)
		child_fail(report, "cannot set TERM for", req->argv[0]);
	execvp(req->argv[0], req->argv);
	child_fail(report, "cannot run", req->argv[0]);
}

/* Wait for the child's exec: EOF on the pipe means it ran. */
static int
pty_await_exec(struct pty *p, int report, char *cause)
{
	ssize_t n;

	do
		n = read(report, cause, CAUSE_BYTES - 1);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	cause[n] = '\0';
	while (waitpid(p->child, NULL, 0) < 0 && errno == EINTR)
		;
	return -1;
}

static void
pty_init(struct pty *p, const struct spawn_request *req)
{
	p->master = -1;
	p->child = -1;
	p->cols = req->cols;
	p->rows = req->rows;
	p->reaped = false;
	p->hung_up = false;
	p->exit_code = 0;
	p->exit_signal = 0;
	p->input_length = 0;
}

int
pty_spawn(struct pty *p, const struct spawn_request *req, char *cause)
{
	char slave[128];
	int report[2];

	pty_init(p, req);
	p->master = pty_open_master(req->cols, req->rows, slave, sizeof slave,
	    cause);
	if (p->master < 0)
		return -1;
	if (sys_pipe(report, false) != 0) {
		snprintf(cause, CAUSE_BYTES, "pipe: %s", strerror(errno));
		pty_close(p);
		return -1;
	}
	p->child = fork();
	if (p->child == 0)
		child_run(slave, req, report[1]);
	close(report[1]);
	if (p->child < 0)
		snprintf(cause, CAUSE_BYTES, "fork: %s", strerror(errno));
	if (p->child < 0 || pty_await_exec(p, report[0], cause) != 0) {
		close(report[0]);
		pty_close(p);
		return -1;
	}
	close(report[0]);
	if (fcntl(p->master, F_SETFL, O_NONBLOCK) != 0) {
		snprintf(cause, CAUSE_BYTES, "fcntl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Read up to `budget` bytes straight into the ring, in as few reads as the
 * kernel allows.  Returns the bytes read; sets hung_up on EIO/EOF (Linux
 * answers EIO once every slave fd is closed and the buffer is empty).
 */
ssize_t
pty_read_into(struct pty *p, struct ring *r, size_t budget)
{
	size_t total = 0;

	while (total < budget && p->master >= 0) {
		uint8_t *at;
		size_t room = ring_space(r, &at);
		ssize_t n;

		if (room > budget - total)
			room = budget - total;
		n = read(p->master, at, room);
		if (n > 0) {
			ring_commit(r, (size_t)n);
			total += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0 && errno != EIO)
			holder_log("pty read: %s", strerror(errno));
		p->hung_up = true;
		break;
	}
	return (ssize_t)total;
}

static size_t
pty_write_some(struct pty *p, const uint8_t *data, size_t length)
{
	size_t done = 0;

	while (done < length) {
		ssize_t n = write(p->master, data + done, length - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			/* The slave is gone: the input has nowhere to go. */
			holder_log("pty write: %s", strerror(errno));
			return length;
		}
		break;
	}
	return done;
}

/*
 * Write input now if the PTY takes it; keep the rest, behind what is
 * already waiting, so order holds.  The caller checked pty_input_room().
 * Returns the bytes taken (written or kept), which INPUT_TAKEN counts.
 */
size_t
pty_write_input(struct pty *p, const uint8_t *data, size_t length)
{
	size_t done = 0;

	if (p->master < 0)
		return 0;	/* the child is gone; nobody would read it */
	if (p->input_length == 0)
		done = pty_write_some(p, data, length);
	if (length - done > PTY_INPUT_BYTES - p->input_length) {
		holder_log("pty input overflow: %zu bytes lost", length - done);
		return done;
	}
	memcpy(p->input + p->input_length, data + done, length - done);
	p->input_length += length - done;
	return length;
}

void
pty_flush_input(struct pty *p)
{
	size_t done;

	if (p->master < 0) {
		p->input_length = 0;
		return;
	}
	done = pty_write_some(p, p->input, p->input_length);
	memmove(p->input, p->input + done, p->input_length - done);
	p->input_length -= done;
}

size_t
pty_input_room(const struct pty *p)
{
	return PTY_INPUT_BYTES - p->input_length;
}

int
pty_resize(struct pty *p, uint16_t cols, uint16_t rows)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	p->cols = cols;
	p->rows = rows;
	/* The kernel sends SIGWINCH to the foreground group itself. */
	if (p->master >= 0 && ioctl(p->master, TIOCSWINSZ, &ws) != 0) {
		holder_log("TIOCSWINSZ: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The PTY's foreground process group, or 0 if there is none. */
pid_t
pty_foreground(const struct pty *p)
{
	pid_t pgid;

	if (p->master < 0)
		return 0;
	pgid = tcgetpgrp(p->master);
	return pgid > 0 ? pgid : 0;
}

void
pty_signal_foreground(const struct pty *p, int signo)
{
	pid_t pgid = pty_foreground(p);

	if (pgid == 0 && !p->reaped)
		pgid = p->child;	/* session leader's own group */
	if (pgid > 0 && kill(-pgid, signo) != 0 && errno != ESRCH)
		holder_log("kill(-%d, %d): %s", (int)pgid, signo,
		    strerror(errno));
}

void
pty_signal_group(const struct pty *p, int signo)
{
	if (p->reaped || p->child <= 0)
		return;
	if (kill(-p->child, signo) != 0 && errno != ESRCH)
		holder_log("kill(-%d, %d): %s", (int)p->child, signo,
		    strerror(errno));
}

/* Collect the child's status if it has ended; true if it has. */
bool
pty_reap(struct pty *p)
{
	int status;
	pid_t got;

	if (p->reaped)
		return true;
	do
		got = waitpid(p->child, &status, WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got != p->child)
		return false;
	p->reaped = true;
	if (WIFSIGNALED(status)) {
		p->exit_code = -1;
		p->exit_signal = WTERMSIG(status);
	} else {
		p->exit_code = WEXITSTATUS(status);
		p->exit_signal = 0;
	}
	return true;
}

void
pty_close(struct pty *p)
{
	if (p->master >= 0 && close(p->master) != 0)
		holder_log("close pty: %s", strerror(errno));
	p->master = -1;
	p->input_length = 0;
}
