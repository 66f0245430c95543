/*
 * buf.c -- a growable byte buffer with a hard cap.  Every queue and every
 * message in the viewer is one of these, so none can grow without bound: an
 * append that would pass the cap fails whole (nothing of it is appended),
 * and the caller decides what that means (a frame refused, a reply too
 * large).  Growth doubles, so appending a byte at a time stays linear.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

/* The first allocation: most of the viewer's buffers hold a frame or two. */
#define BUF_FIRST_ALLOC_BYTES 256

void
buf_init(struct buf *b, size_t cap)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
}

int
buf_reserve(struct buf *b, size_t n)
{
	size_t want, grown;
	uint8_t *p;

	if (n > b->cap - b->len)
		return -1;
	want = b->len + n;
	if (want <= b->alloc)
		return 0;
	grown = b->alloc < BUF_FIRST_ALLOC_BYTES ? BUF_FIRST_ALLOC_BYTES : b->alloc;
	while (grown < want && grown <= SIZE_MAX / 2)
		grown *= 2;
	if (grown < want)
		grown = want;
	if (grown > b->cap)
		grown = b->cap;
	p = realloc(b->data, grown);
	if (p == NULL)
		return -1;
	b->data = p;
	b->alloc = grown;
	return 0;
}

int
buf_append(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (buf_reserve(b, n) != 0)
		return -1;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int
buf_appends(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[256], *text = small;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	/* Formatted aside first: vsnprintf's NUL must not need room past the cap. */
	if ((size_t)n >= sizeof small) {
		text = malloc((size_t)n + 1);
		if (text == NULL)
			return -1;
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	rc = buf_append(b, text, (size_t)n);
	if (text != small)
		free(text);
	return rc;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void
buf_clear(struct buf *b)
{
	b->len = 0;
}
