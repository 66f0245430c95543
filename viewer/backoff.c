/*
 * backoff.c -- when the attach retries a lost server (src/cli/attach/
 * backoff.ts, the same numbers): exponential delays from a small base (a
 * restart takes a few hundred ms, and the first retries should catch it),
 * capped so a long outage is polled gently, and a deadline after which the
 * attach gives up and says so.
 */
#include "viewer.h"

/* The first retry's delay; each failure doubles it... */
#define RECONNECT_BASE_MS 100
/* ...up to this... */
#define RECONNECT_MAX_DELAY_MS 2000
/* ...and this long after the first failure, the attach gives up. */
#define RECONNECT_GIVE_UP_MS 60000

void
backoff_reset(struct backoff *b)
{
	b->failures = 0;
	b->since_set = false;
	b->since_ms = 0;
}

int64_t
backoff_next(struct backoff *b, int64_t now_ms)
{
	int64_t delay, left;

	if (!b->since_set) {
		b->since_ms = now_ms;
		b->since_set = true;
	}
	if (now_ms - b->since_ms >= RECONNECT_GIVE_UP_MS)
		return -1;
	delay = (int64_t)RECONNECT_BASE_MS << (b->failures < 30 ? b->failures : 30);
	if (delay > RECONNECT_MAX_DELAY_MS)
		delay = RECONNECT_MAX_DELAY_MS;
	b->failures++;
	left = b->since_ms + RECONNECT_GIVE_UP_MS - now_ms;
	return delay < left ? delay : left;
}
