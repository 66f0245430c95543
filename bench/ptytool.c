/*
 * ptytool.c -- command line of the benchmark harness.
 *
 *   ptytool drain  [--cols N --rows N] -- CMD...     bytes and time until EIO
 *   ptytool echo   -n KEYS [--gap-ms 3] [--settle-ms 300] [--timeout-ms 1000]
 *                  [--await-paint] [--per-key] [--cols N --rows N] -- CMD...
 *   ptytool attach -q QUIET_MS [--cols N --rows N] -- CMD...
 *   ptytool watch  --go FIFO --until MARKER [--settle-ms 300] [--cols N --rows N]
 *                  -- CMD...                         a viewer's time to MARKER
 *   ptytool holder-drain [--go FIFO] SOCKET           a holder's stream to EXIT
 *   ptytool holder-echo  -n KEYS [--gap-ms 3] [--settle-ms 300]
 *                  [--timeout-ms 1000] [--per-key] SOCKET
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptytool.h"

static int
usage(void)
{
	fprintf(stderr,
	    "usage: ptytool drain|echo|attach|watch [options] -- CMD...\n"
	    "       ptytool holder-drain|holder-echo [options] SOCKET\n");
	return 1;
}

/* Reads an integer option value; exits with a message when it is not one. */
static int
int_arg(const char *name, const char *value, int min)
{
	char *end;
	long v;

	if (value == NULL) {
		fprintf(stderr, "ptytool: %s needs a value\n", name);
		exit(1);
	}
	v = strtol(value, &end, 10);
	if (*end != '\0' || v < min || v > 1000000000) {
		fprintf(stderr, "ptytool: %s wants a whole number >= %d, not '%s'\n", name, min, value);
		exit(1);
	}
	return (int)v;
}

/*
 * Parses the options both families share.  Returns the index of the first
 * argument that is not an option (after "--" if there is one).
 */
static int
parse_opts(int argc, char **argv, struct pty_opts *p, struct holder_opts *h)
{
	int i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[0] != '-')
			return i;
		if (strcmp(a, "-n") == 0)
			p->keys = h->keys = int_arg(a, v, 1);
		else if (strcmp(a, "--gap-ms") == 0)
			p->gap_ms = h->gap_ms = int_arg(a, v, 0);
		else if (strcmp(a, "--settle-ms") == 0)
			p->settle_ms = h->settle_ms = int_arg(a, v, 0);
		else if (strcmp(a, "--timeout-ms") == 0)
			p->timeout_ms = h->timeout_ms = int_arg(a, v, 1);
		else if (strcmp(a, "-q") == 0)
			p->quiet_ms = int_arg(a, v, 1);
		else if (strcmp(a, "--cols") == 0)
			p->cols = (unsigned)int_arg(a, v, 1);
		else if (strcmp(a, "--rows") == 0)
			p->rows = (unsigned)int_arg(a, v, 1);
		else if (strcmp(a, "--go") == 0) {
			if (v == NULL)
				break;
			h->go_fifo = p->go_fifo = v;
		} else if (strcmp(a, "--until") == 0) {
			if (v == NULL || v[0] == '\0') {
				fprintf(stderr, "ptytool: --until needs a marker\n");
				exit(1);
			}
			p->until = v;
		} else if (strcmp(a, "--await-paint") == 0) {
			p->await_paint = 1;
			continue;
		} else if (strcmp(a, "--per-key") == 0) {
			p->per_key = h->per_key = 1;
			continue;
		} else {
			fprintf(stderr, "ptytool: unknown option %s\n", a);
			exit(1);
		}
		i++;
	}
	return i;
}

int
main(int argc, char **argv)
{
	struct pty_opts p = { .cols = 80, .rows = 24, .keys = 500, .gap_ms = 3,
	    .settle_ms = 300, .timeout_ms = 1000, .quiet_ms = 200 };
	struct holder_opts h = { .keys = 500, .gap_ms = 3, .settle_ms = 300, .timeout_ms = 1000 };
	const char *mode;
	int rest;

	if (argc < 2)
		return usage();
	/* a closed stdout or a dead holder socket is reported, not a silent death */
	signal(SIGPIPE, SIG_IGN);
	mode = argv[1];
	rest = parse_opts(argc, argv, &p, &h);
	if (strncmp(mode, "holder-", 7) == 0) {
		if (rest != argc - 1)
			return usage();
		h.socket = argv[rest];
		if (strcmp(mode, "holder-drain") == 0)
			return mode_holder_drain(&h);
		if (strcmp(mode, "holder-echo") == 0)
			return mode_holder_echo(&h);
		return usage();
	}
	if (rest >= argc)
		return usage();
	p.argv = argv + rest;
	if (strcmp(mode, "drain") == 0)
		return mode_drain(&p);
	if (strcmp(mode, "echo") == 0)
		return mode_echo(&p);
	if (strcmp(mode, "attach") == 0)
		return mode_attach(&p);
	if (strcmp(mode, "watch") == 0)
		return mode_watch(&p);
	return usage();
}
