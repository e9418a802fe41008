// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan.c - resolve a probe list into timers, BPF actions and attachments.
 * See include/iprof/plan.h.
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

/* what a probe line's timer times: its kind's row (iprof/probe.h) */
static int is_kfunc(const struct probe *pr)
{
	return probe_kind_at(pr->kind) == PROBE_AT_KFUNC;
}

static int is_ufunc(const struct probe *pr)
{
	return probe_kind_at(pr->kind) == PROBE_AT_UFUNC;
}

static int is_span(const struct probe *pr)
{
	return probe_kind_at(pr->kind) == PROBE_AT_SPAN;
}

/*
 * C types of tracepoint fields whose width is known: syscall tracepoints
 * put every argument in an 8-byte slot ("field:int fd; size:8; signed:0"),
 * and only the type says that 4 signed bytes of it are the value.  width 0
 * is sizeof(long); is_signed -1 (plain char) takes the format's flag (the
 * kernel builds with -funsigned-char since 6.2).
 */
static const struct ctype {
	const char *name;
	unsigned char width;
	signed char is_signed;
} ctypes[] = {
	{"char", 1, -1},
	{"signed char", 1, 1},
	{"unsigned char", 1, 0},
	{"bool", 1, 0},
	{"_Bool", 1, 0},
	{"s8", 1, 1},
	{"__s8", 1, 1},
	{"int8_t", 1, 1},
	{"u8", 1, 0},
	{"__u8", 1, 0},
	{"uint8_t", 1, 0},
	{"short", 2, 1},
	{"short int", 2, 1},
	{"signed short", 2, 1},
	{"signed short int", 2, 1},
	{"unsigned short", 2, 0},
	{"unsigned short int", 2, 0},
	{"short unsigned int", 2, 0},
	{"s16", 2, 1},
	{"__s16", 2, 1},
	{"int16_t", 2, 1},
	{"u16", 2, 0},
	{"__u16", 2, 0},
	{"uint16_t", 2, 0},
	{"__le16", 2, 0},
	{"__be16", 2, 0},
	{"umode_t", 2, 0},
	{"int", 4, 1},
	{"signed", 4, 1},
	{"signed int", 4, 1},
	{"unsigned", 4, 0},
	{"unsigned int", 4, 0},
	{"uint", 4, 0},
	{"s32", 4, 1},
	{"__s32", 4, 1},
	{"int32_t", 4, 1},
	{"u32", 4, 0},
	{"__u32", 4, 0},
	{"uint32_t", 4, 0},
	{"__le32", 4, 0},
	{"__be32", 4, 0},
	{"pid_t", 4, 1},
	{"clockid_t", 4, 1},
	{"timer_t", 4, 1},
	{"mqd_t", 4, 1},
	{"key_t", 4, 1},
	{"uid_t", 4, 0},
	{"gid_t", 4, 0},
	{"dev_t", 4, 0},
	{"gfp_t", 4, 0},
	{"fmode_t", 4, 0},
	{"long", 0, 1},
	{"long int", 0, 1},
	{"signed long", 0, 1},
	{"signed long int", 0, 1},
	{"ssize_t", 0, 1},
	{"off_t", 0, 1},
	{"unsigned long", 0, 0},
	{"unsigned long int", 0, 0},
	{"long unsigned int", 0, 0},
	{"size_t", 0, 0},
	{"long long", 8, 1},
	{"long long int", 8, 1},
	{"signed long long", 8, 1},
	{"s64", 8, 1},
	{"__s64", 8, 1},
	{"int64_t", 8, 1},
	{"loff_t", 8, 1},
	{"time64_t", 8, 1},
	{"ktime_t", 8, 1},
	{"unsigned long long", 8, 0},
	{"unsigned long long int", 8, 0},
	{"long long unsigned int", 8, 0},
	{"u64", 8, 0},
	{"__u64", 8, 0},
	{"uint64_t", 8, 0},
	{"__le64", 8, 0},
	{"__be64", 8, 0},
	{"sector_t", 8, 0},
};

/*
 * Normalize C type @t (@n bytes) into @out: qualifiers (const, volatile)
 * dropped, one blank between words.  Returns 1 if it is a pointer.
 */
static int norm_type(const char *t, size_t n, char *out, size_t len)
{
	const char *e = t + n, *w;
	size_t used = 0, wl;
	int ptr = 0;

	out[0] = '\0';
	while (t < e) {
		while (t < e && (*t == ' ' || *t == '\t' || *t == '*')) {
			ptr |= *t == '*';
			t++;
		}
		w = t;
		while (t < e && *t != ' ' && *t != '\t' && *t != '*')
			t++;
		wl = (size_t)(t - w);
		if (!wl || (wl == 5 && !strncmp(w, "const", 5)) ||
		    (wl == 8 && !strncmp(w, "volatile", 8)))
			continue;
		if (used + wl + 2 > len)
			break;
		used += (size_t)snprintf(out + used, len - used, "%s%.*s",
					 used ? " " : "", (int)wl, w);
	}
	return ptr;
}

/*
 * One line of an event's format file looks like
 *   "\tfield:unsigned int cmd;\toffset:24;\tsize:8;\tsigned:0;"
 * (Documentation/trace/events.rst).  The field name is the last word of the
 * declaration, with any [N] array suffix; what precedes it is the type
 * ("__data_loc char[]" for dynamic arrays).  Fills @name, and in @fi the
 * slot, type text and array/string flags, and the width and signedness.
 */
static int parse_format_line(const char *line, char *name, size_t name_len,
			     struct plan_tp_field_info *fi)
{
	const char *decl, *semi, *end, *w, *dims = NULL, *base;
	char norm[64];
	unsigned int off, size;
	int sg, dyn, ptr;
	size_t n, tl, i;

	decl = strstr(line, "field:");
	if (!decl)
		return -1;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	end = semi;
	if (end > decl && end[-1] == ']') {
		while (end > decl && *end != '[')
			end--;
		dims = end;
	}
	w = end;
	while (w > decl && w[-1] != ' ' && w[-1] != '*')
		w--;
	n = (size_t)(end - w);
	if (!n || n >= name_len)
		return -1;
	memcpy(name, w, n);
	name[n] = '\0';
	if (sscanf(semi, "; offset:%u; size:%u; signed:%d;", &off, &size,
		   &sg) != 3 &&
	    sscanf(semi, ";\toffset:%u;\tsize:%u;\tsigned:%d;", &off, &size,
		   &sg) != 3)
		return -1;

	memset(fi, 0, sizeof(*fi));
	fi->slot_off = off > 0xffff ? 0xffff : (uint16_t)off;
	fi->slot = size > 0xffff ? 0xffff : (uint16_t)size;
	tl = (size_t)(w - decl);
	while (tl && (decl[tl - 1] == ' ' || decl[tl - 1] == '\t'))
		tl--;
	snprintf(fi->type, sizeof(fi->type), "%.*s%.*s", (int)tl, decl,
		 dims ? (int)(semi - dims) : 0, dims ? dims : "");

	/* "__data_loc char[]": a dynamic array, stored as a 4-byte locator */
	base = decl;
	dyn = !strncmp(base, "__data_loc ", 11) ||
	      !strncmp(base, "__rel_loc ", 10);
	if (dyn)
		base = strchr(base, ' ') + 1;
	tl = (size_t)(w - base);
	if (memchr(base, '[', tl)) {
		dyn = 1;
		tl = (size_t)((const char *)memchr(base, '[', tl) - base);
	}
	ptr = norm_type(base, tl, norm, sizeof(norm));
	if (dyn || dims) {
		fi->is_string = !ptr && (!strcmp(norm, "char") ||
					 !strcmp(norm, "signed char"));
		fi->is_array = !fi->is_string;
		return 0;
	}

	fi->off = fi->slot_off;
	fi->size = (uint8_t)(fi->slot > 8 ? 8 : fi->slot);
	fi->is_signed = (uint8_t)!!sg;
	if (ptr) {
		fi->size = sizeof(void *);
		fi->is_signed = 0;
	} else {
		for (i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++) {
			if (strcmp(norm, ctypes[i].name))
				continue;
			fi->size = ctypes[i].width ? ctypes[i].width :
						     (uint8_t)sizeof(long);
			if (ctypes[i].is_signed >= 0)
				fi->is_signed = (uint8_t)ctypes[i].is_signed;
			break;
		}
	}
	if (fi->size > fi->slot)
		fi->size = (uint8_t)fi->slot;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	/* the value's low bytes are at the end of a wider slot */
	fi->off = (uint16_t)(fi->off + fi->slot - fi->size);
#endif
	return 0;
}

int plan_tp_fields(const char *tracefs, const char *cat, const char *event,
		   int (*fn)(const char *name,
			     const struct plan_tp_field_info *fi, void *ctx),
		   void *ctx)
{
	char path[PATH_MAX], line[512], name[128];
	struct plan_tp_field_info f;
	int ret = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, cat,
		 event);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;
	while (!ret && fgets(line, sizeof(line), fp)) {
		if (parse_format_line(line, name, sizeof(name), &f) ||
		    !strncmp(name, "common_", 7))
			continue;
		ret = fn(name, &f, ctx);
	}
	fclose(fp);
	return ret;
}

struct field_find {
	const char *field;
	struct plan_tp_field_info *fi;
	char *fields; /* the names seen, comma-separated; may be NULL */
	size_t len, used;
};

static int find_field(const char *name, const struct plan_tp_field_info *f,
		      void *ctx)
{
	struct field_find *ff = ctx;

	if (!ff->field || strcmp(name, ff->field)) {
		if (ff->fields && ff->used + strlen(name) + 3 < ff->len)
			ff->used += (size_t)snprintf(ff->fields + ff->used,
						     ff->len - ff->used, "%s%s",
						     ff->used ? ", " : "", name);
		return 0;
	}
	*ff->fi = *f;
	if (f->is_string || f->is_array ||
	    (f->slot != 1 && f->slot != 2 && f->slot != 4 && f->slot != 8) ||
	    f->slot_off > 0xfff || f->off > 0xfff)
		return -EINVAL;
	return 1;
}

int plan_tp_field(const char *tracefs, const char *cat, const char *event,
		  const char *field, struct plan_tp_field_info *fi,
		  char *fields, size_t fields_len)
{
	struct field_find ff = { field, fi, fields, fields_len, 0 };
	int ret;

	if (fields && fields_len)
		fields[0] = '\0';
	ret = plan_tp_fields(tracefs, cat, event, find_field, &ff);
	return ret == 1 ? 0 : !ret ? -ESRCH : ret;
}

/* vasprintf() that returns the string, or NULL when out of memory. */
static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
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
 * (ksym_suggest(), from sym_func_targets() or check_kfunc()) moved last,
 * after what the inline lookup added; freed into a new string (NULL: out
 * of memory).
 */
static char *hint_last(char *m)
{
	char *h = m ? strstr(m, KSYM_SUGGEST_PFX) : NULL, *q, *r;

	q = h ? strchr(h, '?') : NULL;
	if (!q || !q[1])
		return m;
	r = xasprintf("%.*s%s%.*s", (int)(h - m), m, q + 1,
		      (int)(q + 1 - h), h);
	free(m);
	return r;
}

/*
 * An error in probe @pr at column @col of its line: "FILE:LINE:COL: "
 * and the message (printf @fmt), malloc'ed; NULL when out of memory.
 */
static char *perr(const struct probe *pr, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static char *perr(const struct probe *pr, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg, *s;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return NULL;
	s = xasprintf("%s:%d:%d: %s", pr->file, pr->line, col, msg);
	free(msg);
	return s;
}

/* Append "if a == 1 && b & 0x4" for @pt to @buf. */
static void cond_str(char *buf, size_t len, const struct probe_point *pt)
{
	size_t used = strlen(buf);
	int i;

	for (i = 0; i < pt->ncond && used < len; i++) {
		const struct probe_cond *c = &pt->cond[i];
		char arg[16], type[8] = "";

		if (c->arg >= 0)
			snprintf(arg, sizeof(arg), "arg%d", c->arg);
		if (c->has_type)
			snprintf(type, sizeof(type), ":%c%d",
				 c->is_signed ? 's' : 'u', c->width * 8);
		/* a negative value as written, others in hex */
		used += (size_t)snprintf(buf + used, len - used,
				 (int64_t)c->value < 0 ? "%s%s%s %s %lld" :
							 "%s%s%s %s %#llx",
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
static char *describe(const struct probe *pr, const char *path,
		      const char *func)
{
	char a[512] = "", b[512] = "";
	int glob;

	if (!func)
		func = pr->func ? pr->func : "";
	glob = pr->func && strcmp(func, pr->func);

	switch (probe_kind_at(pr->kind)) {
	case PROBE_AT_SPAN:
		snprintf(a, sizeof(a), "tracepoint:%s:%s", pr->start.category,
			 pr->start.event);
		cond_str(a, sizeof(a), &pr->start);
		snprintf(b, sizeof(b), "tracepoint:%s:%s", pr->stop.category,
			 pr->stop.event);
		cond_str(b, sizeof(b), &pr->stop);
		return xasprintf("%s -> %s", a, b);
	case PROBE_AT_UFUNC:
		snprintf(a, sizeof(a), "%s:%s:%s", probe_kind_str(pr->kind),
			 path, func);
		if (glob)
			snprintf(b, sizeof(b), " (%s:%s:%s)",
				 probe_kind_str(pr->kind), path, pr->func);
		break;
	default:
		snprintf(a, sizeof(a), "%s:%s", probe_kind_str(pr->kind),
			 func);
		if (glob)
			snprintf(b, sizeof(b), " (%s:%s)",
				 probe_kind_str(pr->kind), pr->func);
		break;
	}
	cond_str(a, sizeof(a), &pr->start);
	return xasprintf("%s%s", a, b);
}

static int add_action(struct plan *p, uint32_t timer, uint8_t role,
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
static int clone_action(struct plan *p, uint32_t idx, uint32_t *out)
{
	struct iprof_action a = p->actions[idx];
	uint32_t prio = p->prio[idx];
	int err = add_action(p, a.timer, a.role, a.flags, out);

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

static int add_att(struct plan *p, enum plan_mech mech, uint32_t timer,
		   uint32_t action, const char *cat, const char *ev,
		   const char *path, const char *func, uint64_t offset);

/*
 * A span's start or stop tracepoint: a syscall tracepoint whose number is
 * known rides on the raw syscall tracepoints (MECH_SYSCALL: no attachment
 * of its own, one sc_chain slot), unless env->syscall_tracepoints; any
 * other on its own (MECH_TRACEPOINT).  The conditions read the same fields
 * at the same offsets either way: BPF rebuilds the syscall tracepoint's
 * record (kernel/trace/trace_syscalls.c).  Returns 0 or -errno.
 */
static int add_tp_att(struct plan *p, const struct plan_env *env,
		      uint32_t timer, uint32_t action,
		      const struct probe_point *tp)
{
	uint32_t natt = p->natt;
	int is_exit = 0, nr = -1, err;

	if (!env->syscall_tracepoints)
		nr = syscall_tp_nr(tp->category, tp->event, &is_exit);
	if (nr < 0)
		return add_att(p, MECH_TRACEPOINT, timer, action, tp->category,
			       tp->event, NULL, NULL, 0);
	err = add_att(p, MECH_SYSCALL, timer, action, tp->category, tp->event,
		      NULL, NULL, 0);
	/* a new attachment (not chained to one of the same event) */
	if (!err && p->natt > natt)
		p->att[p->natt - 1].sc_slot =
			(uint32_t)nr + (is_exit ? IPROF_NR_SYSCALLS : 0);
	return err;
}

static int add_att(struct plan *p, enum plan_mech mech, uint32_t timer,
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
	    mech == MECH_RETSITE || mech == MECH_KSITE) {
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
	if (path && (mech == MECH_UPROBE || mech == MECH_URETPROBE) &&
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

/*
 * fit_value() - convert VALUE @v for a comparison with a @width-byte
 * integer of signedness @is_signed, as C converts a constant: -1 against
 * an unsigned 4-byte field is 0xffffffff, 0xffffffff against a signed one
 * is -1 (sign-extended, as BPF extends the field).  Returns 0, or -ERANGE
 * if @v fits neither the signed nor the unsigned range of @width bytes.
 */
static int fit_value(iprof_u64 *v, unsigned int width, int is_signed)
{
	iprof_u64 umax, smax;
	int64_t sv = (int64_t)*v;

	if (width >= 8)
		return 0;
	umax = (1ull << (8 * width)) - 1;
	smax = umax >> 1;
	if (is_signed) {
		if (sv >= -(int64_t)smax - 1 && sv <= (int64_t)smax)
			return 0;
		if (*v > umax)
			return -ERANGE;
		*v |= ~umax; /* smax < v <= umax: the negative it stands for */
		return 0;
	}
	if (*v <= umax)
		return 0;
	if (sv < 0 && sv >= -(int64_t)smax - 1) {
		*v &= umax;
		return 0;
	}
	return -ERANGE;
}

/* "VALUE does not fit WHAT": the value of @c is out of @width's range. */
static char *range_error(const struct probe *pr, const struct probe_cond *c,
			 const char *what, const char *type, unsigned int width)
{
	unsigned long long umax = (1ull << (8 * width)) - 1;
	char val[32];

	if ((int64_t)c->value < 0)
		snprintf(val, sizeof(val), "%lld", (long long)c->value);
	else
		snprintf(val, sizeof(val), "%llu",
			 (unsigned long long)c->value);
	return perr(pr, c->col, "value %s does not fit %s (%s, %u byte%s: %lld to %llu)", val, what, type, width,
			 width == 1 ? "" : "s", -(long long)(umax >> 1) - 1,
			 umax);
}

/*
 * Resolve the conditions of one side into @a.  Returns NULL on success, or
 * an error message (malloc'ed; NULL-on-ENOMEM is reported as "out of memory"
 * by the caller's check of errno).
 */
/* condition @c of point @pt on a tracepoint field, from its format file,
 * into @k; NULL or the error (as perr()) */
static char *resolve_tp_cond(const char *tracefs, const struct probe *pr,
			     const struct probe_point *pt,
			     const struct probe_cond *c, struct iprof_cond *k)
{
	struct plan_tp_field_info fi;
	char fields[512], what[160], type[80];
	int err;

	k->src = IPROF_SRC_TP;
	err = plan_tp_field(tracefs, pt->category, pt->event, c->field,
			    &fi, fields, sizeof(fields));
	if (err == -ESRCH)
		return perr(pr, c->col, "tracepoint %s:%s has no field '%s' (its fields: %s)",
				 pt->category, pt->event, c->field,
				 fields);
	if (err == -EINVAL && fi.is_string)
		return perr(pr, c->col, "field '%s' of %s:%s is a string (%s): iprof compares numbers only", c->field,
				 pt->category, pt->event, fi.type);
	if (err == -EINVAL && fi.is_array)
		return perr(pr, c->col, "field '%s' of %s:%s is an array (%s): iprof compares numbers only", c->field,
				 pt->category, pt->event, fi.type);
	if (err == -EINVAL)
		return perr(pr, c->col, "field '%s' of %s:%s (%s) is %u bytes: only fields of 1, 2, 4 or 8 bytes can be compared", c->field,
				 pt->category, pt->event, fi.type,
				 (unsigned int)fi.slot);
	if (err)
		return perr(pr, pt->col, "tracepoint %s:%s not found (%s/events/%s/%s/format: %s)",
				 pt->category, pt->event, tracefs,
				 pt->category, pt->event,
				 strerror(-err));
	k->off = fi.off;
	k->size = fi.size;
	k->is_signed = fi.is_signed;
	snprintf(type, sizeof(type), "%s", fi.type);
	if (c->has_type) {
		/* FIELD:TYPE: that many bytes of the slot */
		if ((unsigned int)c->width > fi.slot)
			return perr(pr, c->col, "field '%s' of %s:%s is %u bytes (%s): ':%c%d' reads %d",
					 c->field, pt->category,
					 pt->event,
					 (unsigned int)fi.slot,
					 fi.type,
					 c->is_signed ? 's' : 'u',
					 c->width * 8, c->width);
		k->off = fi.slot_off;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		k->off = (uint16_t)(k->off + fi.slot - c->width);
#endif
		k->size = (uint8_t)c->width;
		k->is_signed = (uint8_t)c->is_signed;
		snprintf(type, sizeof(type), "%c%d",
			 c->is_signed ? 's' : 'u', c->width * 8);
	}
	if (fit_value(&k->val, k->size, k->is_signed)) {
		snprintf(what, sizeof(what), "field '%s' of %s:%s",
			 c->field, pt->category, pt->event);
		return range_error(pr, c, what, type, k->size);
	}
	return NULL;
}

static char *resolve_conds(const struct plan_env *env, const char *func,
			   const struct probe *pr, const struct probe_point *pt,
			   int tracepoint, struct iprof_action *a)
{
	const char *tracefs = env->tracefs;
	char fields[512], what[160], type[80], *err_s;
	int i, err, idx, width, sgn;

	a->ncond = (uint8_t)pt->ncond;
	for (i = 0; i < pt->ncond; i++) {
		const struct probe_cond *c = &pt->cond[i];
		struct iprof_cond *k = &a->cond[i];

		k->op = (uint8_t)c->op;
		k->val = c->value;
		if (c->arg >= 0) {
			if (tracepoint)
				return perr(pr, c->col, "argN is for function probes; a tracepoint condition names a field of %s:%s",
						 pt->category, pt->event);
			if (c->arg > 5)
				return perr(pr, c->col, "arg%d: only arg0..arg5 (passed in registers) can be tested",
						 c->arg);
			k->src = IPROF_SRC_ARG;
			k->off = (uint16_t)c->arg;
			/* without a type, arguments compare as signed 64-bit:
			 * a negative VALUE means what it says */
			k->size = 8;
			k->is_signed = 1;
			if (!c->has_type)
				continue;
			/* argN:TYPE: BPF truncates the register to size
			 * bytes, then sign- or zero-extends it */
			k->size = (uint8_t)c->width;
			k->is_signed = (uint8_t)c->is_signed;
			if (fit_value(&k->val, k->size, k->is_signed)) {
				snprintf(what, sizeof(what), "arg%d", c->arg);
				snprintf(type, sizeof(type), "%c%d",
					 c->is_signed ? 's' : 'u',
					 c->width * 8);
				return range_error(pr, c, what, type, k->size);
			}
			continue;
		}
		if (!tracepoint && (is_ufunc(pr) || !env->arg))
			return perr(pr, c->col, "'%s': conditions on %s name arguments as argN (arg0 is the first)", c->field,
					 is_ufunc(pr) ?
						 "user functions" :
						 "kernel functions without BTF");
		if (!tracepoint) {
			/* a kernel function's argument by name, from BTF */
			err = env->arg(env->arg_ctx, func, c->field, &idx,
				       &width, &sgn, fields, sizeof(fields));
			if (err == -ESRCH)
				return perr(pr, c->col, "%s has no argument '%s' (%s%s)",
						 func, c->field,
						 fields[0] ? "its arguments: " :
							     "it takes none",
						 fields);
			if (err)
				return perr(pr, c->col, "'%s': %s has no BTF to name its arguments; use argN",
						 c->field, func);
			if (idx > 5)
				return perr(pr, c->col, "%s is argument %d of %s: only arg0..arg5 (passed in registers) can be tested",
						 c->field, idx, func);
			k->src = IPROF_SRC_ARG;
			k->off = (uint16_t)idx;
			k->size = (uint8_t)(c->has_type ? c->width : width);
			k->is_signed =
				(uint8_t)(c->has_type ? c->is_signed : sgn);
			if (fit_value(&k->val, k->size, k->is_signed)) {
				snprintf(type, sizeof(type), "%c%d",
					 k->is_signed ? 's' : 'u',
					 k->size * 8);
				return range_error(pr, c, c->field, type,
						   k->size);
			}
			continue;
		}
		err_s = resolve_tp_cond(tracefs, pr, pt, c, k);
		if (err_s)
			return err_s;
	}
	return NULL;
}

/* The pseudo-fields a key may name where its tracepoint has no such field. */
static const struct {
	const char *name;
	enum iprof_key_src src;
	const char *what; /* for messages: "EVENT's pid is the current tgid" */
} key_pseudo[] = {
	{"pid", IPROF_KEY_PID, "the current tgid"},
	{"tid", IPROF_KEY_TID, "the current thread id"},
	{"cpu", IPROF_KEY_CPU, "the current CPU"},
};

/* Bytes of a pseudo-field: an unsigned 32-bit value */
#define KEY_PSEUDO_SIZE 4

/*
 * key_str() - @pr's key as text, normalized: "dev,sector", "pid=next_pid"
 * (=B only where B differs from A).  malloc'ed; NULL when out of memory
 * (or @pr is not keyed).
 */
static char *key_str(const struct probe *pr)
{
	size_t len = 1, used = 0;
	char *s;
	int i;

	if (!pr->nkey)
		return NULL;
	for (i = 0; i < pr->nkey; i++)
		len += strlen(pr->key[i].start) + strlen(pr->key[i].stop) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < pr->nkey; i++) {
		const struct probe_key *k = &pr->key[i];

		used += (size_t)snprintf(s + used, len - used, "%s%s", i ? "," : "",
					 k->start);
		if (strcmp(k->start, k->stop))
			used += (size_t)snprintf(s + used, len - used, "=%s",
						 k->stop);
	}
	return s;
}

/*
 * One side of a key field: @name of tracepoint @pt (its format file under
 * @tracefs) into @kf, its C type (or what a pseudo-field reads) into
 * @type (@type_len bytes).  A field of the tracepoint wins over a
 * pseudo-field of the same name.  NULL, or the error (as perr(), at
 * column @col, "span NAME: key A: ...").
 */
static char *resolve_key_side(const char *tracefs, const struct probe *pr,
			      const struct probe_key *k,
			      const struct probe_point *pt, const char *name,
			      int col, struct iprof_keyf *kf, char *type,
			      size_t type_len)
{
	struct plan_tp_field_info fi;
	char fields[512];
	size_t i;
	int err;

	memset(kf, 0, sizeof(*kf));
	err = plan_tp_field(tracefs, pt->category, pt->event, name, &fi,
			    fields, sizeof(fields));
	if (!err) {
		kf->src = IPROF_KEY_TP;
		kf->off = fi.off;
		kf->size = fi.size;
		snprintf(type, type_len, "%s", fi.type);
		return NULL;
	}
	if (err == -ESRCH)
		for (i = 0; i < sizeof(key_pseudo) / sizeof(key_pseudo[0]); i++)
			if (!strcmp(name, key_pseudo[i].name)) {
				kf->src = (iprof_u8)key_pseudo[i].src;
				kf->size = KEY_PSEUDO_SIZE;
				snprintf(type, type_len, "%s",
					 key_pseudo[i].what);
				return NULL;
			}
	if (err == -ESRCH)
		return perr(pr, col, "span %s: key %s: tracepoint %s:%s has no field '%s' (its fields: %s; pseudo-fields: pid, tid, cpu)",
			    pr->name, k->start, pt->category, pt->event, name,
			    fields[0] ? fields : "none");
	if (err == -EINVAL && fi.is_string)
		return perr(pr, col, "span %s: key %s: field '%s' of %s:%s is a string (%s): a key is made of numbers",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type);
	if (err == -EINVAL && fi.is_array)
		return perr(pr, col, "span %s: key %s: field '%s' of %s:%s is an array (%s): a key is made of numbers",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type);
	if (err == -EINVAL)
		return perr(pr, col, "span %s: key %s: field '%s' of %s:%s (%s) is %u bytes: a key field is of 1, 2, 4 or 8 bytes",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type, (unsigned int)fi.slot);
	return perr(pr, pt->col, "span %s: tracepoint %s:%s not found (%s/events/%s/%s/format: %s)",
		    pr->name, pt->category, pt->event, tracefs, pt->category,
		    pt->event, strerror(-err));
}

/*
 * The key of keyed span @pr into its start action @a and stop action @b
 * (nkey, key[]): each field from its side's tracepoint or a
 * pseudo-field, both sides of one width (signedness may differ: BPF
 * compares the zero-extended bytes).  NULL, or the error (as perr()).
 */
static char *resolve_keys(const char *tracefs, const struct probe *pr,
			  struct iprof_action *a, struct iprof_action *b)
{
	char ta[80], tb[80], *msg;
	int i;

	for (i = 0; i < pr->nkey; i++) {
		const struct probe_key *k = &pr->key[i];

		msg = resolve_key_side(tracefs, pr, k, &pr->start, k->start,
				       k->col, &a->key[i], ta, sizeof(ta));
		if (!msg)
			msg = resolve_key_side(tracefs, pr, k, &pr->stop,
					       k->stop, k->stop_col, &b->key[i],
					       tb, sizeof(tb));
		if (msg)
			return msg;
		if (a->key[i].size != b->key[i].size)
			return perr(pr, k->col, "span %s: key %s: %s's %s is %s (%u byte%s), %s's %s is %s (%u byte%s): the two sides of a key field must be of one width",
				    pr->name, k->start, pr->start.event,
				    k->start, ta, a->key[i].size,
				    a->key[i].size == 1 ? "" : "s",
				    pr->stop.event, k->stop, tb,
				    b->key[i].size,
				    b->key[i].size == 1 ? "" : "s");
	}
	a->nkey = b->nkey = (iprof_u8)pr->nkey;
	return NULL;
}

/*
 * What the dynamic event GROUP/EVENT of a tracefs event list (@file under
 * @tracefs: uprobe_events, kprobe_events or dynamic_events, one definition
 * a line: "p:GROUP/EVENT TARGET", "r10:GROUP/EVENT TARGET", "s:...",
 * "e:...", "f:...", "t:...": Documentation/trace/uprobetracer.rst,
 * kprobetrace.rst, histogram.rst, eprobetrace.rst, fprobetrace.rst) defines
 * it as: "uprobe" ... or NULL when it is not in @file; its definition in
 * @def (@len bytes).
 */
static const char *dyn_event_kind(const char *tracefs, const char *file,
				  const char *cat, const char *ev, char *def,
				  size_t len)
{
	char path[PATH_MAX], line[1024], want[512];
	const char *kind = NULL, *name;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	snprintf(want, sizeof(want), "%s/%s", cat, ev);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (!kind && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		name = strchr(line, ':');
		if (!name || name - line > 8)
			continue;
		name++;
		n = strcspn(name, " \t");
		if (n != strlen(want) || strncmp(name, want, n))
			continue;
		snprintf(def, len, "%s", line);
		switch (line[0]) {
		case 'p':
		case 'r':
			/* a uprobe's target is PATH:OFFSET, a kprobe's a
			 * symbol, an address or MODULE:SYMBOL */
			if (!strcmp(file, "uprobe_events") ||
			    (strcmp(file, "kprobe_events") &&
			     strchr(name + n, '/')))
				kind = line[0] == 'p' ? "uprobe" : "uretprobe";
			else
				kind = line[0] == 'p' ? "kprobe" : "kretprobe";
			break;
		case 's':
			kind = "synthetic event";
			break;
		case 'e':
			kind = "event probe (eprobe)";
			break;
		case 'f':
			kind = "fprobe event";
			break;
		case 't':
			kind = "tracepoint probe event (tprobe)";
			break;
		default:
			kind = "dynamic event";
		}
	}
	fclose(f);
	return kind;
}

/*
 * Is tracepoint @cat:@event a dynamic event (a uprobe or kprobe made with
 * uprobe_events, kprobe_events or perf probe; a synthetic event, an
 * eprobe)?  The kernel attaches BPF tracepoint programs to real
 * tracepoints only (kernel/trace/bpf_trace.c: perf_event_attach_bpf_prog
 * after perf_event_set_bpf_prog checks TRACE_EVENT_FL_TRACEPOINT): on any
 * other event the attach fails with a bare EINVAL.  Returns the message
 * saying what it is, or NULL.
 */
static char *check_dyn_event(const char *tracefs, const struct probe *pr,
			     const struct probe_point *pt)
{
	static const char *const lists[] = { "uprobe_events", "kprobe_events",
					     "dynamic_events" };
	const char *kind = NULL, *list = NULL;
	struct plan_tp_field_info fi;
	char def[1024] = "";
	size_t i;

	for (i = 0; !kind && i < sizeof(lists) / sizeof(lists[0]); i++) {
		kind = dyn_event_kind(tracefs, lists[i], pt->category,
				      pt->event, def, sizeof(def));
		list = lists[i];
	}
	if (kind && (!strcmp(kind, "uprobe") || !strcmp(kind, "uretprobe")))
		return perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s event ('%s' in %s/%s, made with uprobe_events or perf probe): BPF tracepoint programs cannot attach to it; time the function with uprobe:PATH:FUNC instead", pt->category,
				 pt->event, kind, def, tracefs, list);
	if (kind && (!strcmp(kind, "kprobe") || !strcmp(kind, "kretprobe")))
		return perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s event ('%s' in %s/%s, made with kprobe_events or perf probe): BPF tracepoint programs cannot attach to it; time the function with kprobe:FUNC or func:FUNC instead", pt->category,
				 pt->event, kind, def, tracefs, list);
	if (kind)
		return perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s ('%s' in %s/%s): BPF tracepoint programs cannot attach to it", pt->category,
				 pt->event, kind, def, tracefs, list);
	/* not listed (tracefs lists unreadable): the fields that probe
	 * events have and tracepoints do not (kernel/trace/trace_probe.h:
	 * FIELD_STRING_IP, FIELD_STRING_RETIP, FIELD_STRING_FUNC) */
	if (!plan_tp_field(tracefs, pt->category, pt->event, "__probe_ip", &fi,
			   NULL, 0) ||
	    !plan_tp_field(tracefs, pt->category, pt->event, "__probe_func",
			   &fi, NULL, 0))
		return perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a uprobe or kprobe event (its format has the __probe_ip or __probe_func field of probe events): BPF tracepoint programs cannot attach to it; use uprobe:PATH:FUNC or kprobe:FUNC instead", pt->category,
				 pt->event);
	return NULL;
}

static char *check_tp(const char *tracefs, const struct probe *pr,
		      const struct probe_point *pt)
{
	char path[PATH_MAX];
	FILE *f;

	if (!tracefs)
		return perr(pr, pt->col, "tracepoint %s:%s: tracefs is not mounted (mount -t tracefs tracefs /sys/kernel/tracing)", pt->category,
				 pt->event);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
		 pt->category, pt->event);
	f = fopen(path, "r");
	if (!f)
		return perr(pr, pt->col, "tracepoint %s:%s not found (%s: %s)", pt->category,
				 pt->event, path, strerror(errno));
	fclose(f);
	return check_dyn_event(tracefs, pr, pt);
}

/*
 * Is FUNC @s a glob: a '*' or '?' outside a C++ parameter list (where
 * '*' is a pointer: ns::p(int*))?  '[' is no wildcard of a probe line
 * (ns::name[abi:cxx11] is a name).
 */
static int has_glob(const char *s)
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
 * Glob FUNC @s as an fnmatch(3) pattern: its wildcards (has_glob()) as
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

/* Where a uprobe timer is entered: a binary the kernel opens by path,
 * the symbol and its file offset. */
/* One entry of a user function timer: where its uprobe goes. */
struct uplace {
	char *path, *sym; /* the binary (absolute) and the symbol, owned */
	uint64_t off, dev, ino; /* file offset (bytes); the file's identity */
	uint64_t size; /* the code's length from @off (bytes), 0 unknown */
	int cold; /* the function has a cold part elsewhere (f.cold) */
	uint64_t cold_off, cold_size; /* where (sym_target), 0 0 unknown */
	uint64_t addr, cold_addr; /* virtual addresses of both, for messages */
};

struct uplaces {
	struct uplace *v;
	size_t n;
	char *note; /* what the user should know (an older copy traced) */
};

static void uplaces_free(struct uplaces *u)
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
static int resolve_uprobe(struct planner *pn, const struct probe *pr,
			  const char *func, const struct plan_env *env,
			  struct uplaces *u, char **msg, char **binary,
			  int *nofunc)
{
	char err[PATH_MAX + 512], mf[PATH_MAX], note[3 * PATH_MAX];
	char gone[PATH_MAX + 512] = ""; /* the file is gone: why */
	char disk[PATH_MAX + 512] = ""; /* the file on disk lacks FUNC: why */
	int disk_col = 0;
	struct sym_target *v = NULL;
	char *path = NULL;
	struct stat st;
	size_t n = 0, i;
	int ret, col = pr->start.col, k, deleted = 0, used = 0;

	*msg = NULL;
	note[0] = '\0';
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
		/* a probe the kernel would take and never fire */
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
		*msg = perr(pr, col, "%s", err);
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
 * --returns auto where this kernel single-steps return sites (no
 * plan_env.uregs): a uretprobe, which costs no single step, for a function
 * of a -- CMD or -p program that cannot unwind or switch stacks through it
 * (judge_returns(); the evidence in t->ret_risk either way).  A timer of
 * no target process keeps its return sites.  Sets *@uret; returns 0 or
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
	}
	free(t->ret_risk);
	if (!(t->ret_risk = strdup(pn->auto_risk ? pn->auto_risk : "")))
		return -ENOMEM;
	*uret = pn->auto_uret;
	return 0;
}

/*
 * The stops of user function timer @id at its entry @at (code of
 * @at->size bytes at @at->off in @at->path): uprobes at its return sites
 * where retsite_find() finds them (its start then carries
 * IPROF_A_RETSITES), else a uretprobe, the reason in t->ret_why.  Returns
 * 0 or -errno.
 */
static int add_ustops(struct plan *p, const struct plan_env *env,
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
			err = judge_returns(env, path, &t->ret_risk);
			if (err < 0)
				return err;
			if (err || env->returns == PLAN_RETURNS_SITES) {
				/* entry only, as a function that never
				 * returns: calls counted, closed untimed */
				p->actions[start].flags |= IPROF_A_RETSITES;
				t->entry_only = 1;
				t->ret_entry = 1;
				return 0;
			}
		}
		return add_att(p, MECH_URETPROBE, id, stop, NULL, NULL, path,
			       sym, off);
	}
	p->actions[start].flags |= IPROF_A_RETSITES;
	for (i = 0; i < n && !err; i++) {
		uint32_t st = stop;

		/* an action is in one chain only: another timer's action
		 * chained after it at one site would run at every site */
		if (i)
			err = clone_action(p, stop, &st);
		if (!err)
			err = add_att(p, MECH_RETSITE, id, st, NULL, NULL, path,
				      sym, sites[i]);
	}
	t->ret_sites = (uint32_t)n;
	t->ret_tail = (uint32_t)njmp;
	free(sites);
	return err;
}

/* The actions and attachments of @pr (timer @id), resolved: @at, the
 * entry of a user function timer (else NULL). */
static int plan_actions(struct plan *p, const struct probe *pr, uint32_t id,
			const struct plan_env *env, const struct uplace *at)
{
	struct plan_timer *t = &p->timers[id];
	uint32_t start, stop;
	char *msg;
	int err;

	/* spans do not nest in themselves: see IPROF_A_NO_REENTER; a
	 * keyed span pushes no frame, and BPF ignores a keyed stop whose
	 * key is not open (IPROF_A_KEYED) */
	err = add_action(p, id, IPROF_ROLE_START,
			 pr->nkey ? IPROF_A_KEYED :
			 is_span(pr) ? IPROF_A_NO_REENTER : 0,
			 &start);
	if (!err)
		err = add_action(p, id, IPROF_ROLE_STOP,
				 pr->nkey ? IPROF_A_KEYED :
				 !pr->start.ncond ? 0 :
				 is_span(pr) ?
					 IPROF_A_UNMATCHED_OK :
					 IPROF_A_UNMATCHED_OK | IPROF_A_TOP_ONLY,
				 &stop);
	if (err)
		return err;
	msg = resolve_conds(env, t->func, pr, &pr->start,
			    is_span(pr), &p->actions[start]);
	if (!msg && is_span(pr))
		msg = resolve_conds(env, t->func, pr, &pr->stop, 1,
				    &p->actions[stop]);
	if (!msg && is_span(pr) && pr->nkey)
		msg = resolve_keys(env->tracefs, pr, &p->actions[start],
				   &p->actions[stop]);
	if (msg) {
		t->error = msg;
		/* the actions stay, unused: no attachment refers to them */
		return 0;
	}

	switch (probe_kind_at(pr->kind)) {
	case PROBE_AT_SPAN:
		err = add_tp_att(p, env, id, start, &pr->start);
		if (!err)
			err = add_tp_att(p, env, id, stop, &pr->stop);
		if (err == -E2BIG) {
			t->error = xasprintf("%s:%d:%d: span %s: more than %d timers use one tracepoint",
					     pr->file, pr->line, pr->start.col,
					     pr->name,
					     IPROF_MAX_CHAIN);
			return 0;
		}
		break;
	case PROBE_AT_UFUNC:
		err = add_att(p, MECH_UPROBE, id, start, NULL, NULL, at->path,
			      at->sym, at->off);
		/* a function that never returns gets no return probe (a
		 * uretprobe on _start would overwrite argc): frames end at
		 * thread exit, or at a return site's drop_left() */
		if (!err && !t->entry_only)
			err = add_ustops(p, env, id, start, stop, at);
		if (err == -E2BIG) {
			t->error = xasprintf("%s:%d:%d: uprobe %s: more than %d timers on one function",
					     pr->file, pr->line, pr->start.col,
					     pr->name,
					     IPROF_MAX_CHAIN);
			return 0;
		}
		break;
	default:
		err = add_att(p, MECH_FUNC_ENTRY, id, start, NULL, NULL, NULL,
			      t->func, 0);
		/* a function that never returns has no return to attach:
		 * its frames end at thread exit */
		if (!err && !t->entry_only)
			err = add_att(p, MECH_FUNC_RETURN, id, stop, NULL, NULL,
				      NULL, t->func, 0);
		break;
	}
	return err;
}

/*
 * The kernel symbol that a kernel function timer's FUNC (NAME or
 * NAME|OTHER|..., its names in different kernel versions) stands for here:
 * the first name that exists, else the only compiler clone of one
 * (NAME.isra.0, NAME.constprop.1, ...; a .cold part never: it is not a
 * function anyone calls).  Returns a new string; NULL when none or several
 * clones fit, with the clones of the first name that has any in @clones
 * (@len bytes, comma-separated, "" if none), or with errno ENOMEM.
 */
static char *pick_kfunc(const struct ksyms *ks, const char *spec,
			char *clones, size_t len)
{
	/* KSYM_NAME_LEN: include/linux/kallsyms.h (512 since 6.1) */
	char alt[512], buf[256], *one = NULL, *tok, *save;
	const char *p;
	size_t n;
	int ok;

	clones[0] = '\0';
	for (p = spec; *p; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (ksyms_exists(ks, alt) != 0)
			return strdup(alt);
	}
	for (p = spec; *p; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (!ksyms_clones(ks, alt, buf, sizeof(buf)))
			continue;
		if (!clones[0])
			snprintf(clones, len, "%s", buf);
		ok = 0;
		free(one);
		one = NULL;
		for (tok = strtok_r(buf, ", ", &save); tok;
		     tok = strtok_r(NULL, ", ", &save)) {
			if (strstr(tok, ".cold") || !strcmp(tok, "..."))
				continue;
			ok++;
			if (ok == 1)
				one = strdup(tok);
		}
		if (ok == 1)
			return one;
	}
	free(one);
	errno = 0;
	return NULL;
}

/*
 * A kernel function timer's checks against the kernel's symbols: which
 * symbol it names here (pick_kfunc(): t->func becomes it), the deny
 * list, existence (with the compiler's clones as a hint), ftrace
 * traceability (fentry needs it; kprobes do not), never-returning
 * functions (entry-only).  Returns an error message or NULL.
 */
static char *check_kfunc(const struct probe *pr, struct plan_timer *t,
			 const struct ksyms *ks)
{
	char clones[256], *sym, *where;
	const char *why;

	sym = pick_kfunc(ks, t->func, clones, sizeof(clones));
	if (!sym && errno == ENOMEM)
		return perr(pr, pr->start.col, "%s: out of memory", t->func);
	if (sym && strcmp(sym, t->func)) {
		/* show which symbol is traced: "func:f.isra.0 (func:f)" */
		where = describe(pr, NULL, sym);
		if (where) {
			free(t->where);
			t->where = where;
		}
	}
	if (sym) {
		free(t->func);
		t->func = sym;
	}
	why = ksym_denied(t->func);
	if (why)
		return perr(pr, pr->start.col, "%s: iprof does not time it: the tracer itself runs it (%s)", t->func,
				 why);
	if (!sym) {
		if (clones[0])
			return perr(pr, pr->start.col, "no kernel function '%s': the compiler made clones of it: %s (name one, e.g. %s:%.*s)",
					 t->func, clones,
					 probe_kind_str(pr->kind),
					 (int)strcspn(clones, ","), clones);
		/* the name only where it says more than the timer's own,
		 * so that such timers share one "not attached" line */
		if (strchr(t->func, '|'))
			return perr(pr, pr->start.col, "none of %s is a kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)",
					 t->func);
		if (ksym_suggest(ks->funcs, ks->nfuncs, t->func, clones,
				 sizeof(clones)))
			return perr(pr, pr->start.col, "no such kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)" KSYM_SUGGEST_PFX "%s?",
					 clones);
		return perr(pr, pr->start.col, "no such kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)");
	}
	/* a kind that cannot fall back to kprobes needs ftrace, one that
	 * cannot use fentry a name the kernel has once */
	if (!(probe_kind(pr->kind)->via & PROBE_VIA_KPROBE) &&
	    ksyms_traceable(ks, t->func) == 0)
		return perr(pr, pr->start.col, "%s is not traceable by ftrace (notrace, or not in available_filter_functions): fentry cannot attach; kprobe: or func: may", t->func);
	/* without the name: such timers of a glob share one line */
	if (!(probe_kind(pr->kind)->via & PROBE_VIA_FENTRY) &&
	    ksyms_repeated(ks, t->func) == 1)
		return perr(pr, pr->start.col, "several kernel functions have this name (static functions of different files): a kprobe by name cannot tell them apart");
	t->entry_only = ksym_noreturn(t->func);
	/* func: where fentry is refused falls back to kprobes (the loader
	 * learns which at attach time: fentry's refusal is per kernel) */
	t->via = probe_kind(pr->kind)->via;
	/* a kprobe_multi link takes functions that ftrace patches, each
	 * name once in the kernel */
	t->kmulti_ok = ksyms_traceable(ks, t->func) != 0 &&
		       ksyms_repeated(ks, t->func) != 1;
	return NULL;
}

/*
 * What a uprobe timer attaches to: "uprobe:PATH:FUNC", its other entries
 * (" + f.isra.0, f.constprop.0": clones, a C++ overload's symbol) and
 * what @u notes (an older copy of the binary traced).
 */
static char *describe_uprobe(const struct probe *pr, const struct uplaces *u,
			     const char *func)
{
	char more[1024] = "", *base, *ret;
	size_t i, used = 0;
	int n = 0;

	base = describe(pr, u->v[0].path, func);
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
	ret = xasprintf("%s%s%s%s%s", base, more, u->note ? " (" : "",
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

/* the MECH_RETSITE attachment at @s of @path (NULL: the MECH_KSITE one
 * at kernel function @func, MOD:SYM, and @s's offset): its frame is found as the inlined
 * instance's site says (every site at one address has the same rule: the
 * caller's CFI there) */
static void att_key(struct plan *p, const char *path, const char *func,
		    const struct inl_site *s)
{
	uint32_t i;

	for (i = p->natt; i-- > 0;)
		if ((path && p->att[i].mech == MECH_RETSITE &&
		     p->att[i].offset == s->off &&
		     !strcmp(p->att[i].path, path)) ||
		    (!path && p->att[i].mech == MECH_KSITE &&
		     p->att[i].offset == s->symoff &&
		     !strcmp(p->att[i].func, func))) {
			p->att[i].key_reg = s->reg;
			p->att[i].key_adj = s->adj;
			p->att[i].inl = 1;
			return;
		}
}

/* append to *@w (malloc'ed) "; " and printf @fmt; 0 or -ENOMEM */
static int inl_note(char **w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int inl_note(char **w, const char *fmt, ...)
{
	char *add = NULL, *n = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = asprintf(&n, "%s%s%s", *w ? *w : "", *w ? "; " : "", add);
	free(add);
	if (r < 0)
		return -ENOMEM;
	free(*w);
	*w = n;
	return 0;
}

/* instances named in plan_timer.inl_where; the others are counted */
#define INL_LISTED 16

/* where instance @in is, for plan_timer.inl_where: "in CALLER at ADDR
 * (FILE:LINE)" (@user), a kernel module's at SYM+OFF (its addresses are
 * the debug file's layout, of no use to a reader), and @why (NULL: it
 * is timed) */
static int inl_where_add(char **w, const struct inl_inst *in, int user,
			 const char *why)
{
	char at[320] = "";

	if (in->entry.sym)
		snprintf(at, sizeof(at), " at %s+%#llx", in->entry.sym,
			 (unsigned long long)in->entry.symoff);
	else if (user)
		snprintf(at, sizeof(at), " at %#llx",
			 (unsigned long long)in->entry.addr);
	return inl_note(w, "in %s%s%s%s%s%s%s", in->caller, at,
			in->call[0] ? " (" : "", in->call,
			in->call[0] ? ")" : "", why ? ": not timed: " : "",
			why ? why : "");
}

/* a kernel module's instances: the module (its kprobes name their
 * functions MOD:SYM, as kallsyms_lookup_name() takes them: a static
 * function's name may be another module's too; "vmlinux": the kernel
 * image, SYM alone) and the kernel's symbols */
struct inl_kctx {
	const char *mod;
	const struct ksyms *ks;
};

/* the attachment of site @s of an inlined instance of timer @id: a
 * uprobe in @path at its file offset (MECH_RETSITE), or with @path NULL
 * a kprobe at MOD:SYM + offset of module @kx (MECH_KSITE) */
static int inl_att(struct plan *p, uint32_t id, uint32_t action,
		   const char *path, const struct inl_kctx *kx,
		   const struct inl_site *s)
{
	char *f = NULL;
	int err;

	if (path) {
		err = add_att(p, MECH_RETSITE, id, action, NULL, NULL, path,
			      p->timers[id].func, s->off);
	} else if (!strcmp(kx->mod, "vmlinux")) {
		f = strdup(s->sym);
		err = f ? add_att(p, MECH_KSITE, id, action, NULL, NULL, NULL,
				  f, s->symoff) :
			  -ENOMEM;
	} else {
		f = xasprintf("%s:%s", kx->mod, s->sym);
		err = f ? add_att(p, MECH_KSITE, id, action, NULL, NULL, NULL,
				  f, s->symoff) :
			  -ENOMEM;
	}
	if (!err)
		att_key(p, path, f, s);
	free(f);
	return err;
}

/* why instance @in of module @kx cannot be timed though inl_find() found
 * its sites: one is in a function the kernel has no symbol of now (an
 * init function, freed once the module loaded), that ftrace cannot
 * patch (kprobe events refuse it), or, in vmlinux, whose name is not
 * unique (a kprobe at SYM+OFF takes the first); NULL if none */
static const char *ksite_why(const struct inl_kctx *kx,
			     const struct inl_inst *in, char *buf, size_t len)
{
	const char *sym = in->entry.sym;
	size_t k;

	int vml = !strcmp(kx->mod, "vmlinux");

	for (k = 0; sym; k++) {
		if (ksyms_exists(kx->ks, sym) == 0) {
			snprintf(buf, len, "its probes' function %s is no kernel symbol now (not in /proc/kallsyms: an init function of the module, freed after it loaded?)",
				 sym);
			return buf;
		}
		/* the kernel image's SYM+OFF is the first SYM kallsyms
		 * has: one of several static functions of that name
		 * would be another's code (newer kernels refuse it) */
		/* kprobe events refuse a function ftrace cannot patch
		 * (kernel/trace/trace_kprobe.c within_notrace_func(),
		 * unless CONFIG_KPROBE_EVENTS_ON_NOTRACE) */
		if (ksyms_traceable(kx->ks, sym) == 0) {
			snprintf(buf, len, "its probes' function %s is notrace (not in available_filter_functions): kprobe events refuse it",
				 sym);
			return buf;
		}
		if (vml && ksyms_repeated(kx->ks, sym) > 0) {
			snprintf(buf, len, "its probes' function %s is not the only kernel symbol of that name (a kprobe at %s+OFFSET could land in another)",
				 sym, sym);
			return buf;
		}
		sym = k < in->nexits ? in->exits[k].sym : NULL;
	}
	return NULL;
}

/*
 * Instances @v (@n, and @more only counted) of timer @id, planned: each
 * a start at its entry and a stop at each exit (inl_att(): uprobes in
 * @path, kprobes with @path NULL).  drop_left() sees a uprobe site as a
 * return site (the frame is the caller's): its start is
 * IPROF_A_RETSITES.  t->inl, inl_exits, inl_refused, inl_where say what
 * was found.  Conditions read arguments, which an inlined instance does
 * not pass: with conditions every instance is refused.  Returns 0 or
 * -ENOMEM (a chain too long is the timer's error).
 */
static int plan_instances(struct plan *p, const struct probe *pr, uint32_t id,
			  const char *path, const struct inl_kctx *kx,
			  const struct inl_inst *v, size_t n, size_t more)
{
	struct plan_timer *t = &p->timers[id];
	uint32_t start, stop;
	size_t i, k, listed = 0;
	char kwhy[512];
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct inl_inst *in = &v[i];
		const char *why = in->why;

		if (!why && pr->start.ncond)
			why = "conditions read arguments, which an inlined call does not pass";
		if (!why && kx)
			why = ksite_why(kx, in, kwhy, sizeof(kwhy));
		if (why) {
			t->inl_refused++;
			if (++listed <= INL_LISTED)
				err = inl_where_add(&t->inl_where, in, !!path, why);
			continue;
		}
		/* its number tells its frames from another instance's in
		 * the same caller's frame (iprof_action.inst) */
		err = add_action(p, id, IPROF_ROLE_START,
				 path ? IPROF_A_RETSITES : 0, &start);
		if (err)
			break;
		p->actions[start].inst = t->inl + 1;
		p->prio[start] = in->depth + 1;
		err = inl_att(p, id, start, path, kx, &in->entry);
		/* a stop per exit: an action is in one chain only (another
		 * timer's action chained at one exit would run at all), and
		 * an exit reached where the instance did not run (a join
		 * point of the caller) is no orphan */
		for (k = 0; !err && k < in->nexits; k++) {
			err = add_action(p, id, IPROF_ROLE_STOP,
					 IPROF_A_UNMATCHED_OK, &stop);
			if (err)
				break;
			p->actions[stop].inst = t->inl + 1;
			p->prio[stop] = in->depth + 1;
			err = inl_att(p, id, stop, path, kx, &in->exits[k]);
		}
		if (err == -E2BIG) {
			t->error = xasprintf("%s:%d:%d: %s %s: more than %d timers at one address of an inlined instance",
					     pr->file, pr->line, pr->start.col,
					     probe_kind_str(pr->kind), pr->name,
					     IPROF_MAX_CHAIN);
			err = t->error ? 0 : -ENOMEM;
			break;
		}
		if (err)
			break;
		t->inl++;
		t->inl_exits += (uint32_t)in->nexits;
		if (++listed <= INL_LISTED)
			err = inl_where_add(&t->inl_where, in, !!path, NULL);
	}
	if (listed > INL_LISTED && !err)
		err = inl_note(&t->inl_where, "%zu more", listed - INL_LISTED);
	if (more && !err) {
		t->inl_refused += (uint32_t)more;
		err = inl_note(&t->inl_where, "%zu more not timed: more than %d instances",
			       more, INL_MAX_INSTANCES);
	}
	return err;
}

/*
 * The inlined instances of user function timer @id in @path
 * (inl_find()), planned (plan_instances()).  *@nodwarf: 1 when @path
 * has no DWARF.  Returns 0 or -ENOMEM.
 */
static int plan_inline(struct plan *p, const struct probe *pr, uint32_t id,
		       const struct plan_env *env, const char *path,
		       int *nodwarf)
{
	struct plan_timer *t = &p->timers[id];
	struct inl_inst *v = NULL;
	size_t n = 0, more = 0;
	char e[PATH_MAX + 256];
	int err;

	err = inl_find(path, t->func, env->debuginfo, &v, &n, &more, nodwarf,
		       e, sizeof(e));
	if (err)
		return err == -ENOMEM ? err : 0; /* unreadable: as none */
	err = plan_instances(p, pr, id, path, NULL, v, n, more);
	inl_free(v, n);
	return err;
}

/* the modules' debug files, read at the first need; 0 or -ENOMEM */
static int kdbg_load(struct planner *pn, const struct plan_env *env)
{
	int err = 0;

	if (!pn->kdbg_read)
		err = kmod_debug_files(env->kmod_root, env->debuginfo,
				       &pn->kdbg, &pn->nkdbg, &pn->kdbg_stale);
	pn->kdbg_read = !err;
	return err;
}

/*
 * The instances of @name in loaded module @k's debug file, planned for
 * timer @id (plan_instances()).  *@found is set when it has any; @err
 * (@errlen bytes) keeps the first reason a file could not be read.
 * Returns 0 or -ENOMEM.
 */
static int kinl_module(struct plan *p, const struct probe *pr, uint32_t id,
		       const struct kmod_debug *k, const char *name,
		       const struct ksyms *ks, int *found, char *err,
		       size_t errlen)
{
	const struct inl_kctx kx = { .mod = k->mod, .ks = ks };
	struct inl_inst *v = NULL;
	size_t n = 0, more = 0;
	char e[PATH_MAX + 256];
	int r;

	if (!kmod_mentions(k->path, name))
		return 0;
	r = inl_find(k->path, name, NULL, &v, &n, &more, NULL, e, sizeof(e));
	if (r == -ENOMEM)
		return r;
	if (r) {
		if (!err[0])
			snprintf(err, errlen, "%s", e);
		return 0;
	}
	if (n || more)
		*found = 1;
	r = plan_instances(p, pr, id, NULL, &kx, v, n, more);
	inl_free(v, n);
	return r;
}

/* where @mods ("vmlinux, kvm", the files' names as kdbg has them) are,
 * in words ("vmlinux and module kvm") into @buf (@len bytes) */
static const char *kinl_where(const char *mods, char *buf, size_t len)
{
	int vml = !strncmp(mods, "vmlinux", 7) &&
		  (!mods[7] || mods[7] == ',');
	const char *rest = vml ? mods + 7 + (mods[7] ? 2 : 0) : mods;

	snprintf(buf, len, "%s%s%s%s%s", vml ? "vmlinux" : "",
		 vml && *rest ? " and " : "", *rest ? "module" : "",
		 strchr(rest, ',') ? "s " : *rest ? " " : "", rest);
	return buf;
}

/* what plan_kinline() says when no instance is timed (*@msg replaced) */
static int kinl_none(const struct planner *pn, struct plan_timer *t,
		     int found, const char *mods, const char *e, char **msg)
{
	struct utsname u;
	char w[600], *m;
	int vml = pn->nkdbg && !strcmp(pn->kdbg[0].mod, "vmlinux");
	size_t nm = pn->nkdbg - (size_t)vml;

	if (found)
		m = xasprintf("%s; inlined %u time%s in %s, none timed: %s",
			      *msg, t->inl_refused,
			      t->inl_refused == 1 ? "" : "s",
			      kinl_where(mods, w, sizeof(w)), t->inl_where);
	else if (pn->nkdbg)
		m = xasprintf("%s; nor inlined in %sa loaded module (%s%zu %s debug files looked at%s%s)",
			      *msg, vml ? "vmlinux or " : "",
			      vml ? "vmlinux's and " : "", nm,
			      nm == 1 ? "module's" : "modules'",
			      e[0] ? "; one could not be read: " : "", e);
	else
		m = xasprintf("%s; no debug file of the kernel or a loaded module says whether it was inlined (%s: Debian's linux-image-%s-dbg has them, or --debuginfo DIR)",
			      *msg,
			      pn->kdbg_stale ? "only other builds' were found" :
					   "none found",
			      uname(&u) ? "RELEASE" : u.release);
	m = hint_last(m);
	if (!m)
		return -ENOMEM;
	free(*msg);
	*msg = m;
	return 0;
}

/*
 * Kernel function timer @id (@pr), whose name (each alternative of
 * NAME|OLD in turn, the first found) is no kernel symbol: timed where
 * the compiler inlined it in the kernel image and the loaded modules
 * (every one that has it), from their debug files (kmod_debug_files():
 * --debuginfo DIR, then Debian's places), with kprobes at each instance's entry and exits
 * (plan_instances(); fentry cannot attach inside a function).  Timed:
 * t->func is the alternative found, t->inl_only is set and *@msg goes;
 * else *@msg says what was looked at.  Returns 0 or -ENOMEM; a timer
 * error (t->error) frees *@msg.
 */
static int plan_kinline(struct plan *p, const struct probe *pr, uint32_t id,
			const struct plan_env *env, const struct ksyms *ks,
			char **msg)
{
	struct plan_timer *t = &p->timers[id];
	char alt[512] = "", mods[512] = "", e[PATH_MAX + 256] = "", *m, *d, *f;
	char w[600];
	const char *a;
	size_t k, len, used = 0;
	int err, found = 0;

	err = kdbg_load(p->pn, env);
	for (a = t->func; !err && !found && *a; a += len + (a[len] == '|')) {
		len = strcspn(a, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)len, a);
		for (k = 0; !err && !t->error && k < p->pn->nkdbg; k++) {
			int here = 0;

			err = kinl_module(p, pr, id, &p->pn->kdbg[k], alt, ks, &here, e,
					  sizeof(e));
			if (here && used < sizeof(mods))
				used += (size_t)snprintf(mods + used,
							 sizeof(mods) - used,
							 "%s%s", found ? ", " : "",
							 p->pn->kdbg[k].mod);
			found |= here;
		}
	}
	if (err)
		return err;
	if (t->error) {
		free(*msg);
		*msg = NULL;
		return 0;
	}
	if (!t->inl)
		return kinl_none(p->pn, t, found, mods, e, msg);
	d = describe(pr, NULL, alt);
	m = d ? xasprintf("%s (inlined only, in %s)", d,
			  kinl_where(mods, w, sizeof(w))) :
		NULL;
	f = strdup(alt);
	free(d);
	if (!m || !f) {
		free(m);
		free(f);
		return -ENOMEM;
	}
	free(t->where);
	t->where = m;
	free(t->func);
	t->func = f;
	t->inl_only = 1;
	t->via = PLAN_VIA_KPROBE;
	free(*msg);
	*msg = NULL;
	return 0;
}

/*
 * Kernel function timer @id, a symbol of module @mod ("" in vmlinux:
 * not looked at, its DWARF is not read): its instances where the
 * compiler inlined it in that module too (a static function inlined in
 * some callers and kept out of line for others), timed as
 * plan_kinline()'s beside the out-of-line copy.  Returns 0 or -ENOMEM.
 */
static int plan_kinline_more(struct plan *p, const struct probe *pr,
			     uint32_t id, const struct plan_env *env,
			     const struct ksyms *ks, const char *mod)
{
	char e[PATH_MAX + 256] = "";
	size_t k;
	int err, found = 0;

	if (!mod[0])
		return 0;
	err = kdbg_load(p->pn, env);
	if (err)
		return err;
	for (k = 0; k < p->pn->nkdbg && strcmp(p->pn->kdbg[k].mod, mod); k++)
		;
	return k == p->pn->nkdbg ? 0 :
			    kinl_module(p, pr, id, &p->pn->kdbg[k], p->timers[id].func,
					ks, &found, e, sizeof(e));
}

/* is kernel function timer @t's name (NAME|OLD) no symbol at all (not a
 * clone's either)?  Then it may be inlined. */
static int kfunc_absent(const struct ksyms *ks, const struct plan_timer *t)
{
	char clones[256], *sym = pick_kfunc(ks, t->func, clones, sizeof(clones));
	int e = errno;

	free(sym);
	/* (a function the tracer runs is never timed, inlined or not) */
	return !sym && !clones[0] && e != ENOMEM && !ksym_denied(t->func);
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
		d = describe(pr, binary, t->func);
		m = d ? xasprintf("%s (inlined only)", d) : NULL;
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
		m = xasprintf(nodwarf == 1 ?
			"%s; and no DWARF (-g, or a debug file) says whether it was inlined" :
			nodwarf == 2 ?
			"%s; nor is it inlined in its C code (DWARF; inlined C++ and Rust functions are not looked up yet)" :
			"%s; nor is it inlined anywhere (DWARF)",
			      *msg);
	else if (t->inl_refused) /* say why none of them can be timed */
		m = xasprintf("%s; inlined %u time%s, none timed: %s", *msg,
			      t->inl_refused, t->inl_refused == 1 ? "" : "s",
			      t->inl_where);
	else
		return 0;
	m = hint_last(m);
	if (!m)
		return -ENOMEM;
	free(*msg);
	*msg = m;
	return 0;
}

static int plan_probe(struct plan *p, const struct probe *pr, uint32_t id,
		      const struct plan_env *env, const struct ksyms *ks)
{
	const char *tracefs = env->tracefs;
	struct plan_timer *t = &p->timers[id];
	struct uplaces u = { 0 };
	char *msg = NULL, *where, *binary = NULL;
	size_t i;
	int err = 0, nofunc = 0;

	if (is_span(pr)) {
		msg = check_tp(tracefs, pr, &pr->start);
		if (!msg)
			msg = check_tp(tracefs, pr, &pr->stop);
	} else if (is_ufunc(pr)) {
		err = resolve_uprobe(p->pn, pr, t->func, env, &u, &msg,
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
			where = xasprintf("%s; --no-inline: not looked for where inlined",
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
			where = describe_uprobe(pr, &u, t->func);
			if (!where) {
				err = -ENOMEM;
				goto out;
			}
			free(t->where);
			t->where = where;
			t->note = u.note;
			u.note = NULL;
		}
	} else {
		msg = check_kfunc(pr, t, ks);
		/* not a symbol: maybe inlined, timed by kprobes there */
		if (msg && !env->no_inline && env->kmodules &&
		    probe_kind(pr->kind)->via & PROBE_VIA_KPROBE &&
		    kfunc_absent(ks, t)) {
			err = plan_kinline(p, pr, id, env, ks, &msg);
			if (err || t->error)
				goto out;
		}
	}
	if (msg) {
		t->error = msg;
		goto out;
	}
	if (!is_ufunc(pr)) {
		if (!t->inl_only)
			err = plan_actions(p, pr, id, env, NULL);
		/* a module's function may be inlined in it too: kprobes */
		if (!err && !t->inl_only && !t->error && !env->no_inline &&
		    env->kmodules && probe_kind(pr->kind)->via & PROBE_VIA_KPROBE)
			err = plan_kinline_more(p, pr, id, env, ks,
						ksyms_module_of(ks, t->func));
		goto out;
	}
	/* one pair of actions per entry: each attachment chains its own */
	for (i = 0; !err && !t->error && i < u.n; i++)
		err = plan_actions(p, pr, id, env, &u.v[i]);
out:
	uplaces_free(&u);
	free(binary);
	return err;
}

/* Append a timer for @pr named @name timing @func; returns its id or -1. */
static int add_timer(struct plan *p, const struct probe *pr, const char *name,
		     const char *func)
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
	t->where = describe(pr, pr->path, func);
	t->key = is_span(pr) ? key_str(pr) : NULL;
	if (!t->name || (func && !t->func) || !t->where ||
	    (is_span(pr) && pr->nkey && !t->key)) {
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
static int name_add(struct hsearch_data *ht, char *name)
{
	ENTRY e = { .key = name }, *found = NULL;

	return hsearch_r(e, ENTER, &found, ht) ? 0 : -ENOMEM;
}

struct glob_ctx {
	struct plan *p;
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
	if (is_ufunc(g->pr) && name[n] && n < sizeof(base)) {
		memcpy(base, name, n);
		base[n] = '\0';
		if (sym_clone_of(name, base) == 1) {
			if (ksyms_exists(g->names, base) != 1)
				name = base;
			else if (!fnmatch(g->pat, base, 0))
				return 0;
		}
	}
	if ((!is_ufunc(g->pr) && ksym_denied(name)) ||
	    strstr(name, ".cold") || name_taken(g->ht, name))
		return 0;
	g->matched++;
	id = add_timer(g->p, g->pr, name, name);
	if (id < 0 || name_add(g->ht, g->p->timers[id].name)) {
		g->err = -ENOMEM;
		return 1;
	}
	g->err = plan_probe(g->p, g->pr, (uint32_t)id, g->env, g->ks);
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
static int add_failed(struct plan *p, const struct probe *pr, char *msg)
{
	int id = msg ? add_timer(p, pr, pr->name, pr->func) : -1;

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
static int plan_glob(struct plan *p, const struct probe_list *pl,
		     const struct probe *pr, const struct plan_env *env,
		     const struct ksyms *ks, const struct ksyms *names,
		     struct hsearch_data *ht, size_t *scanned, int col,
		     const char *what, const char *none)
{
	struct glob_ctx g = { p, pl, pr, env, ks, ht, 0, 0, names, NULL, 0 };
	uint32_t n = 0;
	char *pat = glob_pattern(pr->func);

	if (!pat)
		return -ENOMEM;
	*scanned += ksyms_candidates(names, pat);
	if (*scanned > PLAN_MAX_GLOB_SCAN) {
		free(pat);
		return add_failed(p, pr,
				  perr(pr, col, "'%s': the globs compare more than %d names in all: begin it with a literal prefix or name the functions", pr->func,
					    PLAN_MAX_GLOB_SCAN));
	}
	ksyms_match(names, pat, count_match, &n);
	if (n > PLAN_MAX_GLOB) {
		free(pat);
		return add_failed(p, pr,
				  perr(pr, col, "'%s' matches %u %s, more than %d: narrow it", pr->func,
					    n, what, PLAN_MAX_GLOB));
	}
	if (p->ntimers + n > PLAN_MAX_TIMERS) {
		free(pat);
		return add_failed(p, pr,
				  perr(pr, col, "'%s' matches %u %s: more than %d timers in all", pr->func,
					    n, what, PLAN_MAX_TIMERS));
	}
	g.pat = pat;
	g.total = n;
	ksyms_match(names, pat, add_glob_match, &g);
	free(pat);
	if (g.err || g.matched)
		return g.err;
	if (n)
		return add_failed(p, pr,
				  perr(pr, col, "'%s': its matches (%u) are all timed by other lines or left out (NAME.cold%s)", pr->func,
					    n,
					    is_ufunc(pr) ? "" :
								       ", the deny list"));
	return add_failed(p, pr,
			  perr(pr, col, "'%s' matches no %s", pr->func, none));
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
		ret = add_failed(p, pr,
				 perr(pr, pr->start.col, "%s", err));
		goto out;
	}
	what = xasprintf("functions in %s", path);
	none = xasprintf("function in %s", path);
	ret = -ENOMEM;
	if (what && none)
		ret = plan_glob(p, pl, pr, env, NULL, &names, ht, scanned,
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

/*
 * Which probed instructions of user function timers their programs run
 * themselves (include/iprof/emu.h): each entry's and return site's,
 * decoded from the file; counted per timer where the kernel allows it.
 */
static void plan_emu(struct plan *p, const struct plan_env *env)
{
	struct plan_timer *t;
	uint32_t i, k, n;

	for (i = 0; i < p->natt; i++) {
		struct plan_att *a = &p->att[i];

		if (a->mech != MECH_UPROBE && a->mech != MECH_RETSITE)
			continue;
		emu_decode_at(p->pn->syms, a->path, a->offset,
			      a->mech == MECH_RETSITE, &a->emu);
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

/* a planner with nothing read yet, or NULL (no memory) */
static struct planner *planner_new(void)
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
static void planner_free(struct planner *pn)
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

int plan_build(struct plan *p, const struct probe_list *pl,
	       const struct plan_env *env)
{
	const char *tracefs = env->tracefs;
	struct hsearch_data ht = { 0 };
	struct ksyms ks = { 0 };
	int err = 0, id, made = 0;
	uint32_t i, nglobs = 0;
	size_t scanned = 0;
	char filter[4096];

	memset(p, 0, sizeof(*p));
	p->pn = planner_new();
	if (!p->pn)
		return -ENOMEM;
	for (i = 0; i < pl->n; i++)
		if (is_kfunc(&pl->v[i]))
			break;
	if (i < pl->n) {
		snprintf(filter, sizeof(filter),
			 "%s/available_filter_functions", tracefs ? tracefs : "");
		err = ksyms_load(&ks, env->kallsyms, tracefs ? filter : NULL);
		if (err) {
			planner_free(p->pn);
			p->pn = NULL;
			return err;
		}
	}
	for (i = 0; i < pl->n; i++)
		nglobs += has_glob(pl->v[i].func);
	if (nglobs) {
		/* names of the lines and of every timer a glob may add */
		if (!hcreate_r(pl->n + (size_t)PLAN_MAX_GLOB *
					       (nglobs < PLAN_MAX_GLOB_LINES ?
							nglobs :
							PLAN_MAX_GLOB_LINES),
			       &ht))
			err = -ENOMEM;
		made = !err;
		for (i = 0; i < pl->n && !err; i++)
			if (!has_glob(pl->v[i].name))
				err = name_add(&ht, pl->v[i].name);
	}
	for (i = 0, nglobs = 0; i < pl->n && !err; i++) {
		const struct probe *pr = &pl->v[i];

		if (has_glob(pr->func) && ++nglobs > PLAN_MAX_GLOB_LINES) {
			err = add_failed(p, pr,
					 perr(pr, pr->start.col, "more than %d glob lines in all: name the functions",
						   PLAN_MAX_GLOB_LINES));
			continue;
		}
		if (has_glob(pr->func) && strcmp(pr->name, pr->func)) {
			/* 'as' names one timer; it would be dropped */
			err = add_failed(p, pr,
					 perr(pr, pr->name_col, "'as %s' names one timer: a glob makes one per function, each named by its function",
						   pr->name));
			continue;
		}
		if (is_kfunc(pr) && has_glob(pr->func)) {
			err = plan_glob(p, pl, pr, env, &ks, &ks, &ht,
					&scanned, pr->start.col, "kernel functions",
					ks.traceable ? "traceable kernel function" :
					ks.funcs ? "kernel function" :
						   "kernel function (kallsyms unreadable)");
			continue;
		}
		if (is_ufunc(pr) && has_glob(pr->func)) {
			err = plan_uprobe_glob(p, pl, pr, env, &ht, &scanned);
			continue;
		}
		id = add_timer(p, pr, pr->name,
			       is_span(pr) ? NULL : pr->func);
		if (id < 0)
			err = -ENOMEM;
		else
			err = plan_probe(p, pr, (uint32_t)id, env, &ks);
	}
	ksyms_free(&ks);
	inl_forget();
	if (made)
		hdestroy_r(&ht);
	if (!err) {
		p->uregs = env->uregs;
		p->shstk_pid = env->shstk_pid;
		plan_emu(p, env);
	}
	planner_free(p->pn);
	p->pn = NULL;
	if (err)
		plan_free(p);
	return err;
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
		free(p->timers[i].key);
		free(p->timers[i].inl_where);
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
