/*
 * test_live.c -- tests of a real tend-holder over its real socket, for what
 * only the holder itself decides: the socket file (mode, stale file,
 * another holder, re-creation after deletion) and connection limits (the
 * ninth connection, a client that never reads).  The protocol end to end
 * is tested from TypeScript in test/holder.
 *
 * Usage: test-live HOLDER_BINARY   (make check)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"

/* Every wait is bounded; none of these is a timing assertion. */
#define WAIT_MS 15000

static const char *holder_binary;
static char dir[256];
static int failures, checks;
static pid_t started[32];
static int started_count;

#define CHECK(cond) check((cond), #cond, __LINE__)

static void
check(int ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "test_live.c:%d: FAILED: %s\n", line, what);
	}
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start a holder on DIR/name running `sleep 600`; 0 and pids, or -1. */
static int
start_holder(const char *name, pid_t *holder, char *err, size_t room)
{
	char path[512], fd_text[16], line[512] = "";
	int ready[2], status;
	ssize_t n;
	pid_t pid, child;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (pipe(ready) != 0)
		return -1;
	snprintf(fd_text, sizeof fd_text, "%d", ready[1]);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* Its refusals come on the ready fd; keep the output quiet. */
		if (null >= 0)
			dup2(null, 2);
		close(ready[0]);
		execl(holder_binary, holder_binary, "--socket", path, "--cols",
		    "80", "--rows", "24", "--cwd", "/", "--ready-fd", fd_text,
		    "--", "sleep", "600", (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	n = read(ready[0], line, sizeof line - 1);
	close(ready[0]);
	waitpid(pid, &status, 0);
	line[n > 0 ? n : 0] = '\0';
	snprintf(err, room, "%s", line);
	if (sscanf(line, "OK %d %d", holder, &child) != 2)
		return -1;
	started[started_count++] = *holder;
	started[started_count++] = child;
	return 0;
}

static int
connect_to(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);	/* no SOCK_CLOEXEC on macOS */
	char path[512];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (strlen(path) >= sizeof sa.sun_path) {
		close(fd);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Next frame's type and first payload bytes; -1 on EOF or time-out. */
static int
read_frame(int fd, uint8_t *payload, size_t room, uint32_t *length)
{
	uint8_t header[FRAME_HEADER_BYTES];
	size_t have = 0, want = sizeof header;
	uint8_t *into = header;
	int64_t end = now_ms() + WAIT_MS;

	for (int part = 0; part < 2; part++) {
		while (have < want) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, (int)(end - now_ms())) <= 0)
				return -1;
			n = read(fd, into + have, want - have);
			if (n <= 0)
				return -1;
			have += (size_t)n;
		}
		if (part == 0) {
			*length = frame_get_u32(header + 1);
			if (*length > room)
				return -1;
			into = payload, have = 0, want = *length;
		}
	}
	return header[0];
}

static int
send_hello(int fd)
{
	uint8_t f[16];
	size_t n = frame_encode_u32(f, FRAME_HELLO, PROTOCOL_VERSION);

	return write(fd, f, n) == (ssize_t)n ? 0 : -1;
}

static void
test_socket_file(void)
{
	char path[512], err[512];
	struct stat st;
	pid_t holder, second;
	int fd;

	snprintf(path, sizeof path, "%s/a.sock", dir);
	CHECK(start_holder("a.sock", &holder, err, sizeof err) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	/* A second holder on the same path is refused, the first lives. */
	CHECK(start_holder("a.sock", &second, err, sizeof err) != 0);
	CHECK(strstr(err, "another holder is listening") != NULL);
	CHECK(kill(holder, 0) == 0);
	/* Deleted: the holder binds it again within a few seconds. */
	CHECK(unlink(path) == 0);
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end;) {
		if (stat(path, &st) == 0)
			break;
		usleep(50 * 1000);
	}
	CHECK((fd = connect_to("a.sock")) >= 0 && send_hello(fd) == 0);
	if (fd >= 0) {
		uint8_t p[128];
		uint32_t n;

		CHECK(read_frame(fd, p, sizeof p, &n) == FRAME_STATE);
		close(fd);
	}
	/* Killed hard, it leaves a stale file: the next holder replaces it. */
	kill(holder, SIGKILL);
	/* Not our child (it detached), so wait for what matters: the kernel
	 * closing its listening socket, which follows the kill a moment later. */
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end;) {
		if ((fd = connect_to("a.sock")) < 0)
			break;
		close(fd);
		usleep(10 * 1000);
	}
	CHECK(stat(path, &st) == 0);
	CHECK(start_holder("a.sock", &second, err, sizeof err) == 0);
}

static void
test_socket_dir_mode(void)
{
	char sub[512], name[64], err[512];
	pid_t holder;

	snprintf(sub, sizeof sub, "%s/open", dir);
	CHECK(mkdir(sub, 0755) == 0 && chmod(sub, 0755) == 0);
	snprintf(name, sizeof name, "open/x.sock");
	CHECK(start_holder(name, &holder, err, sizeof err) != 0);
	CHECK(strstr(err, "mode 0700") != NULL);
	rmdir(sub);
}

static void
test_ninth_connection(void)
{
	char err[512];
	uint8_t p[256];
	uint32_t n;
	pid_t holder;
	int fds[CONN_MAX + 1];

	CHECK(start_holder("b.sock", &holder, err, sizeof err) == 0);
	for (int i = 0; i < CONN_MAX; i++) {
		fds[i] = connect_to("b.sock");
		CHECK(fds[i] >= 0 && send_hello(fds[i]) == 0);
		CHECK(read_frame(fds[i], p, sizeof p, &n) == FRAME_STATE);
	}
	fds[CONN_MAX] = connect_to("b.sock");
	CHECK(read_frame(fds[CONN_MAX], p, sizeof p, &n) == FRAME_ERROR);
	CHECK(n >= 2 && frame_get_u16(p) == ERROR_BUSY);
	for (int i = 0; i <= CONN_MAX; i++)
		close(fds[i]);
	/* The slots free up once those close. */
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end;) {
		int fd = connect_to("b.sock");
		int type = fd >= 0 && send_hello(fd) == 0 ?
		    read_frame(fd, p, sizeof p, &n) : -1;

		if (fd >= 0)
			close(fd);
		if (type == FRAME_STATE)
			return;
		usleep(50 * 1000);
	}
	CHECK(!"a connection after the others closed got a STATE");
}

/* PINGs, never reading the PONGs: the holder gives up on this client. */
static void
test_client_that_never_reads(void)
{
	static uint8_t pings[1000 * (FRAME_HEADER_BYTES + 8)];
	char err[512];
	uint8_t p[256];
	uint32_t n;
	pid_t holder;
	int fd, type, sent = 0;

	CHECK(start_holder("c.sock", &holder, err, sizeof err) == 0);
	CHECK((fd = connect_to("c.sock")) >= 0 && send_hello(fd) == 0);
	for (size_t i = 0; i < 1000; i++)
		frame_encode_u64(pings + i * 13, FRAME_PING, i);
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end && sent < 60;) {
		struct pollfd q = { .fd = fd, .events = POLLOUT };

		if (poll(&q, 1, 100) <= 0 || (q.revents & (POLLERR | POLLHUP)))
			continue;
		if (write(fd, pings, sizeof pings) < 0 && errno != EAGAIN)
			break;
		sent++;
	}
	while ((type = read_frame(fd, p, sizeof p, &n)) == FRAME_STATE ||
	    type == FRAME_PONG)
		;
	CHECK(type == FRAME_ERROR && frame_get_u16(p) == ERROR_BUSY);
	close(fd);
	CHECK(kill(holder, 0) == 0);
}

/*
 * A pipe the starter leaked into the holder (no close-on-exec), once below
 * the ready fd and once far above it: the holder closes both copies, so the
 * read end sees EOF once the starter is gone, not when the session ends.
 */
static void
test_inherited_fds(void)
{
	enum { HIGH_FD = 200 };
	struct pollfd q;
	char err[512], byte;
	pid_t holder;
	int leak[2];

	CHECK(pipe(leak) == 0 && dup2(leak[1], HIGH_FD) == HIGH_FD);
	CHECK(start_holder("d.sock", &holder, err, sizeof err) == 0);
	close(leak[1]);
	close(HIGH_FD);
	q = (struct pollfd){ .fd = leak[0], .events = POLLIN };
	CHECK(poll(&q, 1, WAIT_MS) == 1 && read(leak[0], &byte, 1) == 0);
	close(leak[0]);
}

int
main(int argc, char **argv)
{
	char template[] = "/tmp/tend-holder-test-XXXXXX";

	if (argc != 2) {
		fprintf(stderr, "usage: test-live HOLDER_BINARY\n");
		return 2;
	}
	holder_binary = argv[1];
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(template) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", template);
	test_socket_file();
	test_socket_dir_mode();
	test_ninth_connection();
	test_client_that_never_reads();
	test_inherited_fds();
	for (int i = 0; i < started_count; i++)
		kill(started[i], SIGKILL);
	for (const char *s = "abcd"; *s; s++) {
		char path[512];

		snprintf(path, sizeof path, "%s/%c.sock", dir, *s);
		unlink(path);
	}
	rmdir(dir);
	printf("test-live: %d checks, %d failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
