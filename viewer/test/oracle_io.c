/*
 * oracle_io.c -- the oracles' side of their conversation with the
 * TypeScript tests (oracle_io.h): requests read a line at a time with no
 * limit on a line's length (a stream's chunks in hex run long), and bytes
 * as hex.  In one place so that the three oracles read and write alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_io.h"

#define WORD_SEPARATORS " \t\r\n"

/* Reads the next line from in and splits it; false at the end of the input. */
static bool
request_read(struct oracle_request *r, FILE *in)
{
	char *save = NULL;

	r->count = 0;
	r->too_many = false;
	if (getline(&r->line, &r->line_alloc, in) < 0)
		return false;
	for (char *w = strtok_r(r->line, WORD_SEPARATORS, &save); w != NULL; w = strtok_r(NULL, WORD_SEPARATORS, &save)) {
		if (r->count == ORACLE_MAX_WORDS) {
			r->too_many = true;
			break;
		}
		r->word[r->count++] = w;
	}
	return true;
}

int
oracle_serve(void (*answer)(struct oracle_request *r, struct buf *out), size_t out_cap)
{
	static struct oracle_request r;
	struct buf out;

	buf_init(&out, out_cap);
	while (request_read(&r, stdin)) {
		buf_clear(&out);
		answer(&r, &out);
	}
	free(r.line);
	buf_free(&out);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

uint8_t *
oracle_hex_decode(const char *hex, size_t *n)
{
	size_t len = strcmp(hex, "-") == 0 ? 0 : strlen(hex);
	uint8_t *out;

	if (len % 2 != 0 || (out = malloc(len / 2 + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_digit_value((uint8_t)hex[2 * i]), lo = hex_digit_value((uint8_t)hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(out);
			return NULL;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	out[len / 2] = '\0';
	*n = len / 2;
	return out;
}

void
oracle_print_hex(const uint8_t *p, size_t n)
{
	if (n == 0)
		putchar('-');
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}
