/*
 * pty_modes.c -- the raw-PTY modes: drain (throughput), echo (keystroke
 * latency) and attach (time to paint).  The program under test decides what
 * is on the other side: `cat FILE` for the raw PTY, a tmux client, a tend
 * attach.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ptytool.h"

#define READ_CHUNK_BYTES (64 * 1024)
/* a tmux client or shell that never paints must not hang the bench */
#define FIRST_BYTE_LIMIT_MS 10000
/* keys between untimed carriage returns, so a line never wraps or fills MAX_CANON */
#define KEYS_PER_LINE 64
#define LINE_QUIET_MS 20

static char buf[READ_CHUNK_BYTES];

size_t
drain_until_quiet(int fd, int quiet_ms, int max_ms)
{
	int64_t deadline = now_ns() + (int64_t)max_ms * 1000000;
	size_t total = 0;

	while (now_ns() < deadline) {
		ssize_t n;

		if (wait_readable(fd, quiet_ms) != 1)
			break;
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;   /* EIO: every slave side has closed */
		total += (size_t)n;
	}
	return total;
}

/* Hangs up the PTY (SIGHUP to its session) and reaps the leader. */
static int
hang_up(struct pty_child *c)
{
	close(c->master);
	kill(c->pid, SIGHUP);
	return pty_reap(c->pid);
}

int
mode_drain(const struct pty_opts *o)
{
	char cause[CAUSE_BYTES];
	struct pty_child c;
	uint64_t bytes = 0;
	int64_t start = now_ns(), elapsed;
	int status;

	if (pty_spawn(&c, o->cols, o->rows, o->argv, cause) < 0) {
		fprintf(stderr, "ptytool: %s\n", cause);
		return 1;
	}
	for (;;) {
		ssize_t n = read(c.master, buf, sizeof buf);

		if (n > 0)
			bytes += (uint64_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			break;   /* EIO once the last writer has gone */
	}
	elapsed = now_ns() - start;
	close(c.master);
	status = pty_reap(c.pid);
	printf("{\"bytes\":%llu,\"elapsed_ms\":%.3f,\"mb_per_s\":%.3f,\"status\":%d}\n",
	    (unsigned long long)bytes, ns_to_ms(elapsed),
	    (double)bytes / 1e6 / ((double)elapsed / 1e9), status);
	return 0;
}

int
mode_echo(const struct pty_opts *o)
{
	char cause[CAUSE_BYTES];
	struct pty_child c;
	int64_t *lat = malloc(sizeof *lat * (size_t)o->keys);
	int timeouts = 0, got = 0, i;

	if (lat == NULL || pty_spawn(&c, o->cols, o->rows, o->argv, cause) < 0) {
		fprintf(stderr, "ptytool: %s\n", lat ? cause : "out of memory");
		return 1;
	}
	/* let the program paint its first screen before any key is timed */
	drain_until_quiet(c.master, o->settle_ms, FIRST_BYTE_LIMIT_MS);
	for (i = 0; i < o->keys; i++) {
		char key = (char)('a' + i % 26);
		int64_t t0 = now_ns();

		if (write_all(c.master, &key, 1) < 0) {
			fprintf(stderr, "ptytool: write to the PTY failed\n");
			return 1;
		}
		if (wait_readable(c.master, o->timeout_ms) == 1 && read(c.master, buf, sizeof buf) > 0)
			lat[got++] = now_ns() - t0;
		else
			timeouts++;
		drain_until_quiet(c.master, o->gap_ms, 1000);
		if ((i + 1) % KEYS_PER_LINE == 0) {
			(void)!write(c.master, "\r", 1);
			drain_until_quiet(c.master, LINE_QUIET_MS, 2000);
		}
	}
	hang_up(&c);
	print_latencies(lat, o->keys, timeouts, o->per_key);
	free(lat);
	return 0;
}

int
mode_attach(const struct pty_opts *o)
{
	char cause[CAUSE_BYTES];
	struct pty_child c;
	int64_t start = now_ns(), first = 0, last = 0;
	uint64_t bytes = 0;

	if (pty_spawn(&c, o->cols, o->rows, o->argv, cause) < 0) {
		fprintf(stderr, "ptytool: %s\n", cause);
		return 1;
	}
	for (;;) {
		int wait_ms = first ? o->quiet_ms : FIRST_BYTE_LIMIT_MS;
		ssize_t n;

		if (wait_readable(c.master, wait_ms) != 1)
			break;
		n = read(c.master, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		last = now_ns();
		if (!first)
			first = last;
		bytes += (uint64_t)n;
	}
	hang_up(&c);
	if (!first) {
		fprintf(stderr, "ptytool: %s painted nothing in %d ms\n", o->argv[0], FIRST_BYTE_LIMIT_MS);
		return 1;
	}
	printf("{\"first_byte_ms\":%.3f,\"last_byte_ms\":%.3f,\"bytes\":%llu}\n",
	    ns_to_ms(first - start), ns_to_ms(last - start), (unsigned long long)bytes);
	return 0;
}
