/*
 * state_fuzz.c -- fuzz target for the hand-over state reader (state.c),
 * which a new holder image runs on a file the old one wrote, and which
 * must refuse anything else cleanly.
 *
 * Each input is written to a file and read back with state_file_read into
 * a fresh holder.  A state names descriptors and a child that must be real,
 * so the target holds a PTY, a socket and a child of its own, and puts them
 * where the input says PLACEHOLDER_ID (the seed, fuzz/state-corpus, does):
 * inputs then reach every check past those.  A state read without error
 * must be one the loop can run on: its ring's start, replay and writers are
 * exercised, and any inconsistency aborts.
 *
 * TEND_STATE_SEED=PATH: write the seed (a holder mid-session: ring bytes
 * wrapped, escape sequences, writers, unwritten input) to PATH and exit.
 * TEND_STATE_FUZZ_VERBOSE: say why each refused input was refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "holder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A descriptor or pid field that says "the target's own". */
#define PLACEHOLDER_ID 0xfffffff0u
/* Where the state's fixed fields sit (state.c's layout, format 2). */
#define AT_MASTER 69
#define AT_CHILD 73
#define AT_INPUT_LENGTH 90
#define AT_INPUT 94
#define SEED_RING_BYTES (16 * 1024)
#define MAX_STATE_INPUT_BYTES (256 * 1024)

static int own_master = -1, own_socket = -1;
static pid_t own_child = -1;
static struct holder holder;
static uint8_t patched[MAX_STATE_INPUT_BYTES];

static void
end_child(void)
{
	if (own_child > 0) {
		kill(own_child, SIGKILL);
		waitpid(own_child, NULL, 0);
	}
}

static void
setup_once(void)
{
	if (own_master >= 0)
		return;
	own_master = posix_openpt(O_RDWR | O_NOCTTY);
	own_socket = socket(AF_UNIX, SOCK_STREAM, 0);
	if (own_master < 0 || grantpt(own_master) != 0 ||
	    unlockpt(own_master) != 0 || own_socket < 0) {
		perror("state_fuzz: set-up");
		abort();
	}
	own_child = fork();
	if (own_child == 0) {
		for (;;)
			pause();
	}
	atexit(end_child);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
replace_placeholder(uint8_t *p, size_t at, size_t size, uint32_t value)
{
	if (at + 4 <= size && get32(p + at) == PLACEHOLDER_ID)
		put32(p + at, value);
}

static void
patch(uint8_t *p, size_t size)
{
	uint32_t input_length;

	replace_placeholder(p, AT_MASTER, size, (uint32_t)own_master);
	replace_placeholder(p, AT_CHILD, size, (uint32_t)own_child);
	if (AT_INPUT_LENGTH + 4 > size)
		return;
	input_length = get32(p + AT_INPUT_LENGTH);
	if (input_length <= PTY_INPUT_BYTES)
		replace_placeholder(p, AT_INPUT + input_length, size,
		    (uint32_t)own_socket);
}

/* What the loop relies on of a state it accepted. */
static void
check_accepted(struct holder *h)
{
	struct ring_span spans[2];
	uint64_t start = ring_start(&h->ring);
	size_t live = (size_t)(h->ring.offset - ring_oldest(&h->ring));

	if (start < ring_oldest(&h->ring) || start > h->ring.offset)
		abort();
	if (ring_peek(&h->ring, ring_oldest(&h->ring), live, spans) !=
	    (h->ring.offset > 0 ? live : 0))
		abort();
	if (h->pty.input_length > PTY_INPUT_BYTES)
		abort();
	if (h->holding && (h->held_from > h->ring.offset ||
	    h->held_from < ring_oldest(&h->ring)))
		abort();
	ring_append(&h->ring, (const uint8_t *)"\x1b[0mmore", 8);
}

static void
write_seed(const char *path)
{
	static uint8_t ring_bytes[SEED_RING_BYTES];
	static uint16_t marks[SEED_RING_BYTES / RING_MARK_BLOCK_BYTES + 2];
	struct holder *h = &holder;
	char cause[CAUSE_BYTES];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	static const char line[] = "line \x1b[1mbold\x1b[0m \xc3\xa9\r\n";

	ring_init(&h->ring, ring_bytes, sizeof ring_bytes, marks);
	for (int i = 0; i < 800; i++)
		ring_append(&h->ring, (const uint8_t *)line, sizeof line - 1);
	memset(h->generation, 0xab, GENERATION_BYTES);
	h->started_at_ms = 1700000000123ULL;
	h->exit_grace_s = 86400;
	h->pty.master = (int)PLACEHOLDER_ID;
	h->pty.child = (pid_t)PLACEHOLDER_ID;
	h->pty.cols = 80;
	h->pty.rows = 24;
	memcpy(h->pty.input, "typed", 5);
	h->pty.input_length = 5;
	h->listener.fd = (int)PLACEHOLDER_ID;
	h->listener.path = "/run/tend/holders/abcdefgh.sock";
	writers_use(&h->writers, (const uint8_t *)"writer-number-01", 0)->taken
	    = 42;
	writers_use(&h->writers, (const uint8_t *)"writer-number-02", 7)->taken
	    = 9;
	h->holding = true;
	h->held_from = h->ring.offset - 1000;
	if (fd < 0 || state_file_write(h, fd, cause) != 0 || close(fd) != 0) {
		fprintf(stderr, "state_fuzz: %s: %s\n", path, fd < 0 ?
		    strerror(errno) : cause);
		_exit(1);
	}
	_exit(0);	/* libFuzzer takes exit() for a crash of the target */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char cause[CAUSE_BYTES];
	FILE *file;
	int fd;

	if (getenv("TEND_STATE_SEED") != NULL)
		write_seed(getenv("TEND_STATE_SEED"));
	setup_once();
	if (size > sizeof patched)
		return 0;
	memcpy(patched, data, size);
	patch(patched, size);
	file = tmpfile();
	if (file == NULL || (size > 0 && fwrite(patched, 1, size, file) != size) ||
	    fflush(file) != 0) {
		perror("state_fuzz: tmpfile");
		abort();
	}
	fd = fileno(file);
	lseek(fd, 0, SEEK_SET);
	memset(&holder, 0, sizeof holder);
	holder_reset_deadlines(&holder);	/* as resume() does first */
	if (state_file_read(&holder, fd, cause) == 0)
		check_accepted(&holder);
	else if (cause[0] == '\0')
		abort();	/* a refusal must say why */
	else if (getenv("TEND_STATE_FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "refused: %s\n", cause);
	free(holder.ring.bytes);
	free(holder.ring.marks);
	fclose(file);
	return 0;
}
