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

/*
 * What a symbol says of a file that defines or imports it.  RUNTIME,
 * THROW, CATCH count defined or imported; the others imported only (libc
 * or libgcc_s defines them all).
 */
enum role {
	/* a language runtime that unwinds or switches stacks whatever calls
	 * it (Rust's panics are caught at every thread's start, Go's stacks
	 * move) */
	RUNTIME,
	THROW, /* starts a C++ (or any two-phase) unwind */
	/* a C++ catch clause (its landing pad calls it; the Itanium C++
	 * ABI, 2.5.3) */
	CATCH,
	/* starts a forced unwind (glibc's pthread_exit and pthread_cancel
	 * call _Unwind_ForcedUnwind through libgcc_s).  Alone they harm no C
	 * frame: the forced unwind stops at a uretprobe's trampoline (the
	 * end of the stack for the unwinder), glibc's unwind_stop then runs
	 * the C cleanup handlers (pthread_cleanup_push) and ends the thread
	 * all the same (bench/README.md, "What kills": exit, cancel); what
	 * it would skip, a CLEAN above, is judged in pairs */
	FORCE,
	/* a landing pad (a C++ destructor, a -fexceptions cleanup) that an
	 * unwind runs on its way */
	CLEAN,
	SWITCH, /* a stack switch */
	/* code loaded at run time, only said: what it loads is judged when
	 * it is there (the -p maps here, a warning when a traced process
	 * maps a runtime later: unwind_runtime()) */
	LOAD,
	/* a longjmp-style exit, harmless past a uretprobe (the kernel drops
	 * the return instances a longjmp skipped, by stack pointer; BPF
	 * closes their frames as unwound: drop_left()), only said */
	LJMP,
	NO_ROLE = -1,
};

static const struct {
	const char *sym;
	enum role role;
} roles[] = {
	{ "rust_eh_personality", RUNTIME },
	{ "__rust_start_panic", RUNTIME },
	{ "runtime.morestack", RUNTIME },
	{ "runtime.gopanic", RUNTIME },
	{ "__cxa_throw", THROW },
	{ "__cxa_rethrow", THROW },
	{ "_Unwind_RaiseException", THROW },
	{ "__cxa_begin_catch", CATCH },
	{ "_Unwind_ForcedUnwind", FORCE },
	{ "pthread_exit", FORCE },
	{ "pthread_cancel", FORCE },
	{ "_Unwind_Resume", CLEAN },
	{ "swapcontext", SWITCH },
	{ "setcontext", SWITCH },
	{ "dlopen", LOAD },
	{ "dlmopen", LOAD },
	{ "longjmp", LJMP },
	{ "_longjmp", LJMP },
	{ "siglongjmp", LJMP },
	{ "__longjmp_chk", LJMP },
};

/* @s's role, NO_ROLE if none; an import-only role only where @und */
static enum role role_of(const char *s, bool und)
{
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(roles[i].sym, s))
			return und || roles[i].role <= CATCH ? roles[i].role :
							       NO_ROLE;
	return NO_ROLE;
}

/* the whole list (a static program, unwind_runtime()): a runtime, a
 * thrower, a landing pad's _Unwind_Resume or _Unwind_ForcedUnwind,
 * defined or imported */
static bool any_unwinder(const char *s)
{
	enum role r = role_of(s, true);

	return r == RUNTIME || r == THROW || r == CLEAN ||
	       !strcmp(s, "_Unwind_ForcedUnwind");
}

struct closure {
	char *files[UNWIND_MAX_FILES];
	size_t n;
	char ljmp[PATH_MAX + 64]; /* "FILE imports SYM": the first longjmp */
	char dl[PATH_MAX + 64];	  /* "FILE imports SYM": the first dlopen */
	bool no_udef;		  /* a definition of _Unwind_* is no evidence */
	bool files_only;	  /* the DT_NEEDED closure alone, no evidence */
	/* unwind_judge() of a dynamic program (files[0]): an unwind harms
	 * only where it crosses the function's frame on its way to a
	 * handler or a cleanup above it, so what catches or cleans up counts
	 * only in a file whose code can be above the function's: files[0]
	 * itself, one it imports from (it may call back what files[0]
	 * passes it), one that imports from it (a plugin calling in) */
	bool pairs;
	char **pdef, **pund; /* files[0]'s .dynsym exports, imports: sorted */
	size_t npdef, npund;
	char thrower[PATH_MAX + 64]; /* "FILE defines SYM": the first */
	char catcher[PATH_MAX + 64]; /* the first beside files[0] */
	char far[PATH_MAX + 64];     /* the first that is not */
	char forcer[PATH_MAX + 64];
	char cleaner[PATH_MAX + 64]; /* the first beside files[0] */
	/* "FILE imports SYM": the first stack switch by libc's context
	 * functions in a file other than files[0] (unwind_judge()'s 2) */
	char switcher[PATH_MAX + 64];
};

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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool in_set(char **set, size_t n, const char *s)
{
	return n && bsearch(&s, set, n, sizeof(*set), cmp_str);
}

static void free_set(char **set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(set[i]);
	free(set);
}

/* A .dynsym function @s another file can call: defined, global or weak,
 * not hidden.  Functions only: a program's copy relocations define the
 * libraries' data it uses (stderr, environ) for every library. */
static bool exported(const GElf_Sym *s)
{
	int b = GELF_ST_BIND(s->st_info), t = GELF_ST_TYPE(s->st_info);

	return s->st_shndx != SHN_UNDEF && (b == STB_GLOBAL || b == STB_WEAK) &&
	       (t == STT_FUNC || t == STT_GNU_IFUNC) &&
	       GELF_ST_VISIBILITY(s->st_other) != STV_HIDDEN &&
	       GELF_ST_VISIBILITY(s->st_other) != STV_INTERNAL;
}

/*
 * files[0]'s .dynsym into @c->pdef (exports) and @c->pund (imports),
 * sorted; none (a static program): @c->pairs off, the old rule.  0 or
 * -ENOMEM.
 */
static int read_pair_sets(struct closure *c, Elf *elf)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, cnt;
	const char *nm;
	char ***set, **grown;
	size_t *n;
	bool dyn = false;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		dyn = true;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < cnt; i++) {
			if (!gelf_getsym(d, (int)i, &s) ||
			    !(nm = elf_strptr(elf, sh.sh_link, s.st_name)) ||
			    !nm[0])
				continue;
			if (s.st_shndx == SHN_UNDEF) {
				set = &c->pund;
				n = &c->npund;
			} else if (exported(&s)) {
				set = &c->pdef;
				n = &c->npdef;
			} else {
				continue;
			}
			grown = realloc(*set, (*n + 1) * sizeof(**set));
			if (!grown)
				return -ENOMEM;
			*set = grown;
			if (!((*set)[*n] = strdup(nm)))
				return -ENOMEM;
			(*n)++;
		}
	}
	if (!dyn)
		c->pairs = false;
	if (c->npdef)
		qsort(c->pdef, c->npdef, sizeof(*c->pdef), cmp_str);
	if (c->npund)
		qsort(c->pund, c->npund, sizeof(*c->pund), cmp_str);
	return 0;
}

/* "FILE imports SYM" (or defines) into @dst, @len bytes, unless set */
static void note_first(char *dst, size_t len, const char *path, bool und,
		       const char *nm)
{
	if (!dst[0])
		snprintf(dst, len, "%s %s %s", path, und ? "imports" : "defines",
			 nm);
}

/*
 * One symbol @nm (@und: an import) of file @path (@exe: files[0]) under
 * the pair rule (struct closure.pairs): 1 and @why where it is evidence
 * alone (a runtime, a stack switch of files[0]'s own); else the notes of
 * @c (a library's stack switch: c->switcher) and the file's own
 * *@catch_nm (*@catch_und: imported), *@clean_nm (what catches, what
 * cleans up), 0.
 */
static int pair_sym(struct closure *c, const char *path, bool exe,
		    const char *nm, bool und, const char **catch_nm,
		    bool *catch_und, const char **clean_nm, char *why,
		    size_t len)
{
	enum role r = role_of(nm, und);

	if (r == SWITCH && !exe) {
		note_first(c->switcher, sizeof(c->switcher), path, und, nm);
		return 0;
	}
	if (r == RUNTIME || r == SWITCH) {
		util_set_err(why, len, "%s %s %s", path,
			     und ? "imports" : "defines", nm);
		return 1;
	}
	if (r == THROW)
		note_first(c->thrower, sizeof(c->thrower), path, und, nm);
	/* a language runtime linked in whole (a C++ program with a static
	 * libstdc++, libgnat, libobjc) raises through libgcc_s's unwinder,
	 * and its catches are in no .dynsym: taken as one that catches */
	if (und && !strcmp(nm, "_Unwind_RaiseException") && !*catch_nm) {
		*catch_nm = nm;
		*catch_und = und;
	} else if (r == CATCH) {
		*catch_nm = nm;
		*catch_und = und;
	} else if (r == FORCE) {
		note_first(c->forcer, sizeof(c->forcer), path, und, nm);
	} else if (r == CLEAN) {
		*clean_nm = nm;
	}
	return 0;
}

/*
 * Add library @lib, a DT_NEEDED of @path (its DT_RPATH @rpath, its
 * DT_RUNPATH @runpath, NULL: none), where ld.so(8) finds it: 0 (found or
 * not), -ENOMEM.
 */
static int add_needed(struct closure *c, const char *path, const char *lib,
		      const char *rpath, const char *runpath)
{
	static const char defdirs[] =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
		"/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
		"/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	int r = -ENOENT;

	if (strchr(lib, '/')) {
		r = add_file(c, lib);
		r = r < 0 ? r : 0;
	}
	if (r == -ENOENT && !runpath)
		r = find_in(c, rpath, lib, path);
	if (r == -ENOENT)
		r = find_in(c, getenv("LD_LIBRARY_PATH"), lib, path);
	if (r == -ENOENT)
		r = find_in(c, runpath, lib, path);
	if (r == -ENOENT)
		r = find_in(c, defdirs, lib, path);
	return r == -ENOMEM ? r : 0;
}

/*
 * Read file @k of @c: its evidence into @why (1), else its DT_NEEDED
 * libraries added to @c (0); -ENOMEM.
 */
static int scan(struct closure *c, size_t k, char *why, size_t len)
{
	const char *path = c->files[k], *w = "", *nm, *rpath = NULL,
		   *runpath = NULL;
	const char *needed[64];
	size_t nneed = 0, i, cnt;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	GElf_Dyn dyn;
	const char *catch_nm = NULL, *clean_nm = NULL;
	struct stat st;
	Elf *elf;
	int fd, ret = 0;
	bool und, catch_und = false, beside = k == 0;

	fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &w);
	if (fd < 0)
		return 0;
	elf = elf_version(EV_CURRENT) == EV_NONE
		      ? NULL
		      : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	if (k == 0 && c->pairs && read_pair_sets(c, elf)) {
		ret = -ENOMEM;
		goto out;
	}
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
			/* beside files[0]: binds to it or it to this */
			if (c->pairs && !beside && sh.sh_type == SHT_DYNSYM &&
			    (und ? in_set(c->pdef, c->npdef, nm)
				 : exported(&s) &&
					   in_set(c->pund, c->npund, nm)))
				beside = true;
			if (!c->ljmp[0] && role_of(nm, und) == LJMP)
				snprintf(c->ljmp, sizeof(c->ljmp),
					 "%s imports %s", path, nm);
			if (!c->dl[0] && role_of(nm, und) == LOAD)
				snprintf(c->dl, sizeof(c->dl), "%s imports %s",
					 path, nm);
			if (c->pairs) {
				ret = pair_sym(c, path, k == 0, nm, und,
					       &catch_nm, &catch_und,
					       &clean_nm, why, len);
				if (ret)
					break;
				continue;
			}
			if (c->no_udef && !und && !strncmp(nm, "_Unwind_", 8))
				continue;
			/* unwind_runtime(): a stack switch apart (its
			 * UNWIND_SWITCH_LIB), an unwinder looked for on */
			if (c->no_udef && role_of(nm, und) == SWITCH) {
				note_first(c->switcher, sizeof(c->switcher),
					   path, und, nm);
				continue;
			}
			if (any_unwinder(nm) ||
			    role_of(nm, und) == SWITCH) {
				util_set_err(why, len, "%s %s %s", path,
					     und ? "imports" : "defines", nm);
				ret = 1;
				break;
			}
		}
	}
	if (!ret && catch_nm)
		note_first(beside ? c->catcher : c->far,
			   beside ? sizeof(c->catcher) : sizeof(c->far), path,
			   catch_und, catch_nm);
	if (!ret && clean_nm && beside)
		note_first(c->cleaner, sizeof(c->cleaner), path, true, clean_nm);
	for (i = 0; !ret && i < nneed; i++)
		ret = add_needed(c, path, needed[i], rpath, runpath);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int unwind_judge(const char *const *files, size_t n, char *why, size_t len)
{
	struct closure *c = calloc(1, sizeof(*c));
	char tail[2 * (PATH_MAX + 64) + 256];
	size_t i;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < n && ret >= 0; i++)
		if (add_file(c, files[i]) == -ENOMEM)
			ret = -ENOMEM;
	c->pairs = true;
	for (i = 0; ret == 0 && i < c->n; i++)
		ret = scan(c, i, why, len);
	if (!ret && c->pairs && c->catcher[0] && c->thrower[0]) {
		util_set_err(why, len,
			     "%s (a catch that may be above the function) and %s",
			     c->catcher, c->thrower);
		ret = 1;
	} else if (!ret && c->pairs && c->cleaner[0] && c->forcer[0]) {
		util_set_err(why, len,
			     "%s (a cleanup that may be above the function, which a forced unwind through it skips) and %s",
			     c->cleaner, c->forcer);
		ret = 1;
	} else if (!ret && c->pairs && c->switcher[0]) {
		util_set_err(why, len,
			     "%s (a stack switch by libc's context functions, which iprof sees)",
			     c->switcher);
		ret = UNWIND_SWITCH_LIB;
	}
	/* what is only said: the first longjmp, the first loader */
	snprintf(tail, sizeof(tail), "%s%s%s%s%s%s",
		 c->ljmp[0] ? "; longjmp-style exits only (" : "", c->ljmp,
		 c->ljmp[0] ? "): the frames they skip close as unwound" : "",
		 c->dl[0] ? "; " : "", c->dl,
		 c->dl[0] ? ": a C++, Rust or Go runtime it loads later is "
			    "warned of (what it throws through the function "
			    "kills the program)"
			  : "");
	if (!ret && c->thrower[0])
		util_set_err(why, len,
			     "no unwind that can cross it and no stack switch in "
			     "the %zu file%s of the program (%s and its "
			     "libraries): %s, but %s%s%s%s%s%s",
			     c->n, c->n == 1 ? "" : "s", c->files[0],
			     c->thrower,
			     c->far[0] ? "no file that catches (" : "nothing catches",
			     c->far,
			     c->far[0] ? ") calls into " : "",
			     c->far[0] ? c->files[0] : "",
			     c->far[0] ? " or is called by it" : "", tail);
	else if (!ret)
		util_set_err(why, len,
			     "no unwinder or stack switch in "
			     "the %zu file%s of the program (%s and its "
			     "libraries)%s",
			     c->n, c->n == 1 ? "" : "s",
			     c->n ? c->files[0] : "none", tail);
	for (i = 0; i < c->n; i++)
		free(c->files[i]);
	free_set(c->pdef, c->npdef);
	free_set(c->pund, c->npund);
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
	if (ret == 0 && c->switcher[0]) {
		util_set_err(why, len, "%s", c->switcher);
		ret = UNWIND_SWITCH_LIB;
	}
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
