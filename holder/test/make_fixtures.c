/*
 * make_fixtures.c -- writes the golden frames (`make fixtures`).  Run it
 * only when a frame layout is added; the files are committed, and both the
 * C and the TypeScript tests decode them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "holder.h"
#include "fixtures.h"

static const char *dir;
static uint8_t stream[4096];
static size_t stream_length;

static void
write_file(const char *name, const uint8_t *bytes, size_t length)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(bytes, 1, length, f) != length ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* A stream frame: header from the encoder, then the bytes. */
static size_t
encode_stream(uint8_t *out, uint8_t type, uint64_t offset, uint8_t flags,
    const char *bytes)
{
	size_t n = frame_encode_stream_header(out, type, offset, flags,
	    strlen(bytes));

	memcpy(out + n, bytes, strlen(bytes));
	return n + strlen(bytes);
}

static void
keep(const char *name, const uint8_t *frame, size_t n, bool in_stream)
{
	write_file(name, frame, n);
	if (in_stream) {
		memcpy(stream + stream_length, frame, n);
		stream_length += n;
	}
}

static void
write_state(void)
{
	struct state_fields s = { .ring_start = FIX_RING_START,
	    .offset = FIX_OFFSET, .child_pid = FIX_CHILD_PID,
	    .fg_pgid = FIX_FG_PGID, .cols = FIX_COLS, .rows = FIX_ROWS,
	    .flags = STATE_F_EXITED | STATE_F_LEASED | STATE_F_YOU_LEASE,
	    .exit_code = FIX_EXIT_CODE, .exit_signal = FIX_EXIT_SIGNAL,
	    .started_at_ms = FIX_STARTED_AT_MS,
	    .ring_capacity = FIX_RING_CAPACITY, .build = FIX_BUILD };
	uint8_t f[FRAME_HEADER_BYTES + STATE_PAYLOAD_BYTES];

	for (int i = 0; i < GENERATION_BYTES; i++)
		s.generation[i] = (uint8_t)i;
	keep("state.bin", f, frame_encode_state(f, &s), true);
}

static void
write_input_frames(void)
{
	uint8_t writer[WRITER_ID_BYTES], f[256];

	for (int i = 0; i < WRITER_ID_BYTES; i++)
		writer[i] = (uint8_t)(FIX_WRITER_FIRST_BYTE + i);
	keep("input-from.bin", f, frame_encode_input_from(f, writer,
	    FIX_INPUT_AT, (const uint8_t *)FIX_INPUT_BYTES,
	    strlen(FIX_INPUT_BYTES)), false);
	keep("input-taken.bin", f, frame_encode_input_taken(f, writer,
	    FIX_INPUT_TAKEN), true);
}

int
main(int argc, char **argv)
{
	uint8_t f[256];

	if (argc != 2) {
		fprintf(stderr, "usage: make-fixtures DIR\n");
		return 2;
	}
	dir = argv[1];
	keep("hello.bin", f, frame_encode_u32(f, FRAME_HELLO, PROTOCOL_VERSION), false);
	keep("state-req.bin", f, frame_encode_empty(f, FRAME_STATE_REQ), false);
	write_state();
	keep("acquire.bin", f, frame_encode_empty(f, FRAME_ACQUIRE), false);
	keep("acquired.bin", f, frame_encode_empty(f, FRAME_ACQUIRED), true);
	keep("denied.bin", f, frame_encode_text(f, sizeof f, FRAME_DENIED, FIX_DENIED_TEXT), false);
	keep("release.bin", f, frame_encode_empty(f, FRAME_RELEASE), false);
	keep("dump-since.bin", f, frame_encode_u64(f, FRAME_DUMP_SINCE, FIX_DUMP_OFFSET), false);
	keep("replay.bin", f, encode_stream(f, FRAME_REPLAY, FIX_RING_START, 0, FIX_REPLAY_BYTES), false);
	keep("replay-gap-end.bin", f, encode_stream(f, FRAME_REPLAY, FIX_RING_START, REPLAY_F_GAP | REPLAY_F_END, FIX_GAP_BYTES), true);
	keep("replay-end-empty.bin", f, encode_stream(f, FRAME_REPLAY, FIX_OFFSET, REPLAY_F_END, ""), false);
	keep("output.bin", f, encode_stream(f, FRAME_OUTPUT, FIX_OFFSET, 0, FIX_OUTPUT_BYTES), true);
	keep("input.bin", f, frame_encode_text(f, sizeof f, FRAME_INPUT, FIX_INPUT_BYTES), false);
	write_input_frames();
	keep("watch.bin", f, frame_encode_empty(f, FRAME_WATCH), false);
	keep("resize.bin", f, frame_encode_resize(f, 120, 40), false);
	keep("signal.bin", f, frame_encode_u32(f, FRAME_SIGNAL, 2), false);
	keep("redraw.bin", f, frame_encode_empty(f, FRAME_REDRAW), false);
	keep("kill.bin", f, frame_encode_empty(f, FRAME_KILL), false);
	keep("ping.bin", f, frame_encode_u64(f, FRAME_PING, FIX_PING_TOKEN), false);
	keep("pong.bin", f, frame_encode_u64(f, FRAME_PONG, FIX_PING_TOKEN), false);
	keep("exit.bin", f, frame_encode_exit(f, 3, 0), false);
	keep("exit-signal.bin", f, frame_encode_exit(f, FIX_EXIT_CODE, FIX_EXIT_SIGNAL), true);
	keep("exec.bin", f, frame_encode_text(f, sizeof f, FRAME_EXEC, FIX_EXEC_PATH), false);
	keep("exec-failed.bin", f, frame_encode_text(f, sizeof f, FRAME_EXEC_FAILED, FIX_EXEC_FAILED_TEXT), false);
	keep("error-too-large.bin", f, frame_encode_error(f, sizeof f, ERROR_TOO_LARGE, FIX_TOO_LARGE_TEXT), false);
	write_file("stream.bin", stream, stream_length);
	return 0;
}
