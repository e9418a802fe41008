// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uprobe binaries' paths (sym_resolve_path()): a NAME with no '/' looked
 * up in $PATH and then the shared-library directories; and whether a file
 * is an executable rather than a shared object (sym_is_executable():
 * ET_EXEC, or ET_DYN with DF_1_PIE).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <zlib.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/util.h"
#include "probe/sym_int.h"

/* $PATH when the environment has none (as confstr(_CS_PATH) for root). */
#define DEFAULT_PATH                                                           \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#endif

/* Where a bare NAME is looked for after $PATH (shared objects). */
static const char *const lib_dirs[] = {
	"/lib",
	"/usr/lib",
#ifdef MULTIARCH
	"/lib/" MULTIARCH,
	"/usr/lib/" MULTIARCH,
#endif
	"/usr/local/lib",
	"/lib64",
	"/usr/lib64",
};

/* Is @path a regular file (with execute permission if @exec)? */
static bool is_file(const char *path, bool exec)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	return !exec || !access(path, X_OK);
}

/* realpath() of @path into *@out. */
static int absolute(const char *path, char **out, char *err, size_t errlen)
{
	int e;

	*out = realpath(path, NULL);
	if (*out)
		return 0;
	e = errno ? errno : ENOENT;
	util_set_err(err, errlen, "%s: %s", path, strerror(e));
	if (e == ENOENT && err)
		sym_suggest_near(path, err, errlen);
	return -e;
}

struct names {
	char **v;
	size_t n, cap;
};

/* the entries of folder @dir into @nm (duplicates kept); 0 or -ENOMEM */
static int dir_names(const char *dir, struct names *nm)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char **v;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (nm->n == nm->cap) {
			nm->cap = nm->cap ? 2 * nm->cap : 1024;
			v = realloc(nm->v, nm->cap * sizeof(*v));
			if (!v)
				break;
			nm->v = v;
		}
		nm->v[nm->n] = strdup(de->d_name);
		if (!nm->v[nm->n])
			break;
		nm->n++;
	}
	closedir(d);
	return de ? -ENOMEM : 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "; did you mean a or b?" after @err for a NAME found nowhere: the
 * versions of it (libz.so -> libz.so.1) in $PATH and the library folders,
 * else the names near it (ksym_suggest()).
 */
static void suggest_files(const char *name, const char *path, char *err,
			  size_t errlen)
{
	struct names nm = { 0 };
	char dir[PATH_MAX], near[256] = "";
	const char *p, *end, *vers[3];
	size_t i, k, len = strlen(name), used = strlen(err);

	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if (end > p && (size_t)(end - p) < sizeof(dir)) {
			snprintf(dir, sizeof(dir), "%.*s", (int)(end - p), p);
			dir_names(dir, &nm);
		}
		if (!*end)
			break;
	}
	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++)
		dir_names(lib_dirs[i], &nm);
	qsort(nm.v, nm.n, sizeof(*nm.v), cmp_name);
	for (i = 0, k = 0; i < nm.n; i++) { /* once each */
		if (k && !strcmp(nm.v[k - 1], nm.v[i]))
			free(nm.v[i]);
		else
			nm.v[k++] = nm.v[i];
	}
	nm.n = k;
	/* its versions, the shortest first (sorted: a prefix comes first) */
	for (i = 0, k = 0; i < nm.n && k < 3; i++)
		if (!strncmp(nm.v[i], name, len) && nm.v[i][len] == '.')
			vers[k++] = nm.v[i];
	for (i = 0; i < k; i++)
		snprintf(near + strlen(near), sizeof(near) - strlen(near),
			 "%s%s", !i ? "" : i + 1 < k ? ", " : " or ", vers[i]);
	if (!k)
		ksym_suggest(nm.v, nm.n, name, near, sizeof(near));
	if (*near && used < errlen)
		snprintf(err + used, errlen - used, KSYM_SUGGEST_PFX "%s?",
			 near);
	for (i = 0; i < nm.n; i++)
		free(nm.v[i]);
	free(nm.v);
}

/* free @nm's names */
static void names_free(struct names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
}

/* @nm sorted, each name once */
static void names_unique(struct names *nm)
{
	size_t i, k;

	if (nm->n < 2)
		return;
	qsort(nm->v, nm->n, sizeof(*nm->v), cmp_name);
	for (i = 0, k = 0; i < nm->n; i++) {
		if (k && !strcmp(nm->v[k - 1], nm->v[i]))
			free(nm->v[i]);
		else
			nm->v[k++] = nm->v[i];
	}
	nm->n = k;
}

size_t sym_suggest_near(const char *name, char *buf, size_t len)
{
	struct names nm = { 0 };
	char dir[PATH_MAX], near[512], *pfx = dir;
	const char *base = strrchr(name, '/'), *p, *end, *path;
	size_t got, used = strlen(buf);

	if (base) {
		/* its folder: "/x" for "/x/y", "/" for "/y", as written */
		snprintf(dir, sizeof(dir), "%.*s", (int)(base - name + 1),
			 name);
		dir_names(base == name ? "/" : dir, &nm);
		base++;
	} else {
		path = getenv("PATH");
		for (p = path ? path : DEFAULT_PATH;; p = end + 1) {
			end = strchrnul(p, ':');
			if (end > p && (size_t)(end - p) < sizeof(dir)) {
				snprintf(dir, sizeof(dir), "%.*s",
					 (int)(end - p), p);
				dir_names(dir, &nm);
			}
			if (!*end)
				break;
		}
		base = name;
		pfx = "";
		names_unique(&nm); /* /bin and /usr/bin: one folder */
	}
	got = *base ? ksym_suggest_pfx(nm.v, nm.n, base, pfx, near,
				       sizeof(near)) :
		      0;
	if (got && used < len)
		snprintf(buf + used, len - used, KSYM_SUGGEST_PFX "%s?", near);
	names_free(&nm);
	return got;
}

int sym_resolve_path(const char *name, char **out, char *err, size_t errlen)
{
	char cand[PATH_MAX];
	const char *path, *p, *end;
	size_t i, n;

	*out = NULL;
	if (!*name) {
		util_set_err(err, errlen, "empty binary path");
		return -ENOENT;
	}
	if (strchr(name, '/'))
		return absolute(name, out, err, errlen);

	path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		/* an empty entry would mean the current directory: skipped */
		if (n &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, name) <
			    (int)sizeof(cand) &&
		    is_file(cand, true))
			return absolute(cand, out, err, errlen);
		if (!*end)
			break;
	}
	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		if (snprintf(cand, sizeof(cand), "%s/%s", lib_dirs[i], name) <
			    (int)sizeof(cand) &&
		    is_file(cand, false))
			return absolute(cand, out, err, errlen);
	}
	util_set_err(err, errlen,
		"%s not found in $PATH or the library directories; give a "
		"path (./%s)",
		name, name);
	if (err)
		suggest_files(name, path, err, errlen);
	return -ENOENT;
}

/* DT_FLAGS_1 of @elf has DF_1_PIE (1), else 0 */
static int has_pie_flag(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getdyn(d, (int)i, &dyn) ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1)
				return !!(dyn.d_un.d_val & DF_1_PIE);
		}
	}
	return 0;
}

int sym_is_executable(const char *path)
{
	char err[64];
	GElf_Ehdr eh;
	Elf *elf;
	int fd, ret = 0;

	if (sym_open_elf(path, &fd, &elf, err, sizeof(err)))
		return 0;
	if (gelf_getehdr(elf, &eh))
		ret = eh.e_type == ET_EXEC ||
		      (eh.e_type == ET_DYN && has_pie_flag(elf));
	elf_end(elf);
	close(fd);
	return ret;
}
