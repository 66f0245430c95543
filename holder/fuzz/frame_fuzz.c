/*
 * frame_fuzz.c -- fuzz target for the frame reader and the ring.
 *
 * The first input byte picks a chunk size; the rest is fed to the reader in
 * chunks of that size and, separately, in one piece.  Both must see the
 * same frames (type, length, payload) and stop at the same oversize length,
 * whatever the bytes.  The same bytes then go through a small ring, whose
 * offsets and ring_start must stay consistent, and every INPUT_FROM frame
 * among them through the writer table, which must take each writer's bytes
 * once, in order, and nothing across a hole.  Any mismatch aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "holder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct frame_reader reader;
/* Type, length and payload of every frame, end to end. */
static uint8_t digest_whole[1 << 21], digest_chunked[1 << 21];

static size_t
digest_add(uint8_t *digest, size_t at, const struct frame *f)
{
	if (at + 5 + f->length > sizeof digest_whole)
		return at;
	digest[at] = f->type;
	memcpy(digest + at + 1, &f->length, 4);
	memcpy(digest + at + 5, f->payload, f->length);
	return at + 5 + f->length;
}

/* Feed in chunks; returns the digest length, *too_large on refusal. */
static size_t
feed(const uint8_t *data, size_t size, size_t chunk, uint8_t *digest,
    int *too_large)
{
	size_t at = 0, length = 0;

	frame_reader_reset(&reader);
	*too_large = 0;
	while (at < size && !*too_large) {
		size_t piece = size - at < chunk ? size - at : chunk, done = 0;

		while (done < piece) {
			struct frame f;
			size_t used;
			enum frame_read_result r = frame_reader_feed(&reader,
			    data + at + done, piece - done, &used, &f);

			if (used > piece - done)
				abort();
			done += used;
			if (r == FRAME_TOO_LARGE) {
				*too_large = 1;
				break;
			}
			if (r == FRAME_READY)
				length = digest_add(digest, length, &f);
		}
		at += piece;
	}
	return length;
}

static void
fuzz_ring(const uint8_t *data, size_t size, size_t chunk)
{
	enum { CAP = 16 * 1024 };
	static uint8_t bytes[CAP];
	static uint16_t marks[CAP / RING_MARK_BLOCK_BYTES + 2];
	struct ring r;
	struct ring_span s[2];

	ring_init(&r, bytes, CAP, marks);
	for (size_t at = 0; at < size; at += chunk)
		ring_append(&r, data + at, size - at < chunk ? size - at : chunk);
	if (r.offset != size || ring_start(&r) < ring_oldest(&r) ||
	    ring_start(&r) > r.offset)
		abort();
	if (size > 0 && (ring_peek(&r, size - 1, 1, s) != 1 ||
	    s[0].bytes[0] != data[size - 1]))
		abort();
}

/* One INPUT_FROM as conn.c handles it, checking what the table decides. */
static void
fuzz_input_from(struct writer_table *t, const struct frame *f)
{
	const uint8_t *id = f->payload;
	uint64_t from = frame_get_u64(f->payload + WRITER_ID_BYTES);
	size_t length = f->length - INPUT_FROM_PREFIX_BYTES;
	uint64_t before = writers_count(t, id, from);
	struct writer *w;
	struct writer_take take;

	if (from > UINT64_MAX - length)
		return;		/* refused with BAD_PAYLOAD before the table */
	w = writers_use(t, id, from);
	take = writers_plan(w, from, length);
	if (w->taken != before || take.skip + take.length > length)
		abort();
	/* New bytes start exactly at the count and run to the frame's end. */
	if (take.length > 0 && (from + take.skip != w->taken ||
	    take.skip + take.length != length))
		abort();
	if ((from > w->taken || from + length <= w->taken) && take.length != 0)
		abort();
	if (from <= w->taken && from + length > w->taken && take.length == 0)
		abort();
	w->taken += take.length;
	if (writers_count(t, id, 0) != w->taken)
		abort();
}

static void
fuzz_writers(const uint8_t *data, size_t size)
{
	static struct writer_table table;
	size_t at = 0;

	memset(&table, 0, sizeof table);
	frame_reader_reset(&reader);
	while (at < size) {
		struct frame f;
		size_t used;
		enum frame_read_result r = frame_reader_feed(&reader, data + at,
		    size - at, &used, &f);

		at += used;
		if (r == FRAME_TOO_LARGE)
			return;
		if (r == FRAME_READY && f.type == FRAME_INPUT_FROM &&
		    f.length >= INPUT_FROM_PREFIX_BYTES)
			fuzz_input_from(&table, &f);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t whole, chunked;
	int large_whole, large_chunked;
	size_t chunk;

	if (size == 0)
		return 0;
	chunk = (size_t)data[0] % 17 + 1;
	data++;
	size--;
	whole = feed(data, size, size ? size : 1, digest_whole, &large_whole);
	chunked = feed(data, size, chunk, digest_chunked, &large_chunked);
	if (whole != chunked || large_whole != large_chunked ||
	    memcmp(digest_whole, digest_chunked, whole) != 0)
		abort();
	fuzz_ring(data, size, chunk * 97);
	fuzz_writers(data, size);
	return 0;
}
