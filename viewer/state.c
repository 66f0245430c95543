/*
 * state.c -- the bottom of the attach's files (state.h): what all of them
 * read or reset and none of them owns. The outer terminal's size, read at
 * the start and on each SIGWINCH, so a key or a paint costs no ioctl; and
 * the owed ack dropped, which a new channel, a lost socket and the end all
 * do. Nothing here calls another file of the attach.
 */
#include "state.h"

/* The size as last read (outer.c). */
static int outer_cols, outer_rows;

void
attach_read_size(void)
{
	outer_read_size(&outer_cols, &outer_rows);
}

void
attach_size(int *cols, int *rows)
{
	*cols = outer_cols;
	*rows = outer_rows;
}

void
attach_drop_ack(struct attach *a)
{
	a->ack_deadline = 0;
	a->ack_owed = false;
	a->ack_owed_bytes = 0;
}
