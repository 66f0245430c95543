/*
 * handoff.c -- the way from this viewer to the TypeScript one (`node
 * bin/tend.js attach`): exec, so the terminal's process, its pid and its
 * exit status stay the attach's (mid-attach, a child: below).
 *
 * From the start (handoff_exec_args): whatever this viewer does not do
 * itself (--json, --help, a wrong command line, no terminal, no server, an
 * error to explain) goes to the TypeScript viewer with the same arguments,
 * which answers exactly as it always has. Nothing can loop back here: it
 * execs node on bin/tend.js, never the launcher (bin/tend) that chose this
 * viewer. No TEND_VIEWER is set for it, since the environment of an attach
 * reaches the server it may start, and from there every session's program.
 *
 * Mid-attach (handoff_exec): a panel of the prefix keys (`prefix ?`, the
 * session list of `prefix s`) is the TypeScript viewer's. The state this
 * viewer stands in goes as JSON in an unlinked temporary file whose fd is
 * inherited (`tend attach ID --handoff FD`, src/cli/attach/handoff.ts reads
 * it): the writer id and the input not yet taken keep their numbers at the
 * holder, so every byte typed arrives once; the position written lets the
 * new subscription resume rather than paint the screen into the outer
 * scrollback again.
 *
 * Who does what with the outer terminal. The caller (attach.c), before
 * calling handoff_exec: writes out everything it owes the terminal, erases
 * the rows it drew over (as giveWay does; `covered` says so), flushes its
 * socket as far as it goes and closes it, and leaves the terminal RAW. It
 * passes the settings it saved before going raw as `restore`. Restoring
 * them before the exec would let the tty echo the keys typed while Node
 * starts (~150 ms), edit them as a line, and turn Ctrl-C into a signal; the
 * keys typed in between wait in the raw tty, unchanged. But Node puts back
 * the terminal settings it found when it started, at its exit (whatever
 * was set since, as strace shows: a tcsetattr of fds 0-2 after the last
 * write), and here those are raw. So with `restore` given, Node runs as a
 * child, and this process waits for it, puts `restore` back, and ends as
 * it ended (its status, or its signal); the signals that end an attach
 * (TERM, HUP, INT) are passed on to it. The TypeScript viewer also gets
 * `restore` as the text `stty -g` prints for it, and runs `stty TEXT` on its
 * way out, after setRawMode(false) (which puts back the raw mode it found),
 * so that its last messages are written to a cooked terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "viewer.h"

/* The JSON holds at most ~1 MiB of untaken input, in hex: room for it twice over. */
#define HANDOFF_MAX_BYTES (8u * 1024u * 1024u)
#define HANDOFF_VERSION 1
/* A seq or input count above this cannot be a JavaScript number. */
#define MAX_SAFE_INTEGER ((UINT64_C(1) << 53) - 1)

static int
json_string_value(struct buf *b, const char *s)
{
	const unsigned char *p;

	if (buf_appends(b, "\"") < 0)
		return -1;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		int rc;

		if (*p == '"' || *p == '\\')
			rc = buf_printf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			rc = buf_printf(b, "\\u%04x", *p);
		else
			rc = buf_append(b, p, 1);
		if (rc < 0)
			return -1;
	}
	return buf_appends(b, "\"");
}

static int
json_hex_value(struct buf *b, const uint8_t *p, size_t n)
{
	char pair[3];

	if (buf_appends(b, "\"") < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		hex_encode(p + i, 1, pair);
		if (buf_append(b, pair, 2) < 0)
			return -1;
	}
	return buf_appends(b, "\"");
}

static const char *
json_bool_value(bool v)
{
	return v ? "true" : "false";
}

/*
 * The settings as the platform's `stty -g` prints them, which its `stty`
 * takes back as one argument.
 */
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__) || defined(__DragonFly__)
static int
stty_settings(struct buf *b, const struct termios *t)
{
	/* The names BSD stty's gfmt1 gives the control characters. */
	static const struct {
		const char *name;
		int index;
	} cchars[] = {
#ifdef VDISCARD
		{ "discard", VDISCARD },
#endif
#ifdef VDSUSP
		{ "dsusp", VDSUSP },
#endif
		{ "eof", VEOF },
		{ "eol", VEOL },
#ifdef VEOL2
		{ "eol2", VEOL2 },
#endif
		{ "erase", VERASE },
#ifdef VERASE2
		{ "erase2", VERASE2 },
#endif
		{ "intr", VINTR },
		{ "kill", VKILL },
#ifdef VLNEXT
		{ "lnext", VLNEXT },
#endif
		{ "min", VMIN },
		{ "quit", VQUIT },
#ifdef VREPRINT
		{ "reprint", VREPRINT },
#endif
		{ "start", VSTART },
#ifdef VSTATUS
		{ "status", VSTATUS },
#endif
		{ "stop", VSTOP },
		{ "susp", VSUSP },
		{ "time", VTIME },
#ifdef VWERASE
		{ "werase", VWERASE },
#endif
	};
	size_t i;

	if (buf_printf(b, "gfmt1:cflag=%lx:iflag=%lx:lflag=%lx:oflag=%lx:",
	    (unsigned long)t->c_cflag, (unsigned long)t->c_iflag,
	    (unsigned long)t->c_lflag, (unsigned long)t->c_oflag) < 0)
		return -1;
	for (i = 0; i < sizeof cchars / sizeof cchars[0]; i++)
		if (buf_printf(b, "%s=%x:", cchars[i].name,
		    (unsigned)t->c_cc[cchars[i].index]) < 0)
			return -1;
	return buf_printf(b, "ispeed=%lu:ospeed=%lu",
	    (unsigned long)cfgetispeed(t), (unsigned long)cfgetospeed(t));
}
#else
static int
stty_settings(struct buf *b, const struct termios *t)
{
	size_t i;

	/* GNU and busybox stty: the four flag words, then every c_cc (the speed is in c_cflag). */
	if (buf_printf(b, "%lx:%lx:%lx:%lx", (unsigned long)t->c_iflag,
	    (unsigned long)t->c_oflag, (unsigned long)t->c_cflag,
	    (unsigned long)t->c_lflag) < 0)
		return -1;
	for (i = 0; i < NCCS; i++)
		if (buf_printf(b, ":%x", (unsigned)t->c_cc[i]) < 0)
			return -1;
	return 0;
}
#endif

static const char *
command_name(enum prefix_command c)
{
	switch (c) {
	case PC_KEYS:
		return "keys";
	case PC_SESSIONS:
		return "sessions";
	case PC_NONE:
	case PC_DETACH:
		break;
	}
	return NULL;
}

/* The state as the JSON handoff.ts reads; -1 when it does not fit or a number is out of range. */
static int
handoff_json(struct buf *b, const struct handoff_state *s)
{
	static const struct untaken none;
	const struct untaken *u = s->untaken != NULL ? s->untaken : &none;
	const char *command = command_name(s->command);
	size_t i;

	if (buf_printf(b, "{\"v\":%d,\"session\":{\"id\":", HANDOFF_VERSION) < 0 ||
	    json_string_value(b, s->session_id) < 0 ||
	    buf_appends(b, ",\"name\":") < 0 ||
	    (s->session_name != NULL ? json_string_value(b, s->session_name) :
	    buf_appends(b, "null")) < 0)
		return -1;
	if (buf_printf(b, "},\"readOnly\":%s,\"detachPrefix\":%d,\"writer\":",
	    json_bool_value(s->read_only), s->detach_prefix) < 0 ||
	    json_hex_value(b, s->writer, WRITER_ID_BYTES) < 0 ||
	    buf_printf(b, ",\"painted\":%s,\"written\":",
	    json_bool_value(s->painted)) < 0)
		return -1;
	if (s->have_written) {
		if (s->written.seq > MAX_SAFE_INTEGER ||
		    buf_appends(b, "{\"boot\":") < 0 ||
		    json_string_value(b, s->written.boot) < 0 ||
		    buf_printf(b, ",\"seq\":%" PRIu64 "}", s->written.seq) < 0)
			return -1;
	} else if (buf_appends(b, "null") < 0) {
		return -1;
	}
	if (buf_printf(b, ",\"keepsHistory\":%s,\"viewShown\":%s,"
	    "\"altScreen\":{\"active\":%s,\"originMode\":%s},",
	    json_bool_value(s->keeps_history), json_bool_value(s->view_shown),
	    json_bool_value(s->alt_active), json_bool_value(s->origin_mode)) < 0)
		return -1;
	if (u->next > MAX_SAFE_INTEGER ||
	    buf_printf(b, "\"untaken\":{\"next\":%" PRIu64 ",\"taken\":%" PRIu64
	    ",\"pieces\":[", u->next, u->taken) < 0)
		return -1;
	for (i = 0; i < u->count; i++) {
		if (buf_printf(b, "%s{\"at\":%" PRIu64 ",\"hex\":", i > 0 ? "," : "",
		    u->pieces[i].at) < 0 ||
		    json_hex_value(b, u->pieces[i].data, u->pieces[i].len) < 0 ||
		    buf_appends(b, "}") < 0)
			return -1;
	}
	if (buf_appends(b, "]},\"command\":") < 0 ||
	    (command != NULL ? json_string_value(b, command) :
	    buf_appends(b, "null")) < 0 ||
	    buf_printf(b, ",\"covered\":%s,\"typed\":",
	    json_bool_value(s->covered)) < 0 ||
	    json_hex_value(b, s->typed, s->typed != NULL ? s->typed_len : 0) < 0 ||
	    buf_appends(b, ",\"stty\":") < 0)
		return -1;
	if (s->restore != NULL) {
		if (buf_appends(b, "\"") < 0 || stty_settings(b, s->restore) < 0 ||
		    buf_appends(b, "\"") < 0)
			return -1;
	} else if (buf_appends(b, "null") < 0) {
		return -1;
	}
	return buf_appends(b, "}\n");
}

/* An unlinked file holding the bytes, read from its start, inherited by the exec; -1 with err. */
static int
handoff_file(const struct buf *b, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	size_t done = 0;
	int fd, flags;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof path, "%s/tend-handoff-XXXXXX", dir) >= sizeof path) {
		snprintf(err, errlen, "the temporary directory's path (TMPDIR) is too long");
		return -1;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		snprintf(err, errlen, "could not create a file in %s: %s", dir, strerror(errno));
		return -1;
	}
	unlink(path);
	while (done < b->len) {
		ssize_t n = write(fd, b->data + done, b->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "could not write the hand-off to %s: %s", dir,
			    n < 0 ? strerror(errno) : "nothing written");
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	flags = fcntl(fd, F_GETFD);
	if (lseek(fd, 0, SEEK_SET) != 0 || flags < 0 ||
	    fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
		snprintf(err, errlen, "could not prepare the hand-off file: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The TypeScript viewer, while this process waits for it: a signal that ends an attach is its. */
static volatile sig_atomic_t viewer_pid;

static void
pass_signal_on(int sig)
{
	if (viewer_pid > 0)
		kill((pid_t)viewer_pid, sig);
}

/* Signals as a new program expects them: none blocked, none caught. */
static void
plain_signals(void)
{
	static const int caught[] = { SIGTERM, SIGHUP, SIGINT, SIGWINCH, SIGCHLD, SIGPIPE };
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof caught / sizeof caught[0]; i++)
		signal(caught[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * Runs argv as a child, waits for it, puts the terminal settings back and
 * ends as it ended. Returns (-1, err) only when it could not be started: a
 * close-on-exec pipe carries the exec's errno back.
 */
static int
run_then_restore(const char *const argv[], const struct termios *restore, char *err, size_t errlen)
{
	static const int passed[] = { SIGTERM, SIGHUP, SIGINT };
	struct sigaction sa;
	int report[2], status, exec_errno;
	ssize_t n;
	pid_t pid;
	size_t i;

	if (pipe(report) < 0 || fcntl(report[1], F_SETFD, FD_CLOEXEC) < 0) {
		snprintf(err, errlen, "could not start node: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "could not start node: %s", strerror(errno));
		close(report[0]);
		close(report[1]);
		return -1;
	}
	if (pid == 0) {
		close(report[0]);
		plain_signals();
		execvp(argv[0], (char *const *)argv);
		exec_errno = errno;
		if (write(report[1], &exec_errno, sizeof exec_errno) < 0)
			_exit(127);
		_exit(127);
	}
	close(report[1]);
	do
		n = read(report[0], &exec_errno, sizeof exec_errno);
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof exec_errno) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errlen, "could not run %s: %s", argv[0], strerror(exec_errno));
		return -1;
	}
	/* From here this process only waits: it ends when the viewer does. */
	plain_signals();
	viewer_pid = pid;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pass_signal_on;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof passed / sizeof passed[0]; i++)
		sigaction(passed[i], &sa, NULL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 1 << 8;
			break;
		}
	}
	while (tcsetattr(STDIN_FILENO, TCSADRAIN, restore) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int
handoff_exec(const char *node, const char *tend_js, const struct handoff_state *s, char *err, size_t errlen)
{
	char fd_text[16], key[4];
	const char *argv[10];
	struct buf json;
	int fd, argc = 0;

	buf_init(&json, HANDOFF_MAX_BYTES);
	if (handoff_json(&json, s) < 0) {
		buf_free(&json);
		snprintf(err, errlen, "the state to hand over does not fit in %u bytes", HANDOFF_MAX_BYTES);
		return -1;
	}
	fd = handoff_file(&json, err, errlen);
	buf_free(&json);
	if (fd < 0)
		return -1;
	snprintf(fd_text, sizeof fd_text, "%d", fd);
	/* The detach prefix as parseDetachKey reads it: ^@ .. ^_ */
	key[0] = '^';
	key[1] = (char)(0x40 + (s->detach_prefix & 0x1f));
	key[2] = '\0';
	argv[argc++] = node;
	argv[argc++] = tend_js;
	argv[argc++] = "attach";
	argv[argc++] = s->session_id;
	argv[argc++] = "--handoff";
	argv[argc++] = fd_text;
	if (s->read_only)
		argv[argc++] = "--read-only";
	argv[argc++] = "--detach-key";
	argv[argc++] = key;
	argv[argc] = NULL;
	/* Only the launcher's note to this viewer: the TypeScript one must not pass it on. */
	unsetenv("TEND_CLI_JS");
	if (s->restore != NULL) {
		run_then_restore(argv, s->restore, err, errlen);
		close(fd);
		return -1;
	}
	plain_signals();
	execvp(node, (char *const *)argv);
	snprintf(err, errlen, "could not run %s: %s", node, strerror(errno));
	close(fd);
	return -1;
}

int
handoff_exec_args(const char *node, const char *tend_js, int argc, char **argv)
{
	char **args;
	int i;

	if (argc < 1)
		return -1;
	/* node tend.js, then argv[1..] ("attach" and what was typed after it), then NULL. */
	args = calloc((size_t)argc + 2, sizeof *args);
	if (args == NULL)
		return -1;
	args[0] = (char *)node;
	args[1] = (char *)tend_js;
	for (i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	args[argc + 1] = NULL;
	unsetenv("TEND_CLI_JS");
	plain_signals();
	execvp(node, args);
	free(args);
	return -1;
}
