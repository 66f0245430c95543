/*
 * oracle_io.h -- what the oracles (oracle_frames.c, oracle_paint.c,
 * oracle_overlays.c) share: a request a line, read and split into words, and
 * bytes as hex both ways, "-" for none.  The TypeScript tests of
 * test/viewer-native/ speak this to each of them.
 */
#ifndef TEND_ORACLE_IO_H
#define TEND_ORACLE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "viewer.h"

/* The most words a request holds: a script of ops or a stream's chunks. */
#define ORACLE_MAX_WORDS 4096

/* One request: its line, split in place at spaces, tabs, CRs and LFs. */
struct oracle_request {
	char *line;
	size_t line_alloc;
	char *word[ORACLE_MAX_WORDS];
	int count;
	bool too_many;	/* the line held more words than word[]: the rest are not in it */
};

/*
 * Reads stdin a request a line to its end and calls answer for each (an
 * empty line too, with no words), with out emptied for it (capped at
 * out_cap bytes); the answer is answer's to print.  Returns the process's
 * exit status: 1 when stdout could not be written.
 */
int oracle_serve(void (*answer)(struct oracle_request *r, struct buf *out), size_t out_cap);

/* Hex ("-": none) to bytes in a new allocation with a NUL after them; NULL when it is not hex. */
uint8_t *oracle_hex_decode(const char *hex, size_t *n);
/* Bytes to stdout as hex, "-" for none. */
void oracle_print_hex(const uint8_t *p, size_t n);

#endif
