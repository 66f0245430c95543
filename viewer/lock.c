/*
 * lock.c -- which server serves TEND_HOME, and on which socket: the home's
 * lock (TEND_HOME/server.lock, a line of JSON the server writes: its pid and
 * its socket), trusted only while that pid is alive and is a tend server,
 * as home-lock.ts judges it. The server's socket is in its runtime
 * directory, which the lock names whatever runtime directory this viewer's
 * environment would resolve (a login shell, a service, an agent): main.c
 * reads it to find the server at the start, link.c again before each
 * reconnect, to follow a server restarted elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "viewer.h"

/* TEND_HOME/server.lock is a line of JSON; anything longer is not one. */
#define LOCK_MAX_BYTES 8192
#define PATH_MAX_BYTES 4096

/* Reads a small file whole into out (NUL-terminated); its length, or -1. */
ssize_t
read_small_file(const char *path, char *out, size_t outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got + 1 < outlen) {
		ssize_t n = read(fd, out + got, outlen - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	out[got] = '\0';
	return (ssize_t)got;
}

/* A live pid that is a tend server, not a pid reused by another program (home-lock.ts's isTendServer). */
static bool
is_tend_server(long pid)
{
	char path[64], cmdline[PATH_MAX_BYTES];
	ssize_t n;

	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return false;
	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	n = read_small_file(path, cmdline, sizeof cmdline);
	if (n < 0)
		return true; /* no /proc: trust the live pid */
	/* The arguments are separated by NULs: look through all of them. */
	for (ssize_t i = 0; i < n; i++)
		if (cmdline[i] == '\0')
			cmdline[i] = ' ';
	return strstr(cmdline, "server/main.js") != NULL;
}

int
lock_server_socket(char *socket_path, size_t len)
{
	char build[128];

	return lock_server(socket_path, len, build, sizeof build);
}

int
home_path(const char *name, char *out, size_t outlen)
{
	const char *home = getenv("TEND_HOME"), *user_home = getenv("HOME");
	int r;

	if (home != NULL && home[0] != '\0')
		r = snprintf(out, outlen, "%s/%s", home, name);
	else if (user_home != NULL && user_home[0] != '\0')
		r = snprintf(out, outlen, "%s/.tend/%s", user_home, name);
	else
		return -1;
	return r < 0 || (size_t)r >= outlen ? -1 : 0;
}

int
lock_server(char *socket_path, size_t len, char *build, size_t build_len)
{
	char lock_path[PATH_MAX_BYTES], text[LOCK_MAX_BYTES];
	ssize_t n;
	double pid;

	if (home_path("server.lock", lock_path, sizeof lock_path) != 0)
		return -1;
	n = read_small_file(lock_path, text, sizeof text);
	if (n <= 0)
		return -1;
	if (json_number(text, (size_t)n, "pid", &pid, NULL) != 1 || pid <= 0 || pid > 4194304 || pid != (double)(long)pid)
		return -1;
	if (json_string(text, (size_t)n, "socket", socket_path, len, NULL) != 1 || socket_path[0] == '\0')
		return -1;
	if (json_string(text, (size_t)n, "build", build, build_len, NULL) != 1)
		build[0] = '\0';
	return is_tend_server((long)pid) ? 0 : -1;
}
