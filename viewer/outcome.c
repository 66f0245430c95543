/*
 * outcome.c -- how the attach ends, and what it says then: the outer
 * terminal put back (rows drawn over blanked, the session's modes left, the
 * settings restored), then one line in the words of the TypeScript
 * `tend attach` -- "[detached from …]", "[session … exited with code 2]"
 * (describeExit), the server lost for good, an error -- with its exit
 * status. Tests and people compare these words across both viewers, so
 * they live in one place.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "state.h"

/* The attach ends (the first call wins); the loop stops after this turn, and nothing is retried. */
void
attach_finish(struct attach *a, enum outcome_kind kind, const char *message)
{
	if (a->finished)
		return;
	a->finished = true;
	a->outcome = kind;
	snprintf(a->message, sizeof a->message, "%s", message != NULL ? message : "");
	a->retry_deadline = a->carry_deadline = 0;
	attach_drop_ack(a);
}

/* Puts the outer terminal back: rows drawn over blanked, the session's modes left, the settings restored. */
void
attach_restore_terminal(struct attach *a)
{
	int cols, rows;
	bool covered = a->ov.covered > 0;

	attach_size(&cols, &rows);
	if (a->link) {
		ws_close(&a->ws);
		a->link = false;
	}
	if (a->painted || a->status_shown || covered) {
		overlays_leaving(&a->ov, &a->term, cols, rows);
		paint_leave(&a->term, a->alt.active, a->alt.origin_mode, cols, rows);
	}
	a->pend_have = false;
	if (a->term.len > 0 && !a->term_dead)
		outer_write_all(a->term.data, a->term.len);
	buf_clear(&a->term);
	if (a->raw) {
		outer_restore_mode(&a->saved);
		a->raw = false;
	}
}

/* What the program did (describeExit): "exited with code 2", "was killed by signal 9 (SIGKILL)", "ended". */
static void
describe_exit(bool code_known, int32_t code, bool signal_known, int32_t sig, char *out, size_t outlen)
{
	static const char *const names[32] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
		"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
		"SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
		"SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",
		"SIGPWR", "SIGSYS",
	};

	if (signal_known && sig > 0) {
		if (sig < 32 && names[sig] != NULL)
			snprintf(out, outlen, "was killed by signal %" PRId32 " (%s)", sig, names[sig]);
		else
			snprintf(out, outlen, "was killed by signal %" PRId32, sig);
	} else if (!code_known) {
		snprintf(out, outlen, "ended");
	} else {
		snprintf(out, outlen, "exited with code %" PRId32, code);
	}
}

/*
 * A server of another build than this viewer's: one line on stderr under
 * the exit line, in src/cli/build-notice.ts's words (otherBuildLine).
 */
static void
say_other_build(const struct attach *a)
{
	const char *own_version = a->o->own_version, *own_build = a->o->own_build;

	if (!a->server_known)
		return;
	if (strcmp(a->server_build, own_build) == 0 && strcmp(a->server_version, own_version) == 0)
		return;
	if (a->server_build[0] == '\0')
		fprintf(stderr, "tend: the server is tend %s (from before build ids)", a->server_version);
	else
		fprintf(stderr, "tend: the server is tend %s (build %s)", a->server_version, a->server_build);
	fprintf(stderr, ", this is tend %s (build %s): `tend upgrade` moves the server to this build without closing a terminal "
	    "(`tend server restart` also works)\n", own_version, own_build);
}

static int
say_how_it_ended(struct attach *a)
{
	char how[128];

	switch (a->outcome) {
	case OUT_DETACHED:
		printf("[detached from %s]\n", a->label);
		return 0;
	case OUT_EXITED:
		describe_exit(a->exited_code_known, a->exited_code, a->exited_signal_known, a->exited_signal, how, sizeof how);
		printf("[session %s %s]\n", a->label, how);
		return 0;
	case OUT_LOST:
		fprintf(stderr, "tend: lost the server and could not reconnect (%s); session %s is still running \xe2\x80\x94 `tend attach %s` to try again\n",
		    a->message, a->label, a->target);
		return 1;
	case OUT_ERROR:
		fprintf(stderr, "tend: %s\n", a->message);
		return 1;
	case OUT_SIGNAL:
	case OUT_NONE:
		return 1;
	}
	return 1;
}

/* Says how the attach ended, as `tend attach` in TypeScript does, then a server of another build; returns the exit status. */
int
attach_say_outcome(struct attach *a)
{
	int status = say_how_it_ended(a);

	fflush(stdout);
	say_other_build(a);
	return status;
}

