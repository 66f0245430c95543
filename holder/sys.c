/*
 * sys.c -- the calls that differ between systems, each behind one function.
 * Linux has atomic forms (pipe2, accept4, SOCK_CLOEXEC, close_range,
 * getrandom, ptsname_r, MSG_NOSIGNAL); elsewhere (macOS, the BSDs), and on
 * Linux when built with `make PORTABLE=1`, the POSIX call is followed by
 * fcntl().  The gap between the two cannot leak a descriptor: the holder
 * has one thread, and it forks only from pty_spawn, after these return.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#include <sys/random.h>
#endif

#include "holder.h"

/*
 * Where the close loop stops when the descriptor limit is unlimited or
 * larger: past a million descriptors nothing is open in practice, and the
 * loop costs a few hundred milliseconds.
 */
#define CLOSE_LOOP_MAX_FD (1024 * 1024)

#if !TEND_LINUX_CALLS
static int
sys_set_flags(int fd, bool nonblock)
{
	int fl;

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return -1;
	if (!nonblock)
		return 0;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return -1;
	return 0;
}

/* Closes `fd` after a failed set-up, keeping the set-up's errno. */
static int
sys_give_up(int fd)
{
	int saved = errno;

	close(fd);
	errno = saved;
	return -1;
}
#endif

int
sys_pipe(int fds[2], bool nonblock)
{
#if TEND_LINUX_CALLS
	return pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
#else
	if (pipe(fds) != 0)
		return -1;
	if (sys_set_flags(fds[0], nonblock) != 0 ||
	    sys_set_flags(fds[1], nonblock) != 0) {
		close(fds[1]);
		return sys_give_up(fds[0]);
	}
	return 0;
#endif
}

int
sys_unix_socket(void)
{
#if TEND_LINUX_CALLS
	return socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
#else
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd >= 0 && sys_set_flags(fd, true) != 0)
		return sys_give_up(fd);
	return fd;
#endif
}

int
sys_accept(int listener)
{
#if TEND_LINUX_CALLS
	return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
	int fd = accept(listener, NULL, NULL);

	/* BSD sockets inherit O_NONBLOCK from the listener; Linux's do not. */
	if (fd >= 0 && sys_set_flags(fd, true) != 0)
		return sys_give_up(fd);
	return fd;
#endif
}

int
sys_open_pty(void)
{
#if TEND_LINUX_CALLS
	return posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
#else
	int fd = posix_openpt(O_RDWR | O_NOCTTY);

	if (fd >= 0 && sys_set_flags(fd, false) != 0)
		return sys_give_up(fd);
	return fd;
#endif
}

int
sys_pty_name(int master, char *out, size_t room)
{
#if TEND_LINUX_CALLS
	return ptsname_r(master, out, room);
#else
	const char *name = ptsname(master);	/* one thread: no race */

	if (name == NULL)
		return -1;
	if (strlen(name) >= room) {
		errno = ERANGE;
		return -1;
	}
	memcpy(out, name, strlen(name) + 1);
	return 0;
#endif
}

/* Closes descriptors `first` to `last` (INT_MAX: every one above). */
void
sys_close_range(int first, int last)
{
	long limit;

#if TEND_LINUX_CALLS
	if (close_range((unsigned)first, last == INT_MAX ? ~0U :
	    (unsigned)last, 0) == 0)
		return;
	/* Before Linux 5.9 there is no close_range: one by one, then. */
#endif
	limit = sysconf(_SC_OPEN_MAX);
	if (limit < 0 || limit > CLOSE_LOOP_MAX_FD)
		limit = CLOSE_LOOP_MAX_FD;
	for (long fd = first; fd <= last && fd < limit; fd++)
		close((int)fd);
}

/* Fills `out` from the kernel's random source; 0, or -1 if there is none. */
int
sys_random(uint8_t *out, size_t length)
{
	ssize_t n;
	int fd;

#if TEND_LINUX_CALLS
	if (getrandom(out, length, 0) == (ssize_t)length)
		return 0;
#endif
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, out, length);
	close(fd);
	return n == (ssize_t)length ? 0 : -1;
}

/*
 * The hand-over's state file.  A memfd has no name anywhere; the fallback
 * is made in the socket's own directory (ours, mode 0700) and unlinked at
 * once, so only the descriptor reaches it and nothing is left behind.
 */
int
sys_state_file(const char *dir, char *cause)
{
	char path[PATH_MAX];
	int fd;

#if TEND_LINUX_CALLS
	fd = memfd_create("tend-holder-state", MFD_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* A kernel without memfd (before 3.17): the file, then. */
#endif
	if (snprintf(path, sizeof path, "%s/.tend-holder-state-XXXXXX",
	    dir) >= (int)sizeof path) {
		snprintf(cause, CAUSE_BYTES, "the state file's path in %s is "
		    "too long", dir);
		return -1;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		snprintf(cause, CAUSE_BYTES, "cannot make a state file in %s: "
		    "%s", dir, strerror(errno));
		return -1;
	}
	unlink(path);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		snprintf(cause, CAUSE_BYTES, "state file: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
