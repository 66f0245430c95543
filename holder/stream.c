/*
 * stream.c -- the controller's output stream, which is only a cursor into
 * the ring.  DUMP_SINCE starts a replay; REPLAY and then OUTPUT frames are
 * written straight from the ring with writev (header plus at most two ring
 * slices), so nothing is copied and nothing queues; EXIT follows the last
 * byte.  The loop's flow control keeps unsent bytes inside the ring.
 */
#include <errno.h>
#include <sys/uio.h>

#include "holder.h"

/*
 * Start the replay DUMP_SINCE asked for.  An offset still in the ring is
 * taken as is (the controller's checkpoint says where its screen is); one
 * that has left the ring restarts at ring_start, flagged GAP.
 */
void
stream_start(struct holder *h, struct conn *c)
{
	c->dump_pending = false;
	c->gap = c->dump_from < ring_oldest(&h->ring);
	c->cursor = c->gap ? ring_start(&h->ring) : c->dump_from;
	c->replay_end = h->ring.offset;
	c->replaying = true;
	c->exit_sent = false;
}

bool
stream_pending(const struct holder *h, const struct conn *c)
{
	if (c != h->controller || !c->streaming)
		return false;
	return c->dump_pending || c->replaying ||
	    c->cursor < h->ring.offset || (h->output_done && !c->exit_sent);
}

/* Lay out the next OUTPUT/REPLAY frame, or say EXIT is due (the caller queues it). */
enum stream_next
stream_next_frame(struct holder *h, struct conn *c)
{
	size_t room, bytes;
	uint8_t flags = 0;

	if (!stream_pending(h, c))
		return STREAM_NONE;
	if (c->dump_pending)
		stream_start(h, c);
	if (!c->replaying && c->cursor == h->ring.offset)
		return STREAM_EXIT;	/* output_done: EXIT after the last byte */
	room = MAX_PAYLOAD_BYTES - (c->replaying ? 9 : 8);
	bytes = (size_t)((c->replaying ? c->replay_end : h->ring.offset) -
	    c->cursor);
	if (bytes > room)
		bytes = room;
	c->frame_ends_replay = c->replaying &&
	    c->cursor + bytes == c->replay_end;
	if (c->gap)
		flags |= REPLAY_F_GAP;
	if (c->frame_ends_replay)
		flags |= REPLAY_F_END;
	c->frame_header_length = frame_encode_stream_header(c->frame_header,
	    c->replaying ? FRAME_REPLAY : FRAME_OUTPUT, c->cursor, flags, bytes);
	c->frame_bytes = bytes;
	c->frame_sent = 0;
	c->frame_active = true;
	return STREAM_FRAME;
}

/* The unsent part of the frame: header, then at most two ring slices. */
static int
stream_frame_iov(const struct holder *h, const struct conn *c,
    struct iovec iov[3])
{
	size_t body_sent = 0, want;
	struct ring_span spans[2];
	int n = 0;

	if (c->frame_sent < c->frame_header_length) {
		iov[n].iov_base = (void *)(c->frame_header + c->frame_sent);
		iov[n++].iov_len = c->frame_header_length - c->frame_sent;
	} else
		body_sent = c->frame_sent - c->frame_header_length;
	want = c->frame_bytes - body_sent;
	if (ring_peek(&h->ring, c->cursor + body_sent, want, spans) != want)
		return -1;	/* would be a holder bug: flow control failed */
	for (int i = 0; i < 2; i++) {
		if (spans[i].length == 0)
			continue;
		iov[n].iov_base = (void *)spans[i].bytes;
		iov[n++].iov_len = spans[i].length;
	}
	return n;
}

static void
stream_frame_done(struct conn *c)
{
	c->cursor += c->frame_bytes;
	c->frame_active = false;
	if (c->frame_ends_replay)
		c->replaying = false;
	if (c->dump_pending && c->streaming)
		c->replaying = false;	/* restart from the new offset next */
}

/* 1: progress, 0: the socket is full, -1: the connection must be closed. */
int
stream_write_frame(struct holder *h, struct conn *c)
{
	struct iovec iov[3];
	int count = stream_frame_iov(h, c, iov);
	ssize_t n;

	if (count < 0) {
		holder_log("stream bytes left the ring; closing the controller");
		return -1;
	}
	n = count == 0 ? 0 : writev(c->fd, iov, count);
	if (n < 0 && errno == EINTR)
		return 1;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return -1;
	c->frame_sent += (size_t)n;
	if (c->frame_sent == c->frame_header_length + c->frame_bytes)
		stream_frame_done(c);
	return 1;
}

/*
 * Ring bytes some connection still has to send: the PTY must not be read
 * past them, or the ring would overwrite what is owed.
 */
uint64_t
stream_unsent(const struct holder *h)
{
	uint64_t most = 0;

	for (size_t i = 0; i < CONN_MAX; i++) {
		const struct conn *c = &h->conns[i];
		bool owes = c->frame_active ||
		    (c == h->controller && c->streaming);

		if (c->fd >= 0 && owes && h->ring.offset - c->cursor > most)
			most = h->ring.offset - c->cursor;
	}
	if (h->holding && h->ring.offset - h->held_from > most)
		most = h->ring.offset - h->held_from;
	return most;
}

