/*
 * wait.c -- waiting for descriptors: poll() on Linux; select() elsewhere,
 * and on Linux with make PORTABLE=1, because macOS's poll() does not work
 * on devices and the PTY is one.
 *
 * select() has no POLLHUP, which poll() reports even for a socket polled
 * for nothing: a controller whose input waits for the PTY, and which may
 * have died with bytes still queued.  Such a socket is asked with a poll()
 * of its own that does not wait (poll() does work on sockets), before each
 * select() and at least every HANG_UP_CHECK_MS while it is there.
 */
#include <errno.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/time.h>

#include "holder.h"

#if !TEND_LINUX_CALLS
/* How late a socket polled for nothing is seen to hang up, at most. */
#define HANG_UP_CHECK_MS 200

/* POLLHUP, POLLERR or 0 for a socket polled for nothing, now. */
static short
wait_hang_up(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };

	if (poll(&p, 1, 0) <= 0)
		return 0;
	return p.revents & (POLLHUP | POLLERR | POLLNVAL);
}

/* 1 if `p` is asked for nothing (checked by wait_hang_up), 0, or -1. */
static int
wait_add(struct pollfd *p, fd_set *rd, fd_set *wr, int *top)
{
	p->revents = 0;
	if (p->fd < 0)
		return 0;
	if (p->events == 0) {
		p->revents = wait_hang_up(p->fd);
		return 1;
	}
	if (p->fd >= FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	if (p->events & POLLIN)
		FD_SET(p->fd, rd);
	if (p->events & POLLOUT)
		FD_SET(p->fd, wr);
	if (p->fd > *top)
		*top = p->fd;
	return 0;
}

static void
wait_collect(struct pollfd *p, const fd_set *rd, const fd_set *wr)
{
	if (p->fd < 0 || p->events == 0)
		return;
	if (FD_ISSET(p->fd, rd))
		p->revents |= POLLIN;
	if (FD_ISSET(p->fd, wr))
		p->revents |= POLLOUT;
}
#endif

/* poll()'s contract: the count of entries with revents, 0, or -1. */
int
sys_wait(struct pollfd *fds, size_t count, int timeout_ms)
{
#if TEND_LINUX_CALLS
	return poll(fds, (nfds_t)count, timeout_ms);
#else
	struct timeval tv;
	fd_set rd, wr;
	int top = -1, ready = 0, r;
	bool asked_nothing = false, ended = false;

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	for (size_t i = 0; i < count; i++) {
		if ((r = wait_add(&fds[i], &rd, &wr, &top)) < 0)
			return -1;
		asked_nothing |= r == 1;
		ended |= fds[i].revents != 0;
	}
	/* Report a hang-up now, with whatever else is due. */
	if (ended)
		timeout_ms = 0;
	else if (asked_nothing && (timeout_ms < 0 ||
	    timeout_ms > HANG_UP_CHECK_MS))
		timeout_ms = HANG_UP_CHECK_MS;
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	if (select(top + 1, &rd, &wr, NULL, timeout_ms < 0 ? NULL : &tv) < 0)
		return -1;
	for (size_t i = 0; i < count; i++) {
		wait_collect(&fds[i], &rd, &wr);
		if (fds[i].revents != 0)
			ready++;
	}
	return ready;
#endif
}
