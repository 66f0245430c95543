/*
 * launch.c -- this binary as the `tend` on PATH. bin/tend is a link to it,
 * so the command a person types is one process start: no shell in front,
 * and no `readlink` process when the tend on PATH is itself a link (npm
 * link, ~/.local/bin/tend). A first paint is ~10 ms on a small machine, and
 * starting /bin/sh first cost 2-4 ms of it.
 *
 * What it decides, before main.c's attach or its hand-over to Node:
 *   - where this tree is (its bin/tend.js), from the binary's own path with
 *     every link resolved, unless TEND_CLI_JS already names the CLI (a
 *     caller that starts the viewer directly, as the bench and tests do);
 *   - whether `tend upgrade` made another build current for TEND_HOME
 *     (TEND_HOME/versions/current): then that build's bin/tend runs the
 *     command, so the tend on PATH follows upgrades. Never for `upgrade`
 *     itself, which installs the tend that runs it.
 * Every other verb, and `attach` with TEND_VIEWER=node, is then main.c's
 * hand-over: `node bin/tend.js ARGS`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "viewer.h"

/* How far above the binary (viewer/build/[portable/]tend-attach) the tree's root may be. */
#define ROOT_SEARCH_LEVELS 4

/* dst = src, NUL-ended; -1 when it does not fit. */
static int
copy_path(char *dst, size_t dstlen, const char *src)
{
	size_t n = strlen(src);

	if (n >= dstlen)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* argv[0] found on PATH, as a shell found it; -1 when no entry holds it. */
static int
search_path(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char candidate[PATH_MAX];

	if (path == NULL)
		return -1;
	while (*path != '\0') {
		const char *end = strchr(path, ':');
		size_t dirlen = end != NULL ? (size_t)(end - path) : strlen(path);
		int n = dirlen == 0 ? snprintf(candidate, sizeof candidate, "./%s", name)
				    : snprintf(candidate, sizeof candidate, "%.*s/%s", (int)dirlen, path, name);

		if (n > 0 && (size_t)n < sizeof candidate && access(candidate, X_OK) == 0)
			return copy_path(out, outlen, candidate);
		if (end == NULL)
			break;
		path = end + 1;
	}
	return -1;
}

/* This binary's path with every link resolved; -1 when it cannot be told. */
static int
own_binary(const char *argv0, char *out, size_t outlen)
{
	char found[PATH_MAX], *real;

	/* Linux: the kernel's own record of what was executed. */
	real = realpath("/proc/self/exe", NULL);
	if (real == NULL) {
		if (argv0 == NULL || argv0[0] == '\0')
			return -1;
		if (strchr(argv0, '/') != NULL) {
			if (copy_path(found, sizeof found, argv0) != 0)
				return -1;
		} else if (search_path(argv0, found, sizeof found) != 0) {
			return -1;
		}
		real = realpath(found, NULL);
		if (real == NULL)
			return -1;
	}
	int r = copy_path(out, outlen, real);
	free(real);
	return r;
}

/* `dir` cut at its last '/'; false when it has none left. */
static bool
strip_last(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (slash == NULL || slash == dir)
		return false;
	*slash = '\0';
	return true;
}

/* The tree that holds this binary: the nearest directory above it with bin/tend.js. */
static int
tree_root(const char *binary, char *root, size_t rootlen)
{
	char probe[PATH_MAX + 16];

	if (copy_path(root, rootlen, binary) != 0)
		return -1;
	for (int level = 0; level < ROOT_SEARCH_LEVELS && strip_last(root); level++) {
		int n = snprintf(probe, sizeof probe, "%s/bin/tend.js", root);

		if (n > 0 && (size_t)n < sizeof probe && access(probe, R_OK) == 0)
			return 0;
	}
	return -1;
}

/*
 * Runs TEND_HOME/versions/current/bin/tend with the same arguments when
 * that is another tree than `root`; returns when it is not (or cannot be
 * started, and then this tree's tend is better than none).
 */
static void
follow_current(const char *root, char **argv)
{
	char current[PATH_MAX], launcher[PATH_MAX + 16], *real;
	int n;

	if ((argv[1] != NULL && strcmp(argv[1], "upgrade") == 0) || home_path("versions/current", current, sizeof current) != 0)
		return;
	real = realpath(current, NULL);
	if (real == NULL)
		return; /* no upgrade has run for this home: the usual case */
	bool same = strcmp(real, root) == 0;
	free(real);
	if (same)
		return;
	/* Through the link, not its target: a build's own launcher then sees itself as current. */
	n = snprintf(launcher, sizeof launcher, "%s/bin/tend", current);
	if (n <= 0 || (size_t)n >= sizeof launcher || access(launcher, X_OK) != 0)
		return;
	execv(launcher, argv);
	fprintf(stderr, "tend: could not start the current build's %s (%s); running this one\n", launcher, strerror(errno));
}

char *
launch_locate(int argc, char **argv)
{
	char binary[PATH_MAX], root[PATH_MAX], cli[PATH_MAX + 16];
	int n;

	if (argc < 1 || own_binary(argv[0], binary, sizeof binary) != 0 || tree_root(binary, root, sizeof root) != 0)
		return NULL;
	follow_current(root, argv);
	n = snprintf(cli, sizeof cli, "%s/bin/tend.js", root);
	if (n <= 0 || (size_t)n >= sizeof cli)
		return NULL;
	return strdup(cli);
}
