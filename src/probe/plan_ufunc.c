// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_ufunc.c - the user function shape (uprobe:PATH:FUNC): the binary
 * and its old copies, --returns auto, return sites, globs over ELF symbols.
 * See src/probe/plan_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <search.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "iprof/calib_cost.h"
#include "iprof/inline.h"
#include "iprof/kmod.h"
#include "iprof/ksym.h"
#include "iprof/plan.h"
#include "iprof/retsite.h"
#include "iprof/unwind.h"
#include "iprof/sym.h"
#include "iprof/syscall.h"
#include "iprof/util.h"

#include "probe/plan_int.h"
static void plan_uplaces_free(struct uplaces *u)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].sym);
	}
	free(u->v);
	free(u->note);
	memset(u, 0, sizeof(*u));
}

/* Add the targets @v of @path (its identity through @c), unless the
 * same file and offset is there (one file under two paths).  0 or
 * -ENOMEM. */
static int uplaces_add(struct sym_cache *c, struct uplaces *u,
		       const char *path, const struct sym_target *v, size_t n)
{
	struct uplace *nv;
	struct stat st;
	uint64_t dev = 0, ino = 0;
	size_t i, j;

	if (!sym_cache_stat(c, path, &st)) {
		dev = (uint64_t)st.st_dev;
		ino = (uint64_t)st.st_ino;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < u->n; j++)
			if (u->v[j].off == v[i].offset &&
			    (ino ? u->v[j].dev == dev && u->v[j].ino == ino :
				   !strcmp(u->v[j].path, path)))
				break;
		if (j < u->n)
			continue;
		if (util_grow(&u->v, u->n, sizeof(*u->v)))
			return -ENOMEM;
		nv = u->v;
		nv = &u->v[u->n];
		nv->off = v[i].offset;
		nv->size = v[i].size;
		nv->cold = v[i].cold;
		nv->cold_off = v[i].cold_off;
		nv->cold_size = v[i].cold_size;
		nv->addr = v[i].addr;
		nv->cold_addr = v[i].cold_addr;
		nv->dev = dev;
		nv->ino = ino;
		nv->path = strdup(path);
		nv->sym = strdup(v[i].name);
		if (!nv->path || !nv->sym) {
			free(nv->path);
			free(nv->sym);
			return -ENOMEM;
		}
		u->n++;
	}
	return 0;
}

/*
 * Does process @pid map a copy of @path that is not the file at @path now
 * (replaced: a new file renamed over it; deleted)?  /proc/PID/maps lines
 * are "START-END PERMS OFFSET MAJ:MIN INODE PATH", PATH with " (deleted)"
 * when the file is gone (fs/proc/task_mmu.c, show_map_vma()).  Then
 * @out gets /proc/PID/map_files/START-END, a link the kernel follows to
 * the mapped file, deleted or not (root only: CAP_SYS_ADMIN), and 1 is
 * returned; 0 if not; -errno if the maps cannot be read.
 */
static int old_copy_scan(int pid, const char *path, char *out, size_t len,
			 int *deleted);

static int old_copy(struct planner *pn, int pid, const char *path, char *out,
		    size_t len, int *deleted)
{
	struct plan_old_copy *oc = pn->old;
	unsigned int i;
	int ret;

	for (i = 0; i < PLAN_OLD_COPIES; i++)
		if (oc[i].path && oc[i].pid == pid && !strcmp(oc[i].path, path)) {
			snprintf(out, len, "%s", oc[i].out);
			*deleted = oc[i].deleted;
			return oc[i].ret;
		}
	ret = old_copy_scan(pid, path, out, len, deleted);
	i = pn->old_next++ % PLAN_OLD_COPIES;
	free(oc[i].path);
	oc[i].path = strdup(path);
	oc[i].pid = pid;
	oc[i].ret = ret;
	oc[i].deleted = *deleted;
	snprintf(oc[i].out, sizeof(oc[i].out), "%s", ret == 1 ? out : "");
	return ret;
}

static int old_copy_scan(int pid, const char *path, char *out, size_t len,
			 int *deleted)
{
	char maps[64], line[PATH_MAX + 128], *name, *nl;
	unsigned long long start, end, ino;
	unsigned int maj, min;
	struct stat st;
	int have, n, ret = 0, e;
	size_t pl = strlen(path);
	FILE *f;

	have = !stat(path, &st);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		n = 0;
		if (sscanf(line, "%llx-%llx %*s %*x %x:%x %llu %n", &start,
			   &end, &maj, &min, &ino, &n) < 5 || !n)
			continue;
		name = line + n;
		nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(name, path, pl))
			continue;
		*deleted = !strcmp(name + pl, " (deleted)");
		if (name[pl] && !*deleted)
			continue;
		if (!*deleted && have && makedev(maj, min) == st.st_dev &&
		    ino == (unsigned long long)st.st_ino)
			continue; /* the file at @path itself */
		snprintf(out, len, "/proc/%d/map_files/%llx-%llx", pid, start,
			 end);
		ret = 1;
	}
	e = ferror(f) ? -EIO : 0;
	fclose(f);
	return ret ? ret : e;
}

/*
 * ifunc_impls() - after @err (@len bytes), which refuses IFUNC @func of
 * @path, the implementations glibc names __FUNC_* (__strlen_avx2,
 * __strlen_evex, __strlen_sse2: sysdeps/x86_64/multiarch), read from the
 * file's symbols or its debug file's (libc6-dbg), and the
 * probe line that times them all; without them, where they would be; and
 * the address of the code ld.so picks on this CPU where iprof can ask it
 * (sym_ifunc_resolve(): it has no symbol, or it would be timed).
 */
static void ifunc_impls(const char *path, const char *func, char *err,
			size_t len)
{
	struct ksyms names;
	char glob[256], why[128];
	size_t i, n = 0, used = strlen(err);
	uint64_t va;
	int known = !sym_ifunc_resolve(path, func, &va);

	if (snprintf(glob, sizeof(glob), "__%s_*", func) >= (int)sizeof(glob) ||
	    sym_func_names(path, &names, why, sizeof(why)))
		return;
	for (i = 0; i < names.nfuncs && used < len; i++)
		if (!fnmatch(glob, names.funcs[i], 0))
			used += (size_t)snprintf(err + used, len - used, "%s%s",
						 n++ ? ", " : ": ",
						 names.funcs[i]);
	if (n && used < len)
		snprintf(err + used, len - used,
			 " ('uprobe:%s:%s' times them all; this CPU runs one)",
			 path, glob);
	else if (!n && used < len)
		used += (size_t)snprintf(err + used, len - used,
			 " (their symbols, %s, are not in this file: for "
			 "glibc, in libc6-dbg's debug file)",
			 glob);
	if (known && used < len) /* ld.so's choice, with no symbol there */
		snprintf(err + used, len - used,
			 "; ld.so picks the code at %#llx on this CPU",
			 (unsigned long long)va);
	ksyms_free(&names);
}

/*
 * The places of uprobe @pr (FUNC @func): *@u, or an error message in
 * *@msg.  The binary at PATH (sym_resolve_path(); a /proc/PID/exe or
 * /proc/PID/map_files/... path as given: the kernel follows it to the
 * mapped file, deleted or not), each entry sym_cache_targets() gives through @c (the
 * function and its clones), and with -p the older copy of the binary that
 * a target process maps (old_copy()).  *@binary (malloc'ed, the caller
 * frees it; may stay NULL) is the binary at PATH when it could be read,
 * and *@nofunc (the caller sets it to 0) 1 when it has no symbol FUNC
 * (its inlined instances may still be timed: plan_inline()).  Returns 0 or -ENOMEM.
 */
static int plan_resolve_uprobe(struct planner *pn, const struct probe *pr,
			  const char *func, const struct plan_env *env,
			  struct uplaces *u, char **msg, char **binary,
			  int *nofunc)
{
	char err[PATH_MAX + 512], mf[PATH_MAX], note[3 * PATH_MAX] = "";
	char gone[PATH_MAX + 512] = ""; /* the file is gone: why */
	char disk[PATH_MAX + 512] = ""; /* the file on disk lacks FUNC: why */
	struct sym_target *v = NULL;
	char *path = NULL;
	struct stat st;
	size_t n = 0, i;
	int ret, col = pr->start.col, k, deleted = 0, used = 0, disk_col = 0;

	*msg = NULL;
	ret = sym_cache_resolve_path(pn->syms, pr->path, &path, err, sizeof(err));
	if ((ret || strstr(path, " (deleted)")) &&
	    !strncmp(pr->path, "/proc/", 6) && !stat(pr->path, &st)) {
		/* /proc/PID/exe of a deleted binary: realpath() gives
		 * "PATH (deleted)", which does not exist */
		free(path);
		path = strdup(pr->path);
		ret = path ? 0 : -ENOMEM;
	}
	if (ret == -ENOENT && env->npids && strchr(pr->path, '/')) {
		/* deleted on disk: a -p process may still map it (below) */
		char cwd[PATH_MAX];
		const char *rel = pr->path;

		while (!strncmp(rel, "./", 2))
			rel += 2;
		free(path);
		path = NULL;
		if (pr->path[0] == '/')
			path = strdup(pr->path);
		else if (getcwd(cwd, sizeof(cwd)) &&
			 asprintf(&path, "%s/%s", cwd, rel) < 0)
			path = NULL;
		if (!path)
			return -ENOMEM;
		snprintf(gone, sizeof(gone), "%s", err);
		ret = 0;
	}
	if (!ret && !gone[0]) {
		ret = sym_cache_targets(pn->syms, path, func, &v, &n, err, sizeof(err));
		/* no symbol: it may be inlined everywhere (plan_inline()) */
		*nofunc = ret == -ENOENT || ret == -ENODATA;
		if (ret == -EOPNOTSUPP) /* an IFUNC: its implementations */
			ifunc_impls(path, func, err, sizeof(err));
		/* a probe never fired, or corrupting: sym_insn_check() */
		for (i = 0; !ret && i < n; i++)
			ret = sym_cache_insn_check(pn->syms, path, v[i].offset, err,
						   sizeof(err));
		/* a problem with the function, not the file: point at FUNC */
		if (ret == -ENOENT || ret == -ENOTUNIQ || ret == -EOPNOTSUPP)
			col += (int)strlen(pr->path) + 1;
		if (!ret)
			ret = uplaces_add(pn->syms, u, path, v, n);
		sym_targets_free(v, n);
		if (ret && ret != -ENOMEM && env->npids) {
			/* a new file without FUNC (another build, a script
			 * now): a -p process may map the older copy that
			 * has it (below) */
			snprintf(disk, sizeof(disk), "%s", err);
			disk_col = col;
			col = pr->start.col;
			ret = 0;
		}
	}
	for (k = 0; !ret && k < env->npids; k++) {
		if (old_copy(pn, env->pids[k], path, mf, sizeof(mf),
			     &deleted) != 1)
			continue;
		ret = sym_cache_targets(pn->syms, mf, func, &v, &n, err, sizeof(err));
		if (!ret) {
			ret = uplaces_add(pn->syms, u, mf, v, n);
			sym_targets_free(v, n);
			if (ret)
				break;
			used += snprintf(note + used, sizeof(note) - used,
					 "%sprocess %d maps %s copy of %s: traced there through %s",
					 used ? "; " : "", env->pids[k],
					 deleted ? "a deleted" : "another",
					 path, mf);
		} else if (ret != -ENOMEM) {
			/* the binary on disk is still traced */
			used += snprintf(note + used, sizeof(note) - used,
					 "%sprocess %d maps %s copy of %s, not traced: %s",
					 used ? "; " : "", env->pids[k],
					 deleted ? "a deleted" : "another",
					 path, err);
			ret = 0;
		}
		if (used >= (int)sizeof(note))
			used = (int)sizeof(note) - 1;
	}
	if (!ret && disk[0] && !u->n) {
		/* no process maps a copy that has it either */
		snprintf(err, sizeof(err), "%s", disk);
		col = disk_col;
		ret = -ENOENT;
	} else if (!ret && disk[0] && used < (int)sizeof(note)) {
		/* said before the copies traced */
		char d[sizeof(note)];

		snprintf(d, sizeof(d), "%s on disk is not traced (%s); %s",
			 path, disk, note);
		snprintf(note, sizeof(note), "%s", d);
	}
	*binary = path; /* the caller frees it */
	if (!ret && gone[0] && !u->n) {
		/* no process maps a deleted copy either */
		snprintf(err, sizeof(err), "%s", gone);
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		*msg = plan_perr(pr, col, "%s", err);
		if (!*msg)
			return -ENOMEM;
	}
	if (note[0] && !(u->note = strdup(note)))
		return -ENOMEM;
	return 0;
}

/*
 * @path runs only as a program's main executable, so that only the
 * programs judged below map it: the executable of -- CMD or of a -p
 * process, or a file no dynamic loader takes as a library
 * (sym_is_executable(): ET_EXEC, or a PIE marked DF_1_PIE).  Whatever
 * else, a PT_INTERP and an entry point included (libc.so.6 has both), is
 * a library: any program, traced or not, may load it.
 */
static bool is_program(const struct plan_env *env, const char *path)
{
	char exe[64];
	int k;

	if (util_same_file(path, env->exe))
		return true;
	for (k = 0; k < env->npids; k++) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", env->pids[k]);
		if (util_same_file(path, exe))
			return true;
	}
	return sym_is_executable(path) == 1;
}

/*
 * --returns auto: may a uretprobe on a function of @path harm a program?
 * A uretprobe is attached in every process that maps @path, traced or not
 * (uprobes are the file's, for every process: iprof's own filter runs in
 * its BPF programs, after the kernel has taken over the return address).
 * So a library is a risk (any program may load it and unwind through it)
 * whatever -- CMD or -p say, and an executable runs only as its own
 * program: @path and its DT_NEEDED closure (unwind_judge()), with the
 * files each -p process maps (the libraries it loaded at run time), but
 * not -- CMD's executable when that is another program (env, taskset, a
 * shell: what it runs next is not known at the start, and the function's
 * code never runs in it).  Sets *@risk (malloc'ed) to the evidence;
 * --returns sites: "--returns sites".  Returns 1 (it can, or sites), 0 (a
 * uretprobe is safe), -ENOMEM.
 */
static int judge_returns(const struct plan_env *env, const char *path,
			 char **risk)
{
	const char *files[UNWIND_MAX_FILES];
	char why[PATH_MAX + 256], maps[64], line[PATH_MAX + 128], *f,
		*last = NULL;
	size_t n = 0, i;
	int ret, k;
	FILE *m;

	free(*risk);
	*risk = NULL;
	if (env->returns == PLAN_RETURNS_SITES) {
		*risk = strdup("--returns sites");
		return *risk ? 1 : -ENOMEM;
	}
	if (!is_program(env, path)) {
		snprintf(why, sizeof(why),
			 "%s is a library: a uretprobe takes over its returns in every process that loads it, traced or not, and any of them may unwind through it",
			 path);
		ret = 1;
		goto out;
	}
	files[n++] = path;
	for (k = 0; k < env->npids && n < UNWIND_MAX_FILES; k++) {
		snprintf(maps, sizeof(maps), "/proc/%d/maps", env->pids[k]);
		m = fopen(maps, "re");
		if (!m)
			continue;
		while (n < UNWIND_MAX_FILES && fgets(line, sizeof(line), m)) {
			f = strchr(line, '/');
			if (!f || !strstr(line, " r-xp "))
				continue;
			f[strcspn(f, "\n")] = '\0';
			if (last && !strcmp(last, f))
				continue;
			files[n] = strdup(f);
			if (!files[n]) {
				ret = -ENOMEM;
				fclose(m);
				goto out;
			}
			last = (char *)files[n++];
		}
		fclose(m);
	}
	ret = unwind_judge(files, n, why, sizeof(why));
out:
	for (i = 1; i < n; i++)
		free((char *)files[i]);
	if (ret >= 0 && !(*risk = strdup(why)))
		ret = -ENOMEM;
	return ret;
}

/*
 * Is every -p process of @env known to run on the stack its thread
 * started on, as a uprobe session needs (bpf/iprof.bpf.c fn_session_u:
 * iprof sees a switch only once attached)?  Yes for a process of one
 * thread blocked in a system call whose stack pointer (proc(5),
 * /proc/PID/syscall: "NR ARGS... SP PC") lies in its "[stack]" mapping;
 * else no (a thread of its own stack is not told by /proc), with the
 * first process that is not in @why (@len bytes).  A -- CMD: yes (its
 * threads are all seen from their start).
 */
static bool pids_on_first_stack(const struct plan_env *env, char *why,
				size_t len)
{
	char path[64], line[512], *f[10], *tok, *save;
	unsigned long long sp = 0, lo, hi;
	int k, n, threads = 0;
	bool in = false;
	FILE *fp;

	for (k = 0; k < env->npids; k++) {
		snprintf(path, sizeof(path), "/proc/%d/status", env->pids[k]);
		threads = 0;
		if ((fp = fopen(path, "re"))) {
			while (fgets(line, sizeof(line), fp))
				if (sscanf(line, "Threads: %d", &threads) == 1)
					break;
			fclose(fp);
		}
		snprintf(path, sizeof(path), "/proc/%d/syscall", env->pids[k]);
		n = 0;
		if (threads == 1 && (fp = fopen(path, "re"))) {
			if (fgets(line, sizeof(line), fp))
				for (tok = strtok_r(line, " \n", &save);
				     tok && n < 10;
				     tok = strtok_r(NULL, " \n", &save))
					f[n++] = tok;
			fclose(fp);
		}
		/* a system call's number and 6 arguments, or -1 (blocked
		 * elsewhere): then sp and pc */
		sp = n == 9 || n == 3 ? strtoull(f[n - 2], NULL, 16) : 0;
		snprintf(path, sizeof(path), "/proc/%d/maps", env->pids[k]);
		in = false;
		if (sp && (fp = fopen(path, "re"))) {
			while (!in && fgets(line, sizeof(line), fp))
				in = strstr(line, "[stack]") &&
				     sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
				     sp >= lo && sp < hi;
			fclose(fp);
		}
		if (!in) {
			util_set_err(why, len,
				     "-p %d: %s: a thread may be on a stack it switched to before iprof attached",
				     env->pids[k],
				     threads != 1 ? "more than one thread" :
				     !sp ? "its stack pointer not readable (not blocked in a system call)" :
					   "its stack pointer outside its [stack] mapping");
			return false;
		}
	}
	return true;
}

/*
 * A program whose only risk is a library's stack switch
 * (UNWIND_SWITCH_LIB): *@uret 2 (a uprobe session) where the kernel has
 * them (plan_env.usession) and every -p process is on its first stack
 * (pids_on_first_stack()); else *@uret untouched, and why not added to
 * *@risk (malloc'ed, the judgment's evidence).  Returns 0 or -ENOMEM.
 */
static int session_if(const struct plan_env *env, char **risk, int *uret)
{
	char why[256] = "", *w = NULL;

	if (!env->usession)
		snprintf(why, sizeof(why),
			 "no uprobe session here (Linux 6.13+; IPROF_UPROBE_SESSION=0)");
	else if (pids_on_first_stack(env, why, sizeof(why)))
		*uret = 2;
	if (!why[0])
		return 0;
	if (asprintf(&w, "%s; %s", *risk ? *risk : "", why) < 0)
		return -ENOMEM;
	free(*risk);
	*risk = w;
	return 0;
}

/*
 * --returns auto where this kernel single-steps return sites (no
 * plan_env.uregs): a uretprobe, which costs no single step, for a function
 * of a -- CMD or -p program that cannot unwind or switch stacks through it
 * (judge_returns(); the evidence in t->ret_risk either way).  A timer of
 * no target process keeps its return sites; one whose program's only
 * risk is a library's stack switch by libc's context functions gets a
 * uprobe session where the kernel has them (plan_env.usession, and
 * pids_on_first_stack()).  Sets *@uret (0 return sites, 1 a uretprobe, 2
 * a uprobe session); returns 0 or
 * -ENOMEM.  The judgment of the last path is kept: a glob's functions
 * share their file.
 */
static int auto_uretprobe(struct planner *pn, const struct plan_env *env,
			  const char *path, struct plan_timer *t, int *uret)
{
	int r;

	*uret = 0;
	if (env->returns == PLAN_RETURNS_AUTO && !env->uregs && !env->exe &&
	    !env->npids) {
		free(t->ret_risk);
		t->ret_risk = strdup("no -- CMD or -p, and any program may unwind through it");
		return t->ret_risk ? 0 : -ENOMEM;
	}
	if (env->returns != PLAN_RETURNS_AUTO || env->uregs)
		return 0;
	if (!pn->auto_path || strcmp(pn->auto_path, path)) {
		free(pn->auto_path);
		pn->auto_path = NULL;
		r = judge_returns(env, path, &pn->auto_risk);
		if (r < 0)
			return r;
		if (!(pn->auto_path = strdup(path)))
			return -ENOMEM;
		pn->auto_uret = !r;
		if (r == UNWIND_SWITCH_LIB &&
		    session_if(env, &pn->auto_risk, &pn->auto_uret))
			return -ENOMEM;
	}
	free(t->ret_risk);
	if (!(t->ret_risk = strdup(pn->auto_risk ? pn->auto_risk : "")))
		return -ENOMEM;
	*uret = pn->auto_uret;
	return 0;
}

/* the uretprobe of @path at @off (one per function: plan_add_att()
 * chains) goes in a uprobe session link with the entry there */
static void mark_session(struct plan *p, const char *path, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == MECH_URETPROBE &&
		    p->att[i].offset == off && p->att[i].path &&
		    !strcmp(p->att[i].path, path))
			p->att[i].session = 1;
}

/*
 * Timer @t of a function of @path without return sites (@why: why none)
 * where --returns did not give it a uretprobe: judged again
 * (judge_returns(): where auto took return sites, 6.19+'s run by iprof,
 * or a uprobe session refused, said again), a uprobe session where the
 * library's stack switch is the only risk (*@uret 2, t->ret_why says so).
 * Returns 1 (counted only: the program could unwind through it, or
 * --returns sites), 0 (a uretprobe or a session), -ENOMEM.
 */
static int unsited(const struct plan_env *env, const char *path,
		   struct plan_timer *t, const char *why, int *uret)
{
	char *w = NULL;
	int err = judge_returns(env, path, &t->ret_risk);

	if (err == UNWIND_SWITCH_LIB && env->returns == PLAN_RETURNS_AUTO &&
	    session_if(env, &t->ret_risk, uret))
		err = -ENOMEM;
	if (err < 0)
		return err;
	if (*uret == 2) {
		if (asprintf(&w, "%s; %s", why,
			     PLAN_SESSION_WHY
			     ", its entry taking the return probe only on the stack the thread started on") < 0)
			return -ENOMEM;
		free(t->ret_why);
		t->ret_why = w;
		return 0;
	}
	return err || env->returns == PLAN_RETURNS_SITES;
}

/*
 * The stops of user function timer @id at its entry @at (code of
 * @at->size bytes at @at->off in @at->path): uprobes at its return sites
 * where retsite_find() finds them (its start then carries
 * IPROF_A_RETSITES), else a uretprobe, the reason in t->ret_why.  Returns
 * 0 or -errno.
 */
static int plan_add_ustops(struct plan *p, const struct plan_env *env,
		      uint32_t id, uint32_t start, uint32_t stop,
		      const struct uplace *at)
{
	const char *path = at->path, *sym = at->sym;
	uint64_t off = at->off, size = at->size;
	struct plan_timer *t = &p->timers[id];
	uint64_t *sites = NULL;
	size_t n = 0, njmp = 0, i;
	char why[256];
	int err, uret = env->returns == PLAN_RETURNS_URETPROBE;

	if (!uret && auto_uretprobe(p->pn, env, path, t, &uret))
		return -ENOMEM;
	if (env->returns == PLAN_RETURNS_URETPROBE && (env->exe || env->npids)) {
		/* asked for: said, with what can kill the program */
		err = judge_returns(env, path, &t->ret_risk);
		if (err < 0)
			return err;
		t->ret_unsafe = err;
	}
	if (uret) {
		/* its tail calls all the same: the report says its times
		 * include their callees' (report_tail_note()) */
		struct retsite_code code[2] = {
			{ off, size, at->addr },
			{ at->cold_off, at->cold_size, at->cold_addr }
		};

		if (retsite_find(p->pn->rsx, path, code, at->cold && at->cold_off ? 2 : 1,
				 &sites, &n, &njmp, why, sizeof(why)) == 0)
			t->ret_tail = (uint32_t)njmp;
		free(sites);
		sites = NULL;
		n = 0;
		snprintf(why, sizeof(why), "%s",
			 env->returns == PLAN_RETURNS_URETPROBE ?
				 "--returns uretprobe" :
			 uret == 2 ?
				 PLAN_SESSION_WHY ", its entry taking the return probe only on the stack the thread started on (a call on a stack it switched to: counted where made, not timed)" :
				 "--returns auto: this kernel single-steps a return site's ret, a uretprobe does not, and nothing in the program can unwind through it");
		err = -EOPNOTSUPP;
	} else {
		/* with its cold part: jumps there stay inside, its rets are
		 * return sites too (a size of 0: its .eh_frame entry's; not
		 * found: retsite_find() takes in the .eh_frame entry its
		 * jumps reach) */
		struct retsite_code code[2] = {
			{ off, size, at->addr },
			{ at->cold_off, at->cold_size, at->cold_addr }
		};

		err = retsite_find(p->pn->rsx, path, code,
				   at->cold && at->cold_off ? 2 : 1, &sites,
				   &n, &njmp, why, sizeof(why));
	}
	if (err == -ENOMEM)
		return err;
	if (err == -ENOENT) {
		/* it never returns: entry only, as sym_noreturn() ones; its
		 * frames close when the stack shows them left (drop_left())
		 * or at exec or exit */
		p->actions[start].flags |= IPROF_A_RETSITES;
		t->entry_only = 1;
		return 0;
	}
	if (err) {
		free(t->ret_why);
		t->ret_why = strdup(why);
		if (!t->ret_why)
			return -ENOMEM;
		if (!uret) {
			err = unsited(env, path, t, why, &uret);
			if (err < 0)
				return err;
			if (err) {
				/* entry only: it returns, unseen, so each
				 * call is counted where it is made and
				 * pushes no frame (IPROF_A_HIT) */
				p->actions[start].flags |=
					IPROF_A_RETSITES | IPROF_A_HIT;
				t->entry_only = 1;
				t->ret_entry = 1;
				return 0;
			}
		}
		err = plan_add_att(p, MECH_URETPROBE, id, stop, NULL, NULL,
				   path, sym, off);
		if (!err && uret == 2) {
			mark_session(p, path, off);
			t->ret_session = 1;
		}
		return err;
	}
	p->actions[start].flags |= IPROF_A_RETSITES;
	for (i = 0; i < n && !err; i++) {
		uint32_t st = stop;

		/* an action is in one chain only: another timer's action
		 * chained after it at one site would run at every site */
		if (i)
			err = plan_clone_action(p, stop, &st);
		if (!err)
			err = plan_add_att(p, MECH_RETSITE, id, st, NULL, NULL, path,
				      sym, sites[i]);
	}
	t->ret_sites = (uint32_t)n;
	t->ret_tail = (uint32_t)njmp;
	free(sites);
	return err;
}

/*
 * What a uprobe timer attaches to: "uprobe:PATH:FUNC", its other entries
 * (" + f.isra.0, f.constprop.0": clones, a C++ overload's symbol) and
 * what @u notes (an older copy of the binary traced).
 */
static char *plan_describe_uprobe(const struct probe *pr, const struct uplaces *u,
			     const char *func)
{
	char more[1024] = "", *base, *ret;
	size_t i, used = 0;
	int n = 0;

	base = plan_describe(&plan_ufunc_shape, pr, u->v[0].path, func);
	if (!base)
		return NULL;
	/* the symbol FUNC names, when it is not FUNC itself ("ns::bar =
	 * ns::bar(int) (_ZN2ns3barEi)"), then its other entries (clones) */
	if (strncmp(u->v[0].sym, func, strcspn(func, "@")) ||
	    u->v[0].sym[strcspn(func, "@")])
		used = (size_t)snprintf(more, sizeof(more), " = %s",
					u->v[0].sym);
	for (i = 1; i < u->n && used < sizeof(more); i++) {
		if (!strcmp(u->v[i].sym, u->v[0].sym))
			continue; /* an older copy's */
		used += (size_t)snprintf(more + used, sizeof(more) - used,
					 "%s%s", n++ ? ", " : " with ",
					 u->v[i].sym);
	}
	ret = plan_asprintf("%s%s%s%s%s", base, more, u->note ? " (" : "",
			u->note ? u->note : "", u->note ? ")" : "");
	free(base);
	return ret;
}

/*
 * With FUNC timed where inlined, its outlined rest (FUNC.part.N: partial
 * inlining, the rest of FUNC that its inlined head calls) is no call of
 * its own: drop such entries from @u (they would time each call twice).
 */
static void drop_parts(struct uplaces *u)
{
	size_t i, k = 0;

	for (i = 0; i < u->n; i++) {
		if (strstr(u->v[i].sym, ".part.")) {
			free(u->v[i].path);
			free(u->v[i].sym);
			continue;
		}
		u->v[k++] = u->v[i];
	}
	u->n = k;
}

/*
 * The inlined instances of uprobe timer @id (@pr) in @binary, planned
 * (plan_inline()), and what that changes: with instances timed, a
 * FUNC without a symbol (*@msg, @nofunc) is timed where inlined only,
 * and FUNC.part.N entries go; without, *@msg says DWARF was looked at,
 * or why no instance can be timed.  Returns 0 or -ENOMEM; a timer error
 * (t->error) frees *@msg.
 */
static int plan_probe_inline(struct plan *p, const struct probe *pr,
			     uint32_t id, const struct plan_env *env,
			     const char *binary, int nofunc,
			     struct uplaces *u, char **msg)
{
	struct plan_timer *t = &p->timers[id];
	char *m = NULL, *d;
	int err, nodwarf = 0;

	err = plan_inline(p, pr, id, env, binary, &nodwarf);
	if (err)
		return err;
	if (t->error) {
		free(*msg);
		*msg = NULL;
		return 0;
	}
	if (t->inl)
		drop_parts(u);
	if ((*msg || !u->n) && t->inl) {
		/* no symbol (or only its outlined rest): timed inlined */
		d = plan_describe(&plan_ufunc_shape, pr, binary, t->func);
		m = d ? plan_asprintf("%s (inlined only)", d) : NULL;
		free(d);
		if (!m)
			return -ENOMEM;
		free(*msg);
		*msg = NULL;
		free(t->where);
		t->where = m;
		t->inl_only = 1;
		return 0;
	}
	if (!*msg)
		return 0;
	if (nofunc && !t->inl_refused)
		m = plan_asprintf(nodwarf == 1 ?
			"%s; and no DWARF (-g, or a debug file) says whether it was inlined" :
			nodwarf == 2 ?
			"%s; nor is it inlined in its C code (DWARF; inlined C++ and Rust functions are not looked up yet)" :
			"%s; nor is it inlined anywhere (DWARF)",
			      *msg);
	else if (t->inl_refused) /* say why none of them can be timed */
		m = plan_asprintf("%s; inlined %u time%s, none timed: %s", *msg,
			      t->inl_refused, t->inl_refused == 1 ? "" : "s",
			      t->inl_where);
	else
		return 0;
	m = plan_hint_last(m);
	if (!m)
		return -ENOMEM;
	free(*msg);
	*msg = m;
	return 0;
}

/*
 * A uprobe glob: the functions of its binary, expanded by plan_glob().  A
 * C++ or Rust function is matched by its demangled name (sym_glob_names():
 * "ns::*", "ns::Box::*", "plain*"), one timer per name, every overload of
 * it; a mangled glob ("_ZN2ns*") by its symbol.
 */
static int plan_uprobe_glob(struct plan *p, const struct probe_list *pl,
			    const struct probe *pr, const struct plan_env *env,
			    struct hsearch_data *ht, size_t *scanned)
{
	char err[PATH_MAX + 512], *what = NULL, *none = NULL, *path = NULL;
	struct ksyms names = { 0 };
	int ret;

	ret = sym_resolve_path(pr->path, &path, err, sizeof(err));
	if (!ret)
		ret = sym_cache_glob_names(p->pn->syms, path, pr->func, &names,
					   err, sizeof(err));
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		ret = plan_add_failed(p, &plan_ufunc_shape, pr,
				 plan_perr(pr, pr->start.col, "%s", err));
		goto out;
	}
	what = plan_asprintf("functions in %s", path);
	none = plan_asprintf("function in %s", path);
	ret = -ENOMEM;
	if (what && none)
		ret = plan_glob(p, &plan_ufunc_shape, pl, pr, env, NULL, &names, ht, scanned,
				pr->start.col + (int)strlen(pr->path) + 1,
				what, none);
out:
	ksyms_free(&names);
	free(path);
	free(what);
	free(none);
	return ret;
}

/* emu_decode_file() of the bytes @c holds open (NULL: read there) */
static void emu_decode_at(struct sym_cache *c, const char *path, uint64_t off,
			  int site, struct plan_emu *e)
{
	uint8_t b[16];
	ssize_t n = c ? sym_cache_pread(c, path, b, sizeof(b), off) : -EMFILE;

	memset(e, 0, sizeof(*e));
	if (n < 0)
		emu_decode_file(path, off, site, e);
	else if (n > 0)
		emu_decode(b, (size_t)n, site, e);
}

/* insn_emulated()'s test of an instruction's first two bytes @b */
static int bytes_emulated(const uint8_t b[2])
{
	return (b[0] >= 0x50 && b[0] <= 0x57) ||
	       (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57) ||
	       b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb || b[0] == 0x90 ||
	       (b[0] >= 0x70 && b[0] <= 0x7f) ||
	       (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
}

/*
 * insn_emulated() - the instruction at file offset @off of @path is a
 * `push` of a register (0x50-0x57, with a REX.B prefix 0x41), a call
 * rel32, a jmp, a jcc or a one-byte nop, which x86 uprobes emulate
 * instead of single-stepping them, on every kernel iprof runs on
 * (arch/x86/kernel/uprobes.c branch_setup_xol_ops() and the push's
 * push_emulate_op(), in Debian 12's 6.1 too): after the probe's
 * timestamp, nothing but the return to user mode.  An instruction of any
 * other kind is single-stepped after the timestamp: inside the call at
 * an entry, outside it at a return site or an inlined instance's exit.
 */
static int insn_emulated(const char *path, uint64_t off)
{
	unsigned char b[2] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC), emu;

	if (fd < 0)
		return 0;
	emu = pread(fd, b, sizeof(b), (off_t)off) == (ssize_t)sizeof(b) &&
	      bytes_emulated(b);
	close(fd);
	return emu;
}

/* insn_emulated() through the files @c holds open (NULL: read there) */
static int insn_emulated_at(struct sym_cache *c, const char *path,
			    uint64_t off)
{
	uint8_t b[2];

	if (!c || sym_cache_pread(c, path, b, sizeof(b), off) != sizeof(b))
		return insn_emulated(path, off);
	return bytes_emulated(b);
}

/*
 * Which probed instructions of user function timers their programs run
 * themselves (include/iprof/emu.h): each entry's and return site's,
 * decoded from the file; counted per timer where the kernel allows it.
 */
void plan_emu(struct plan *p, const struct plan_env *env)
{
	struct plan_timer *t;
	uint32_t i, k, n;

	for (i = 0; i < p->natt; i++) {
		struct plan_att *a = &p->att[i];

		/* (a split start's cookie holds its frame, never a kind:
		 * the kernel emulates its instruction anyway) */
		if ((a->mech != MECH_UPROBE && a->mech != MECH_RETSITE) ||
		    a->split)
			continue;
		emu_decode_at(p->pn->syms, a->path, a->offset,
			      a->mech == MECH_RETSITE, &a->emu);
		a->no_step = insn_emulated_at(p->pn->syms, a->path,
					      a->offset) ||
			     (env->uregs && a->emu.kind);
		if (!env->uregs || !a->emu.kind)
			continue;
		/* every timer of the attachment's chain (timers of one
		 * function share it), each once */
		for (k = a->action, n = 0; k < p->nactions && n < p->nactions;
		     k = p->actions[k].next, n++) {
			t = &p->timers[p->actions[k].timer];
			if (a->mech == MECH_RETSITE && !a->inl &&
			    t->emu_seen != i + 1) {
				t->emu_sites++;
				t->emu_seen = i + 1;
			} else if (a->mech == MECH_UPROBE) {
				t->emu_entry = 1;
			}
		}
	}
}

/*
 * missing_named() - 1 if uprobe @pr names what does not exist: a function
 * @binary (read: *@binary set) has no symbol of (@nofunc) nor an inlined
 * instance, timed (@u) or refused (@t's inl_where), or a path with a '/'
 * (not /proc/...) that is not there.  A library named without a path and
 * not found (it may be loaded later) and other refusals (an IFUNC, an
 * instruction the kernel refuses, inlined instances none of which can be
 * timed) are not.
 */
static int missing_named(const struct probe *pr, const struct plan_timer *t,
			 const char *binary, int nofunc,
			 const struct uplaces *u)
{
	struct stat st;

	if (binary)
		return nofunc && !u->n && !t->inl_where;
	return strchr(pr->path, '/') && strncmp(pr->path, "/proc/", 6) &&
	       stat(pr->path, &st) && errno == ENOENT;
}

/*
 * user function: its entries in the binary (and in the older copies -p
 * processes map), else the instances it was inlined as; one pair of
 * actions per entry.
 */
static int ufunc_plan(struct plan *p, const struct probe *pr, uint32_t id,
		      const struct plan_env *env, const struct ksyms *ks)
{
	struct plan_timer *t = &p->timers[id];
	struct uplaces u = { 0 };
	char *msg = NULL, *where, *binary = NULL;
	size_t i;
	int err = 0, nofunc = 0;

	(void)ks;
	err = plan_resolve_uprobe(p->pn, pr, t->func, env, &u, &msg,
			     &binary, &nofunc);
	if (err)
		goto out;
	t->entry_only = sym_noreturn(t->func);
	if (binary && !env->no_inline && !t->entry_only &&
	    (!msg || (nofunc && !u.n))) {
		err = plan_probe_inline(p, pr, id, env, binary, nofunc,
					&u, &msg);
		if (err || t->error)
			goto out;
	} else if (msg && nofunc && env->no_inline) {
		where = plan_asprintf("%s; --no-inline: not looked for where inlined",
				  msg);
		if (!where) {
			err = -ENOMEM;
			goto out;
		}
		free(msg);
		msg = where;
	}
	if (!msg && u.n) {
		/* show the binary that will be traced */
		where = plan_describe_uprobe(pr, &u, t->func);
		if (!where) {
			err = -ENOMEM;
			goto out;
		}
		free(t->where);
		t->where = where;
		t->note = u.note;
		u.note = NULL;
	}
	if (msg) {
		t->error = msg;
		t->missing = missing_named(pr, t, binary, nofunc, &u);
		goto out;
	}
	/* one pair of actions per entry: each attachment chains its own */
	for (i = 0; !err && !t->error && i < u.n; i++)
		err = plan_actions(p, &plan_ufunc_shape, pr, id, env, &u.v[i]);
out:
	plan_uplaces_free(&u);
	free(binary);
	return err;
}

/* the attachment of @mech at @path's offset @off, or NULL */
static struct plan_att *att_at(struct plan *p, enum plan_mech mech,
			       const char *path, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == mech && p->att[i].offset == off &&
		    p->att[i].path && !strcmp(p->att[i].path, path))
			return &p->att[i];
	return NULL;
}

/*
 * Where the entry of user function timer @id at @at splits: 0 and *@site,
 * *@adj (retsite_split()); 1: not (its entry is not single-stepped, it
 * has no stop to split it for, IPROF_SPLIT=0; why not in t->split_why
 * where it was tried); -ENOMEM.
 */
static int split_where(struct plan *p, const struct plan_env *env,
		       struct plan_timer *t, const struct uplace *at,
		       uint64_t *site, uint32_t *adj)
{
	struct retsite_code code[2] = {
		{ at->off, at->size, at->addr },
		{ at->cold_off, at->cold_size, at->cold_addr }
	};
	const char *no = getenv("IPROF_SPLIT");
	struct plan_emu emu;
	char why[256];
	int err;

	if (t->entry_only || t->ret_session || (no && !strcmp(no, "0")))
		return 1;
	emu_decode_at(p->pn->syms, at->path, at->off, 0, &emu);
	if (insn_emulated(at->path, at->off) || (env->uregs && emu.kind))
		return 1; /* no single step at its entry */
	err = retsite_split(p->pn->rsx, at->path, code,
			    at->cold && at->cold_off ? 2 : 1, site, adj, why,
			    sizeof(why));
	if (err == -ENOMEM)
		return err;
	if (err == -EALREADY)
		return 1; /* no single step at its entry either */
	if (!err)
		return 0;
	free(t->split_why);
	t->split_why = strdup(why);
	return t->split_why ? 1 : -ENOMEM;
}

/*
 * The entry of user function timer @id at @at, its stops planned: where
 * the kernel single-steps its first instruction, where its start would
 * move (split_where()), noted on its MECH_UPROBE attachment there for
 * plan_split(), which moves it once every timer is planned.  Returns 0
 * or -ENOMEM.
 */
static int ufunc_split(struct plan *p, const struct plan_env *env,
		       uint32_t id, const struct uplace *at)
{
	struct plan_timer *t = &p->timers[id];
	struct plan_att *e = att_at(p, MECH_UPROBE, at->path, at->off);
	uint8_t mode = t->ret_sites ? PLAN_SPLIT_ENTRY : PLAN_SPLIT_GAP;
	uint64_t site;
	uint32_t adj;
	int err;

	if (!e)
		return 0;
	err = split_where(p, env, t, at, &site, &adj);
	if (err < 0)
		return err;
	if (err) {
		e->split_refused = 1; /* (its timer says why, if it must) */
		return 0;
	}
	if (e->split_votes && (e->split_mode != mode || e->split_site != site))
		e->split_mode = 0; /* its timers disagree: none */
	else if (!e->split_votes)
		e->split_mode = mode;
	e->split_site = site;
	e->split_adj = (uint16_t)adj;
	e->split_votes++;
	return 0;
}

/* @t's split_why = @why (printf), its earlier one replaced; -ENOMEM */
static int split_why(struct plan_timer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int split_why(struct plan_timer *t, const char *fmt, ...)
{
	va_list ap;
	char *w = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&w, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(t->split_why);
	t->split_why = w;
	return 0;
}

/*
 * Why entry attachment @i of @p cannot move to its split_site: NULL, or a
 * static string with its offset in *@at: an action of its chain that
 * asked for none (another probe shares the uprobe, its timers disagree),
 * another attachment in its file past the entry up to the site (an
 * inlined instance's entry, another function's site: they would run
 * before the start).
 */
static const char *split_blocked(const struct plan *p, uint32_t i,
				 uint64_t *at)
{
	const struct plan_att *a = &p->att[i];
	uint32_t k, n = 0, j;

	for (k = a->action; k < p->nactions && n <= p->nactions;
	     k = p->actions[k].next)
		n++;
	if (!a->split_mode || n != a->split_votes)
		return "another probe shares its entry's uprobe";
	for (j = 0; j < p->natt; j++) {
		const struct plan_att *b = &p->att[j];

		if (j != i && b->path && b->offset > a->offset &&
		    b->offset <= a->split_site && !strcmp(b->path, a->path) &&
		    b->mech != MECH_USDT && b->mech != MECH_TRACEPOINT &&
		    b->mech != MECH_SYSCALL && b->mech != MECH_KSITE) {
			*at = b->offset - a->offset;
			return "another probe is at +%#llx, before the first instruction the kernel emulates";
		}
	}
	return NULL;
}

/*
 * split_one() - move the start of entry attachment @i of @p (its chain's
 * timers all asked: split_blocked() says none in the way) to its
 * split_site: with a uretprobe (PLAN_SPLIT_GAP), whose breakpoint must
 * stay, the entry becomes the mark (MECH_UMARK) and a copy of each start
 * goes to the site; with return sites (PLAN_SPLIT_ENTRY), the attachment
 * itself moves there.  Returns 0 or -errno.
 */
static int split_one(struct plan *p, uint32_t i)
{
	struct plan_att a = p->att[i];
	uint32_t k, x, n = 0, j = i;
	int err = 0;

	if (a.split_mode == PLAN_SPLIT_GAP) {
		p->att[i].mech = MECH_UMARK;
		for (k = a.action; !err && k != IPROF_NO_NEXT && n++ < p->nactions;
		     k = p->actions[k].next) {
			err = plan_clone_action(p, k, &x);
			if (!err)
				err = plan_add_att(p, MECH_RETSITE,
						   p->actions[k].timer, x, NULL,
						   NULL, a.path, a.func,
						   a.split_site);
		}
		for (j = 0; !err && j < p->natt; j++)
			if (p->att[j].mech == MECH_RETSITE &&
			    p->att[j].offset == a.split_site &&
			    !strcmp(p->att[j].path, a.path))
				break;
		if (err || j == p->natt)
			return err ? err : -ENOENT;
		p->att[j].dev = a.dev;
		p->att[j].ino = a.ino;
	} else {
		p->att[i].mech = MECH_RETSITE;
		p->att[i].offset = a.split_site;
	}
	p->att[j].split = a.split_mode;
	p->att[j].key_adj = a.split_adj;
	for (k = a.action, n = 0; k != IPROF_NO_NEXT && n++ < p->nactions;
	     k = p->actions[k].next) {
		struct plan_timer *t = &p->timers[p->actions[k].timer];

		t->split_off = a.split_site;
		t->split_at = (uint32_t)(a.split_site - a.offset);
		free(t->split_why);
		t->split_why = NULL;
	}
	return 0;
}

int plan_split(struct plan *p)
{
	uint32_t i, k, n, natt = p->natt;
	const char *why;
	uint64_t at = 0;
	int err = 0;

	for (i = 0; !err && i < natt; i++) {
		const struct plan_att *a = &p->att[i];

		if (a->mech != MECH_UPROBE || !a->split_votes ||
		    a->split_refused)
			continue;
		why = split_blocked(p, i, &at);
		if (!why) {
			err = split_one(p, i);
			continue;
		}
		for (k = a->action, n = 0;
		     !err && k != IPROF_NO_NEXT && n++ < p->nactions;
		     k = p->actions[k].next)
			err = split_why(&p->timers[p->actions[k].timer], why,
					(unsigned long long)at);
	}
	return err;
}

/* the start at entry @at, the stops at its return sites or a uretprobe */
static int ufunc_attach(struct plan *p, const struct probe *pr, uint32_t id,
			const struct plan_env *env, uint32_t start,
			uint32_t stop, const struct uplace *at)
{
	struct plan_timer *t = &p->timers[id];
	int err;

	err = plan_add_att(p, MECH_UPROBE, id, start, NULL, NULL, at->path,
			   at->sym, at->off);
	/* a function that never returns gets no return probe (a
	 * uretprobe on _start would overwrite argc): frames end at
	 * thread exit, or at a return site's drop_left() */
	if (!err && !t->entry_only)
		err = plan_add_ustops(p, env, id, start, stop, at);
	if (!err)
		err = ufunc_split(p, env, id, at);
	if (err == -E2BIG) {
		t->error = plan_asprintf("%s:%d:%d: uprobe %s: more than %d timers on one function",
					 pr->file, pr->line, pr->start.col,
					 pr->name, IPROF_MAX_CHAIN);
		return 0;
	}
	return err;
}

/* a glob over the functions of the line's binary (@ks unused) */
static int ufunc_glob(struct plan *p, const struct probe_list *pl,
		      const struct probe *pr, const struct plan_env *env,
		      const struct ksyms *ks, struct hsearch_data *ht,
		      size_t *scanned)
{
	(void)ks;
	return plan_uprobe_glob(p, pl, pr, env, ht, scanned);
}

/* "uprobe:PATH:FUNC[ if ...][ (uprobe:PATH:GLOB)]" */
static char *ufunc_describe(const struct probe *pr, const char *path,
			    const char *func, int glob)
{
	char a[512] = "", b[512] = "";

	snprintf(a, sizeof(a), "%s:%s:%s", probe_kind_str(pr->kind), path,
		 func);
	if (glob)
		snprintf(b, sizeof(b), " (%s:%s:%s)", probe_kind_str(pr->kind),
			 path, pr->func);
	plan_cond_str(a, sizeof(a), &pr->start);
	return plan_asprintf("%s%s", a, b);
}

/* A user function's class: by its entry (emulated or single-stepped) and
 * its stops (return sites or a uretprobe) */
static int ufunc_calib_class(const struct plan *p, uint32_t timer)
{
	const struct plan_timer *t = &p->timers[timer];
	int uret, push = 0;
	uint32_t i;

	/* entry only: its start's cost alone (calib_cost()) */
	uret = !t->entry_only && !t->ret_sites;
	/* a split entry: its start at an instruction the kernel emulates,
	 * its single step at the entry measured (a uretprobe's mark) or
	 * gone (return sites: nothing there) */
	if (t->split_off)
		return uret ? CALIB_URETPROBE_SPLIT : CALIB_RETSITE;
	for (i = 0; i < p->natt; i++)
		if (p->att[i].timer == timer && p->att[i].mech == MECH_UPROBE) {
			push = insn_emulated(p->att[i].path, p->att[i].offset);
			break;
		}
	/* inlined only: an entry and an exit at instructions the kernel
	 * single-steps (include/iprof/inline.h), as a single-stepped entry
	 * and return site cost, or an emulated entry's where every
	 * instance starts at one the kernel emulates.  With an out-of-line
	 * copy too: its probes' class for all */
	if (i == p->natt && t->inl)
		return plan_ufunc_inline_class(p, timer);
	if (uret)
		return push ? CALIB_URETPROBE : CALIB_URETPROBE_STEP;
	return push ? CALIB_RETSITE : CALIB_RETSITE_STEP;
}

int plan_ufunc_inline_class(const struct plan *p, uint32_t timer)
{
	uint32_t i, k, n;

	/* each inlined instance's start (its entry, a probe at any
	 * instruction: single-stepped after the start's timestamp, inside
	 * the call, unless the kernel emulates it) */
	for (i = 0; i < p->natt; i++) {
		const struct plan_att *a = &p->att[i];

		if (a->mech != MECH_RETSITE || !a->inl || !a->path)
			continue;
		for (k = a->action, n = 0; k != IPROF_NO_NEXT && n++ < p->nactions;
		     k = p->actions[k].next)
			if (p->actions[k].timer == timer &&
			    p->actions[k].role == IPROF_ROLE_START &&
			    !insn_emulated(a->path, a->offset))
				return CALIB_RETSITE_STEP;
	}
	return CALIB_RETSITE;
}

const struct plan_shape plan_ufunc_shape = {
	.user = 1,
	.plan = ufunc_plan,
	.attach = ufunc_attach,
	.glob = ufunc_glob,
	.describe = ufunc_describe,
	.calib_class = ufunc_calib_class,
};
