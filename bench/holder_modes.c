/*
 * holder_modes.c -- the holder modes: drain a holder's stream to EXIT
 * (throughput through the holder) and time keystrokes through it (INPUT in,
 * OUTPUT back).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../holder/protocol.h"
#include "ptytool.h"

#define KEYS_PER_LINE 64
#define LINE_QUIET_MS 20
#define OFFSET_BYTES 8

struct stream_count {
	uint64_t bytes, next_offset, frames, holes;
};

/* Counts an OUTPUT or REPLAY frame's bytes and checks it starts where the last ended. */
static void
count_stream(struct stream_count *s, const struct frame_in *f)
{
	size_t head = f->type == FRAME_REPLAY ? OFFSET_BYTES + 1 : OFFSET_BYTES;
	uint64_t offset;

	if (f->len < head)
		return;
	offset = get_u64(f->payload);
	if (s->frames > 0 && offset != s->next_offset)
		s->holes++;
	s->frames++;
	s->bytes += f->len - head;
	s->next_offset = offset + (f->len - head);
}

/* Reads frames until the replay's END; its bytes are counted too. */
static int
skip_replay(struct frame_reader *r, struct stream_count *s, char *cause)
{
	struct frame_in f;

	for (;;) {
		int got = frame_next(r, &f, cause);

		if (got <= 0) {
			if (got == 0)
				snprintf(cause, CAUSE_BYTES, "holder closed before its replay ended");
			return -1;
		}
		if (f.type == FRAME_REPLAY) {
			count_stream(s, &f);
			if (f.len > OFFSET_BYTES && (f.payload[OFFSET_BYTES] & REPLAY_F_END))
				return 0;
		}
	}
}

static int
open_stream(const char *socket, struct frame_reader *r, struct stream_count *s, char *cause)
{
	int fd = holder_connect(socket, cause);

	if (fd < 0)
		return -1;
	if (frame_reader_init(r, fd) < 0) {
		snprintf(cause, CAUSE_BYTES, "out of memory");
		return -1;
	}
	if (holder_take_lease(fd, r, 0, cause) < 0 || skip_replay(r, s, cause) < 0)
		return -1;
	return fd;
}

/* Tells the child (blocked on `read < FIFO`) to start writing. */
static int
release_child(const char *fifo, char *cause)
{
	int fd = open(fifo, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write_all(fd, "\n", 1) < 0) {
		snprintf(cause, CAUSE_BYTES, "cannot write %s: %s", fifo, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int
mode_holder_drain(const struct holder_opts *o)
{
	char cause[CAUSE_BYTES];
	struct stream_count s = { 0 };
	struct frame_reader r;
	struct frame_in f;
	int32_t code = 0, sig = 0;
	int64_t start, elapsed;
	int fd, got;

	if ((fd = open_stream(o->socket, &r, &s, cause)) < 0)
		goto fail;
	start = now_ns();
	if (o->go_fifo && release_child(o->go_fifo, cause) < 0)
		goto fail;
	while ((got = frame_next(&r, &f, cause)) > 0) {
		if (f.type == FRAME_OUTPUT || f.type == FRAME_REPLAY)
			count_stream(&s, &f);
		else if (f.type == FRAME_EXIT && f.len >= 8)
			break;
	}
	if (got <= 0) {
		if (got == 0)
			snprintf(cause, CAUSE_BYTES, "holder closed before EXIT");
		goto fail;
	}
	elapsed = now_ns() - start;
	code = (int32_t)get_u32(f.payload);
	sig = (int32_t)get_u32(f.payload + 4);
	/* KILL after EXIT means: recorded, you may go */
	frame_send(fd, FRAME_KILL, NULL, 0);
	printf("{\"bytes\":%llu,\"elapsed_ms\":%.3f,\"mb_per_s\":%.3f,\"frames\":%llu,"
	    "\"holes\":%llu,\"exit_code\":%d,\"exit_signal\":%d}\n",
	    (unsigned long long)s.bytes, ns_to_ms(elapsed),
	    (double)s.bytes / 1e6 / ((double)elapsed / 1e9), (unsigned long long)s.frames,
	    (unsigned long long)s.holes, code, sig);
	close(fd);
	frame_reader_free(&r);
	return 0;
fail:
	fprintf(stderr, "ptytool: %s\n", cause);
	return 1;
}

/* Consumes frames until the socket has been quiet for quiet_ms. */
static int
frames_until_quiet(struct frame_reader *r, int quiet_ms, char *cause)
{
	struct frame_in f;

	while (frame_buffered(r) || wait_readable(r->fd, quiet_ms) == 1) {
		if (frame_next(r, &f, cause) <= 0)
			return -1;
	}
	return 0;
}

/* Sends one key and waits for the OUTPUT it causes: 1 echoed, 0 timeout, -1 error. */
static int
time_key(struct frame_reader *r, char key, int timeout_ms, int64_t *lat, char *cause)
{
	int64_t t0 = now_ns(), deadline = t0 + (int64_t)timeout_ms * 1000000;
	struct frame_in f;

	if (frame_send(r->fd, FRAME_INPUT, &key, 1) < 0) {
		snprintf(cause, CAUSE_BYTES, "write to holder: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		int left_ms = (int)((deadline - now_ns()) / 1000000);

		if (!frame_buffered(r) && (left_ms <= 0 || wait_readable(r->fd, left_ms) != 1))
			return 0;
		if (frame_next(r, &f, cause) <= 0)
			return -1;
		if (f.type == FRAME_OUTPUT) {
			*lat = now_ns() - t0;
			return 1;
		}
	}
}

int
mode_holder_echo(const struct holder_opts *o)
{
	char cause[CAUSE_BYTES];
	struct stream_count s = { 0 };
	struct frame_reader r;
	int64_t *lat = malloc(sizeof *lat * (size_t)o->keys);
	int fd, got = 0, timeouts = 0, i;

	if (lat == NULL || (fd = open_stream(o->socket, &r, &s, cause)) < 0)
		goto fail;
	if (frames_until_quiet(&r, o->settle_ms, cause) < 0)
		goto fail;
	for (i = 0; i < o->keys; i++) {
		int echoed = time_key(&r, (char)('a' + i % 26), o->timeout_ms, &lat[got], cause);

		if (echoed < 0)
			goto fail;
		if (echoed)
			got++;
		else
			timeouts++;
		if (frames_until_quiet(&r, o->gap_ms, cause) < 0)
			goto fail;
		if ((i + 1) % KEYS_PER_LINE == 0) {
			frame_send(fd, FRAME_INPUT, "\r", 1);
			if (frames_until_quiet(&r, LINE_QUIET_MS, cause) < 0)
				goto fail;
		}
	}
	close(fd);
	frame_reader_free(&r);
	print_latencies(lat, o->keys, timeouts, o->per_key);
	free(lat);
	return 0;
fail:
	fprintf(stderr, "ptytool: %s\n", lat ? cause : "out of memory");
	return 1;
}
