/*
 * kill.c -- ending the child on KILL (conn.c) or SIGTERM (loop.c): hang the
 * terminal up, SIGKILL after a grace if it is still there, and leave once
 * the controller has its EXIT.  The deadlines set here are kept by loop.c.
 */
#include <signal.h>

#include "holder.h"

/* KILL: SIGHUP first, SIGKILL if the child is still there after this. */
#define KILL_GRACE_MS 2000

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
