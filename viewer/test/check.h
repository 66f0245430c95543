/* The C tests' one check macro and the test files' entry points (test_viewer.c runs them). */
#ifndef TEND_VIEWER_CHECK_H
#define TEND_VIEWER_CHECK_H

#include <stdio.h>

extern int check_failures;
extern int check_count;

#define CHECK(cond) check_at((cond), #cond, __FILE__, __LINE__)

static inline void
check_at(int ok, const char *what, const char *file, int line)
{
	check_count++;
	if (!ok) {
		check_failures++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
}

void test_frames(void);
void test_wire(void);
void test_paint(void);
void test_keys(void);
void test_typist(void);

#endif
