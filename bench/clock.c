/* clock.c -- monotonic time, readiness waits and latency summaries. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ptytool.h"

int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double
ns_to_ms(int64_t ns)
{
	return (double)ns / 1e6;
}

int
wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;

	for (;;) {
		int64_t left_ns = deadline - now_ns();
		int left_ms = left_ns <= 0 ? 0 : (int)((left_ns + 999999) / 1000000);
		int n = poll(&p, 1, left_ms);

		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

int
compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile over sorted values. */
static double
percentile_us(const int64_t *sorted, int n, double p)
{
	int rank;

	if (n == 0)
		return -1;
	rank = (int)(p / 100.0 * n + 0.999999) - 1;
	if (rank < 0)
		rank = 0;
	if (rank >= n)
		rank = n - 1;
	return (double)sorted[rank] / 1000.0;
}

void
print_latencies(int64_t *lat_ns, int keys, int timeouts, int per_key)
{
	int n = keys - timeouts;
	int i;

	/* per-key order is kept for the listing; sort a copy for percentiles */
	int64_t *sorted = malloc(sizeof *sorted * (size_t)(n > 0 ? n : 1));
	if (sorted == NULL) {
		fprintf(stderr, "ptytool: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		sorted[i] = lat_ns[i];
	qsort(sorted, (size_t)n, sizeof *sorted, compare_i64);
	printf("{\"keys\":%d,\"timeouts\":%d,\"p50_us\":%.1f,\"p99_us\":%.1f,"
	    "\"min_us\":%.1f,\"max_us\":%.1f",
	    keys, timeouts, percentile_us(sorted, n, 50), percentile_us(sorted, n, 99),
	    n ? (double)sorted[0] / 1000.0 : -1, n ? (double)sorted[n - 1] / 1000.0 : -1);
	if (per_key) {
		printf(",\"latencies_us\":[");
		for (i = 0; i < n; i++)
			printf("%s%.1f", i ? "," : "", (double)lat_ns[i] / 1000.0);
		printf("]");
	}
	printf("}\n");
	free(sorted);
}
