// SPDX-License-Identifier: GPL-2.0-only
/*
 * Report outputs opened so that they can neither block nor be redirected.
 * See include/iprof/output.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/output.h"

#define TMP_RAND "XXXXXX" /* mkstemp(3)'s six random characters */

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/*
 * Open the existing non-regular file @path for writing: O_NONBLOCK so a
 * FIFO nobody reads fails (ENXIO) instead of waiting, O_NOFOLLOW unless
 * @follow (a link that output_open() trusts), the type checked again on
 * the descriptor.
 */
static int open_direct(struct output *w, const char *path, int follow,
		       char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				(follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENXIO)
			return set_err(err, errlen, ret,
				       "cannot write '%s': a FIFO that no "
				       "process reads (or a socket)",
				       w->name);
		return set_err(err, errlen, ret, "cannot write '%s': %s",
			       w->name, strerror(-ret));
	}
	if (fstat(fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		close(fd);
		return set_err(err, errlen, -EAGAIN,
			       "cannot write '%s': it changed while being "
			       "opened",
			       w->name);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    !(w->direct = fdopen(fd, "w"))) {
		ret = -errno;
		close(fd);
		return set_err(err, errlen, ret, "cannot write '%s': %s",
			       w->name, strerror(-ret));
	}
	return 0;
}

int output_open(struct output *w, const char *path, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	struct stat st;
	FILE *f;
	int ret;

	memset(w, 0, sizeof(*w));
	w->direct = stdout;
	w->mode = 0644;
	w->uid = (uid_t)-1;
	w->gid = (gid_t)-1;
	if (!path || !strcmp(path, "-"))
		return 0;
	w->direct = NULL;
	if (!*path)
		return set_err(err, errlen, -EINVAL, "-o: an empty file name");
	w->name = path;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			goto fail;
		w->path = strdup(path); /* a new report */
		goto check;
	}
	if (S_ISLNK(st.st_mode)) {
		if (st.st_uid != geteuid() && st.st_uid != 0)
			return set_err(err, errlen, -EPERM,
				       "cannot write '%s': a symbolic link "
				       "owned by uid %u, not followed (name "
				       "its target)",
				       path, (unsigned int)st.st_uid);
		if (stat(path, &st))
			goto fail;
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return open_direct(w, path, 1, err, errlen);
		if (S_ISREG(st.st_mode))
			w->path = realpath(path, NULL);
	} else if (S_ISREG(st.st_mode)) {
		w->path = strdup(path);
	} else if (!S_ISDIR(st.st_mode)) {
		return open_direct(w, path, 0, err, errlen);
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	w->mode = st.st_mode & 0777;
	if (!geteuid()) {
		w->uid = st.st_uid;
		w->gid = st.st_gid;
	}
check:
	if (!w->path)
		goto fail;
	output_clean_stale(w->path);
	f = output_begin(w, tmp, sizeof(tmp));
	if (!f) {
		/* the report goes to a new file beside it, then a rename */
		ret = -errno;
		free(w->path);
		w->path = NULL;
		return set_err(err, errlen, ret,
			       "cannot write '%s': cannot create a file "
			       "beside it, to rename over it (%s)",
			       path, strerror(-ret));
	}
	fclose(f);
	unlink(tmp);
	return 0;
fail:
	ret = -errno;
	free(w->path);
	w->path = NULL;
	return set_err(err, errlen, ret, "cannot write '%s': %s", path,
		       strerror(-ret));
}

int output_open_stderr(struct output *w)
{
	/* close-on-exec: the traced command gets iprof's stderr as its own fd 2,
	 * never a second copy (it would shift every fd the command opens) */
	int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0), e;

	memset(w, 0, sizeof(*w));
	w->uid = (uid_t)-1;
	w->gid = (gid_t)-1;
	if (fd < 0)
		return -errno;
	w->direct = fdopen(fd, "w");
	if (!w->direct) {
		e = errno;
		close(fd);
		return -e;
	}
	w->on_stderr = 1;
	return 0;
}

bool output_is(const struct output *w, FILE *f)
{
	struct stat a, b;

	if (!w->direct || fstat(fileno(w->direct), &a) || fstat(fileno(f), &b))
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

FILE *output_begin(struct output *w, char *tmp, size_t len)
{
	FILE *f;
	int fd, e;

	if (w->direct)
		return w->direct;
	if ((size_t)snprintf(tmp, len, "%s.%d." TMP_RAND, w->path,
			     (int)getpid()) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* mkostemp(3): O_CREAT|O_EXCL, mode 0600; O_CLOEXEC: a command iprof
	 * starts later must not inherit it (it shifts the command's fd numbers) */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* the owner of the replaced report; if that fails, still written */
	if (w->uid != (uid_t)-1 && fchown(fd, w->uid, w->gid))
		errno = 0;
	if (fchmod(fd, w->mode) || !(f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return NULL;
	}
	return f;
}

int output_end(struct output *w, FILE *f, const char *tmp, int ret)
{
	if (w->direct) {
		/* a report on stderr comes whole, before what follows */
		if (w->on_stderr && fflush(f) && !ret)
			ret = -errno;
		return ret;
	}
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, w->path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

void output_close(struct output *w)
{
	if (w->direct && w->direct != stdout)
		fclose(w->direct);
	w->direct = NULL;
	free(w->path);
	w->path = NULL;
}

/* Is @s "PID.XXXXXX" with PID a number other than ours that is not running? */
static int stale_suffix(const char *s)
{
	char *end;
	long pid;
	size_t i;

	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || end == s || *end != '.' || pid <= 0 || pid > INT_MAX ||
	    pid == getpid() || strlen(end + 1) != strlen(TMP_RAND))
		return 0;
	for (i = 1; end[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
			    end[i]))
			return 0;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

int output_clean_stale(const char *path)
{
	const char *slash = strrchr(path, '/'), *base;
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	size_t blen;
	int dfd, n = 0;
	DIR *d;

	base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return 0;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	blen = strlen(base);
	d = opendir(dir);
	if (!d)
		return 0;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, base, blen) ||
		    de->d_name[blen] != '.' ||
		    !stale_suffix(de->d_name + blen + 1))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_nlink != 1)
			continue;
		if (!unlinkat(dfd, de->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}
