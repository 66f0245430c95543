/*
 * fixtures.h -- the values behind the golden frames in
 * test/fixtures/holder-frames.  make_fixtures.c writes the files from these;
 * test_holder.c checks the files decode back to them; the TypeScript tests
 * read the same files, so every side agrees on every byte.
 */
#ifndef TEND_FIXTURES_H
#define TEND_FIXTURES_H

#define FIX_RING_START 1000ULL
#define FIX_OFFSET 5000ULL
#define FIX_CHILD_PID 4242U
#define FIX_FG_PGID 4243U
#define FIX_COLS 80
#define FIX_ROWS 24
#define FIX_EXIT_CODE (-1)
#define FIX_EXIT_SIGNAL 9
#define FIX_STARTED_AT_MS 1700000000123ULL
#define FIX_RING_CAPACITY 4194304U
/* Shorter than BUILD_ID_BYTES: the rest of the field is NUL. */
#define FIX_BUILD "fixture-build"
#define FIX_DUMP_OFFSET 0x0102030405060708ULL
#define FIX_PING_TOKEN 0x1122334455667788ULL
#define FIX_DENIED_TEXT "another controller holds the lease"
#define FIX_TOO_LARGE_TEXT "a frame of 70000 bytes is over the 65536-byte limit"
#define FIX_REPLAY_BYTES "abc"
#define FIX_GAP_BYTES "\x1b[0mhello"
#define FIX_OUTPUT_BYTES "hello\r\n\xc3\xa9"
#define FIX_INPUT_BYTES "ls -l\r"
#define FIX_EXEC_PATH "/opt/tend/holder/build/tend-holder"
#define FIX_EXEC_FAILED_TEXT "'/bin/sh' is not a tend-holder that can take over a running one"
/* The writer of input-from.bin and input-taken.bin: bytes a0, a1, ... af. */
#define FIX_WRITER_FIRST_BYTE 0xa0
#define FIX_INPUT_AT 1000ULL
#define FIX_INPUT_TAKEN (FIX_INPUT_AT + sizeof FIX_INPUT_BYTES - 1)

#endif
