/*
 * ring.c -- the output ring: the last `capacity` bytes the PTY produced, the
 * 64-bit count of every byte ever written, and the offsets where a replay
 * may safely begin.  No I/O and no allocation here; main.c hands in memory.
 *
 * A replay that starts inside an escape sequence or a UTF-8 sequence makes
 * the terminal emulator on the other side print garbage or swallow the next
 * real sequence.  So every byte is run through a tiny scanner that knows
 * only enough of ECMA-48 to tell "between sequences" (ground) from "inside
 * one", and the first ground offset of each block is remembered.
 */
#include <string.h>

#include "holder.h"

enum scan_state {
	SCAN_GROUND,
	SCAN_UTF8,		/* inside a multi-byte UTF-8 character */
	SCAN_ESC,		/* after ESC */
	SCAN_ESC_INTER,		/* ESC then intermediate bytes */
	SCAN_CSI,		/* ESC [ ... up to the final byte */
	SCAN_STRING,		/* OSC, DCS, SOS, PM, APC: up to ST or BEL */
	SCAN_STRING_ESC,	/* ESC inside a string: ST if '\' follows */
};

_Static_assert(SCAN_STRING_ESC + 1 == RING_SCAN_STATES,
    "holder.h's RING_SCAN_STATES counts enum scan_state");

#define BYTE_ESC 0x1b
#define BYTE_BEL 0x07
#define BYTE_CAN 0x18
#define BYTE_SUB 0x1a

size_t
ring_mark_count(size_t capacity)
{
	/* The live bytes touch at most capacity/BLOCK + 2 blocks at once. */
	return capacity / RING_MARK_BLOCK_BYTES + 2;
}

void
ring_init(struct ring *r, uint8_t *bytes, size_t capacity, uint16_t *marks)
{
	r->bytes = bytes;
	r->capacity = capacity;
	r->marks = marks;
	r->mark_count = ring_mark_count(capacity);
	r->offset = 0;
	r->scan = SCAN_GROUND;
	r->utf8_left = 0;
	for (size_t i = 0; i < r->mark_count; i++)
		r->marks[i] = RING_MARK_NONE;
}

uint64_t
ring_oldest(const struct ring *r)
{
	return r->offset > r->capacity ? r->offset - r->capacity : 0;
}

static uint16_t *
ring_mark_of(const struct ring *r, uint64_t block)
{
	return &r->marks[block % r->mark_count];
}

/*
 * The first safe boundary at or after the oldest byte.  Inside the oldest,
 * partly overwritten block only its first mark is known, so when that mark
 * was overwritten the answer moves on to the next block's mark: ring_start
 * may lag the oldest byte by up to one block more than strictly needed.
 * With no safe boundary at all (one huge OSC) it is the live offset.
 */
uint64_t
ring_start(const struct ring *r)
{
	uint64_t oldest = ring_oldest(r);
	uint64_t block = oldest / RING_MARK_BLOCK_BYTES;
	uint64_t last;

	if (r->offset == 0)
		return 0;
	last = (r->offset - 1) / RING_MARK_BLOCK_BYTES;
	for (; block <= last; block++) {
		uint16_t mark = *ring_mark_of(r, block);
		uint64_t at = block * RING_MARK_BLOCK_BYTES + mark;

		if (mark != RING_MARK_NONE && at >= oldest && at < r->offset)
			return at;
	}
	return r->offset;
}

/* The contiguous room at the head, overwriting the oldest bytes. */
size_t
ring_space(const struct ring *r, uint8_t **at)
{
	size_t head = (size_t)(r->offset % r->capacity);

	*at = r->bytes + head;
	return r->capacity - head;
}

static bool
scan_is_string_start(uint8_t c)
{
	/* OSC ], DCS P, SOS X, PM ^, APC _ */
	return c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_';
}

static uint8_t
scan_after_esc(uint8_t c)
{
	if (c == '[')
		return SCAN_CSI;
	if (scan_is_string_start(c))
		return SCAN_STRING;
	if (c == BYTE_ESC)
		return SCAN_ESC;
	if (c >= 0x20 && c <= 0x2f)
		return SCAN_ESC_INTER;
	if (c < 0x20 && c != BYTE_CAN && c != BYTE_SUB)
		return SCAN_ESC;	/* C0 controls run inside sequences */
	return SCAN_GROUND;
}

static uint8_t
scan_ground(struct ring *r, uint8_t c)
{
	if (c == BYTE_ESC)
		return SCAN_ESC;
	if (c >= 0xc2 && c <= 0xf4) {
		r->utf8_left = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
		return SCAN_UTF8;
	}
	return SCAN_GROUND;	/* ASCII, C0, or a stray byte */
}

static uint8_t
scan_byte(struct ring *r, uint8_t c)
{
	switch (r->scan) {
	case SCAN_UTF8:
		if (c >= 0x80 && c <= 0xbf)
			return --r->utf8_left == 0 ? SCAN_GROUND : SCAN_UTF8;
		return scan_ground(r, c);	/* broken sequence: restart */
	case SCAN_ESC:
		return scan_after_esc(c);
	case SCAN_ESC_INTER:
		if (c >= 0x20 && c <= 0x2f)
			return SCAN_ESC_INTER;
		return c == BYTE_ESC ? SCAN_ESC : SCAN_GROUND;
	case SCAN_CSI:
		if (c == BYTE_ESC)
			return SCAN_ESC;
		if ((c >= 0x40 && c <= 0x7e) || c == BYTE_CAN || c == BYTE_SUB)
			return SCAN_GROUND;
		return SCAN_CSI;
	case SCAN_STRING:
		if (c == BYTE_BEL || c == BYTE_CAN || c == BYTE_SUB)
			return SCAN_GROUND;
		return c == BYTE_ESC ? SCAN_STRING_ESC : SCAN_STRING;
	case SCAN_STRING_ESC:
		/* ESC \ ends the string; any other ESC starts a new sequence. */
		return c == '\\' ? SCAN_GROUND : scan_after_esc(c);
	default:
		return scan_ground(r, c);
	}
}

/*
 * Scan `n` bytes that all lie in one block.  Plain ASCII in ground state
 * (most output) is skipped in a tight loop: it cannot change the state,
 * and the block's first safe offset is already known.
 */
static void
ring_scan_block(struct ring *r, const uint8_t *p, size_t n, uint16_t *mark,
    size_t within)
{
	for (size_t i = 0; i < n; i++) {
		if (r->scan == SCAN_GROUND) {
			if (*mark == RING_MARK_NONE)
				*mark = (uint16_t)(within + i);
			while (i < n && p[i] < 0x80 && p[i] != BYTE_ESC)
				i++;
			if (i == n)
				break;
		}
		r->scan = scan_byte(r, p[i]);
	}
}

/* Account for `length` bytes just written at the head (by ring_space). */
void
ring_commit(struct ring *r, size_t length)
{
	const uint8_t *p = r->bytes + (size_t)(r->offset % r->capacity);

	while (length > 0) {
		size_t within = (size_t)(r->offset % RING_MARK_BLOCK_BYTES);
		size_t n = RING_MARK_BLOCK_BYTES - within;
		uint16_t *mark = ring_mark_of(r, r->offset / RING_MARK_BLOCK_BYTES);

		if (n > length)
			n = length;
		if (within == 0)
			*mark = RING_MARK_NONE;	/* the slot's old block is gone */
		ring_scan_block(r, p, n, mark, within);
		p += n;
		length -= n;
		r->offset += n;
	}
}

/* Copying append, for callers that do not read straight into the ring. */
void
ring_append(struct ring *r, const uint8_t *data, size_t length)
{
	while (length > 0) {
		uint8_t *at;
		size_t n = ring_space(r, &at);

		if (n > length)
			n = length;
		memcpy(at, data, n);
		ring_commit(r, n);
		data += n;
		length -= n;
	}
}

/*
 * Up to `length` bytes from offset `from`, as at most two slices (the ring
 * wraps once).  Returns the byte count; 0 when `from` is not in the ring.
 */
size_t
ring_peek(const struct ring *r, uint64_t from, size_t length,
    struct ring_span spans[2])
{
	size_t at, first;

	spans[0].length = spans[1].length = 0;
	if (from < ring_oldest(r) || from >= r->offset)
		return 0;
	if (length > r->offset - from)
		length = (size_t)(r->offset - from);
	at = (size_t)(from % r->capacity);
	first = r->capacity - at < length ? r->capacity - at : length;
	spans[0].bytes = r->bytes + at;
	spans[0].length = first;
	spans[1].bytes = r->bytes;
	spans[1].length = length - first;
	return length;
}
