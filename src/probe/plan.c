// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan.c - resolve a probe list into timers, BPF actions and attachments.
 * See include/iprof/plan.h.  The plan object, the API the shapes append
 * with (src/probe/plan_int.h) and plan_build(), which hands each line to
 * its kind's shape (plan_kfunc.c, plan_ufunc.c, plan_span.c).
 */
#include <errno.h>
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

char *plan_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/*
 * @m (malloc'ed, NULL passes) with its "; did you mean ...?" hint
 * (ksym_suggest(), from sym_func_targets() or plan_check_kfunc()) moved last,
 * after what the inline lookup added; freed into a new string (NULL: out
 * of memory).
 */
char *plan_hint_last(char *m)
{
	char *h = m ? strstr(m, KSYM_SUGGEST_PFX) : NULL, *q, *r;

	q = h ? strchr(h, '?') : NULL;
	if (!q || !q[1])
		return m;
	r = plan_asprintf("%.*s%s%.*s", (int)(h - m), m, q + 1,
		      (int)(q + 1 - h), h);
	free(m);
	return r;
}

char *plan_perr(const struct probe *pr, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg, *s;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return NULL;
	s = plan_asprintf("%s:%d:%d: %s", pr->file, pr->line, col, msg);
	free(msg);
	return s;
}

/* Append "if a == 1 && b & 0x4" for @pt to @buf. */
/* `str(F) OP "TEXT"` after @pfx into @buf (@len bytes), TEXT's '"', '\\'
 * and bytes outside printable ASCII escaped as written; its length */
static size_t plan_strcond_str(char *buf, size_t len,
			       const struct probe_cond *c, const char *pfx,
			       const char *f)
{
	size_t used = (size_t)snprintf(buf, len, "%sstr(%s) %s \"", pfx, f,
				       probe_op_str(c->op));
	int i;

	for (i = 0; i < c->str_len && used < len; i++) {
		unsigned char b = (unsigned char)c->str[i];

		used += (size_t)snprintf(buf + used, len - used,
					 b == '"' || b == '\\' ? "\\%c" :
					 b < 0x20 || b >= 0x7f ? "\\x%02x" :
								"%c",
					 b);
	}
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s\"",
					 c->op == IPROF_OP_STRPRE ? "*" : "");
	return used < len ? used : len - 1;
}

void plan_cond_str(char *buf, size_t len, const struct probe_point *pt)
{
	size_t used = strlen(buf);
	int i;

	for (i = 0; i < pt->ncond && used < len; i++) {
		const struct probe_cond *c = &pt->cond[i];
		char arg[16], type[8] = "";

		if (c->arg >= 0)
			snprintf(arg, sizeof(arg), "arg%d", c->arg);
		if (c->str) {
			used += plan_strcond_str(buf + used, len - used, c,
						 i ? " && " : " if ",
						 c->arg >= 0 ? arg : c->field);
			continue;
		}
		if (c->has_type)
			snprintf(type, sizeof(type), ":%c%d",
				 c->is_signed ? 's' : 'u', c->width * 8);
		/* as written: 0x hex, a negative or unsigned decimal */
		used += (size_t)snprintf(buf + used, len - used,
				 c->hex			? "%s%s%s %s %#llx" :
				 (int64_t)c->value < 0	? "%s%s%s %s %lld" :
							  "%s%s%s %s %llu",
				 i ? " && " : " if ",
				 c->arg >= 0 ? arg : c->field, type,
				 probe_op_str(c->op),
				 (unsigned long long)c->value);
	}
}

/*
 * What @pr attaches to; @path: the uprobe binary to show, @func: the
 * function timed (one a glob matched: the glob follows in parentheses).
 */
char *plan_describe(const struct plan_shape *sh, const struct probe *pr,
		    const char *path, const char *func)
{
	int glob;

	if (!func)
		func = pr->func ? pr->func : "";
	glob = pr->func && strcmp(func, pr->func);
	return sh->describe(pr, path, func, glob);
}

int plan_add_action(struct plan *p, uint32_t timer, uint8_t role,
		      uint8_t flags, uint32_t *idx)
{
	struct iprof_action *v, *a;

	if (util_grow(&p->actions, p->nactions, sizeof(*p->actions)) ||
	    util_grow(&p->prio, p->nactions, sizeof(*p->prio)))
		return -ENOMEM;
	p->prio[p->nactions] = 0;
	v = p->actions;
	a = &v[p->nactions];
	memset(a, 0, sizeof(*a));
	a->timer = timer;
	a->role = role;
	a->flags = flags;
	a->next = IPROF_NO_NEXT;
	*idx = p->nactions++;
	return 0;
}

/* a copy of action @idx, in no chain yet, into *@out; 0 or -ENOMEM */
int plan_clone_action(struct plan *p, uint32_t idx, uint32_t *out)
{
	struct iprof_action a = p->actions[idx];
	uint32_t prio = p->prio[idx];
	int err = plan_add_action(p, a.timer, a.role, a.flags, out);

	if (err)
		return err;
	a.next = IPROF_NO_NEXT;
	p->actions[*out] = a;
	p->prio[*out] = prio;
	return 0;
}

/*
 * A tracepoint takes a BPF program once, so a second use of the same
 * tracepoint joins the chain of actions of the first one's attachment:
 * stops first (a stop and a start on one event close one timer, then open
 * the next), innermost first (reverse file order), then starts in file
 * order.  Returns 1 if chained, 0 if @ev is new, or
 * -E2BIG past IPROF_MAX_CHAIN actions.
 */
static int same_point(const struct plan_att *t, enum plan_mech mech,
		      const char *cat, const char *ev, const char *path,
		      const char *func, uint64_t offset)
{
	struct stat st;

	if (t->mech != mech)
		return 0;
	if (mech == MECH_TRACEPOINT || mech == MECH_SYSCALL)
		return !strcmp(t->category, cat) && !strcmp(t->event, ev);
	if (mech == MECH_USDT) /* one probe of one file (all its sites) */
		return !strcmp(t->category, cat) && !strcmp(t->event, ev) &&
		       !strcmp(t->path, path);
	if (t->offset != offset)
		return 0;
	if (mech == MECH_KSITE) /* one kprobe at one function + offset */
		return !strcmp(t->func, func);
	/* one file under several paths (hard links, bind mounts): one
	 * uprobe, as the kernel keys uprobes by inode */
	if (t->ino && !stat(path, &st))
		return t->dev == (uint64_t)st.st_dev &&
		       t->ino == (uint64_t)st.st_ino;
	return !strcmp(t->path, path);
}

static int chain_tp(struct plan *p, uint32_t action, enum plan_mech mech,
		    const char *cat, const char *ev, const char *path,
		    const char *func, uint64_t offset)
{
	struct iprof_action *a = &p->actions[action];
	uint32_t i, *link, n = 0;

	for (i = 0; i < p->natt; i++) {
		if (!same_point(&p->att[i], mech, cat, ev, path, func, offset))
			continue;
		link = &p->att[i].action;
		for (i = *link; i != IPROF_NO_NEXT; i = p->actions[i].next)
			n++;
		/* a start goes last; a stop goes first, before the stops of
		 * timers defined earlier: those started earlier on the same
		 * event, so they are further down the stack.  Inlined
		 * instances (prio) nest by their DWARF: a deeper one's stop
		 * before, its start after, an outer one's */
		if (a->role == IPROF_ROLE_START)
			while (*link != IPROF_NO_NEXT &&
			       (p->actions[*link].role != IPROF_ROLE_START ||
				p->prio[*link] <= p->prio[action]))
				link = &p->actions[*link].next;
		else
			while (*link != IPROF_NO_NEXT &&
			       p->actions[*link].role != IPROF_ROLE_START &&
			       p->prio[*link] > p->prio[action])
				link = &p->actions[*link].next;
		if (n + 1 > IPROF_MAX_CHAIN)
			return -E2BIG;
		a->next = *link;
		*link = action;
		return 1;
	}
	return 0;
}

/*
 * A span's start or stop tracepoint: a syscall tracepoint whose number is
 * known rides on the raw syscall tracepoints (MECH_SYSCALL: no attachment
 * of its own, one sc_chain slot), unless env->syscall_tracepoints; any
 * other on its own (MECH_TRACEPOINT).  The conditions read the same fields
 * at the same offsets either way: BPF rebuilds the syscall tracepoint's
 * record (kernel/trace/trace_syscalls.c).  Returns 0 or -errno.
 */
int plan_add_tp_att(struct plan *p, const struct plan_env *env,
		      uint32_t timer, uint32_t action,
		      const struct probe_point *tp)
{
	uint32_t natt = p->natt;
	int is_exit = 0, nr = -1, err;

	if (!env->syscall_tracepoints)
		nr = syscall_tp_nr(tp->category, tp->event, &is_exit);
	if (nr < 0)
		return plan_add_att(p, MECH_TRACEPOINT, timer, action, tp->category,
			       tp->event, NULL, NULL, 0);
	err = plan_add_att(p, MECH_SYSCALL, timer, action, tp->category, tp->event,
		      NULL, NULL, 0);
	/* a new attachment (not chained to one of the same event) */
	if (!err && p->natt > natt)
		p->att[p->natt - 1].sc_slot =
			(uint32_t)nr + (is_exit ? IPROF_NR_SYSCALLS : 0);
	return err;
}

int plan_add_att(struct plan *p, enum plan_mech mech, uint32_t timer,
		   uint32_t action, const char *cat, const char *ev,
		   const char *path, const char *func, uint64_t offset)
{
	struct plan_att *v, *t;
	struct stat st;
	int ret;

	/* one attachment per tracepoint, and per user function entry or
	 * return: timers on the same point chain their actions.  (A
	 * tracepoint takes a program once; two uretprobes on one function
	 * would fire in attach order, not innermost first.) */
	if (mech == MECH_TRACEPOINT || mech == MECH_SYSCALL ||
	    mech == MECH_UPROBE || mech == MECH_URETPROBE ||
	    mech == MECH_RETSITE || mech == MECH_KSITE || mech == MECH_USDT ||
	    mech == MECH_UMARK) {
		ret = chain_tp(p, action, mech, cat, ev, path, func, offset);
		if (ret)
			return ret < 0 ? ret : 0;
	}

	if (util_grow(&p->att, p->natt, sizeof(*p->att)))
		return -ENOMEM;
	v = p->att;
	t = &v[p->natt];
	memset(t, 0, sizeof(*t));
	t->mech = mech;
	t->timer = timer;
	t->action = action;
	t->offset = offset;
	if (path &&
	    (mech == MECH_UPROBE || mech == MECH_URETPROBE ||
	     mech == MECH_UMARK) &&
	    !sym_cache_stat(p->pn->syms, path, &st)) {
		t->dev = (uint64_t)st.st_dev;
		t->ino = (uint64_t)st.st_ino;
	}
	if ((cat && !(t->category = strdup(cat))) ||
	    (ev && !(t->event = strdup(ev))) ||
	    (path && !(t->path = strdup(path))) ||
	    (func && !(t->func = strdup(func)))) {
		free(t->category);
		free(t->event);
		free(t->path);
		free(t->func);
		return -ENOMEM;
	}
	p->natt++;
	return 0;
}

void plan_drop_att(struct plan *p, uint32_t i)
{
	struct plan_att *a = &p->att[i];

	if (i >= p->natt)
		return;
	free(a->category);
	free(a->event);
	free(a->path);
	free(a->func);
	memmove(a, a + 1, (p->natt - i - 1) * sizeof(*a));
	p->natt--;
}

/*
 * Is FUNC @s a glob: a '*' or '?' outside a C++ parameter list (where
 * '*' is a pointer: ns::p(int*))?  '[' is no wildcard of a probe line
 * (ns::name[abi:cxx11] is a name).
 */
int plan_has_glob(const char *s)
{
	int depth = 0;

	for (; s && *s; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth)
			depth--;
		else if ((*s == '*' || *s == '?') && !depth)
			return 1;
	}
	return 0;
}

/*
 * Glob FUNC @s as an fnmatch(3) pattern: its wildcards (plan_has_glob()) as
 * they are, everything else fnmatch would read ('[', ']', '\\', and '*'
 * or '?' in a parameter list) escaped.  malloc'ed; NULL: ENOMEM.
 */
static char *glob_pattern(const char *s)
{
	char *pat = malloc(2 * strlen(s) + 1), *q = pat;
	int depth = 0;

	if (!pat)
		return NULL;
	for (; *s; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth)
			depth--;
		if (*s == '[' || *s == ']' || *s == '\\' ||
		    ((*s == '*' || *s == '?') && depth))
			*q++ = '\\';
		*q++ = *s;
	}
	*q = '\0';
	return pat;
}

/* Append a timer for @pr named @name timing @func; returns its id or -1. */
int plan_add_timer(struct plan *p, const struct plan_shape *sh,
		   const struct probe *pr, const char *name, const char *func)
{
	struct plan_timer *v, *t;

	if (util_grow(&p->timers, p->ntimers, sizeof(*p->timers)))
		return -1;
	v = p->timers;
	t = &v[p->ntimers];
	memset(t, 0, sizeof(*t));
	t->probe = pr;
	t->kind = pr->kind;
	t->name = strdup(name);
	t->func = func ? strdup(func) : NULL;
	t->where = plan_describe(sh, pr, pr->path, func);
	t->key = sh->key ? sh->key(pr) : NULL;
	if (!t->name || (func && !t->func) || !t->where ||
	    (sh->key && pr->nkey && !t->key)) {
		free(t->name);
		free(t->func);
		free(t->where);
		free(t->key);
		return -1;
	}
	return (int)p->ntimers++;
}

/*
 * Is @name used by a line that is not a glob, or by a timer already
 * planned?  @ht holds both (plan_build() fills it), so a glob's thousands
 * of matches against a long list stay linear.
 */
static int name_taken(struct hsearch_data *ht, const char *name)
{
	ENTRY e = { .key = (char *)name }, *found = NULL;

	return hsearch_r(e, FIND, &found, ht) && found;
}

/* Record @name (owned by the plan or the list) in @ht; 0 or -ENOMEM. */
int plan_name_add(struct hsearch_data *ht, char *name)
{
	ENTRY e = { .key = name }, *found = NULL;

	return hsearch_r(e, ENTER, &found, ht) ? 0 : -ENOMEM;
}

struct glob_ctx {
	struct plan *p;
	const struct plan_shape *sh; /* the line's */
	const struct probe_list *pl;
	const struct probe *pr;
	const struct plan_env *env;
	const struct ksyms *ks;
	struct hsearch_data *ht;
	int matched, err;
	const struct ksyms *names; /* the functions the glob is matched in */
	const char *pat; /* the glob as an fnmatch(3) pattern (glob_pattern()) */
	uint32_t total; /* its matches (env->progress) */
};

static int add_glob_match(const char *name, void *arg)
{
	struct glob_ctx *g = arg;
	int id;

	/* NAME.cold is the out-of-line cold part of NAME, not a function
	 * anyone calls: never a glob's match; the deny list is the kernel's */
	char base[512];
	size_t n;

	/* a user function's clone (f.isra.0) is timed with its function:
	 * by f's timer when the glob matches f too, else under f's name when
	 * f has no symbol of its own (sym_func_targets() finds its clones) */
	n = ksym_base_len(name);
	if (g->sh->user && name[n] && n < sizeof(base)) {
		memcpy(base, name, n);
		base[n] = '\0';
		if (sym_clone_of(name, base) == 1) {
			if (ksyms_exists(g->names, base) != 1)
				name = base;
			else if (!fnmatch(g->pat, base, 0))
				return 0;
		}
	}
	if ((!g->sh->user && ksym_denied(name)) ||
	    strstr(name, ".cold") || name_taken(g->ht, name))
		return 0;
	g->matched++;
	id = plan_add_timer(g->p, g->sh, g->pr, name, name);
	if (id < 0 || plan_name_add(g->ht, g->p->timers[id].name)) {
		g->err = -ENOMEM;
		return 1;
	}
	g->err = g->sh->plan(g->p, g->pr, (uint32_t)id, g->env, g->ks);
	if (!g->err && g->env->progress)
		g->env->progress(g->env->progress_ctx, g->pr,
				 (uint32_t)g->matched, g->total);
	return g->err ? 1 : 0;
}

static int count_match(const char *name, void *arg)
{
	(void)name;
	(*(uint32_t *)arg)++;
	return 0;
}

/* Keep line @pr as one timer that cannot be traced, for reason @msg
 * (owned; NULL: out of memory).  Returns 0 or -ENOMEM. */
int plan_add_failed(struct plan *p, const struct plan_shape *sh,
		    const struct probe *pr, char *msg)
{
	int id = msg ? plan_add_timer(p, sh, pr, pr->name, pr->func) : -1;

	if (id < 0) {
		free(msg);
		return -ENOMEM;
	}
	p->timers[id].error = msg;
	return 0;
}

/*
 * Expand glob line @pr over @names: a timer per matching function (see
 * add_glob_match()), kernel functions checked against @ks.  When it
 * matches more than PLAN_MAX_GLOB functions ("matches N @what, more than
 * ...") or none ("matches no @none"), the line stays one timer with that
 * error at column @col.  Returns 0 or -ENOMEM.
 */
int plan_glob(struct plan *p, const struct plan_shape *sh,
	      const struct probe_list *pl, const struct probe *pr,
	      const struct plan_env *env, const struct ksyms *ks,
	      const struct ksyms *names, struct hsearch_data *ht,
	      size_t *scanned, int col, const char *what, const char *none)
{
	struct glob_ctx g = { p, sh, pl, pr, env, ks, ht, 0, 0, names, NULL, 0 };
	uint32_t n = 0;
	char *pat = glob_pattern(pr->func);

	if (!pat)
		return -ENOMEM;
	*scanned += ksyms_candidates(names, pat);
	if (*scanned > PLAN_MAX_GLOB_SCAN) {
		free(pat);
		return plan_add_failed(p, sh, pr,
				  plan_perr(pr, col, "'%s': the globs compare more than %d names in all: begin it with a literal prefix or name the functions", pr->func,
					    PLAN_MAX_GLOB_SCAN));
	}
	ksyms_match(names, pat, count_match, &n);
	if (n > PLAN_MAX_GLOB) {
		free(pat);
		return plan_add_failed(p, sh, pr,
				  plan_perr(pr, col, "'%s' matches %u %s, more than %d: narrow it", pr->func,
					    n, what, PLAN_MAX_GLOB));
	}
	if (p->ntimers + n > PLAN_MAX_TIMERS) {
		free(pat);
		return plan_add_failed(p, sh, pr,
				  plan_perr(pr, col, "'%s' matches %u %s: more than %d timers in all", pr->func,
					    n, what, PLAN_MAX_TIMERS));
	}
	g.pat = pat;
	g.total = n;
	ksyms_match(names, pat, add_glob_match, &g);
	free(pat);
	if (g.err || g.matched)
		return g.err;
	if (n)
		return plan_add_failed(p, sh, pr,
				  plan_perr(pr, col, "'%s': its matches (%u) are all timed by other lines or left out (NAME.cold%s)", pr->func,
					    n,
					    sh->user ? "" :
								       ", the deny list"));
	return plan_add_failed(p, sh, pr,
			  plan_perr(pr, col, "'%s' matches no %s", pr->func, none));
}

/* a planner with nothing read yet, or NULL (no memory) */
struct planner *planner_new(void)
{
	struct planner *pn = calloc(1, sizeof(*pn));

	if (!pn)
		return NULL;
	pn->syms = sym_cache_new();
	pn->rsx = pn->syms ? retsite_ctx_new(pn->syms) : NULL;
	if (!pn->rsx) {
		sym_cache_free(pn->syms);
		free(pn);
		return NULL;
	}
	return pn;
}

/* free @pn (NULL is fine) and all it read */
void planner_free(struct planner *pn)
{
	unsigned int i;

	if (!pn)
		return;
	for (i = 0; i < PLAN_OLD_COPIES; i++)
		free(pn->old[i].path);
	free(pn->auto_path);
	free(pn->auto_risk);
	kmod_debug_free(pn->kdbg, pn->nkdbg);
	retsite_ctx_free(pn->rsx);
	sym_cache_free(pn->syms);
	free(pn);
}

void plan_free(struct plan *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->ntimers; i++) {
		free(p->timers[i].name);
		free(p->timers[i].func);
		free(p->timers[i].where);
		free(p->timers[i].note);
		free(p->timers[i].error);
		free(p->timers[i].ret_why);
		free(p->timers[i].ret_risk);
		free(p->timers[i].split_why);
		free(p->timers[i].key);
		free(p->timers[i].inl_where);
		free(p->timers[i].params);
	}
	for (i = 0; i < p->natt; i++) {
		free(p->att[i].category);
		free(p->att[i].event);
		free(p->att[i].path);
		free(p->att[i].func);
	}
	free(p->timers);
	free(p->actions);
	free(p->prio);
	free(p->att);
	memset(p, 0, sizeof(*p));
}

