/*
 * test_viewer.c -- runs the native viewer's C tests: the parts without the
 * loop (frames, the WebSocket reader and JSON, the painter, the prefix keys
 * and the untaken input). The loop itself is tested end to end by the
 * TypeScript attach tests, which drive this viewer in a real PTY.
 */
#include <stdio.h>

#include "check.h"

int check_failures;
int check_count;

int
main(void)
{
	test_frames();
	test_wire();
	test_paint();
	test_keys();
	test_typist();
	if (check_failures > 0) {
		fprintf(stderr, "viewer tests: %d of %d checks failed\n", check_failures, check_count);
		return 1;
	}
	printf("viewer tests: %d checks passed\n", check_count);
	return 0;
}
