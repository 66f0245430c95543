/*
 * listen.c -- the socket file: check where it may go, bind it (mode 0600),
 * notice when someone deleted it and bind it again, remove it at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "holder.h"

#define LISTEN_BACKLOG 16

static int
listen_fill_address(struct sockaddr_un *sa, const char *path, char *cause)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa->sun_path) {
		snprintf(cause, CAUSE_BYTES,
		    "socket path is %zu bytes, more than the %zu a unix socket "
		    "allows: %s", strlen(path), sizeof sa->sun_path - 1, path);
		return -1;
	}
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return 0;
}

/* The directory part of `path` into `dir` ("." when there is none). */
void
listen_dirname(const char *path, char *dir, size_t room)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (slash == NULL) {
		snprintf(dir, room, ".");
		return;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= room)
		n = room - 1;
	memcpy(dir, path, n);
	dir[n] = '\0';
}

/*
 * The socket's directory must already exist, be ours and be 0700: the
 * socket is the key to a terminal, and the holder creates nothing it was
 * not told to.
 */
int
listen_check_path(const char *path, char *cause)
{
	struct sockaddr_un sa;
	char dir[sizeof sa.sun_path];
	struct stat st;

	if (listen_fill_address(&sa, path, cause) != 0)
		return -1;
	listen_dirname(path, dir, sizeof dir);
	if (stat(dir, &st) != 0) {
		snprintf(cause, CAUSE_BYTES, "socket directory '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(cause, CAUSE_BYTES,
		    "socket directory '%s' is not a directory", dir);
		return -1;
	}
	if ((st.st_mode & 0777) != 0700 || st.st_uid != geteuid()) {
		snprintf(cause, CAUSE_BYTES, "socket directory '%s' must be "
		    "owned by you with mode 0700 (it is %03o)", dir,
		    (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

/* An old socket file is replaced only when nobody answers on it. */
static int
listen_clear_stale(const struct sockaddr_un *sa, char *cause)
{
	struct stat st;
	int fd, r;

	if (lstat(sa->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(cause, CAUSE_BYTES, "%s exists and is not a socket",
		    sa->sun_path);
		return -1;
	}
	fd = sys_unix_socket();
	if (fd < 0)
		return -1;
	/* EAGAIN: a full backlog, so somebody is listening there. */
	r = connect(fd, (const struct sockaddr *)sa, sizeof *sa);
	if (r != 0 && errno == EAGAIN)
		r = 0;
	close(fd);
	if (r == 0) {
		snprintf(cause, CAUSE_BYTES,
		    "another holder is listening at %s", sa->sun_path);
		return -1;
	}
	if (unlink(sa->sun_path) != 0 && errno != ENOENT)
		return -1;
	return 0;
}

static int
listen_bind(int fd, const struct sockaddr_un *sa)
{
	mode_t old = umask(0177);	/* the file is born 0600 */
	int r = bind(fd, (const struct sockaddr *)sa, sizeof *sa);
	int saved = errno;

	umask(old);
	errno = saved;
	return r;
}

int
listen_open(struct listener *l, const char *path, char *cause)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	cause[0] = '\0';
	if (listen_fill_address(&sa, path, cause) != 0)
		return -1;
	if (listen_clear_stale(&sa, cause) != 0)
		goto fail;
	fd = sys_unix_socket();
	if (fd < 0)
		goto fail;
	if (listen_bind(fd, &sa) != 0 || listen(fd, LISTEN_BACKLOG) != 0 ||
	    stat(path, &st) != 0) {
		close(fd);
		goto fail;
	}
	l->fd = fd;
	l->path = path;
	l->device = st.st_dev;
	l->inode = st.st_ino;
	l->rebind_failing = false;
	return 0;
fail:
	if (cause[0] == '\0')
		snprintf(cause, CAUSE_BYTES, "cannot listen at %s: %s", path,
		    strerror(errno));
	return -1;
}

/*
 * Called every few seconds: if the socket file was deleted (a cleanup
 * script, a tmp cleaner), bind it again, or the terminal is unreachable.
 */
void
listen_check_file(struct listener *l)
{
	char cause[CAUSE_BYTES];
	struct listener fresh;
	struct stat st;

	if (stat(l->path, &st) == 0 || errno != ENOENT)
		return;
	if (listen_open(&fresh, l->path, cause) != 0) {
		if (!l->rebind_failing)
			holder_log("socket vanished, cannot bind again: %s",
			    cause);
		l->rebind_failing = true;
		return;
	}
	holder_log("socket %s vanished; bound it again", l->path);
	close(l->fd);
	*l = fresh;
}

/* Remove the socket file, unless it is no longer the one we bound. */
void
listen_remove(struct listener *l)
{
	struct stat st;

	if (l->fd < 0)
		return;
	if (stat(l->path, &st) == 0 && st.st_dev == l->device &&
	    st.st_ino == l->inode)
		unlink(l->path);
	close(l->fd);
	l->fd = -1;
}
