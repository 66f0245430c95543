/*
 * handover.c -- replacing the holder's binary under a running program
 * (EXEC, protocol.h).  The holder checks the new binary by asking it
 * `--version`, writes its state to an anonymous file (state.c), lets only
 * the PTY master, the listening socket and that file survive exec, and
 * execs the new binary with `--resume-fd N`.  The pid stays, so the child
 * stays its child; the PTY master is never closed, so the program never
 * sees a hang-up; output made meanwhile waits in the PTY.  Anything that
 * fails before exec leaves the holder exactly as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "holder.h"

#ifndef HOLDER_BUILD_ID
#define HOLDER_BUILD_ID "unknown"
#endif

/* The Makefile's id for these sources and this kind of build. */
const char holder_build_id[] = HOLDER_BUILD_ID;

/* How long the new binary gets to answer --version. */
#define PROBE_TIMEOUT_MS 3000
#define PROBE_LINE_BYTES 128

/*
 * One line, read by the holder that hands over (handover_probe) and by
 * tend: the build id, the protocol and the state formats this binary reads.
 */
void
handover_print_version(void)
{
	printf("tend-holder %s protocol %d resume %d-%d\n", holder_build_id,
	    PROTOCOL_VERSION, OLDEST_HANDOVER_FORMAT, HANDOVER_FORMAT);
}

static int
handover_check_file(const char *path, char *cause)
{
	struct stat st;

	if (path[0] != '/') {
		snprintf(cause, CAUSE_BYTES, "'%s' is not an absolute path",
		    path);
		return -1;
	}
	errno = 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    access(path, X_OK) != 0) {
		snprintf(cause, CAUSE_BYTES, "'%s' is not an executable file%s"
		    "%s", path, errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

/* Reads the probe's first line within the deadline; its length, or -1. */
static ssize_t
probe_read_line(int fd, char *line, size_t room)
{
	int64_t deadline = holder_now_ms() + PROBE_TIMEOUT_MS;
	size_t have = 0;

	while (have < room - 1 && memchr(line, '\n', have) == NULL) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - holder_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			return -1;
		n = read(fd, line + have, room - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	line[have] = '\0';
	line[strcspn(line, "\n")] = '\0';
	return (ssize_t)strlen(line);
}

static pid_t
probe_start(const char *path, int out)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { (char *)path, "--version", NULL };

		if (dup2(out, 1) < 0)
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

/*
 * Asks the new binary what it is: a holder that reads the state format this
 * one writes, or not one to exec into.  Blocks the loop for at most
 * PROBE_TIMEOUT_MS; the program's output waits in the PTY meanwhile.
 */
static int
handover_probe(const char *path, char *cause)
{
	char line[PROBE_LINE_BYTES], build[PROBE_LINE_BYTES];
	unsigned protocol, oldest, newest;
	int pipefd[2];
	ssize_t n;
	pid_t pid;

	if (sys_pipe(pipefd, false) != 0) {
		snprintf(cause, CAUSE_BYTES, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = probe_start(path, pipefd[1]);
	close(pipefd[1]);
	n = pid < 0 ? -1 : probe_read_line(pipefd[0], line, sizeof line);
	close(pipefd[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);	/* done or too slow: either way, gone */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (n < 0) {
		snprintf(cause, CAUSE_BYTES, "'%s --version' %s", path,
		    pid < 0 ? "could not be started" :
		    "did not answer in time");
		return -1;
	}
	if (sscanf(line, "tend-holder %127s protocol %u resume %u-%u",
	    build, &protocol, &oldest, &newest) != 4) {
		snprintf(cause, CAUSE_BYTES, "'%s' is not a tend-holder that "
		    "can take over a running one (its --version said '%.80s')",
		    path, line);
		return -1;
	}
	if (oldest > HANDOVER_FORMAT || newest < HANDOVER_FORMAT) {
		snprintf(cause, CAUSE_BYTES, "'%s' resumes state formats %u "
		    "to %u, not this holder's %d", path, oldest, newest,
		    HANDOVER_FORMAT);
		return -1;
	}
	return 0;
}

static int
handover_ready(const struct holder *h, char *cause)
{
	if (h->quitting) {
		snprintf(cause, CAUSE_BYTES, "the session is being ended");
		return -1;
	}
	if (h->pty.reaped && !h->output_done) {
		snprintf(cause, CAUSE_BYTES, "the program is ending; ask again "
		    "once its exit is recorded");
		return -1;
	}
	return 0;
}

static int
set_cloexec(int fd, bool on)
{
	int flags;

	if (fd < 0)
		return 0;
	flags = fcntl(fd, F_GETFD);
	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFD, on ? flags | FD_CLOEXEC :
	    flags & ~FD_CLOEXEC);
}

/* The state, written and rewound; the descriptor, or -1. */
static int
handover_write_state(const struct holder *h, char *cause)
{
	char dir[4096];
	int fd;

	/* The socket's directory: where a state file without memfd is made. */
	listen_dirname(h->listener.path, dir, sizeof dir);
	fd = sys_state_file(dir, cause);
	if (fd < 0)
		return -1;
	if (state_file_write(h, fd, cause) != 0) {
		close(fd);
		return -1;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(cause, CAUSE_BYTES, "state file: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Returns only on failure, with the holder as it was.  SIGCHLD and SIGTERM
 * are blocked across exec: the new image takes them once its handlers are
 * in place (a child that ended meanwhile is still a zombie to reap).
 */
int
handover_exec(struct holder *h, const char *path, char *cause)
{
	char fd_text[16];
	char *argv[] = { (char *)path, "--resume-fd", fd_text, NULL };
	sigset_t block, old;
	int fd, saved;

	if (handover_ready(h, cause) != 0 ||
	    handover_check_file(path, cause) != 0 ||
	    handover_probe(path, cause) != 0)
		return -1;
	if ((fd = handover_write_state(h, cause)) < 0)
		return -1;
	snprintf(fd_text, sizeof fd_text, "%d", fd);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (set_cloexec(fd, false) == 0 &&
	    set_cloexec(h->pty.master, false) == 0 &&
	    set_cloexec(h->listener.fd, false) == 0) {
		holder_log("handing over to %s (offset %llu)", path,
		    (unsigned long long)h->ring.offset);
		fflush(NULL);
		execv(path, argv);
	}
	saved = errno;
	set_cloexec(h->pty.master, true);
	set_cloexec(h->listener.fd, true);
	close(fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	snprintf(cause, CAUSE_BYTES, "cannot run '%s': %s", path,
	    strerror(saved));
	return -1;
}
