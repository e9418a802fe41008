// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfarg.c - named arguments of kernel functions from BTF (src/kernel/btfarg.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "iprof/abi.h"
#include "kernel/btfarg.h"

static void load(struct btfarg *b)
{
	char path[512];
	struct dirent *de;
	struct btf **v, *m;
	DIR *d;

	b->loaded = 1;
	b->vmlinux = btf__load_vmlinux_btf();
	if (!b->vmlinux)
		return;
	d = opendir("/sys/kernel/btf");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		m = btf__parse_split(path, b->vmlinux);
		if (!m)
			continue;
		v = realloc(b->mods, (b->nmods + 1) * sizeof(*v));
		if (!v) {
			btf__free(m);
			break;
		}
		b->mods = v;
		b->mods[b->nmods++] = m;
	}
	closedir(d);
}

/* The type under typedefs and qualifiers. */
static const struct btf_type *strip(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) ||
		     btf_is_volatile(t) || btf_is_restrict(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

static int find(const struct btf *btf, const char *func, const char *name,
		int *index, int *width, int *is_signed, char *names,
		size_t len)
{
	const struct btf_type *fn, *proto, *t;
	const struct btf_param *p;
	size_t used = 0;
	int id, i, n;

	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	p = btf_params(proto);
	n = btf_vlen(proto);
	if (len)
		names[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *pn = btf__name_by_offset(btf, p[i].name_off);

		if (!pn || strcmp(pn, name)) {
			if (pn && used + strlen(pn) + 3 < len)
				used += (size_t)snprintf(names + used,
							 len - used, "%s%s",
							 used ? ", " : "", pn);
			continue;
		}
		*index = i;
		*width = 8;
		*is_signed = 0;
		t = strip(btf, p[i].type);
		if (t && btf_is_int(t)) {
			*width = (int)t->size;
			*is_signed = !!(btf_int_encoding(t) & BTF_INT_SIGNED);
		} else if (t && (btf_is_enum(t) || btf_is_enum64(t))) {
			*width = (int)t->size;
			*is_signed = btf_kflag(t);
		}
		if (*width != 1 && *width != 2 && *width != 4)
			*width = 8;
		return 0;
	}
	return -ESRCH;
}

/* a function of one of the BTFs: btfarg_idx's sorted entries */
struct btfarg_fn {
	const char *name; /* in its BTF's strings */
	__u32 id; /* its BTF_KIND_FUNC */
	__u32 btf; /* 0: vmlinux, 1 + i: mods[i] */
};

/* what a btf_dump prints a declaration into */
struct decl {
	char *buf;
	size_t len, used;
};

struct btfarg_idx {
	struct btfarg_fn *fns; /* sorted by name; the first of a name wins */
	size_t nfns, cap;
	struct btf_dump **dumps; /* per BTF as btfarg_fn.btf, made on use */
	struct decl d; /* where the dumps print now */
};

static const struct btf *btf_nr(const struct btfarg *b, __u32 k)
{
	return k ? b->mods[k - 1] : b->vmlinux;
}

static int fn_cmp(const void *x, const void *y)
{
	const struct btfarg_fn *a = x, *c = y;
	int d = strcmp(a->name, c->name);

	/* equal names: vmlinux first, then the modules in order */
	return d ? d : (a->btf > c->btf) - (a->btf < c->btf);
}

/* index_add() - @btf's (number @k) functions into @x; -ENOMEM */
static int index_add(struct btfarg_idx *x, const struct btf *btf, __u32 k)
{
	/* a module's split BTF numbers its own types after vmlinux's */
	__u32 id = k ? btf__type_cnt(btf__base_btf(btf)) : 1;
	__u32 n = btf__type_cnt(btf);
	const struct btf_type *t;
	struct btfarg_fn *v;

	for (; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!t || !btf_is_func(t))
			continue;
		if (x->nfns == x->cap) {
			x->cap = x->cap * 2 + 1024;
			v = realloc(x->fns, x->cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			x->fns = v;
		}
		x->fns[x->nfns].name = btf__name_by_offset(btf, t->name_off);
		x->fns[x->nfns].id = id;
		x->fns[x->nfns++].btf = k;
	}
	return 0;
}

/* index_make() - @b's index of every function of its BTFs; -ENOMEM */
static int index_make(struct btfarg *b)
{
	struct btfarg_idx *x = calloc(1, sizeof(*x));
	size_t i;
	int err = 0;

	if (!x)
		return -ENOMEM;
	x->dumps = calloc(b->nmods + 1, sizeof(*x->dumps));
	err = x->dumps ? index_add(x, b->vmlinux, 0) : -ENOMEM;
	for (i = 0; !err && i < b->nmods; i++)
		err = index_add(x, b->mods[i], (__u32)i + 1);
	if (err) {
		free(x->fns);
		free(x->dumps);
		free(x);
		return err;
	}
	qsort(x->fns, x->nfns, sizeof(*x->fns), fn_cmp);
	b->idx = x;
	return 0;
}

/* index_find() - the first (vmlinux's before a module's) function @name */
static const struct btfarg_fn *index_find(const struct btfarg_idx *x,
					  const char *name)
{
	size_t lo = 0, hi = x->nfns, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(x->fns[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nfns && !strcmp(x->fns[lo].name, name) ? &x->fns[lo] :
								  NULL;
}

static void decl_printf(void *ctx, const char *fmt, va_list ap)
{
	struct decl *d = ctx;
	int n;

	if (d->used >= d->len)
		return;
	n = vsnprintf(d->buf + d->used, d->len - d->used, fmt, ap);
	if (n > 0)
		d->used += (size_t)n;
	if (d->used >= d->len)
		d->used = d->len - 1;
}

/* type_decl() - the C declaration of type @id of BTF @k ("struct file *",
 * "void"), through libbpf's btf_dump, into @buf ("" if it fails) */
static void type_decl(struct btfarg *b, __u32 k, __u32 id, char *buf,
		      size_t len)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	struct btfarg_idx *x = b->idx;

	buf[0] = '\0';
	if (!id) {
		snprintf(buf, len, "void");
		return;
	}
	if (!x->dumps[k])
		x->dumps[k] = btf_dump__new(btf_nr(b, k), decl_printf, &x->d,
					    NULL);
	if (!x->dumps[k])
		return;
	x->d = (struct decl){ buf, len, 0 };
	if (btf_dump__emit_type_decl(x->dumps[k], id, &o))
		buf[0] = '\0';
}

/* how plan_params_fn's FMT shows a value of type @id: "p", "u4", "s8",
 * "-" (void), "?" (a struct by value, a float: not one 8-byte slot) */
static void type_fmt(const struct btf *btf, __u32 id, char *fmt)
{
	const struct btf_type *t = id ? strip(btf, id) : NULL;

	if (!id)
		strcpy(fmt, "-");
	else if (t && btf_is_ptr(t))
		strcpy(fmt, "p");
	else if (t && btf_is_int(t) && t->size <= 8)
		sprintf(fmt, "%c%u",
			btf_int_encoding(t) & BTF_INT_SIGNED ? 's' : 'u',
			t->size);
	else if (t && (btf_is_enum(t) || btf_is_enum64(t)) && t->size <= 8)
		sprintf(fmt, "%c%u", btf_kflag(t) ? 's' : 'u', t->size);
	else
		strcpy(fmt, "?");
}

/* one "NAME:FMT:TYPE" of plan_params_fn (a ';' before all but the
 * first) onto @out (@used of @len); -E2BIG when it does not fit */
static int put_param(struct btfarg *b, __u32 k, const char *name,
		     __u32 type, char *out, size_t len, size_t *used,
		     char *fmt)
{
	char decl[256];
	int n;

	type_fmt(btf_nr(b, k), type, fmt);
	type_decl(b, k, type, decl, sizeof(decl));
	n = snprintf(out + *used, len - *used, "%s%s:%s:%s", *used ? ";" : "",
		     name, fmt, decl[0] ? decl : "?");
	if (n < 0 || (size_t)n >= len - *used)
		return -E2BIG;
	*used += (size_t)n;
	return 0;
}

static int params_of(struct btfarg *b, const struct btfarg_fn *f, char *out,
		     size_t len)
{
	const struct btf *btf = btf_nr(b, f->btf);
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	size_t used = 0;
	char fmt[8];
	int i, n;

	fn = btf__type_by_id(btf, f->id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	if (put_param(b, f->btf, "", proto->type, out, len, &used, fmt))
		return -E2BIG;
	p = btf_params(proto);
	n = btf_vlen(proto);
	for (i = 0; i < n && i < IPROF_NARGS; i++) {
		const char *pn = btf__name_by_offset(btf, p[i].name_off);

		if (!p[i].type) /* "...": no more named arguments */
			break;
		if (put_param(b, f->btf, pn && *pn ? pn : "?", p[i].type, out,
			      len, &used, fmt))
			return -E2BIG;
		if (!strcmp(fmt, "?")) /* the slots after it shift */
			break;
	}
	return 0;
}

int btfarg_params(void *ctx, const char *func, char **out)
{
	struct btfarg *b = ctx;
	const struct btfarg_fn *f;
	char buf[2048];
	int err;

	*out = NULL;
	if (!b->loaded)
		load(b);
	if (!b->vmlinux)
		return -ENOENT;
	if (!b->idx && (err = index_make(b)))
		return err;
	f = index_find(b->idx, func);
	if (!f)
		return -ENOENT;
	err = params_of(b, f, buf, sizeof(buf));
	if (err)
		return err;
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

int btfarg_resolve(void *ctx, const char *func, const char *name, int *index,
		   int *width, int *is_signed, char *names, size_t len)
{
	struct btfarg *b = ctx;
	size_t i;
	int err;

	if (!b->loaded)
		load(b);
	if (!b->vmlinux)
		return -ENOENT;
	err = find(b->vmlinux, func, name, index, width, is_signed, names,
		   len);
	for (i = 0; err == -ENOENT && i < b->nmods; i++)
		err = find(b->mods[i], func, name, index, width, is_signed,
			   names, len);
	return err;
}

/* a type btfarg_enum_name() looked up: its BTF (0: vmlinux, k: module
 * k - 1) and enum type id there, 0: none */
struct btfarg_enum {
	char *type;
	size_t btf;
	__u32 id;
};

/* enum_lookup() - the enum that C type @type declares: its BTF's number
 * into *@k and its id (0: none) */
static __u32 enum_lookup(struct btfarg *b, const char *type, size_t *k)
{
	const struct btf_type *t;
	const char *name = type;
	int is_enum, id;

	while (!strncmp(name, "const ", 6) || !strncmp(name, "volatile ", 9))
		name = strchr(name, ' ') + 1;
	is_enum = !strncmp(name, "enum ", 5);
	if (is_enum)
		name += 5;
	for (*k = 0; *k <= b->nmods; (*k)++) {
		const struct btf *btf = btf_nr(b, (__u32)*k);

		id = is_enum ? btf__find_by_name_kind(btf, name, BTF_KIND_ENUM) :
			       btf__find_by_name_kind(btf, name,
						      BTF_KIND_TYPEDEF);
		if (id <= 0 && is_enum)
			id = btf__find_by_name_kind(btf, name,
						    BTF_KIND_ENUM64);
		if (id <= 0)
			continue;
		while ((t = btf__type_by_id(btf, (__u32)id)) &&
		       (btf_is_typedef(t) || btf_is_const(t) ||
			btf_is_volatile(t)))
			id = (int)t->type;
		return t && (btf_is_enum(t) || btf_is_enum64(t)) ? (__u32)id :
								   0;
	}
	return 0;
}

/* enum_of() - the cached lookup of @type, NULL when out of memory */
static const struct btfarg_enum *enum_of(struct btfarg *b, const char *type)
{
	struct btfarg_enum *v;
	size_t i;

	for (i = 0; i < b->nenums; i++)
		if (!strcmp(b->enums[i].type, type))
			return &b->enums[i];
	v = realloc(b->enums, (b->nenums + 1) * sizeof(*v));
	if (!v)
		return NULL;
	b->enums = v;
	v = &v[b->nenums];
	v->type = strdup(type);
	if (!v->type)
		return NULL;
	v->id = enum_lookup(b, type, &v->btf);
	b->nenums++;
	return v;
}

const char *btfarg_enum_name(struct btfarg *b, const char *type, int64_t v,
			     char *buf, size_t len)
{
	const struct btfarg_enum *e;
	const struct btf_type *t;
	const struct btf *btf;
	uint64_t want = (uint64_t)v, mask;
	__u16 i, n;

	if (!b->loaded)
		load(b);
	if (!b->vmlinux || !type || !(e = enum_of(b, type)) || !e->id)
		return NULL;
	btf = btf_nr(b, (__u32)e->btf);
	t = btf__type_by_id(btf, e->id);
	mask = t->size >= 8 ? ~0ull : (1ull << (8 * t->size)) - 1;
	n = btf_vlen(t);
	for (i = 0; i < n; i++) {
		uint64_t ev = btf_is_enum(t) ?
				      (uint64_t)(int64_t)btf_enum(t)[i].val :
				      btf_enum64_value(btf_enum64(t) + i);
		const char *name;

		if ((ev & mask) != (want & mask))
			continue;
		name = btf_is_enum(t) ?
			       btf__name_by_offset(btf, btf_enum(t)[i].name_off) :
			       btf__name_by_offset(btf,
						   btf_enum64(t)[i].name_off);
		if (!name || !*name)
			return NULL;
		snprintf(buf, len, "%s", name);
		return buf;
	}
	return NULL;
}

void btfarg_free(struct btfarg *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nenums; i++)
		free(b->enums[i].type);
	free(b->enums);
	for (i = 0; b->idx && i <= b->nmods; i++)
		btf_dump__free(b->idx->dumps[i]);
	if (b->idx) {
		free(b->idx->dumps);
		free(b->idx->fns);
		free(b->idx);
	}
	for (i = 0; i < b->nmods; i++)
		btf__free(b->mods[i]);
	free(b->mods);
	btf__free(b->vmlinux);
	memset(b, 0, sizeof(*b));
}
