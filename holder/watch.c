/*
 * watch.c -- the output's small pieces, copied to the connections that
 * WATCH (docs/protocol.md: watching).  A viewer typing straight to the
 * holder (a typist) would otherwise see its echo only once the server had
 * read it, and the server's event loop is most of the time a key takes.
 * A turn's PTY read of at most WATCH_PIECE_MAX_BYTES -- a key's echo, a
 * prompt, a line redrawn -- is copied into each watcher's control buffer
 * as an OUTPUT frame at its offset, while there is room for it with the
 * answers' room kept back.  A flood's reads are bigger and are skipped:
 * the watcher has the server's stream for those.  The copies are the
 * watcher's own, so no watcher, however slow, holds the ring or the PTY.
 *
 * Once a piece went to a watcher, the controller's copy of the same bytes
 * waits a moment, so the server's turn on it does not take a core the
 * echo's way to the person needs (on two cores a 350 µs echo went to 295).
 * Never prolonged: a stream of small reads still reaches the controller
 * every WATCH_STREAM_HOLD_MS.
 */
#include <string.h>

#include "holder.h"

/* Kept free in a watcher's control buffer for its answers and a PONG. */
#define WATCH_ANSWER_ROOM_BYTES 512
/* The controller's hold: 1 to 2 ms on the holder's millisecond clock. */
#define WATCH_STREAM_HOLD_MS 2

static bool
watch_copy(struct holder *h, struct conn *c, uint64_t from, size_t n)
{
	struct ring_span spans[2];
	uint8_t *out;

	if (conn_room(c, CONN_ERROR_RESERVE_BYTES + WATCH_ANSWER_ROOM_BYTES) <
	    STREAM_HEADER_BYTES + n)
		return false;	/* the watcher is behind: it goes without */
	if (ring_peek(&h->ring, from, n, spans) != n)
		return false;
	out = c->out + c->out_length;
	out += frame_encode_stream_header(out, FRAME_OUTPUT, from, 0, n);
	for (int i = 0; i < 2; i++) {
		memcpy(out, spans[i].bytes, spans[i].length);
		out += spans[i].length;
	}
	c->out_length = (size_t)(out - c->out);
	/* A key's answer waited for this: both in one wake-up of the watcher. */
	c->answers_held_until_ms = NEVER_MS;
	return true;
}

/* The bytes from `from` to the ring's offset, to each watcher with room. */
void
watch_offer(struct holder *h, uint64_t from)
{
	size_t n = (size_t)(h->ring.offset - from);
	bool any = false;

	if (n == 0 || n > WATCH_PIECE_MAX_BYTES)
		return;
	for (size_t i = 0; i < CONN_MAX; i++) {
		struct conn *c = &h->conns[i];

		if (c->fd >= 0 && c->watching && !c->closing &&
		    c != h->controller && watch_copy(h, c, from, n))
			any = true;
	}
	if (any && h->controller != NULL &&
	    h->controller->stream_held_until_ms == NEVER_MS)
		h->controller->stream_held_until_ms = holder_now_ms() +
		    WATCH_STREAM_HOLD_MS;
}
