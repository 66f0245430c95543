/*
 * log.c -- the holder's log line and its clock: what every other file uses,
 * so they sit apart from the start-up (main.c) and the loop (loop.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"

void
holder_log(const char *fmt, ...)
{
	char line[CAUSE_BYTES * 2];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ ", &tm);
	n += snprintf(line + n, sizeof line - (size_t)n, "tend-holder[%d]: ",
	    (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

int64_t
holder_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
