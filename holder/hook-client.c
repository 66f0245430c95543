/*
 * hook-client.c -- tend-hook, the command an agent's hooks run:
 *
 *     tend-hook claude|codex|gemini EVENT      (the hook's JSON payload on stdin)
 *
 * It posts the payload to the tend server of the session it runs in
 * (TEND_SOCKET, TEND_SESSION in its environment):
 *
 *     POST /v1/sessions/<id>/agent/events?agent=KIND&event=EVENT[&truncated=1]
 *
 * An agent waits for its hooks (Claude Code holds a typed prompt until its
 * UserPromptSubmit hooks return), reads their stdout as JSON, may show their
 * stderr, and takes exit status 2 as "block this".  So this is a small
 * native program rather than a Node one (a Node start costs ~100 ms), it
 * prints nothing, always exits 0, and every wait is bounded: stdin by
 * STDIN_DEADLINE_MS, the server by SERVER_DEADLINE_MS.  Whatever goes
 * wrong (no server, a stopped one, a bad argument) the agent's turn goes on.
 *
 * When the server is down (no socket, nobody listening, the connection
 * closed before any reply, the request not written), the event is not lost:
 * it is written to the hook spool beside the socket,
 *
 *     <dir of TEND_SOCKET>/hook-spool/<stamp>-<pid>-<session>-<kind>-<event>.json
 *
 * (".truncated.json" for a truncated event, whose file is empty; otherwise
 * the file holds the payload's bytes).  <stamp> is 20 digits of
 * CLOCK_REALTIME nanoseconds, raised past the newest file already there, so
 * names sort in the order the events happened.  The file is written under a
 * dot-name and renamed, so the server sees it whole or not at all; the next
 * server replays the spool in name order (src/server/agents/hook-spool.ts).
 * The spool is bounded (SPOOL_MAX_FILES, SPOOL_MAX_BYTES): past it the event
 * is dropped.  A server that answered, whatever it said, is not spooled for.
 *
 * Plain C11 and POSIX, one thread, no allocation: the payload lives in one
 * static buffer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The server's cap on one event (MAX_AGENT_EVENT_BYTES in src/protocol/api/agents.ts). */
#define MAX_PAYLOAD_BYTES (1024 * 1024)
/* An agent writes its payload and closes stdin at once; a stdin left open (a hook run by hand) is not waited on longer. */
#define STDIN_DEADLINE_MS 2000
/*
 * From connecting to the reply's status line.  Waiting for the reply keeps
 * one agent's events in order at the server (its next hook runs after this
 * one returns); the bound keeps a stopped or wedged server from holding the
 * agent.  A healthy server answers in about a millisecond.
 */
#define SERVER_DEADLINE_MS 300
/* Bytes read and thrown away per read once the payload is past its cap. */
#define DRAIN_CHUNK_BYTES (64 * 1024)
/* Request line and headers: the path holds at most 64 + 64 characters of ids and names. */
#define REQUEST_HEAD_BYTES 512
#define MAX_SESSION_ID_CHARS 64
#define MAX_EVENT_CHARS 64
/* The spool's directory, beside the server's socket (TendPaths.hookSpoolDir). */
#define SPOOL_DIR_NAME "hook-spool"
/* Past either bound an event is dropped: a server down for days must not fill the disk. */
#define SPOOL_MAX_FILES 1000
#define SPOOL_MAX_BYTES (64LL * 1024 * 1024)
/* Digits of a spool file's stamp (nanoseconds): names of equal length sort as numbers. */
#define SPOOL_STAMP_DIGITS 20

/* What became of a post: whether the server has the event. */
enum delivery {
	/* The server answered (any status: a 4xx is a bad event or a gone session, not one to try again). */
	DELIVERED,
	/* The server cannot have applied it: no connection, the request not written, closed with no reply. */
	NOT_DELIVERED,
	/* Written, but no reply in time: a slow server may have applied it. */
	UNKNOWN,
};

struct payload {
	size_t len;
	/* Past MAX_PAYLOAD_BYTES, or stdin not closed in time: the body is not sent. */
	bool truncated;
};

static char payload_bytes[MAX_PAYLOAD_BYTES];

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before `deadline`, as poll() takes them (0 once past). */
static int
ms_left(long long deadline)
{
	long long left = deadline - now_ms();

	return left > 0 ? (int)left : 0;
}

static bool
is_alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9');
}

/* A tend session id: [A-Za-z0-9]{1,64}.  Anything else goes into no URL. */
static bool
session_id_ok(const char *id)
{
	size_t n = 0;

	if (id == NULL)
		return false;
	for (; id[n] != '\0'; n++) {
		if (n >= MAX_SESSION_ID_CHARS || !is_alnum(id[n]))
			return false;
	}
	return n > 0;
}

/* An agent's hook event name: [A-Za-z][A-Za-z0-9_]{0,63} (AGENT_EVENT_NAME_PATTERN). */
static bool
event_ok(const char *event)
{
	size_t n;

	if (event == NULL || !((event[0] >= 'A' && event[0] <= 'Z') ||
	    (event[0] >= 'a' && event[0] <= 'z')))
		return false;
	for (n = 1; event[n] != '\0'; n++) {
		if (n >= MAX_EVENT_CHARS ||
		    !(is_alnum(event[n]) || event[n] == '_'))
			return false;
	}
	return true;
}

static bool
kind_ok(const char *kind)
{
	return kind != NULL && (strcmp(kind, "claude") == 0 ||
	    strcmp(kind, "codex") == 0 || strcmp(kind, "gemini") == 0);
}

/*
 * Reads stdin to its end or the deadline, keeping the first
 * MAX_PAYLOAD_BYTES and reading the rest into nothing: the agent writing
 * a larger payload must not meet a closed pipe.  stdin's flags are left
 * alone (they are shared with the agent), so each read follows a poll().
 */
static void
payload_read(struct payload *p)
{
	static char drain[DRAIN_CHUNK_BYTES];
	long long deadline = now_ms() + STDIN_DEADLINE_MS;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;
	int ready;

	p->len = 0;
	p->truncated = false;
	for (;;) {
		ready = poll(&pfd, 1, ms_left(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			/* Still open at the deadline: what was read is not the whole payload. */
			p->truncated = ready == 0;
			return;
		}
		if (p->len < MAX_PAYLOAD_BYTES)
			n = read(STDIN_FILENO, payload_bytes + p->len,
			    MAX_PAYLOAD_BYTES - p->len);
		else
			n = read(STDIN_FILENO, drain, sizeof drain);
		if (n == 0)
			return;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			/* No stdin at all (closed) is an empty payload; a failed read midway is a partial one. */
			p->truncated = p->len > 0;
			return;
		}
		if (p->len < MAX_PAYLOAD_BYTES)
			p->len += (size_t)n;
		else
			p->truncated = true;
	}
}

/* Connects without blocking: a server whose backlog is full (stopped) gives EAGAIN at once. */
static int
server_connect(const char *path, long long deadline)
{
	struct sockaddr_un addr;
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, flags, err = 0;

	if (strlen(path) >= sizeof addr.sun_path)
		return -1;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
		goto fail;
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
		return fd;
	/* ENOENT, ECONNREFUSED (no server), EAGAIN (a full backlog): nobody to wait for. */
	if (errno != EINPROGRESS && errno != EINTR)
		goto fail;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, ms_left(deadline)) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Writes all of buf before the deadline; false if the server stops taking it. */
static bool
send_all(int fd, const char *buf, size_t len, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;
	int ready;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			return false;
		ready = poll(&pfd, 1, ms_left(deadline));
		if (ready == 0 || (ready < 0 && errno != EINTR))
			return false;
	}
	return true;
}

/*
 * Waits for the reply.  Any byte of it means the server read the request;
 * the connection closing first means it did not answer (a server stopping
 * or dying), and the deadline passing leaves it unknown.
 */
static enum delivery
await_reply(int fd, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char reply[256];
	ssize_t n;
	int ready;

	for (;;) {
		ready = poll(&pfd, 1, ms_left(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return UNKNOWN;
		n = read(fd, reply, sizeof reply);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		return n > 0 ? DELIVERED : NOT_DELIVERED;
	}
}

static enum delivery
event_post(const char *socket_path, const char *session, const char *kind,
    const char *event, const struct payload *p)
{
	long long deadline = now_ms() + SERVER_DEADLINE_MS;
	size_t body_len = p->truncated ? 0 : p->len;
	char head[REQUEST_HEAD_BYTES];
	enum delivery result = NOT_DELIVERED;
	int fd, head_len;

	head_len = snprintf(head, sizeof head,
	    "POST /v1/sessions/%s/agent/events?agent=%s&event=%s%s HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n"
	    "\r\n",
	    session, kind, event, p->truncated ? "&truncated=1" : "", body_len);
	if (head_len < 0 || (size_t)head_len >= sizeof head)
		return DELIVERED; /* cannot happen (the words are checked); nothing to keep either */
	fd = server_connect(socket_path, deadline);
	if (fd < 0)
		return NOT_DELIVERED;
	/*
	 * A request not written whole is one the server drops unread.  One
	 * written whole but not answered in time is left to the server: a slow
	 * server (swapping, a long pause) may still apply it, and a spooled copy
	 * would then be applied twice (a second Stop, a second prompt).
	 */
	if (send_all(fd, head, (size_t)head_len, deadline) &&
	    send_all(fd, payload_bytes, body_len, deadline))
		result = await_reply(fd, deadline);
	close(fd);
	return result;
}

/* Writes all of buf to a file; false on any error. */
static bool
write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* The stamp a spool file's name starts with, or 0 for a name that starts otherwise. */
static unsigned long long
spool_stamp_of(const char *name)
{
	unsigned long long stamp = 0;
	int i;

	for (i = 0; i < SPOOL_STAMP_DIGITS; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		stamp = stamp * 10 + (unsigned long long)(name[i] - '0');
	}
	return name[i] == '-' ? stamp : 0;
}

/*
 * Counts the spool's files and bytes and finds its newest stamp.  False when
 * the spool is full (or cannot be read): the event is then dropped.
 */
static bool
spool_has_room(const char *dir, size_t body_len, unsigned long long *newest)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	long long files = 0, bytes = (long long)body_len;
	unsigned long long stamp;

	*newest = 0;
	if (d == NULL)
		return false;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		files++;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			bytes += (long long)st.st_size;
		stamp = spool_stamp_of(e->d_name);
		if (stamp > *newest)
			*newest = stamp;
	}
	closedir(d);
	return files < SPOOL_MAX_FILES && bytes <= SPOOL_MAX_BYTES;
}

/*
 * Keeps an event the server did not get for the next server to replay.
 * Anything that fails here drops the event: the agent must go on either way.
 * No fsync: the spool outlives a server, not the machine (it sits with the
 * socket, in a runtime directory a reboot may clear, as it clears sessions).
 */
static void
event_spool(const char *socket_path, const char *session, const char *kind,
    const char *event, const struct payload *p)
{
	size_t body_len = p->truncated ? 0 : p->len;
	const char *slash = strrchr(socket_path, '/');
	char dir[PATH_MAX], tmp[PATH_MAX], final[PATH_MAX];
	unsigned long long newest, stamp;
	struct timespec ts;
	int dir_len, n, fd;
	bool written;

	if (slash == NULL)
		dir_len = snprintf(dir, sizeof dir, "%s", SPOOL_DIR_NAME);
	else
		dir_len = snprintf(dir, sizeof dir, "%.*s/%s",
		    (int)(slash - socket_path), socket_path, SPOOL_DIR_NAME);
	if (dir_len < 0 || (size_t)dir_len >= sizeof dir)
		return;
	/* Only the spool itself is made: no directory of the socket means no tend here. */
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return;
	if (!spool_has_room(dir, body_len, &newest))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	stamp = (unsigned long long)ts.tv_sec * 1000000000ULL +
	    (unsigned long long)ts.tv_nsec;
	/* A clock stepped back must not put this event before one spooled earlier. */
	if (stamp <= newest)
		stamp = newest + 1;
	n = snprintf(final, sizeof final, "%s/%0*llu-%010ld-%s-%s-%s%s", dir,
	    SPOOL_STAMP_DIGITS, stamp, (long)getpid(), session, kind, event,
	    p->truncated ? ".truncated.json" : ".json");
	if (n < 0 || (size_t)n >= sizeof final)
		return;
	n = snprintf(tmp, sizeof tmp, "%s/.tmp-%010ld-%0*llu", dir,
	    (long)getpid(), SPOOL_STAMP_DIGITS, stamp);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	written = write_all(fd, payload_bytes, body_len);
	if (close(fd) != 0)
		written = false;
	if (!written || rename(tmp, final) != 0)
		unlink(tmp);
}

int
main(int argc, char **argv)
{
	const char *socket_path = getenv("TEND_SOCKET");
	const char *session = getenv("TEND_SESSION");
	const char *kind = argc > 1 ? argv[1] : NULL;
	const char *event = argc > 2 ? argv[2] : NULL;
	struct payload p;

	/* A server that closes early must not kill us before we exit 0. */
	signal(SIGPIPE, SIG_IGN);
	/* Read even when nothing will be sent: the agent's write must not fail. */
	payload_read(&p);
	if (argc != 3 || !kind_ok(kind) || !event_ok(event) ||
	    !session_id_ok(session) || socket_path == NULL ||
	    socket_path[0] == '\0')
		return 0;
	if (event_post(socket_path, session, kind, event, &p) == NOT_DELIVERED)
		event_spool(socket_path, session, kind, event, &p);
	return 0;
}
