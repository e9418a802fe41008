// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfarg.c - named arguments of kernel functions from BTF (src/kernel/btfarg.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

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

void btfarg_free(struct btfarg *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nmods; i++)
		btf__free(b->mods[i]);
	free(b->mods);
	btf__free(b->vmlinux);
	memset(b, 0, sizeof(*b));
}
