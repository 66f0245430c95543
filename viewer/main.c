/*
 * main.c -- the `tend` on PATH (bin/tend links to this binary; launch.c
 * finds its tree): every verb but `attach` is handed at once to the Node
 * CLI (`node bin/tend.js ARGS`), and so is `attach` with TEND_VIEWER=node.
 * `tend attach TARGET` as a person types it: the arguments, the
 * server of TEND_HOME (lock.c), the session looked up, then the attach
 * (attach.c). Only the everyday case is done here, where every millisecond
 * of start-up shows: a terminal on both ends, a running server, a running
 * session.
 * Everything else -- --json, --help, a mistake in the command line, no
 * terminal, no server, a session that is not running, any reply not
 * understood -- goes to the TypeScript viewer with the same arguments
 * (handoff_exec_args), which starts a server when needed and says exactly
 * what the user already knows it to say, with the same exit codes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "viewer.h"

/* The session lookup's wait: the TypeScript viewer says what a slower server does. */
#define LOOKUP_TIMEOUT_MS 5000
/* A session's answer (GET /v1/sessions/:target): a few hundred bytes, with room. */
#define LOOKUP_REPLY_MAX_BYTES (256 * 1024)
#define ID_MAX_BYTES 256
#define PATH_MAX_BYTES 4096
/* dist/build-id.json and package.json: a line or two of JSON; a package.json longer than this gives no version. */
#define BUILD_FILE_MAX_BYTES 16384

/* What the command line asks, when it is the everyday case. */
struct attach_args {
	const char *target;
	bool read_only;
	int detach_prefix;
};

static const char *
node_path(void)
{
	const char *node = getenv("TEND_NODE");
	return node != NULL && node[0] != '\0' ? node : "node";
}

/* The CLI's entry point (bin/tend.js); NULL when it cannot be found. */
static const char *tend_js;

/*
 * The CLI this binary hands to: TEND_CLI_JS when a caller names it (one that
 * starts the viewer directly), taken out of the environment since it is
 * that caller's word to this process alone and must not reach a server this
 * viewer starts, nor the sessions that server starts. Else this binary is
 * the `tend` on PATH (bin/tend links to it), and launch.c finds its tree, or
 * runs the build `tend upgrade` made current.
 */
static void
take_cli_js(int argc, char **argv)
{
	const char *value = getenv("TEND_CLI_JS");

	tend_js = value != NULL && value[0] != '\0' ? strdup(value) : NULL;
	unsetenv("TEND_CLI_JS");
	if (tend_js == NULL)
		tend_js = launch_locate(argc, argv);
}

/* TEND_VIEWER=node: `tend attach` runs the TypeScript viewer, as every other verb runs the CLI. */
static bool
wants_node_viewer(void)
{
	const char *viewer = getenv("TEND_VIEWER");

	return viewer != NULL && strcmp(viewer, "node") == 0;
}

/*
 * This tree's version and build, as src/common/version.ts reads them: the
 * build from dist/build-id.json (scripts/write-build-id.js), the version
 * from package.json, both beside the CLI the launcher named (bin/tend.js).
 * "unknown" for what is not there.
 */
static void
read_own_build(char *version, size_t version_len, char *build, size_t build_len)
{
	static char text[BUILD_FILE_MAX_BYTES];
	char root[PATH_MAX_BYTES], path[PATH_MAX_BYTES + 32];
	char *slash;
	ssize_t n;

	snprintf(version, version_len, "unknown");
	snprintf(build, build_len, "unknown");
	/* bin/tend.js → the tree's root: two components up. */
	if (tend_js == NULL || snprintf(root, sizeof root, "%s", tend_js) >= (int)sizeof root)
		return;
	for (int up = 0; up < 2; up++) {
		slash = strrchr(root, '/');
		if (slash == NULL)
			return;
		*slash = '\0';
	}
	snprintf(path, sizeof path, "%s/dist/build-id.json", root);
	n = read_small_file(path, text, sizeof text);
	if (n > 0 && (json_string(text, (size_t)n, "build", build, build_len, NULL) != 1 || build[0] == '\0'))
		snprintf(build, build_len, "unknown");
	snprintf(path, sizeof path, "%s/package.json", root);
	n = read_small_file(path, text, sizeof text);
	if (n > 0 && (json_string(text, (size_t)n, "version", version, version_len, NULL) != 1 || version[0] == '\0'))
		snprintf(version, version_len, "unknown");
}

/* Hands the whole command to the TypeScript viewer; returns only when it cannot be started. */
static int
hand_over(int argc, char **argv)
{
	if (tend_js == NULL) {
		fprintf(stderr, "tend: cannot find the tend tree this binary belongs to (its bin/tend.js, "
		    "above the binary's own path); run it as bin/tend of a built checkout\n");
		return 1;
	}
	handoff_exec_args(node_path(), tend_js, argc, argv);
	fprintf(stderr, "tend: could not start %s to run `tend attach`: %s\n", node_path(), strerror(errno));
	return 1;
}

/*
 * Reads `attach TARGET [-r|--read-only] [-k KEY|--detach-key KEY|
 * --detach-key=KEY|-kKEY] [--]`. 0 for the everyday case; -1 for anything
 * else (the TypeScript viewer reads it and says what it makes of it).
 */
static int
parse_args(int argc, char **argv, struct attach_args *a)
{
	const char *key = NULL;
	bool dashes = false;
	char err[256];

	a->target = NULL;
	a->read_only = false;
	if (argc < 2 || strcmp(argv[1], "attach") != 0)
		return -1;
	for (int i = 2; i < argc; i++) {
		const char *w = argv[i];

		if (dashes || w[0] != '-' || w[1] == '\0') {
			if (a->target != NULL)
				return -1;
			a->target = w;
		} else if (strcmp(w, "--") == 0) {
			dashes = true;
		} else if (strcmp(w, "-r") == 0 || strcmp(w, "--read-only") == 0) {
			a->read_only = true;
		} else if (strcmp(w, "-k") == 0 || strcmp(w, "--detach-key") == 0) {
			/* A value that looks like an option: the parser's reading of it is the TypeScript's. */
			if (i + 1 >= argc || argv[i + 1][0] == '-')
				return -1;
			key = argv[++i];
		} else if (strncmp(w, "--detach-key=", 13) == 0) {
			key = w + 13;
		} else if (w[1] == 'k' && w[2] != '\0') {
			key = w + 2;
		} else {
			return -1;
		}
	}
	if (a->target == NULL || a->target[0] == '\0')
		return -1;
	if (key == NULL)
		key = getenv("TEND_DETACH_KEY");
	a->detach_prefix = DEFAULT_DETACH_PREFIX;
	if (key != NULL && key[0] != '\0') {
		a->detach_prefix = detach_key_parse(key, err, sizeof err);
		if (a->detach_prefix < 0)
			return -1;
	}
	return 0;
}

/* The target as a path segment, as encodeURIComponent writes it. */
static int
percent_encode(const char *s, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-_.!~*'()", *p) != NULL) {
			if (o + 1 >= outlen)
				return -1;
			out[o++] = (char)*p;
		} else {
			if (o + 3 >= outlen)
				return -1;
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	out[o] = '\0';
	return 0;
}

/* GET /v1/sessions/TARGET: the running session's id and name; -1 for anything else. */
static int
look_session_up(const char *socket_path, const char *encoded, char *id, size_t idlen, char *name, size_t namelen)
{
	static char path[3 * PATH_MAX_BYTES + 32];
	char err[256], status[64];
	struct buf body;
	bool name_null = false;
	int http_status, r = -1;

	snprintf(path, sizeof path, "/v1/sessions/%s", encoded);
	buf_init(&body, LOOKUP_REPLY_MAX_BYTES);
	if (http_get(socket_path, path, LOOKUP_TIMEOUT_MS, &http_status, &body, err, sizeof err) == 0 &&
	    http_status == 200 &&
	    json_string((const char *)body.data, body.len, "id", id, idlen, NULL) == 1 && id[0] != '\0' &&
	    json_string((const char *)body.data, body.len, "name", name, namelen, &name_null) == 1 &&
	    json_string((const char *)body.data, body.len, "status", status, sizeof status, NULL) == 1 &&
	    strcmp(status, "running") == 0) {
		if (name_null)
			name[0] = '\0';
		r = 0;
	}
	buf_free(&body);
	return r;
}

int
main(int argc, char **argv)
{
	static char socket_path[PATH_MAX_BYTES], encoded[3 * PATH_MAX_BYTES], server_build[128];
	static char id[ID_MAX_BYTES], name[ID_MAX_BYTES], own_version[128], own_build[128];
	static char window_key[OUTER_WINDOW_KEY_BYTES];
	struct attach_args a;
	struct attach_options o;
	const char *self;
	int status;

	take_cli_js(argc, argv);
	if (wants_node_viewer() || parse_args(argc, argv, &a) != 0 || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return hand_over(argc, argv);
	if (tend_js == NULL || lock_server(socket_path, sizeof socket_path, server_build, sizeof server_build) != 0)
		return hand_over(argc, argv);
	if (percent_encode(a.target, encoded, sizeof encoded) != 0)
		return hand_over(argc, argv);
	/* A server gone mid-write is an error of that write, not the end of this process (wire.c writes with write()). */
	signal(SIGPIPE, SIG_IGN);
	read_own_build(own_version, sizeof own_version, own_build, sizeof own_build);
	self = getenv("TEND_SESSION");

	memset(&o, 0, sizeof o);
	o.socket_path = socket_path;
	o.target_encoded = encoded;
	/*
	 * A server of this very build names the session in the viewer socket's
	 * upgrade (attach.c: no GET first). Any other build, and any attach from
	 * inside a session (which must not subscribe to itself even for a
	 * moment), looks it up first.
	 */
	if (strcmp(server_build, own_build) != 0 || strcmp(own_build, "unknown") == 0 || self != NULL) {
		/* Not found, exited, cold, elsewhere, unreadable: the TypeScript viewer says which, in its words. */
		if (look_session_up(socket_path, encoded, id, sizeof id, name, sizeof name) != 0)
			return hand_over(argc, argv);
		/* Attaching a session to itself is refused, in the TypeScript viewer's words. */
		if (self != NULL && strcmp(self, id) == 0)
			return hand_over(argc, argv);
		o.session_id = id;
		o.session_name = name[0] == '\0' ? NULL : name;
	}
	/* Only a server of this build reads SUBSCRIBE's window key (older ones refuse the longer frame). */
	if (o.session_id == NULL && outer_window_key(window_key, sizeof window_key) == 0)
		o.window_key = window_key;
	o.read_only = a.read_only;
	o.detach_prefix = a.detach_prefix;
	o.tend_js = tend_js;
	o.node = node_path();
	o.self_session = self != NULL && self[0] != '\0' ? self : NULL;
	o.own_version = own_version;
	o.own_build = own_build;
	status = attach_run(&o);
	return status == ATTACH_HAND_OVER ? hand_over(argc, argv) : status;
}
