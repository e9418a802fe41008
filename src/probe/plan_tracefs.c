// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_tracefs.c - tracefs formats: tracepoint fields, their C types and
 * conditions on them, dynamic events (kprobe/uprobe events).
 * See src/probe/plan_int.h.
 */
#include <dirent.h>
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

/*
 * plan_fit_value() - convert VALUE @v for a comparison with a @width-byte
 * integer of signedness @is_signed, as C converts a constant: -1 against
 * an unsigned 4-byte field is 0xffffffff, 0xffffffff against a signed one
 * is -1 (sign-extended, as BPF extends the field).  Returns 0, or -ERANGE
 * if @v fits neither the signed nor the unsigned range of @width bytes.
 */
int plan_fit_value(iprof_u64 *v, unsigned int width, int is_signed)
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
char *plan_range_error(const struct probe *pr, const struct probe_cond *c,
			 const char *what, const char *type, unsigned int width)
{
	unsigned long long umax = (1ull << (8 * width)) - 1;
	char val[32];

	if ((int64_t)c->value < 0)
		snprintf(val, sizeof(val), "%lld", (long long)c->value);
	else
		snprintf(val, sizeof(val), "%llu",
			 (unsigned long long)c->value);
	return plan_perr(pr, c->col, "value %s does not fit %s (%s, %u byte%s: %lld to %llu)", val, what, type, width,
			 width == 1 ? "" : "s", -(long long)(umax >> 1) - 1,
			 umax);
}

/*
 * Resolve the conditions of one side into @a.  Returns NULL on success, or
 * an error message (malloc'ed; NULL-on-ENOMEM is reported as "out of memory"
 * by the caller's check of errno).
 */
/* condition @c of point @pt on a tracepoint field, from its format file,
 * into @k; NULL or the error (as plan_perr()) */
char *plan_resolve_tp_cond(const char *tracefs, const struct probe *pr,
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
		return plan_perr(pr, c->col, "tracepoint %s:%s has no field '%s' (its fields: %s)",
				 pt->category, pt->event, c->field,
				 fields);
	if (err == -EINVAL && fi.is_string)
		return plan_perr(pr, c->col, "field '%s' of %s:%s is a string (%s): iprof compares numbers only", c->field,
				 pt->category, pt->event, fi.type);
	if (err == -EINVAL && fi.is_array)
		return plan_perr(pr, c->col, "field '%s' of %s:%s is an array (%s): iprof compares numbers only", c->field,
				 pt->category, pt->event, fi.type);
	if (err == -EINVAL)
		return plan_perr(pr, c->col, "field '%s' of %s:%s (%s) is %u bytes: only fields of 1, 2, 4 or 8 bytes can be compared", c->field,
				 pt->category, pt->event, fi.type,
				 (unsigned int)fi.slot);
	if (err)
		return plan_perr(pr, pt->col, "tracepoint %s:%s not found (%s/events/%s/%s/format: %s)",
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
			return plan_perr(pr, c->col, "field '%s' of %s:%s is %u bytes (%s): ':%c%d' reads %d",
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
	if (plan_fit_value(&k->val, k->size, k->is_signed)) {
		snprintf(what, sizeof(what), "field '%s' of %s:%s",
			 c->field, pt->category, pt->event);
		return plan_range_error(pr, c, what, type, k->size);
	}
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
		return plan_perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s event ('%s' in %s/%s, made with uprobe_events or perf probe): BPF tracepoint programs cannot attach to it; time the function with uprobe:PATH:FUNC instead", pt->category,
				 pt->event, kind, def, tracefs, list);
	if (kind && (!strcmp(kind, "kprobe") || !strcmp(kind, "kretprobe")))
		return plan_perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s event ('%s' in %s/%s, made with kprobe_events or perf probe): BPF tracepoint programs cannot attach to it; time the function with kprobe:FUNC or func:FUNC instead", pt->category,
				 pt->event, kind, def, tracefs, list);
	if (kind)
		return plan_perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a %s ('%s' in %s/%s): BPF tracepoint programs cannot attach to it", pt->category,
				 pt->event, kind, def, tracefs, list);
	/* not listed (tracefs lists unreadable): the fields that probe
	 * events have and tracepoints do not (kernel/trace/trace_probe.h:
	 * FIELD_STRING_IP, FIELD_STRING_RETIP, FIELD_STRING_FUNC) */
	if (!plan_tp_field(tracefs, pt->category, pt->event, "__probe_ip", &fi,
			   NULL, 0) ||
	    !plan_tp_field(tracefs, pt->category, pt->event, "__probe_func",
			   &fi, NULL, 0))
		return plan_perr(pr, pt->col, "%s:%s is not a kernel tracepoint but a uprobe or kprobe event (its format has the __probe_ip or __probe_func field of probe events): BPF tracepoint programs cannot attach to it; use uprobe:PATH:FUNC or kprobe:FUNC instead", pt->category,
				 pt->event);
	return NULL;
}

/* scandir(3) filter: an entry that is no "." or ".." */
static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The names in folder @dir nearest to @want (ksym_suggest()) into @buf
 * (@len bytes, "" when none is near or @dir cannot be read).
 */
static void suggest_in(const char *dir, const char *want, char *buf,
		       size_t len)
{
	struct dirent **ents = NULL;
	char **names;
	int i, n = scandir(dir, &ents, not_dot, alphasort);

	buf[0] = '\0';
	if (n <= 0) {
		free(ents);
		return;
	}
	names = calloc((size_t)n, sizeof(*names));
	for (i = 0; names && i < n; i++)
		names[i] = ents[i]->d_name;
	if (names)
		ksym_suggest(names, (size_t)n, want, buf, len);
	free(names);
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/*
 * "; did you mean cat:event?" for tracepoint @pt that is not in @tracefs:
 * events of its category near its name, else categories near its
 * category (with its event); "" when none is near.
 */
static void tp_hint(const char *tracefs, const struct probe_point *pt,
		   char *hint, size_t len)
{
	char dir[PATH_MAX], near[256];
	struct stat st;

	hint[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/events/%s", tracefs, pt->category);
	if (!stat(dir, &st)) {
		suggest_in(dir, pt->event, near, sizeof(near));
		if (near[0] && !strchr(near, ','))
			snprintf(hint, len, KSYM_SUGGEST_PFX "%s:%s?",
				 pt->category, near);
		else if (near[0])
			snprintf(hint, len, KSYM_SUGGEST_PFX "%s (in %s)?",
				 near, pt->category);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/events", tracefs);
	suggest_in(dir, pt->category, near, sizeof(near));
	if (near[0] && !strchr(near, ','))
		snprintf(hint, len, KSYM_SUGGEST_PFX "%s:%s?", near, pt->event);
	else if (near[0])
		snprintf(hint, len, KSYM_SUGGEST_PFX "the category %s?", near);
}

char *plan_check_tp(const char *tracefs, const struct probe *pr,
		      const struct probe_point *pt)
{
	char hint[320];
	char path[PATH_MAX];
	FILE *f;

	if (!tracefs)
		return plan_perr(pr, pt->col, "tracepoint %s:%s: tracefs is not mounted (mount -t tracefs tracefs /sys/kernel/tracing)", pt->category,
				 pt->event);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
		 pt->category, pt->event);
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		if (e == ENOENT)
			tp_hint(tracefs, pt, hint, sizeof(hint));
		else
			hint[0] = '\0';
		return plan_perr(pr, pt->col, "tracepoint %s:%s not found (%s: %s)%s",
				 pt->category, pt->event, path, strerror(e),
				 hint);
	}
	fclose(f);
	return check_dyn_event(tracefs, pr, pt);
}
