// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind.c - can a program unwind through a function: evidence from its
 * ELF files and their DT_NEEDED closure (include/iprof/unwind.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/unwind.h"
#include "iprof/util.h"

/* defined or imported: an unwinder, a language runtime that unwinds */
static const char *const unwinders[] = {
	"__cxa_throw",	      "__cxa_rethrow",	      "_Unwind_RaiseException",
	"_Unwind_Resume",     "_Unwind_ForcedUnwind", "rust_eh_personality",
	"__rust_start_panic", "runtime.morestack",    "runtime.gopanic",
};

/* imported only (libc defines them all): stack switches.  Not dlopen
 * (what it loads is judged when it is there: the -p maps here, a warning
 * when a traced process maps a runtime later: unwind_runtime()).  Not
 * pthread_exit/pthread_cancel: their forced unwind stops at a uretprobe's
 * trampoline (the end of the stack for the unwinder), glibc's unwind_stop
 * then runs the C cleanup handlers (pthread_cleanup_push) and ends the
 * thread all the same (bench/README.md, "What kills": exit, cancel);
 * what it would skip, a -fexceptions cleanup (a landing pad), is in a file
 * that imports _Unwind_Resume, an unwinder above. */
static const char *const switchers[] = {
	"swapcontext",
	"setcontext",
};

/* imported only: code loaded at run time, only said */
static const char *const loaders[] = {
	"dlopen",
	"dlmopen",
};

/* imported only: longjmp-style exits, harmless past a uretprobe (the
 * kernel drops the return instances a longjmp skipped, by stack pointer;
 * BPF closes their frames as unwound: drop_left()), only said */
static const char *const ljumps[] = {
	"longjmp",
	"_longjmp",
	"siglongjmp",
	"__longjmp_chk",
};

static bool in_list(const char *const *l, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

struct closure {
	char *files[UNWIND_MAX_FILES];
	size_t n;
	char ljmp[PATH_MAX + 64]; /* "FILE imports SYM": the first longjmp */
	char dl[PATH_MAX + 64];	  /* "FILE imports SYM": the first dlopen */
	bool no_udef;		  /* a definition of _Unwind_* is no evidence */
	bool files_only;	  /* the DT_NEEDED closure alone, no evidence */
};

#define NELEM(a) (sizeof(a) / sizeof(*(a)))

/* Add @path (realpath'ed) unless there; 0, 1 already there or full,
 * -ENOENT, -ENOMEM. */
static int add_file(struct closure *c, const char *path)
{
	char rp[PATH_MAX];
	size_t i;

	if (!realpath(path, rp))
		return -ENOENT;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->files[i], rp))
			return 1;
	if (c->n >= UNWIND_MAX_FILES)
		return 1;
	c->files[c->n] = strdup(rp);
	if (!c->files[c->n])
		return -ENOMEM;
	c->n++;
	return 0;
}

/* Find library @lib for @from (its directory: $ORIGIN) in the
 * colon-separated @dirs (NULL: none) and add it: 0 found, -ENOENT, -ENOMEM. */
static int find_in(struct closure *c, const char *dirs, const char *lib,
		   const char *from)
{
	char d[PATH_MAX], p[PATH_MAX], origin[PATH_MAX];
	const char *s = dirs, *e, *slash;
	int ret, n;

	if (!dirs)
		return -ENOENT;
	slash = strrchr(from, '/');
	snprintf(origin, sizeof(origin), "%.*s",
		 slash ? (int)(slash - from) : 1, slash ? from : ".");
	while (*s) {
		e = strchr(s, ':');
		if (!e)
			e = s + strlen(s);
		snprintf(d, sizeof(d), "%.*s", (int)(e - s), s);
		if (!strncmp(d, "$ORIGIN", 7))
			n = snprintf(p, sizeof(p), "%s%s/%s", origin, d + 7,
				     lib);
		else if (!strncmp(d, "${ORIGIN}", 9))
			n = snprintf(p, sizeof(p), "%s%s/%s", origin, d + 9,
				     lib);
		else
			n = snprintf(p, sizeof(p), "%s/%s", d, lib);
		if (d[0] && n > 0 && n < (int)sizeof(p) && !access(p, R_OK)) {
			ret = add_file(c, p);
			return ret < 0 ? ret : 0;
		}
		s = *e ? e + 1 : e;
	}
	return -ENOENT;
}

/*
 * Read file @k of @c: its evidence into @why (1), else its DT_NEEDED
 * libraries added to @c (0); -ENOMEM.
 */
static int scan(struct closure *c, size_t k, char *why, size_t len)
{
	static const char defdirs[] =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
		"/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
		"/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	const char *path = c->files[k], *w = "", *nm, *rpath = NULL,
		   *runpath = NULL;
	const char *needed[64];
	size_t nneed = 0, i, cnt;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	GElf_Dyn dyn;
	struct stat st;
	Elf *elf;
	int fd, ret = 0;
	bool und;

	fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &w);
	if (fd < 0)
		return 0;
	elf = elf_version(EV_CURRENT) == EV_NONE
		      ? NULL
		      : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	while ((scn = elf_nextscn(elf, scn)) && ret == 0) {
		if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_DYNAMIC) {
			cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (i = 0; i < cnt; i++) {
				if (!gelf_getdyn(d, (int)i, &dyn))
					continue;
				nm = elf_strptr(elf, sh.sh_link,
						dyn.d_un.d_val);
				if (!nm)
					continue;
				if (dyn.d_tag == DT_NEEDED &&
				    nneed < sizeof(needed) / sizeof(*needed))
					needed[nneed++] = nm;
				else if (dyn.d_tag == DT_RPATH)
					rpath = nm;
				else if (dyn.d_tag == DT_RUNPATH)
					runpath = nm;
			}
			continue;
		}
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || c->files_only)
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < cnt; i++) {
			if (!gelf_getsym(d, (int)i, &s) ||
			    !(nm = elf_strptr(elf, sh.sh_link, s.st_name)) ||
			    !nm[0])
				continue;
			und = s.st_shndx == SHN_UNDEF;
			if (und && !c->ljmp[0] &&
			    in_list(ljumps, NELEM(ljumps), nm))
				snprintf(c->ljmp, sizeof(c->ljmp),
					 "%s imports %s", path, nm);
			if (und && !c->dl[0] &&
			    in_list(loaders, NELEM(loaders), nm))
				snprintf(c->dl, sizeof(c->dl), "%s imports %s",
					 path, nm);
			if (c->no_udef && !und && !strncmp(nm, "_Unwind_", 8))
				continue;
			if (in_list(unwinders, NELEM(unwinders), nm) ||
			    (und && in_list(switchers, NELEM(switchers), nm))) {
				util_set_err(why, len, "%s %s %s", path,
					     und ? "imports" : "defines", nm);
				ret = 1;
				break;
			}
		}
	}
	for (i = 0; !ret && i < nneed; i++) {
		int r = -ENOENT;

		if (strchr(needed[i], '/')) {
			r = add_file(c, needed[i]);
			r = r < 0 ? r : 0;
		}
		if (r == -ENOENT && !runpath)
			r = find_in(c, rpath, needed[i], path);
		if (r == -ENOENT)
			r = find_in(c, getenv("LD_LIBRARY_PATH"), needed[i],
				    path);
		if (r == -ENOENT)
			r = find_in(c, runpath, needed[i], path);
		if (r == -ENOENT)
			r = find_in(c, defdirs, needed[i], path);
		if (r == -ENOMEM)
			ret = r;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int unwind_judge(const char *const *files, size_t n, char *why, size_t len)
{
	struct closure *c = calloc(1, sizeof(*c));
	size_t i;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < n && ret >= 0; i++)
		if (add_file(c, files[i]) == -ENOMEM)
			ret = -ENOMEM;
	for (i = 0; ret == 0 && i < c->n; i++)
		ret = scan(c, i, why, len);
	if (!ret)
		util_set_err(why, len,
			     "no unwinder or stack switch in "
			     "the %zu file%s of the program (%s and its "
			     "libraries)%s%s%s%s%s%s",
			     c->n, c->n == 1 ? "" : "s",
			     c->n ? c->files[0] : "none",
			     c->ljmp[0] ? "; longjmp-style exits only (" : "",
			     c->ljmp,
			     c->ljmp[0] ? "): the frames they skip close as "
					  "unwound"
					: "",
			     c->dl[0] ? "; " : "", c->dl,
			     c->dl[0] ? ": a C++, Rust or Go runtime it "
					"loads later is warned of (what it "
					"throws through the function kills "
					"the program)"
				      : "");
	for (i = 0; i < c->n; i++)
		free(c->files[i]);
	free(c);
	return ret;
}

int unwind_runtime(const char *path, char *why, size_t len)
{
	struct closure *c = calloc(1, sizeof(*c));
	size_t i;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	c->no_udef = true;
	ret = add_file(c, path);
	if (ret == 0)
		ret = scan(c, 0, why, len);
	else
		ret = ret == -ENOMEM ? ret : 0;
	for (i = 0; i < c->n; i++)
		free(c->files[i]);
	free(c);
	return ret;
}

bool unwind_is_go(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *name;
	bool go = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_version(EV_CURRENT) == EV_NONE ?
		      NULL :
		      elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstr))
		while (!go && (scn = elf_nextscn(elf, scn))) {
			name = gelf_getshdr(scn, &sh) ?
				       elf_strptr(elf, shstr, sh.sh_name) :
				       NULL;
			go = name && (!strcmp(name, ".go.buildinfo") ||
				      !strcmp(name, ".note.go.buildid"));
		}
	elf_end(elf);
	close(fd);
	return go;
}

int unwind_loads(const char *exe, const char *path)
{
	struct closure *c = calloc(1, sizeof(*c));
	char rp[PATH_MAX], why[8];
	size_t i;
	int ret;

	if (!c)
		return -ENOMEM;
	c->files_only = true;
	ret = realpath(path, rp) ? add_file(c, exe) : -errno;
	for (i = 0; ret >= 0 && i < c->n; i++)
		ret = scan(c, i, why, sizeof(why));
	if (ret >= 0)
		for (i = 0, ret = 0; i < c->n && !ret; i++)
			ret = !strcmp(c->files[i], rp);
	for (i = 0; i < c->n; i++)
		free(c->files[i]);
	free(c);
	return ret;
}
