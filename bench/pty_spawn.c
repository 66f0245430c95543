/*
 * pty_spawn.c -- start a program as session leader of a fresh PTY, the way a
 * terminal emulator does, so what we time is what a user's terminal sees.
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

#include "ptytool.h"

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* In the child: never returns.  An exec failure goes back on errfd as errno. */
static void
child_exec(const char *slave_name, unsigned cols, unsigned rows,
    char *const argv[], int errfd)
{
	struct winsize ws = { .ws_col = (unsigned short)cols, .ws_row = (unsigned short)rows };
	int err, slave;

	if (setsid() < 0)
		goto fail;
	slave = open(slave_name, O_RDWR);
	if (slave < 0)
		goto fail;
	if (ioctl(slave, TIOCSCTTY, 0) < 0 || ioctl(slave, TIOCSWINSZ, &ws) < 0)
		goto fail;
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		goto fail;
	if (slave > 2)
		close(slave);
	/* the same TERM for every side, so no program picks a cheaper mode */
	setenv("TERM", "xterm-256color", 1);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
fail:
	err = errno;
	(void)!write(errfd, &err, sizeof err);
	_exit(127);
}

int
pty_spawn(struct pty_child *out, unsigned cols, unsigned rows,
    char *const argv[], char *cause)
{
	int pipefd[2], master, err;
	char *name;
	ssize_t n;
	pid_t pid;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
	    (name = ptsname(master)) == NULL) {
		snprintf(cause, CAUSE_BYTES, "cannot open a PTY: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(cause, CAUSE_BYTES, "pipe: %s", strerror(errno));
		close(master);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(cause, CAUSE_BYTES, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child_exec(name, cols, rows, argv, pipefd[1]);
	}
	close(pipefd[1]);
	/* the pipe closes on a successful exec, or carries the errno */
	do
		n = read(pipefd[0], &err, sizeof err);
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == (ssize_t)sizeof err) {
		snprintf(cause, CAUSE_BYTES, "cannot run %s: %s", argv[0], strerror(err));
		waitpid(pid, NULL, 0);
		close(master);
		return -1;
	}
	out->master = master;
	out->pid = pid;
	return 0;
}

int
pty_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1000;
	}
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}
