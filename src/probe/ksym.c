// SPDX-License-Identifier: GPL-2.0-only
/*
 * ksym.c - kernel function names for the planner (include/iprof/ksym.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/ksym.h"
#include "iprof/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The flag byte of list entry @e: after its name's and module's NULs
 * (see new_entry()). */
static char *entry_flag(const char *e)
{
	const char *m = e + strlen(e) + 1;

	return (char *)m + strlen(m) + 1;
}

/* Sort @v and drop duplicates, flagging the entry kept as repeated
 * (KSYM_F_REPEATED); returns the new count. */
static size_t sort_unique(char **v, size_t n)
{
	size_t i, j = 0;

	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		if (j && !strcmp(v[j - 1], v[i])) {
			*entry_flag(v[j - 1]) |= KSYM_F_REPEATED;
			free(v[i]);
			continue;
		}
		v[j++] = v[i];
	}
	return j;
}

/*
 * A list entry: NAME, a NUL, then MODULE (empty for none), a NUL and a
 * flag byte (KSYM_F_*), so that strcmp() and bsearch() see the name alone
 * (see struct ksyms).
 */
static char *new_entry(const char *name, size_t len, const char *module)
{
	size_t ml = module ? strlen(module) : 0;
	char *e = malloc(len + ml + 3);

	if (!e)
		return NULL;
	memcpy(e, name, len);
	e[len] = '\0';
	if (ml)
		memcpy(e + len + 1, module, ml);
	e[len + 1 + ml] = '\0';
	e[len + 2 + ml] = 0; /* flags */
	return e;
}

int ksyms_add(struct ksyms *k, const char *name, size_t len,
	      const char *module)
{
	if (util_grow(&k->funcs, k->nfuncs, sizeof(*k->funcs)))
		return -ENOMEM;
	k->funcs[k->nfuncs] = new_entry(name, len, module);
	if (!k->funcs[k->nfuncs])
		return -ENOMEM;
	k->nfuncs++;
	return 0;
}

void ksyms_sort(struct ksyms *k)
{
	if (k->funcs)
		k->nfuncs = sort_unique(k->funcs, k->nfuncs);
}

const char *ksyms_module(const char *entry)
{
	return entry + strlen(entry) + 1;
}

/*
 * Read names from @path into @k->funcs: field @field (0-based, blank
 * separated) of each line, with the module that follows it ("[kvm]"), if
 * any; with @want_text, only lines whose second field is t or T.  Returns
 * 0 (also when @path cannot be read: @k->funcs stays NULL), -ENOMEM.
 */
static int read_names(const char *path, int field, int want_text,
		      struct ksyms *k)
{
	char line[512], *tok[4], *save, *mod;
	FILE *f;
	int i, err = 0;

	memset(k, 0, sizeof(*k));
	if (!path || !(f = fopen(path, "r")))
		return 0;
	/* readable, even if empty: an empty list, not an unknown one (the
	 * array as util_grow() allocates it for a first element) */
	err = util_grow(&k->funcs, 0, sizeof(*k->funcs));
	while (!err && fgets(line, sizeof(line), f)) {
		tok[0] = strtok_r(line, " \t\n", &save);
		for (i = 1; i < 4; i++)
			tok[i] = tok[i - 1] ? strtok_r(NULL, " \t\n", &save) :
					      NULL;
		if (!tok[field])
			continue;
		if (want_text && (!tok[1] || (strcmp(tok[1], "t") &&
					      strcmp(tok[1], "T"))))
			continue;
		mod = tok[field + 1];
		if (mod && mod[0] == '[' && mod[strlen(mod) - 1] == ']') {
			mod[strlen(mod) - 1] = '\0';
			mod++;
		} else {
			mod = NULL;
		}
		err = ksyms_add(k, tok[field], strlen(tok[field]), mod);
	}
	fclose(f);
	if (err) {
		ksyms_free(k);
		return err;
	}
	ksyms_sort(k);
	return 0;
}

int ksyms_load(struct ksyms *k, const char *kallsyms,
	       const char *filter_functions)
{
	struct ksyms t;
	int err;

	err = read_names(kallsyms, 2, 1, k);
	if (!err)
		err = read_names(filter_functions, 0, 0, &t);
	if (err) {
		ksyms_free(k);
		return err;
	}
	k->traceable = t.funcs;
	k->ntraceable = t.nfuncs;
	return 0;
}

static void free_names(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free_names(k->funcs, k->nfuncs);
	free_names(k->traceable, k->ntraceable);
	memset(k, 0, sizeof(*k));
}

static int has(char *const *v, size_t n, const char *name)
{
	return bsearch(&name, v, n, sizeof(*v), cmp_str) != NULL;
}

int ksyms_exists(const struct ksyms *k, const char *name)
{
	if (!k->funcs)
		return -1;
	return has(k->funcs, k->nfuncs, name);
}

int ksyms_repeated(const struct ksyms *k, const char *name)
{
	char **e;

	if (!k->funcs)
		return -1;
	e = bsearch(&name, k->funcs, k->nfuncs, sizeof(*k->funcs), cmp_str);
	return e && (*entry_flag(*e) & KSYM_F_REPEATED);
}

const char *ksyms_module_of(const struct ksyms *k, const char *name)
{
	char **e;

	if (!k->funcs)
		return "";
	e = bsearch(&name, k->funcs, k->nfuncs, sizeof(*k->funcs), cmp_str);
	return e && !(*entry_flag(*e) & KSYM_F_REPEATED) ? ksyms_module(*e) :
							    "";
}

int ksyms_traceable(const struct ksyms *k, const char *name)
{
	if (!k->traceable)
		return -1;
	return has(k->traceable, k->ntraceable, name);
}

int ksym_clone_suffix(const char *sfx)
{
	/* gcc/ipa-*.cc, cgraphclones.cc: clone_function_name; clang */
	static const char *const parts[] = {"isra",	"constprop",  "part",
					    "lto_priv", "localalias", "cold",
					    "llvm",	"specialized"};
	const char *p = sfx, *e;
	size_t n, i;
	int cold = 0, named = 0;

	if (*p != '.')
		return 0;
	while (*p == '.') {
		p++;
		e = p + strcspn(p, ".");
		n = (size_t)(e - p);
		if (!n)
			return 0;
		if (strspn(p, "0123456789") < n) {
			for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
				if (strlen(parts[i]) == n &&
				    !strncmp(parts[i], p, n))
					break;
			if (i == sizeof(parts) / sizeof(parts[0]))
				return 0;
			cold |= !strcmp(parts[i], "cold");
			named = 1;
		} else if (!named) {
			/* a number first: Go's nested closure pkg.f.func2.1,
			 * GCC's nested function inner.0: no clone */
			return 0;
		}
		p = e;
	}
	if (*p)
		return 0;
	return cold ? 2 : 1;
}

size_t ksym_base_len(const char *name)
{
	const char *p;

	/* the first '.' that starts a clone suffix: "f.constprop.0.isra.0"
	 * is f's; Go's "main.main.func1" and "main.(*T).M" are nobody's */
	for (p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
		if (ksym_clone_suffix(p))
			return (size_t)(p - name);
	return strlen(name);
}

/* Does @name, or with @clones the function it is a clone of, match? */
static int matches(const char *pattern, const char *name, int clones)
{
	char base[512];
	size_t n;

	if (!fnmatch(pattern, name, 0))
		return 1;
	if (!clones)
		return 0;
	n = ksym_base_len(name);
	if (!name[n] || n >= sizeof(base))
		return 0;
	memcpy(base, name, n);
	base[n] = '\0';
	return !fnmatch(pattern, base, 0);
}

/*
 * The first of the @n sorted names @v that is not less than the @plen
 * bytes at @prefix: names beginning with them follow it (binary search).
 */
static size_t lower_bound(char *const *v, size_t n, const char *prefix,
			  size_t plen)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strncmp(v[mid], prefix, plen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The names @pattern can match, or match through a clone (a function's
 * name begins with the pattern's literal prefix): [*@first, return value)
 * of *@v, found by binary search in the sorted list.
 */
static size_t candidates(const struct ksyms *k, const char *pattern,
			 char *const **v, size_t *first)
{
	size_t n = k->traceable ? k->ntraceable : k->nfuncs, end, plen;

	*v = k->traceable ? k->traceable : k->funcs;
	*first = 0;
	if (!*v)
		return 0;
	if (!pattern)
		return n;
	plen = strcspn(pattern, "*?[\\");
	*first = lower_bound(*v, n, pattern, plen);
	for (end = *first; end < n && !strncmp((*v)[end], pattern, plen);)
		end++;
	return end;
}

static int match(const struct ksyms *k, const char *pattern, int clones,
		 int (*fn)(const char *name, void *ctx), void *ctx)
{
	char *const *v;
	size_t i, end = candidates(k, pattern, &v, &i);
	int ret;

	for (; i < end; i++) {
		if (pattern && !matches(pattern, v[i], clones))
			continue;
		ret = fn(v[i], ctx);
		if (ret)
			return ret;
	}
	return 0;
}

size_t ksyms_candidates(const struct ksyms *k, const char *pattern)
{
	char *const *v;
	size_t first, end = candidates(k, pattern, &v, &first);

	return end - first;
}

int ksyms_match(const struct ksyms *k, const char *pattern,
		int (*fn)(const char *name, void *ctx), void *ctx)
{
	return match(k, pattern, 0, fn, ctx);
}

int ksyms_match_clones(const struct ksyms *k, const char *pattern,
		       int (*fn)(const char *name, void *ctx), void *ctx)
{
	return match(k, pattern, 1, fn, ctx);
}

int ksyms_clones(const struct ksyms *k, const char *name, char *buf,
		 size_t len)
{
	size_t nl = strlen(name), used = 0, i;
	char dot[512];
	int found = 0;

	if (len)
		buf[0] = '\0';
	/* the clones NAME.* of the sorted list follow "NAME." */
	if (!k->funcs || nl + 2 > sizeof(dot))
		return 0;
	memcpy(dot, name, nl);
	memcpy(dot + nl, ".", 2);
	for (i = lower_bound(k->funcs, k->nfuncs, dot, nl + 1);
	     i < k->nfuncs && !strncmp(k->funcs[i], dot, nl + 1); i++) {
		const char *s = k->funcs[i];

		found++;
		if (used + strlen(s) + 6 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", s);
		else if (used + 4 < len && !strstr(buf, "..."))
			used += (size_t)snprintf(buf + used, len - used, "...");
	}
	return found;
}

/* Patterns (fnmatch) of functions the tracer itself runs. */
static const struct {
	const char *pattern, *why;
} deny[] = {
	{ "*raw_spin_*lock*", "spinlock internals" },
	{ "*_spin_lock*", "spinlock internals" },
	{ "*_spin_unlock*", "spinlock internals" },
	{ "queued_spin_*", "spinlock internals" },
	{ "native_queued_spin_*", "spinlock internals" },
	{ "__pv_queued_spin_*", "spinlock internals" },
	{ "rcu_read_lock*", "RCU read-side (BPF programs run under it)" },
	{ "rcu_read_unlock*", "RCU read-side (BPF programs run under it)" },
	{ "__rcu_read_lock", "RCU read-side (BPF programs run under it)" },
	{ "__rcu_read_unlock", "RCU read-side (BPF programs run under it)" },
	{ "preempt_count_add", "preempt count (BPF programs disable preemption)" },
	{ "preempt_count_sub", "preempt count (BPF programs disable preemption)" },
	{ "migrate_disable", "BPF program entry" },
	{ "migrate_enable", "BPF program entry" },
	{ "__bpf_prog_enter*", "BPF trampoline helper" },
	{ "__bpf_prog_exit*", "BPF trampoline helper" },
	{ "__bpf_tramp_*", "BPF trampoline helper" },
	{ "bpf_trampoline_*", "BPF trampoline helper" },
	{ "bpf_ringbuf_*", "BPF ring buffer (iprof's records)" },
	{ "__bpf_ringbuf_*", "BPF ring buffer (iprof's records)" },
	{ "bpf_task_storage_*", "BPF task storage (iprof's per-thread state)" },
	{ "bpf_get_current_*", "BPF helper iprof calls" },
	{ "bpf_ktime_get_ns", "BPF helper iprof calls" },
	/* open across the sys_enter tracepoint, which counts a thread's
	 * syscalls to find kprobe calls whose return was missed */
	{ "syscall_trace_enter*", "runs the sys_enter tracepoint iprof uses" },
	{ "syscall_enter_from_user_mode*",
	  "runs the sys_enter tracepoint iprof uses" },
	{ "__traceiter_sys_enter", "runs the sys_enter tracepoint iprof uses" },
	{ "__bpf_trace_sys_enter", "runs the sys_enter tracepoint iprof uses" },
	{ "bpf_trace_run*", "BPF tracepoint program entry" },
	{ "ftrace_syscall_enter", "runs the sys_enter tracepoint iprof uses" },
	{ "perf_syscall_enter", "runs the sys_enter tracepoint iprof uses" },
};

const char *ksym_denied(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
		if (!fnmatch(deny[i].pattern, name, 0))
			return deny[i].why;
	return NULL;
}

int ksym_noreturn(const char *name)
{
	/* kernel/bpf/verifier.c, BTF_SET_START(noreturn_deny) */
	static const char *const noret[] = {
		"do_exit",	   "do_group_exit",   "make_task_dead",
		"kthread_exit",	   "kthread_complete_and_exit",
		"__x64_sys_exit", "__x64_sys_exit_group",
		"__ia32_sys_exit", "__ia32_sys_exit_group",
		"__module_put_and_kthread_exit",
	};
	size_t i;

	for (i = 0; i < sizeof(noret) / sizeof(noret[0]); i++)
		if (!strcmp(noret[i], name))
			return 1;
	return 0;
}

unsigned long long ksym_addr(const char *kallsyms, const char *const *names)
{
	unsigned long long addr, best = 0;
	char line[512], type, name[256];
	size_t n, bestn = (size_t)-1;
	FILE *f = fopen(kallsyms, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && bestn) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		for (n = 0; names[n] && n < bestn; n++) {
			if (strcmp(name, names[n]))
				continue;
			best = addr;
			bestn = n;
			break;
		}
	}
	fclose(f);
	return best;
}

/* optimal string alignment distance of @a and @b, or @max + 1 once it is
 * sure to pass @max (names longer than KSYM_SUGGEST_MAX: @max + 1) */
#define KSYM_SUGGEST_MAX 127
static size_t osa_distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t d[3][KSYM_SUGGEST_MAX + 2];
	size_t *pp, *p, *c, v;

	if (la > KSYM_SUGGEST_MAX || lb > KSYM_SUGGEST_MAX ||
	    (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		/* row i in d[i % 3], i - 1 and i - 2 before it */
		c = d[i % 3];
		p = d[(i + 2) % 3];
		pp = d[(i + 1) % 3];
		c[0] = i;
		best = c[0];
		for (j = 1; j <= lb; j++) {
			v = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return d[la % 3][lb];
}

size_t ksym_suggest(char *const *names, size_t n, const char *want,
		    char *buf, size_t len)
{
	return ksym_suggest_pfx(names, n, want, "", buf, len);
}

size_t ksym_suggest_pfx(char *const *names, size_t n, const char *want,
			const char *pfx, char *buf, size_t len)
{
	size_t wl = strlen(want), max, k, i, j, d, pick[3], dist[3], got = 0;
	int used = 0;

	max = wl <= 4 ? 1 : wl / 4 < 2 ? 2 : wl / 4;
	for (i = 0; i < n; i++) {
		d = osa_distance(names[i], want, max);
		if (d > max || !d)
			continue;
		/* keep the 3 nearest, in order, the earlier of equals first */
		for (k = got < 3 ? got : 3; k > 0 && dist[k - 1] > d; k--)
			;
		if (k >= 3)
			continue;
		for (j = got < 3 ? got : 2; j > k; j--) {
			pick[j] = pick[j - 1];
			dist[j] = dist[j - 1];
		}
		pick[k] = i;
		dist[k] = d;
		if (got < 3)
			got++;
	}
	if (len)
		buf[0] = '\0';
	for (k = 0; k < got && len; k++) {
		used += snprintf(buf + used, len - (size_t)used, "%s%s%s",
				 !k ? "" : k + 1 < got ? ", " : " or ", pfx,
				 names[pick[k]]);
		if ((size_t)used >= len)
			break;
	}
	return got;
}
