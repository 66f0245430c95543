/*
 * untaken.c -- what the viewer typed to its session, numbered from 0 and
 * kept until the session's holder is known to have it (INPUT_AT out,
 * INPUT_TAKEN back).  A byte the server has merely received can still die
 * with it; one the holder has taken cannot.  So each byte is sent at its
 * number, dropped once INPUT_TAKEN covers it, and after a reconnect
 * everything not yet covered is sent again at the same numbers: the holder
 * drops what it already has, and the program gets every byte once.  The
 * same bookkeeping as src/protocol/untaken-input.ts (UntakenInput), whose
 * numbering a hand-off to the TypeScript viewer carries on.
 *
 * Each piece is one INPUT_AT's worth (at most MAX_INPUT_BYTES_PER_FRAME,
 * never cutting a UTF-8 character, as splitInput cuts) in its own
 * allocation, freed when taken.  How much may wait untaken is the caller's
 * limit: it stops reading the terminal while too much is.
 */
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

/* Pieces the array starts with; it doubles from there. */
#define UNTAKEN_FIRST_PIECES 16

void
untaken_init(struct untaken *u)
{
	memset(u, 0, sizeof *u);
}

void
untaken_free(struct untaken *u)
{
	for (size_t i = 0; i < u->count; i++)
		free(u->pieces[i].data);
	free(u->pieces);
	untaken_init(u);
}

/*
 * Where the piece starting at `start` ends (splitInput): at most `max`
 * bytes, stepped back over up to 3 continuation bytes to the lead byte of
 * the character that would be cut, unless that leaves nothing.
 */
static size_t
untaken_piece_end(const uint8_t *p, size_t n, size_t start, size_t max)
{
	size_t end, back = 0;

	if (n - start <= max)
		return n;
	end = start + max;
	while (back < 3 && (p[end - back] & 0xc0) == 0x80)
		back++;
	if (end - back > start)
		end -= back;
	return end;
}

static int
untaken_reserve(struct untaken *u, size_t more)
{
	size_t want = u->alloc > 0 ? u->alloc : UNTAKEN_FIRST_PIECES;
	struct input_piece *grown;

	if (u->count + more <= u->alloc)
		return 0;
	while (want < u->count + more)
		want *= 2;
	grown = realloc(u->pieces, want * sizeof *grown);
	if (grown == NULL)
		return -1;
	u->pieces = grown;
	u->alloc = want;
	return 0;
}

/* All or nothing: on no memory nothing is kept and nothing numbered. */
int
untaken_add(struct untaken *u, const uint8_t *p, size_t n)
{
	size_t pieces = 0, kept = u->count;
	uint64_t at = u->next;

	for (size_t start = 0; start < n; start = untaken_piece_end(p, n, start, MAX_INPUT_BYTES_PER_FRAME))
		pieces++;
	if (untaken_reserve(u, pieces) < 0)
		return -1;
	for (size_t start = 0, end; start < n; start = end) {
		struct input_piece *piece = &u->pieces[u->count];

		end = untaken_piece_end(p, n, start, MAX_INPUT_BYTES_PER_FRAME);
		/* A copy: the caller's buffer is reused while this waits for INPUT_TAKEN. */
		piece->data = malloc(end - start);
		if (piece->data == NULL) {
			while (u->count > kept)
				free(u->pieces[--u->count].data);
			return -1;
		}
		memcpy(piece->data, p + start, end - start);
		piece->len = end - start;
		piece->at = at;
		at += piece->len;
		u->count++;
	}
	u->next = at;
	return 0;
}

/*
 * Bytes in a dead socket may never have reached the server: nothing not
 * yet taken counts as sent any more, so the next send has it all again.
 */
void
untaken_rewind(struct untaken *u)
{
	u->sent_end = u->taken;
}

/*
 * Pieces wholly below `total` are dropped; one covered in part is kept
 * whole (sent again, the holder drops the part it has).  A total past what
 * was typed is not this viewer's count and changes nothing.
 */
bool
untaken_take(struct untaken *u, uint64_t total)
{
	size_t done = 0;

	if (total <= u->taken || total > u->next)
		return false;
	u->taken = total;
	while (done < u->count && u->pieces[done].at + u->pieces[done].len <= total)
		free(u->pieces[done++].data);
	if (done > 0) {
		memmove(u->pieces, u->pieces + done, (u->count - done) * sizeof *u->pieces);
		u->count -= done;
	}
	if (u->sent_end < total)
		u->sent_end = total;
	return true;
}

void
untaken_send_unsent(struct untaken *u, void (*send)(void *ctx, const struct input_piece *piece), void *ctx)
{
	uint64_t from = u->sent_end;

	u->sent_end = u->next;
	for (size_t i = 0; i < u->count; i++) {
		if (u->pieces[i].at + u->pieces[i].len > from)
			send(ctx, &u->pieces[i]);
	}
}
