// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel addresses to function names from a kallsyms file (include/
 * iprof/ksym.h): the text symbols sorted by address, found by binary
 * search.  For --offcpu-stacks' kernel stacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/ksym.h"

struct ksym_ent {
	unsigned long long addr;
	char *name; /* "name" or "name [module]", owned */
};

struct ksym_addrs {
	struct ksym_ent *v;
	size_t n;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* add_line() - one "ADDR TYPE NAME [MODULE]" line's text symbol; 0/-errno */
static int add_line(struct ksym_addrs *t, size_t *cap, const char *line)
{
	char type, name[256], mod[128] = "";
	unsigned long long addr;
	struct ksym_ent *v;
	int k;

	k = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
	if (k < 3 || !addr || (type != 't' && type != 'T'))
		return 0;
	if (t->n == *cap) {
		*cap = *cap ? 2 * *cap : 65536;
		v = realloc(t->v, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
	}
	v = &t->v[t->n];
	v->addr = addr;
	if (k == 4) {
		size_t len = strlen(name) + strlen(mod) + 4;

		v->name = malloc(len);
		if (v->name)
			snprintf(v->name, len, "%s [%s]", name, mod);
	} else {
		v->name = strdup(name);
	}
	if (!v->name)
		return -ENOMEM;
	t->n++;
	return 0;
}

struct ksym_addrs *ksym_addrs_load(const char *kallsyms)
{
	struct ksym_addrs *t = calloc(1, sizeof(*t));
	char line[512];
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (!t)
		return NULL;
	f = fopen(kallsyms, "re");
	if (!f) {
		err = errno;
		free(t);
		errno = err;
		return NULL;
	}
	while (!err && fgets(line, sizeof(line), f))
		err = add_line(t, &cap, line);
	fclose(f);
	if (!err && !t->n)
		err = -ENOENT;
	if (err) {
		ksym_addrs_free(t);
		errno = -err;
		return NULL;
	}
	qsort(t->v, t->n, sizeof(*t->v), cmp_addr);
	return t;
}

const char *ksym_addr_name(const struct ksym_addrs *t, unsigned long long addr,
			   char *buf, size_t size, unsigned long long *off)
{
	size_t lo = 0, hi;

	if (!t || !t->n || addr < t->v[0].addr)
		return NULL;
	hi = t->n;
	while (hi - lo > 1) { /* v[lo].addr <= addr < v[hi].addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*off = addr - t->v[lo].addr;
	snprintf(buf, size, "%s", t->v[lo].name);
	return buf;
}

void ksym_addrs_free(struct ksym_addrs *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	free(t);
}
