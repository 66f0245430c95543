/*
 * pty_modes.c -- the raw-PTY modes: drain (throughput), echo (keystroke
 * latency), attach (time to paint) and watch (a viewer's time to show a
 * stream's end).  The program under test decides what is on the other side:
 * `cat FILE` for the raw PTY, a tmux client, a tend attach.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptytool.h"

#define READ_CHUNK_BYTES (64 * 1024)
/* a tmux client or shell that never paints must not hang the bench */
#define FIRST_BYTE_LIMIT_MS 10000
/* keys between untimed carriage returns, so a line never wraps or fills MAX_CANON */
#define KEYS_PER_LINE 64
#define LINE_QUIET_MS 20
/* watch: a viewer that shows nothing new for this long has stalled */
#define WATCH_STALL_MS 60000
#define MARKER_MAX_BYTES 256

static char buf[READ_CHUNK_BYTES];
/* watch reads here: the tail of the previous read, then the new bytes */
static char scan[MARKER_MAX_BYTES + READ_CHUNK_BYTES];

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

/*
 * Lets the program paint its first screen before anything is timed.  With
 * await_paint the first byte is waited for (up to FIRST_BYTE_LIMIT_MS), and
 * only then settle_ms of quiet: a client that starts slower than settle_ms
 * (a Node viewer on a busy machine) would otherwise get keys while its tty is
 * still cooked, and the kernel would echo them at once, timing nothing.
 * Without it the first quiet spell ends the wait, as a bare `cat` paints
 * nothing.  Returns -1 when a paint was awaited and none came.
 */
static int
settle(int fd, const struct pty_opts *o)
{
	if (o->await_paint && wait_readable(fd, FIRST_BYTE_LIMIT_MS) != 1)
		return -1;
	drain_until_quiet(fd, o->settle_ms, FIRST_BYTE_LIMIT_MS);
	return 0;
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
	if (settle(c.master, o) < 0) {
		fprintf(stderr, "ptytool: %s painted nothing in %d ms\n", o->argv[0], FIRST_BYTE_LIMIT_MS);
		hang_up(&c);
		return 1;
	}
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

/* Lets the program (blocked on `read < FIFO`) go. */
static int
release_program(const char *fifo)
{
	int fd = open(fifo, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write_all(fd, "\n", 1) < 0) {
		fprintf(stderr, "ptytool: cannot write %s: %s\n", fifo, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * A viewer (CMD) of a program that waits on FIFO: once the viewer has painted
 * and gone quiet, the program is let go and the clock runs until MARKER, which
 * the program prints after its stream, has come out of the viewer.  A marker
 * split across reads is still found: the last bytes of each read are kept in
 * front of the next one.
 */
int
mode_watch(const struct pty_opts *o)
{
	char cause[CAUSE_BYTES];
	struct pty_child c;
	struct pty_opts painted = *o;
	size_t mlen, keep = 0;
	uint64_t bytes = 0;
	int64_t start, elapsed;
	int found = 0;

	if (o->go_fifo == NULL || o->until == NULL) {
		fprintf(stderr, "ptytool: watch needs --go FIFO and --until MARKER\n");
		return 1;
	}
	mlen = strlen(o->until);
	if (mlen > MARKER_MAX_BYTES) {
		fprintf(stderr, "ptytool: the marker is longer than %d bytes\n", MARKER_MAX_BYTES);
		return 1;
	}
	if (pty_spawn(&c, o->cols, o->rows, o->argv, cause) < 0) {
		fprintf(stderr, "ptytool: %s\n", cause);
		return 1;
	}
	painted.await_paint = 1;
	if (settle(c.master, &painted) < 0) {
		fprintf(stderr, "ptytool: %s painted nothing in %d ms\n", o->argv[0], FIRST_BYTE_LIMIT_MS);
		hang_up(&c);
		return 1;
	}
	start = now_ns();
	if (release_program(o->go_fifo) < 0) {
		hang_up(&c);
		return 1;
	}
	while (!found) {
		ssize_t n;

		if (wait_readable(c.master, WATCH_STALL_MS) != 1)
			break;
		n = read(c.master, scan + keep, READ_CHUNK_BYTES);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;   /* the viewer has gone */
		bytes += (uint64_t)n;
		if (memmem(scan, keep + (size_t)n, o->until, mlen) != NULL) {
			found = 1;
			break;
		}
		if (keep + (size_t)n >= mlen - 1) {
			memmove(scan, scan + keep + (size_t)n - (mlen - 1), mlen - 1);
			keep = mlen - 1;
		} else {
			keep += (size_t)n;
		}
	}
	elapsed = now_ns() - start;
	hang_up(&c);
	if (!found) {
		fprintf(stderr, "ptytool: %s never showed the marker (%llu bytes in %.0f ms)\n",
		    o->argv[0], (unsigned long long)bytes, ns_to_ms(elapsed));
		return 1;
	}
	printf("{\"bytes\":%llu,\"elapsed_ms\":%.3f}\n", (unsigned long long)bytes, ns_to_ms(elapsed));
	return 0;
}
