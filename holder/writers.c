/*
 * writers.c -- the writer table behind INPUT_FROM: per writer, the count of
 * its bytes the holder has taken, so a controller that resends after a
 * crash neither loses nor doubles input.  No I/O.  It lives in the holder,
 * not in a connection, because the controller that resends is usually a
 * new one.  WRITERS_REMEMBERED slots; the least recently used one is
 * given to a writer it does not know.
 */
#include <string.h>

#include "holder.h"

/* The writer's slot number, or -1 if it is not in the table. */
static int
writers_find(const struct writer_table *t, const uint8_t id[WRITER_ID_BYTES])
{
	for (int i = 0; i < WRITERS_REMEMBERED; i++) {
		const struct writer *w = &t->slots[i];

		if (w->used != 0 && memcmp(w->id, id, WRITER_ID_BYTES) == 0)
			return i;
	}
	return -1;
}

/* A free slot, else the one used longest ago. */
static struct writer *
writers_oldest(struct writer_table *t)
{
	struct writer *oldest = &t->slots[0];

	for (size_t i = 0; i < WRITERS_REMEMBERED; i++) {
		if (t->slots[i].used < oldest->used)
			oldest = &t->slots[i];
	}
	return oldest;
}

/* The answer to a question: the writer's count, or `at` if unknown. */
uint64_t
writers_count(const struct writer_table *t,
    const uint8_t id[WRITER_ID_BYTES], uint64_t at)
{
	int i = writers_find(t, id);

	return i >= 0 ? t->slots[i].taken : at;
}

/*
 * The writer's slot, marked most recently used.  A writer it does not know
 * (never seen, or forgotten) starts at `at`: the controller knows best.
 */
struct writer *
writers_use(struct writer_table *t, const uint8_t id[WRITER_ID_BYTES],
    uint64_t at)
{
	int i = writers_find(t, id);
	struct writer *w = i >= 0 ? &t->slots[i] : writers_oldest(t);

	if (i < 0) {
		memcpy(w->id, id, WRITER_ID_BYTES);
		w->taken = at;
	}
	w->used = ++t->clock;
	return w;
}

/*
 * Of `length` bytes starting at the writer's byte `at`: those before its
 * count are dropped (a resend), the rest taken.  An `at` past the count is
 * a hole: taking the bytes would lose the ones between, so none are taken.
 */
struct writer_take
writers_plan(const struct writer *w, uint64_t at, size_t length)
{
	struct writer_take plan = { 0, 0 };
	uint64_t have;

	if (at > w->taken)
		return plan;
	have = w->taken - at;
	plan.skip = have < length ? (size_t)have : length;
	plan.length = length - plan.skip;
	return plan;
}
