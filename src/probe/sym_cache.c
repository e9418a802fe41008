// SPDX-License-Identifier: GPL-2.0-only
/*
 * The planner's cache of uprobe binaries (struct sym_cache, see
 * include/iprof/sym.h): each ELF file (and its debug file) opened once,
 * its symbols indexed once in hash tables by name, by clone suffix and by
 * demangled C++ name (each name demangled at most once, only those a
 * lookup's tokens may match), and the answers of path lookups and stat(2)
 * kept; a lookup picks its candidates from the index (sym_collect_cached())
 * instead of scanning the symbol table.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <zlib.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/util.h"
#include "probe/sym_int.h"

/* More files than this (a plan rarely names ten) are read uncached. */
#define SYM_CACHE_FILES 64

/* An answer kept: sym_resolve_path()'s (@kind 0: @ret, @out, @err) or
 * stat(2)'s (@kind 1: @ret, @st) for @name. */
struct sym_memo {
	char *name, *out, *err;
	int kind, ret;
	struct stat st;
};

struct sym_cache {
	struct sym_file *v;
	size_t n;
	struct sym_memo *memo;
	size_t nmemo;
};

struct picks {
	struct sym_pick *v;
	size_t n;
};

struct sym_cache *sym_cache_new(void)
{
	return calloc(1, sizeof(struct sym_cache));
}

static void hash_free(struct sym_hash *h)
{
	free(h->head);
	free(h->next);
	free(h->ent);
	free(h->len);
	free(h->key);
	memset(h, 0, sizeof(*h));
}

/* FNV-1a of the @len bytes at @s */
static uint32_t hash_of(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Key entry @ent by the @len bytes at @key (kept, not copied) in @h,
 * whose buckets hash_index() makes.  0 or -ENOMEM. */
static int hash_add(struct sym_hash *h, size_t ent, const char *key,
		    size_t len)
{
	if (util_grow(&h->ent, h->n, sizeof(*h->ent)) ||
	    util_grow(&h->len, h->n, sizeof(*h->len)) ||
	    util_grow(&h->next, h->n, sizeof(*h->next)) ||
	    util_grow(&h->key, h->n, sizeof(*h->key)))
		return -ENOMEM;
	h->ent[h->n] = (uint32_t)ent;
	h->len[h->n] = (uint32_t)len;
	h->key[h->n] = key;
	h->n++;
	return 0;
}

/* The buckets of @h, once its entries are added: chains in the order
 * they were added.  0 or -ENOMEM. */
static int hash_index(struct sym_hash *h)
{
	uint32_t b, *tail;
	size_t i;

	for (h->nb = 64; h->nb < 2 * h->n; h->nb *= 2)
		;
	h->head = malloc(h->nb * sizeof(*h->head));
	tail = malloc(h->nb * sizeof(*tail));
	if (!h->head || !tail) {
		free(tail);
		return -ENOMEM;
	}
	memset(h->head, 0xff, h->nb * sizeof(*h->head));
	for (i = 0; i < h->n; i++) {
		b = hash_of(h->key[i], h->len[i]) & (h->nb - 1);
		h->next[i] = ~0u;
		if (h->head[b] == ~0u)
			h->head[b] = (uint32_t)i;
		else
			h->next[tail[b]] = (uint32_t)i;
		tail[b] = (uint32_t)i;
	}
	free(tail);
	return 0;
}

/* hash_add() into @h once its @nb buckets are made (hash_buckets()):
 * chained at once.  0 or -ENOMEM. */
static int hash_insert(struct sym_hash *h, size_t ent, const char *key,
		       size_t len)
{
	uint32_t b = hash_of(key, len) & (h->nb - 1);

	if (hash_add(h, ent, key, len))
		return -ENOMEM;
	h->next[h->n - 1] = h->head[b];
	h->head[b] = (uint32_t)(h->n - 1);
	return 0;
}

/* @h's buckets for about @n entries, all empty.  0 or -ENOMEM. */
static int hash_buckets(struct sym_hash *h, size_t n)
{
	for (h->nb = 64; h->nb < 2 * n; h->nb *= 2)
		;
	h->head = malloc(h->nb * sizeof(*h->head));
	if (!h->head)
		return -ENOMEM;
	memset(h->head, 0xff, h->nb * sizeof(*h->head));
	return 0;
}

/* The first entry of @h keyed by the @len bytes at @s (then
 * hash_next()), or ~0u. */
static uint32_t hash_next(const struct sym_hash *h, uint32_t i, const char *s,
			  size_t len)
{
	for (; i != ~0u; i = h->next[i])
		if (h->len[i] == len && !memcmp(h->key[i], s, len))
			return i;
	return ~0u;
}

static uint32_t hash_first(const struct sym_hash *h, const char *s,
			   size_t len)
{
	if (!h->nb)
		return ~0u;
	return hash_next(h, h->head[hash_of(s, len) & (h->nb - 1)], s, len);
}

static void index_free(struct sym_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->v[i].dem);
		free(ix->v[i].key);
	}
	free(ix->v);
	hash_free(&ix->byname);
	hash_free(&ix->byclone);
	hash_free(&ix->bycxx);
	for (i = 0; i < ix->ntok; i++)
		free(ix->tok[i]);
	free(ix->tok);
	memset(ix, 0, sizeof(*ix));
}

void sym_cache_free(struct sym_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		index_free(&c->v[i].ix[0]);
		index_free(&c->v[i].ix[1]);
		free(c->v[i].starts);
		free(c->v[i].path);
		sym_close_elfs(c->v[i].elf, c->v[i].fd, c->v[i].dbg, c->v[i].dfd);
	}
	for (i = 0; i < c->nmemo; i++) {
		free(c->memo[i].name);
		free(c->memo[i].out);
		free(c->memo[i].err);
	}
	free(c->memo);
	free(c->v);
	free(c);
}

/* The answer of @kind for @name kept in @c, or NULL. */
static struct sym_memo *memo_find(struct sym_cache *c, int kind,
				  const char *name)
{
	size_t i;

	for (i = 0; i < c->nmemo; i++)
		if (c->memo[i].kind == kind && !strcmp(c->memo[i].name, name))
			return &c->memo[i];
	return NULL;
}

/* A new answer of @kind for @name in @c (its fields to fill), or NULL
 * (out of memory, or SYM_CACHE_FILES answers kept: not kept). */
static struct sym_memo *memo_add(struct sym_cache *c, int kind,
				 const char *name)
{
	struct sym_memo *m;

	if (c->nmemo == SYM_CACHE_FILES ||
	    util_grow(&c->memo, c->nmemo, sizeof(*c->memo)))
		return NULL;
	m = &c->memo[c->nmemo];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	if (!(m->name = strdup(name)))
		return NULL;
	c->nmemo++;
	return m;
}

int sym_cache_resolve_path(struct sym_cache *c, const char *name, char **out,
			   char *err, size_t errlen)
{
	struct sym_memo *m = c ? memo_find(c, 0, name) : NULL;
	int ret;

	if (m) {
		*out = NULL;
		if (!m->ret && !(*out = strdup(m->out)))
			return -ENOMEM;
		if (m->ret)
			util_set_err(err, errlen, "%s", m->err);
		return m->ret;
	}
	ret = sym_resolve_path(name, out, err, errlen);
	if (ret == -ENOMEM || !c || !(m = memo_add(c, 0, name)))
		return ret;
	m->ret = ret;
	if (ret ? !(m->err = strdup(err)) : !(m->out = strdup(*out)))
		m->ret = -ENOMEM; /* not kept: asked again */
	if (m->ret == -ENOMEM)
		m->kind = -1;
	return ret;
}

int sym_cache_stat(struct sym_cache *c, const char *path, struct stat *st)
{
	struct sym_memo *m = c ? memo_find(c, 1, path) : NULL;

	if (m) {
		*st = m->st;
		return m->ret;
	}
	if (stat(path, st))
		return -errno;
	if (c && (m = memo_add(c, 1, path)))
		m->st = *st;
	return 0;
}

/* The defined symbols of table @tab (@scn) of @elf into @ix, as
 * scan_symbols() walks them. */
static int index_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int tab,
		       struct sym_index *ix)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	size_t i, n;
	int type;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (tab && (type == STT_FUNC || type == STT_GNU_IFUNC))
			ix->dyn_funcs++;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (util_grow(&ix->v, ix->n, sizeof(*ix->v)))
			return -ENOMEM;
		memset(&ix->v[ix->n], 0, sizeof(ix->v[ix->n]));
		ix->v[ix->n].name = name;
		ix->v[ix->n].idx = i;
		ix->v[ix->n].tab = tab;
		ix->v[ix->n].func = type == STT_FUNC || type == STT_GNU_IFUNC;
		ix->n++;
	}
	return 0;
}

/* @ix's names keyed: by name up to '@', by every name a clone suffix
 * follows ("f" and "f.constprop.0" for f.constprop.0.isra.0). */
static int index_keys(struct sym_index *ix)
{
	const char *nm, *d;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ix->n; i++) {
		nm = ix->v[i].name;
		ret = hash_add(&ix->byname, i, nm, strcspn(nm, "@"));
		for (d = strchr(nm, '.'); !ret && d; d = strchr(d + 1, '.'))
			if (sym_clone_suffix(d))
				ret = hash_add(&ix->byclone, i, nm,
					       (size_t)(d - nm));
	}
	if (!ret)
		ret = hash_index(&ix->byname);
	if (!ret)
		ret = hash_index(&ix->byclone);
	return ret;
}

/* The first .symtab and .dynsym of @elf (sym_collect()'s) into @ix, keyed. */
static int index_build(Elf *elf, struct sym_index *ix)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symtab_sh = { 0 }, dynsym_sh = { 0 };
	int ret = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		}
	}
	if (symtab)
		ret = index_table(elf, symtab, &symtab_sh, 0, ix);
	if (!ret && dynsym)
		ret = index_table(elf, dynsym, &dynsym_sh, 1, ix);
	if (!ret)
		ret = index_keys(ix);
	return ret;
}

/* Demangle function @i of @ix, a name in both tables once, and key it
 * by its C++ name part.  0 or -ENOMEM. */
static int cxx_one(struct sym_index *ix, size_t i)
{
	struct sym_ent *e = &ix->v[i], *same = NULL;
	size_t len = strcspn(e->name, "@");
	const char *nm, *paren;
	char d[1024];
	uint32_t k;

	e->tried = true;
	/* the name demangled before (in the other table)? */
	for (k = hash_first(&ix->byname, e->name, len);
	     k != ~0u && ix->byname.ent[k] < i && !same;
	     k = hash_next(&ix->byname, ix->byname.next[k], e->name, len))
		if (ix->v[ix->byname.ent[k]].func &&
		    !strcmp(ix->v[ix->byname.ent[k]].name, e->name))
			same = &ix->v[ix->byname.ent[k]];
	if (same && same->tried) {
		e->cold = same->cold;
		e->nm = same->nm;
		e->paren = same->paren;
		if ((same->dem && !(e->dem = strdup(same->dem))) ||
		    (same->key && !(e->key = strdup(same->key))))
			return -ENOMEM;
	} else if (!sym_demangle_raw(e->name, &e->dem, &e->cold) &&
		   sym_cxx_name_part(e->dem, d, sizeof(d), &nm, &paren)) {
		e->nm = (uint32_t)(nm - e->dem);
		e->paren = (uint32_t)(paren - e->dem);
		if (!(e->key = strdup(d)))
			return -ENOMEM;
	}
	return e->key ? hash_insert(&ix->bycxx, i, e->key, strlen(e->key)) : 0;
}

/*
 * Demangle the functions of @ix not yet demangled: those whose names hold
 * @tok (sym_name_token(): no other can match a name that begins with its
 * identifier), or with @tok NULL all of them; each once, keyed by its C++
 * name part.  0 or -ENOMEM.
 */
int sym_cxx_index(struct sym_index *ix, const char *tok)
{
	size_t i, nfunc = 0;
	int ret = 0;

	if (ix->cxx_all)
		return 0;
	for (i = 0; tok && i < ix->ntok; i++)
		if (!strcmp(ix->tok[i], tok))
			return 0;
	if (!ix->bycxx.nb) {
		for (i = 0; i < ix->n; i++)
			nfunc += ix->v[i].func;
		ret = hash_buckets(&ix->bycxx, nfunc);
	}
	for (i = 0; !ret && i < ix->n; i++)
		if (ix->v[i].func && !ix->v[i].tried &&
		    (!tok || strstr(ix->v[i].name, tok)))
			ret = cxx_one(ix, i);
	if (ret)
		return ret;
	if (!tok) {
		ix->cxx_all = true;
		return 0;
	}
	if (util_grow(&ix->tok, ix->ntok, sizeof(*ix->tok)) ||
	    !(ix->tok[ix->ntok] = strdup(tok)))
		return -ENOMEM;
	ix->ntok++;
	return 0;
}

/* Opened and indexed: 0 with *@out, or sym_open_elf()'s and sym_check_ehdr()'s
 * errors (a message in @err), -ENOMEM, or -EMFILE past SYM_CACHE_FILES. */
int sym_file_get(struct sym_cache *c, const char *path, struct sym_file **out,
	     char *err, size_t errlen)
{
	struct sym_file *f;
	size_t i;
	int ret;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path)) {
			*out = &c->v[i];
			return 0;
		}
	if (c->n == SYM_CACHE_FILES)
		return -EMFILE;
	if (util_grow(&c->v, c->n, sizeof(*c->v)))
		return -ENOMEM;
	f = &c->v[c->n];
	memset(f, 0, sizeof(*f));
	f->dfd = -1;
	ret = sym_open_elf(path, &f->fd, &f->elf, err, errlen);
	if (ret)
		return ret;
	ret = sym_check_ehdr(f->elf, path, err, errlen);
	if (!ret && !sym_has_symtab(f->elf))
		sym_find_debug_file(f->elf, path, &f->dfd, &f->dbg, f->dpath,
				sizeof(f->dpath));
	if (!ret && !(f->path = strdup(path)))
		ret = -ENOMEM;
	if (!ret)
		ret = index_build(f->elf, &f->ix[0]);
	if (!ret && f->dbg)
		ret = index_build(f->dbg, &f->ix[1]);
	if (ret) {
		index_free(&f->ix[0]);
		index_free(&f->ix[1]);
		free(f->path);
		sym_close_elfs(f->elf, f->fd, f->dbg, f->dfd);
		return ret;
	}
	c->n++;
	*out = f;
	return 0;
}

static int pick_add(struct picks *p, const struct sym_ent *e)
{
	if (util_grow(&p->v, p->n, sizeof(*p->v)))
		return -ENOMEM;
	p->v[p->n].idx = e->idx;
	p->v[p->n].tab = e->tab;
	p->v[p->n].dem = e->dem;
	p->v[p->n].cold = e->cold;
	p->n++;
	return 0;
}

static int pick_cmp(const void *a, const void *b)
{
	const struct sym_pick *x = a, *y = b;

	if (x->tab != y->tab)
		return x->tab - y->tab;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The symbols @h keys by the @len bytes at @s into @p. */
static int pick_hash(const struct sym_index *ix, const struct sym_hash *h,
		     const char *s, size_t len, struct picks *p)
{
	uint32_t k;
	int ret = 0;

	for (k = hash_first(h, s, len); !ret && k != ~0u;
	     k = hash_next(h, h->next[k], s, len))
		ret = pick_add(p, &ix->v[h->ent[k]]);
	return ret;
}

/*
 * The symbols of @ix that scan_symbols() may take for @lk, in table order:
 * named lk->func up to an '@' (lk->func, its versions "lk->func@V"), its
 * clones and cold parts ("lk->func.isra.0"); with lk->cxx the functions
 * whose demangled name part is lk->func's up to one of its top-level '('
 * or its end, without white space (sym_cxx_matches() takes no other).
 */
static int pick(const struct sym_index *ix, const struct lookup *lk,
		struct picks *p)
{
	char f[512];
	size_t i;
	int ret = 0;

	if (lk->cxx) {
		if (!sym_squeeze(lk->func, f, sizeof(f)))
			return 0; /* sym_cxx_matches() takes none */
		for (i = 0; !ret && (i == 0 || f[i - 1]); i++)
			if (f[i] == '(' || !f[i])
				ret = pick_hash(ix, &ix->bycxx, f, i, p);
	} else {
		ret = pick_hash(ix, &ix->byname, lk->func, strlen(lk->func),
				p);
		if (!ret)
			ret = pick_hash(ix, &ix->byclone, lk->func,
					strlen(lk->func), p);
	}
	if (!ret && p->n)
		qsort(p->v, p->n, sizeof(*p->v), pick_cmp);
	return ret;
}

/* sym_collect() over @f and its debug file, through their indexes: the
 * candidates sym_collect() over every symbol gives, in its order. */
int sym_collect_cached(struct sym_file *f, struct lookup *lk)
{
	static const struct sym_pick none;
	struct picks p = { 0 };
	char tok[272];
	int ret = 0, k;

	for (k = 0; !ret && k < 2; k++) {
		if (!(k ? f->dbg : f->elf))
			continue;
		if (lk->cxx)
			ret = sym_cxx_index(&f->ix[k],
					sym_name_token(lk->func, tok, sizeof(tok)) ?
						tok :
						NULL);
		p.n = 0;
		if (!ret)
			ret = pick(&f->ix[k], lk, &p);
		if (!ret)
			ret = sym_collect(k ? f->dbg : f->elf, lk, p.n ? p.v : &none,
				      p.n, f->ix[k].dyn_funcs);
	}
	free(p.v);
	return ret;
}

/* The function named @name in @f's index (demangled if sym_cxx_index() took
 * it: sym_ent.tried), or NULL: demangle it yourself. */
const struct sym_ent *sym_ent_of(struct sym_file *f, const char *name)
{
	const struct sym_index *ix;
	const struct sym_ent *e;
	size_t len;
	uint32_t k;
	int i;

	if (!f)
		return NULL;
	len = strcspn(name, "@");
	for (i = 0; i < 2; i++) {
		ix = &f->ix[i];
		for (k = hash_first(&ix->byname, name, len); k != ~0u;
		     k = hash_next(&ix->byname, ix->byname.next[k], name, len)) {
			e = &ix->v[ix->byname.ent[k]];
			if (e->func && !strcmp(e->name, name))
				return e;
		}
	}
	return NULL;
}

/* Has sym_cxx_index() demangled @e? */
bool sym_ent_tried(const struct sym_ent *e)
{
	return e->tried;
}

/* Is @e a C++ function cxx_names() lists (demangled, not a cold part, a
 * name part found): its demangled name in *@dem, the name and its
 * parameters in it at *@name and *@paren.  *@mangled: demangled at all. */
bool sym_ent_cxx(const struct sym_ent *e, bool *mangled, const char **dem,
	     const char **name, const char **paren)
{
	*mangled = e->dem != NULL;
	*dem = e->dem;
	if (!e->dem || e->cold || !e->key)
		return false;
	*name = e->dem + e->nm;
	*paren = e->dem + e->paren;
	return true;
}

int sym_cache_insn_check(struct sym_cache *c, const char *path,
			 uint64_t offset, char *err, size_t errlen)
{
	unsigned char insn[15];
	ssize_t n;

	n = c ? sym_cache_pread(c, path, insn, sizeof(insn), offset) : -EMFILE;
	if (n < 0) /* not in the cache: read here */
		return sym_insn_check(path, offset, err, errlen);
	return sym_insn_check_bytes(path, insn, n, offset, err, errlen);
}

ssize_t sym_cache_pread(struct sym_cache *c, const char *path, void *buf,
			size_t n, uint64_t off)
{
	struct sym_file *f;
	char e[8];
	ssize_t r;
	int ret = sym_file_get(c, path, &f, e, sizeof(e));

	if (ret)
		return ret;
	r = pread(f->fd, buf, n, (off_t)off);
	return r < 0 ? -errno : r;
}

int sym_cache_elf(struct sym_cache *c, const char *path, int *fd, Elf **elf)
{
	struct sym_file *f;
	char e[8];
	int ret = sym_file_get(c, path, &f, e, sizeof(e));

	if (ret)
		return ret;
	*fd = f->fd;
	*elf = f->elf;
	return 0;
}

int sym_cache_func_starts(struct sym_cache *c, const char *path,
			  const uint64_t **starts, size_t *n, char *err,
			  size_t errlen)
{
	struct sym_file *f;
	bool has_symtab = false, dummy = false;
	int ret;

	*starts = NULL;
	*n = 0;
	ret = sym_file_get(c, path, &f, err, errlen);
	if (ret)
		return ret;
	if (!f->starts_done) {
		/* as sym_func_starts(): the debug file when the file has
		 * no .symtab (then sym_file_get() looked for it) */
		ret = sym_starts_of(f->elf, false, &f->starts, &f->nstarts,
				&has_symtab);
		if (!ret && !has_symtab && f->dbg)
			ret = sym_starts_of(f->dbg, true, &f->starts, &f->nstarts,
					&dummy);
		if (ret) {
			free(f->starts);
			f->starts = NULL;
			f->nstarts = 0;
			util_set_err(err, errlen, "%s: out of memory", path);
			return ret;
		}
		f->nstarts = sort_unique(f->starts, f->nstarts);
		f->starts_done = true;
	}
	*starts = f->starts;
	*n = f->nstarts;
	return 0;
}
