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
 * Plain C11 and POSIX, one thread, no allocation: the payload lives in one
 * static buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* Waits for the first line of the reply (its status line) or the server closing; its content is not needed. */
static void
await_status_line(int fd, long long deadline)
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
			return;
		n = read(fd, reply, sizeof reply);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0 || memchr(reply, '\n', (size_t)n) != NULL)
			return;
	}
}

static void
event_post(const char *socket_path, const char *session, const char *kind,
    const char *event, const struct payload *p)
{
	long long deadline = now_ms() + SERVER_DEADLINE_MS;
	size_t body_len = p->truncated ? 0 : p->len;
	char head[REQUEST_HEAD_BYTES];
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
		return;
	fd = server_connect(socket_path, deadline);
	if (fd < 0)
		return;
	if (send_all(fd, head, (size_t)head_len, deadline) &&
	    send_all(fd, payload_bytes, body_len, deadline))
		await_status_line(fd, deadline);
	close(fd);
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
	event_post(socket_path, session, kind, event, &p);
	return 0;
}
