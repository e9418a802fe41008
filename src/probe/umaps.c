// SPDX-License-Identifier: GPL-2.0-only
/*
 * --offcpu-stacks=user: traced processes' executable mappings, read from
 * /proc while they run, and their user addresses named through them
 * (include/iprof/umaps.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/sym.h"
#include "iprof/umaps.h"

/* most reads of one process's mappings (umaps_note()) */
#define UMAPS_READS 8

struct uproc {
	uint32_t tgid;
	int reads;	    /* of /proc/PID/maps so far */
	struct rec_umap *m; /* its mappings, paths owned */
	size_t n;
};

struct ufile {
	char *path;
	struct sym_addrs *syms; /* NULL: not ELF, or unreadable */
};

struct umaps {
	pthread_mutex_t mu;
	struct uproc *proc;
	size_t nproc;
	/* thread -> process, open addressing (tid 0: empty), ntid used */
	uint32_t *tid, *tgid;
	size_t ntid, tcap;
	struct ufile *file;
	size_t nfile;
	struct rec_umap *list; /* umaps_list()'s copy (paths not owned) */
};

struct umaps *umaps_new(void)
{
	struct umaps *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	pthread_mutex_init(&u->mu, NULL);
	return u;
}

static void proc_clear(struct uproc *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->m[i].path);
	free(p->m);
	p->m = NULL;
	p->n = 0;
}

void umaps_free(struct umaps *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nproc; i++)
		proc_clear(&u->proc[i]);
	for (i = 0; i < u->nfile; i++) {
		free(u->file[i].path);
		sym_addrs_free(u->file[i].syms);
	}
	free(u->proc);
	free(u->tid);
	free(u->tgid);
	free(u->file);
	free(u->list);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

static struct uproc *proc_of(struct umaps *u, uint32_t tgid, int add)
{
	struct uproc *v;
	size_t i;

	for (i = 0; i < u->nproc; i++)
		if (u->proc[i].tgid == tgid)
			return &u->proc[i];
	if (!add)
		return NULL;
	v = realloc(u->proc, (u->nproc + 1) * sizeof(*v));
	if (!v)
		return NULL;
	u->proc = v;
	v = &u->proc[u->nproc++];
	memset(v, 0, sizeof(*v));
	v->tgid = tgid;
	return v;
}

/* tid_slot() - @tid's slot of the thread table (its tid 0: free) */
static size_t tid_slot(const struct umaps *u, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (u->tcap - 1);

	while (u->tid[i] && u->tid[i] != tid)
		i = (i + 1) & (u->tcap - 1);
	return i;
}

/* tid_put() - @tid is of process @tgid; 0 or -ENOMEM */
static int tid_put(struct umaps *u, uint32_t tid, uint32_t tgid)
{
	size_t i;

	if (2 * (u->ntid + 1) > u->tcap) {
		struct umaps o = *u;
		size_t cap = u->tcap ? 2 * u->tcap : 256;

		u->tid = calloc(cap, sizeof(*u->tid));
		u->tgid = calloc(cap, sizeof(*u->tgid));
		if (!u->tid || !u->tgid) {
			free(u->tid);
			free(u->tgid);
			u->tid = o.tid;
			u->tgid = o.tgid;
			return -ENOMEM;
		}
		u->tcap = cap;
		for (i = 0; i < o.tcap; i++)
			if (o.tid[i]) {
				size_t k = tid_slot(u, o.tid[i]);

				u->tid[k] = o.tid[i];
				u->tgid[k] = o.tgid[i];
			}
		free(o.tid);
		free(o.tgid);
	}
	i = tid_slot(u, tid);
	if (!u->tid[i])
		u->ntid++;
	u->tid[i] = tid;
	u->tgid[i] = tgid;
	return 0;
}

/* tgid_of() - @tid's process (from /proc/TID/status the first time);
 * 0 when it is gone */
static uint32_t tgid_of(struct umaps *u, uint32_t tid)
{
	char path[64], line[256];
	unsigned int tgid = 0;
	FILE *f;

	if (u->tcap && u->tid[tid_slot(u, tid)] == tid)
		return u->tgid[tid_slot(u, tid)];
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	if (tgid && tid_put(u, tid, tgid))
		return 0;
	return tgid;
}

static const struct rec_umap *map_of(const struct uproc *p, uint64_t addr)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (addr >= p->m[i].start && addr < p->m[i].end)
			return &p->m[i];
	return NULL;
}

/* push_map() - one more mapping of @p; 0 or -ENOMEM */
static int push_map(struct uproc *p, const struct rec_umap *m)
{
	struct rec_umap *v = realloc(p->m, (p->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->m = v;
	v[p->n] = *m;
	v[p->n].path = strdup(m->path);
	if (!v[p->n].path)
		return -ENOMEM;
	p->n++;
	return 0;
}

/* read_maps() - @p's executable file mappings from /proc/@tid/maps, in
 * place of those it had; 0, -ENOENT (gone), -ENOMEM */
static int read_maps(struct uproc *p, uint32_t tid)
{
	struct uproc q = {.tgid = p->tgid, .reads = p->reads + 1};
	char path[64], line[4096 + 128], perm[8], file[4096];
	unsigned long long s, e, off;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", tid);
	f = fopen(path, "re");
	if (!f) {
		p->reads++;
		return -ENOENT;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s,
			   &e, perm, &off, file) < 5 ||
		    perm[2] != 'x' || file[0] != '/')
			continue;
		ret = push_map(&q,
			       &(struct rec_umap){p->tgid, s, e, off, file});
	}
	fclose(f);
	if (ret) {
		proc_clear(&q);
		return ret;
	}
	proc_clear(p);
	*p = q;
	return 0;
}

int umaps_note(struct umaps *u, uint32_t tid, const uint64_t *addr, size_t n)
{
	struct uproc *p;
	uint32_t tgid;
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&u->mu);
	tgid = tgid_of(u, tid);
	p = tgid ? proc_of(u, tgid, 1) : NULL;
	if (!p) {
		ret = tgid ? -ENOMEM : -ENOENT;
		goto out;
	}
	for (i = 0; i < n && (!addr[i] || map_of(p, addr[i])); i++)
		;
	if ((i < n || !p->reads) && p->reads < UMAPS_READS)
		ret = read_maps(p, tid);
out:
	pthread_mutex_unlock(&u->mu);
	return ret;
}

int umaps_add(struct umaps *u, const struct rec_umap *m)
{
	struct uproc *p;
	int ret;

	pthread_mutex_lock(&u->mu);
	p = proc_of(u, m->tgid, 1);
	ret = p ? push_map(p, m) : -ENOMEM;
	if (p && !p->reads)
		p->reads = UMAPS_READS; /* a recording's: never read again */
	pthread_mutex_unlock(&u->mu);
	return ret;
}

size_t umaps_list(struct umaps *u, const struct rec_umap **out)
{
	struct rec_umap *v;
	size_t i, k, n = 0;

	pthread_mutex_lock(&u->mu);
	for (i = 0; i < u->nproc; i++)
		n += u->proc[i].n;
	v = realloc(u->list, (n ? n : 1) * sizeof(*v));
	if (v) {
		u->list = v;
		for (i = 0, n = 0; i < u->nproc; i++)
			for (k = 0; k < u->proc[i].n; k++)
				v[n++] = u->proc[i].m[k];
	} else {
		n = 0;
	}
	*out = u->list;
	pthread_mutex_unlock(&u->mu);
	return n;
}

/* file_syms() - @path's functions, read at its first use (NULL: none) */
static const struct sym_addrs *file_syms(struct umaps *u, const char *path)
{
	struct ufile *v;
	size_t i;

	for (i = 0; i < u->nfile; i++)
		if (!strcmp(u->file[i].path, path))
			return u->file[i].syms;
	v = realloc(u->file, (u->nfile + 1) * sizeof(*v));
	if (!v)
		return NULL;
	u->file = v;
	v = &u->file[u->nfile];
	v->path = strdup(path);
	if (!v->path)
		return NULL;
	v->syms = sym_addrs_load(path);
	u->nfile++;
	return v->syms;
}

const char *umaps_name(struct umaps *u, uint32_t tgid, uint64_t addr, char *buf,
		       size_t size)
{
	const struct rec_umap *m;
	const char *name = NULL, *base;
	uint64_t off;

	pthread_mutex_lock(&u->mu);
	m = map_of(proc_of(u, tgid, 0), addr);
	if (m) {
		off = addr - m->start + m->pgoff;
		name = sym_addrs_name(file_syms(u, m->path), off, buf, size);
		if (!name) {
			base = strrchr(m->path, '/');
			snprintf(buf, size, "%s+%#" PRIx64,
				 base ? base + 1 : m->path, off);
			name = buf;
		}
	}
	pthread_mutex_unlock(&u->mu);
	return name;
}
