/*
 * term.c -- what the attach writes to the outer terminal, and the acks that
 * writing earns. Everything for the terminal (a snapshot's paint, the
 * session's bytes, a status line, an overlay) is gathered in one buffer and
 * written in one write() at the end of a turn of the loop (or sooner, past
 * TERM_FLUSH_BYTES), so a burst of output costs one syscall. Stream bytes
 * are acked only once their write returned -- the server's flow control is
 * about what the terminal took, not what this process read -- at once past
 * 32 KiB, else with the next key or 50 ms later, so a key wakes the server
 * once (link.c sends the ack).
 *
 * The stream's bytes come from the server, and a typist's echo may come
 * first from the holder (typist.c: a piece of its output). Each byte is
 * written once: a piece only where it continues what the terminal shows
 * (shown_seq), and a DATA without the part shown already. Acks, and the
 * position a reconnect resumes from, stay the server's (written.seq).
 */
#include <string.h>

#include "state.h"

/* Written bytes that are acked at once (the server stops sending at 256 KiB unacked)... */
#define ACK_EAGER_BYTES (32 * 1024)
/* ...else acked this long after the write, or sooner with the next key. */
#define ACK_DELAY_MS 50

/*
 * Writes what is queued for the terminal; then the stream bytes in it are
 * written, and their ack is owed -- to the socket and channel they came on
 * (after a reconnect or a repaint the new channel starts from its resume
 * point, and an older ack would go backwards).
 */
void
term_flush(struct attach *a)
{
	bool pend = a->pend_have;

	if (a->term.len > 0 && !a->term_dead) {
		if (outer_write_all(a->term.data, a->term.len) != 0) {
			a->term_dead = true;
			pend = false;
			/* The terminal is gone (hung up): nothing is shown any more. */
			attach_finish(a, OUT_SIGNAL, NULL);
		}
	}
	buf_clear(&a->term);
	a->pend_have = false;
	if (!pend || a->finished || !a->link || a->pend_gen != a->link_gen || a->pend_channel != a->channel)
		return;
	a->ack_owed = true;
	a->ack_owed_seq = a->pend_seq;
	a->ack_owed_bytes += a->pend_bytes;
	if (a->ack_owed_bytes >= ACK_EAGER_BYTES)
		link_send_ack(a);
	else if (a->ack_deadline == 0)
		a->ack_deadline = outer_now_ms() + ACK_DELAY_MS;
}

/* Room in the terminal buffer: written out first when it has grown large. */
void
term_room(struct attach *a, size_t n)
{
	if (a->term.len > 0 && a->term.len + n > TERM_FLUSH_BYTES)
		term_flush(a);
}

void
term_write(struct attach *a, const void *p, size_t n)
{
	term_room(a, n);
	if (buf_append(&a->term, p, n) != 0) {
		term_flush(a);
		if (!a->term_dead && outer_write_all(p, n) != 0)
			a->term_dead = true;
	}
}

void
term_writes(struct attach *a, const char *s)
{
	term_write(a, s, strlen(s));
}

/* Stream bytes (or a snapshot's paint, already in `term`) written: an ack of seq is owed once they are out. */
void
term_wrote_stream(struct attach *a, const char *boot, size_t boot_len, uint64_t seq, size_t bytes)
{
	if (boot != a->written.boot) {
		size_t n = boot_len < sizeof a->written.boot - 1 ? boot_len : sizeof a->written.boot - 1;

		memmove(a->written.boot, boot, n);
		a->written.boot[n] = '\0';
	}
	a->written.seq = seq;
	a->have_written = true;
	if (a->pend_have && (a->pend_gen != a->link_gen || a->pend_channel != a->channel))
		a->pend_bytes = 0;
	if (!a->pend_have)
		a->pend_bytes = 0;
	a->pend_have = true;
	a->pend_seq = seq;
	a->pend_bytes += bytes;
	a->pend_gen = a->link_gen;
	a->pend_channel = a->channel;
}

void
term_shown_at(struct attach *a, bool known, uint64_t seq)
{
	a->shown_known = known;
	a->shown_seq = seq;
}

void
term_shown_reached(struct attach *a, uint64_t seq)
{
	if (!a->shown_known || seq > a->shown_seq)
		a->shown_seq = seq;
	a->shown_known = true;
}

size_t
term_shown_already(const struct attach *a, uint64_t seq, size_t len)
{
	uint64_t start = seq - len;

	if (!a->shown_known || a->shown_seq <= start)
		return 0;
	return a->shown_seq - start < len ? (size_t)(a->shown_seq - start) : len;
}

void
term_show_piece(struct attach *a, const char *stream, uint64_t offset, const uint8_t *p, size_t n)
{
	size_t skip;

	/* Another stream (a revived session numbers its own until the next server), a hole, or all of it shown. */
	if (!a->shown_known || strcmp(stream, a->written.boot) != 0 || offset > a->shown_seq || offset + n <= a->shown_seq)
		return;
	skip = (size_t)(a->shown_seq - offset);
	alt_tracker_feed(&a->alt, p + skip, n - skip);
	term_write(a, p + skip, n - skip);
	a->shown_seq = offset + n;
}
