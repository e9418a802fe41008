// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inlined instances of a user function and the probes that time them:
 * see include/iprof/inline.h.  DWARF through elfutils (libdwfl finds the
 * debug file, libdw reads it), code through Capstone, frames through the
 * caller's .eh_frame (libdw's CFI).  A kernel module's debug file (an
 * ET_REL object: libdwfl lays its sections out and relocates its DWARF)
 * is read the same way, with its relocations to tell where its jumps
 * go, its jump labels' second edges and its .debug_frame.  So is the
 * kernel image (vmlinux, ET_EXEC, linked: its jumps go where their bytes
 * say), its jump labels, lock prefixes, static calls and the places the
 * kernel refuses kprobes read from the tables its linker script names
 * (__start___jump_table, ...).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/inline.h"
#include "iprof/ksym.h"
#include "iprof/sym.h"
#include "iprof/util.h"

#if defined(__x86_64__)

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "probe/inline_int.h"

void inl_forget(void)
{
	struct inl_file *f = &inl_cache;

	free(f->path);
	free(f->debugdir);
	free(f->idx);
	free(f->use);
	free(f->rels);
	free(f->jls);
	free(f->resv);
	free(f->bl);
	if (f->cfi && !f->rel && !f->kimg)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void inl_free(struct inl_inst *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].caller);
		free(v[i].call);
		free(v[i].exits);
		free(v[i].why);
	}
	free(v);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct inl_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* the abstract function DIEs among the children of @parent (and in its
 * namespaces) into the index; 0 or -ENOMEM */
static int index_children(struct inl_file *f, Dwarf_Die *parent, int level)
{
	Dwarf_Die c;
	const char *nm;
	int tag;

	if (dwarf_child(parent, &c))
		return 0;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram && dwarf_func_inline(&c) &&
		    (nm = dwarf_diename(&c))) {
			if (util_grow(&f->idx, f->nidx, sizeof(*f->idx)))
				return -ENOMEM;
			f->idx[f->nidx].name = nm;
			f->idx[f->nidx++].off = dwarf_dieoffset(&c);
		} else if (tag == DW_TAG_namespace && level < 8 &&
			   index_children(f, &c, level + 1)) {
			return -ENOMEM;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* does @elf have a .debug_info section (compressed or not)? */
static bool has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *nm;

	if (!elf || elf_getshdrstrndx(elf, &shstr))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (nm = elf_strptr(elf, shstr, sh.sh_name)) &&
		    (!strcmp(nm, ".debug_info") || !strcmp(nm, ".zdebug_info")))
			return true;
	return false;
}

/*
 * Are unit @cu's functions named as a C programmer names them
 * (DW_AT_language, DWARF 5 table 7.17)?  Not C++'s or Rust's: their
 * DW_AT_name is unqualified (S::get of every class S), not matched by
 * name yet.  C, assembler, a unit of no stated language (dwz's partial
 * units) are.
 */
static bool is_c(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_Rust:
		return false;
	default:
		return true;
	}
}

/* open @path and its DWARF into the cache; 0, -ENOMEM or -errno */
static int file_open(const char *path, const char *debugdir, char *err,
		     size_t errlen)
{
	static const char std_path[] = ":.debug:/usr/lib/debug";
	struct inl_file *f = &inl_cache;
	static char *dpath;
	static Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		/* a module (ET_REL): libdwfl lays its sections out */
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &dpath,
	};
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Off off = 0, next;
	const char *why = "";
	char dbg[PATH_MAX];
	struct stat st;
	size_t hs;

	if (f->path && !strcmp(f->path, path) &&
	    !strcmp(f->debugdir ? f->debugdir : "", debugdir ? debugdir : ""))
		return 0;
	inl_forget();
	f->path = strdup(path);
	f->debugdir = debugdir ? strdup(debugdir) : NULL;
	if (!f->path || (debugdir && !f->debugdir))
		return -ENOMEM;
	f->fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (f->fd < 0) {
		int e = -errno;

		util_set_err(err, errlen, "%s: %s", path, why);
		inl_forget();
		return e ? e : -EINVAL;
	}
	if (elf_version(EV_CURRENT) != EV_NONE)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	/* no DWARF of its own and no debug file: nothing more to open (a
	 * stripped binary costs a few stat(2)s, not libdwfl's search) */
	if (!debugdir && !has_debug_info(f->elf) &&
	    sym_debug_file(path, dbg, sizeof(dbg)))
		return 0;
	if (f->elf)
		f->cfi = dwarf_getcfi_elf(f->elf);
	free(dpath);
	dpath = NULL;
	if (debugdir) {
		/* libdwfl takes absolute directories for build IDs */
		char *abs = realpath(debugdir, NULL);
		int r = abs ? asprintf(&dpath, "%s:%s", abs, std_path) : -1;

		free(abs);
		if (r < 0)
			return -ENOMEM;
	}
	if (!dpath && !(dpath = strdup(std_path)))
		return -ENOMEM;
	f->dwfl = dwfl_begin(&cb);
	if (!f->dwfl)
		return 0; /* no DWARF read: as none */
	mod = dwfl_report_offline(f->dwfl, "inl", path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (mod)
		f->dw = dwfl_module_getdwarf(mod, &bias);
	if (!f->dw)
		return 0;
	if (f->elf && elf_kind(f->elf) == ELF_K_ELF) {
		GElf_Ehdr eh;

		if (gelf_getehdr(f->elf, &eh) && eh.e_type == ET_REL) {
			/* a kernel module: its code and frames as libdwfl
			 * laid them out (bias 0: the DWARF's addresses) */
			Dwarf_Addr cb_bias;

			if (f->cfi)
				dwarf_cfi_end(f->cfi);
			f->rel = 1;
			f->mod = mod;
			f->lay = dwfl_module_getelf(mod, &bias);
			f->cfi = dwfl_module_dwarf_cfi(mod, &cb_bias);
			if (!f->lay || bias || cb_bias) {
				f->dw = NULL; /* not as expected: as none */
				return 0;
			}
			if (inl_rel_load())
				return -ENOMEM;
		} else if (inl_kimg_load(f, mod)) {
			return -ENOMEM;
		}
	}
	while (dwarf_nextcu(f->dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(f->dw, off + hs, &cu) && !is_c(&cu))
			f->other_lang = 1;
		else if (dwarf_offdie(f->dw, off + hs, &cu) &&
			 index_children(f, &cu, 0))
			return -ENOMEM;
		off = next;
	}
	if (f->nidx)
		qsort(f->idx, f->nidx, sizeof(*f->idx), ent_cmp);
	return 0;
}

/*
 * Which of the @nir ranges @ir of instance @d look like another copy of
 * it (an unrolled loop's): those that begin at the source line its entry
 * @entry begins at (the line table, dwarf_getsrc_die()).  A malloc'ed
 * array of 0/1, NULL without memory.
 */
static unsigned char *copies(Dwarf_Die *d, const uint64_t (*ir)[2],
			     size_t nir, uint64_t entry)
{
	unsigned char *v = calloc(nir, 1);
	Dwarf_Die cu;
	Dwarf_Line *l;
	int el = -1, ln;
	size_t k;

	if (!v || !dwarf_diecu(d, &cu, NULL, NULL))
		return v;
	if ((l = dwarf_getsrc_die(&cu, entry)))
		dwarf_lineno(l, &el);
	for (k = 0; k < nir; k++)
		v[k] = ir[k][0] != entry &&
		       (l = dwarf_getsrc_die(&cu, ir[k][0])) &&
		       !dwarf_lineno(l, &ln) && ln == el;
	return v;
}

/* the name of the function or inlined function DIE @d (through its
 * abstract origin) */
static const char *die_name(Dwarf_Die *d)
{
	const char *n = dwarf_diename(d);

	return n ? n : "?";
}

/* @d's address ranges, non-empty ones, into *@r (malloc'ed) */
static int die_ranges(Dwarf_Die *d, uint64_t (**r)[2], size_t *n)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t o = 0;

	*r = NULL;
	*n = 0;
	while ((o = dwarf_ranges(d, o, &base, &s, &e)) > 0) {
		if (e <= s)
			continue;
		if (util_grow(r, *n, sizeof(**r)))
			return -ENOMEM;
		(*r)[*n][0] = s;
		(*r)[(*n)++][1] = e;
	}
	return 0;
}

/* "FILE:LINE" of the call that @d inlines */
static char *call_site(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nf;
	const char *name = NULL, *slash;
	char *s = NULL;

	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &line) ||
	    !line)
		return strdup("");
	if (!dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &file) &&
	    dwarf_diecu(d, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nf) && file < nf)
		name = dwarf_filesrc(files, file, NULL, NULL);
	slash = name ? strrchr(name, '/') : NULL;
	if (asprintf(&s, "%s:%llu", slash ? slash + 1 : name ? name : "?",
		     (unsigned long long)line) < 0)
		return NULL;
	return s;
}

struct collect {
	const char *path;
	struct inl_inst *v;
	size_t n, more; /* more: past INL_MAX_INSTANCES, counted only */
	int err;
	/* the last caller's code as a graph (its instances come together) */
	Dwarf_Off g_fn;
	int g_ret; /* inl_graph_build()'s: 0, or -EINVAL with g_why */
	struct graph g;
	char g_why[256];
};

/* instance @d of the function, in @fn (the function whose code holds
 * it) under @caller, @depth instances deep: into @c */
static void instance(struct collect *c, Dwarf_Die *d, Dwarf_Die *fn,
		     const char *caller, unsigned int depth)
{
	struct inl_inst *it;
	Dwarf_Addr entry = 0, fentry = 0;
	uint64_t (*ir)[2] = NULL, (*cr)[2] = NULL;
	size_t nir = 0, ncr = 0;
	char why[512] = "";
	unsigned char *copy = NULL;
	int r, multi;

	if (c->n >= INL_MAX_INSTANCES) {
		c->more++;
		return;
	}
	if (util_grow(&c->v, c->n, sizeof(*c->v))) {
		c->err = -ENOMEM;
		return;
	}
	it = &c->v[c->n];
	memset(it, 0, sizeof(*it));
	it->depth = depth;
	it->caller = strdup(caller);
	it->call = call_site(d);
	if (!it->caller || !it->call) {
		free(it->caller);
		free(it->call);
		c->err = -ENOMEM;
		return;
	}
	c->n++;
	r = die_ranges(d, &ir, &nir);
	if (!r && fn)
		r = die_ranges(fn, &cr, &ncr);
	if (r) {
		c->err = r;
		goto out;
	}
	if (!nir) {
		/* optimized away: no code runs, nothing to time */
		free(it->caller);
		free(it->call);
		c->n--;
		goto out;
	}
	if (dwarf_hasattr(d, DW_AT_entry_pc) && !dwarf_entrypc(d, &entry)) {
		multi = 0;
	} else {
		/* clang gives none: the lowest address, and its other ranges
		 * may be entered from its own code only (inl_plan_instance()) */
		multi = nir > 1;
		entry = ir[0][0];
		for (size_t k = 1; k < nir; k++)
			if (ir[k][0] < entry)
				entry = ir[k][0];
	}
	if (multi && !(copy = copies(d, ir, nir, entry))) {
		c->err = -ENOMEM;
		goto out;
	}
	it->entry.addr = entry;
	if (!fn || !ncr) {
		util_set_err(why, sizeof(why), "its caller has no code in DWARF");
		goto out;
	}
	if (dwarf_entrypc(fn, &fentry) || !inl_in_ranges(cr, ncr, fentry))
		fentry = cr[0][0];
	if (!c->g_fn || c->g_fn != dwarf_dieoffset(fn)) {
		inl_graph_free(&c->g);
		c->g_fn = dwarf_dieoffset(fn);
		c->g_ret = inl_graph_build(&c->g, (const uint64_t(*)[2])cr, ncr,
				       c->g_why, sizeof(c->g_why));
		if (c->g_ret == -ENOMEM) {
			c->g_fn = 0;
			c->err = -ENOMEM;
			goto out;
		}
	}
	if (c->g_ret) {
		util_set_err(why, sizeof(why), "%s", c->g_why);
		goto out;
	}
	r = inl_plan_instance(it, c->path, (const uint64_t(*)[2])ir, nir, entry,
			  copy, &c->g, fentry, why, sizeof(why));
	if (r == -ENOMEM)
		c->err = r;
out:
	free(ir);
	free(cr);
	free(copy);
	if (why[0] && !c->err && !(it->why = strdup(why)))
		c->err = -ENOMEM;
}

/* the abstract origin of @d, its DIE offset; 0 if none, or if it is in
 * another file (dwz -m's DW_FORM_GNU_ref_alt: offsets of another
 * .debug_info, not looked up yet) */
static Dwarf_Off origin_of(Dwarf_Die *d, Dwarf_Die *o)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(d, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, o) || dwarf_cu_getdwarf(o->cu) != inl_cache.dw)
		return 0;
	return dwarf_dieoffset(o);
}

/*
 * Is instance @d of function @o, directly inside an instance of @o, the
 * rest of that same call (GCC's partial inlining, ipa-split: f's head
 * inlined, f.part.N with the rest of it inlined there too), not a call of
 * its own?  Its call is then the compiler's, at f's own declaration line;
 * a recursive call is at a line of f's body.
 */
static bool split_rest(Dwarf_Die *d, Dwarf_Die *o)
{
	Dwarf_Attribute a;
	Dwarf_Word call = 0;
	int decl = 0;

	return !dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &call) &&
	       !dwarf_decl_line(o, &decl) && call == (Dwarf_Word)decl;
}

/*
 * Every instance among the children of @die, in function @fn (0: none
 * yet) under @caller, @depth instances deep (@outer: the abstract origin
 * of the instance @die is, 0: none), into the cache's index: one
 * walk of a unit that keeps each DIE's function and callers at hand
 * (dwarf_getscopes_die() walks the unit again for each).  Only DIEs that
 * may hold code are entered.  0 or -ENOMEM.
 */
static int walk(Dwarf_Die *die, Dwarf_Off fn, const char *caller,
		unsigned int depth, Dwarf_Off outer, int level)
{
	Dwarf_Die ch, o;
	Dwarf_Off org;
	struct inl_use *u;
	int tag, err = 0;

	if (level > 64 || dwarf_child(die, &ch))
		return 0;
	do {
		tag = dwarf_tag(&ch);
		switch (tag) {
		case DW_TAG_subprogram:
			if (dwarf_hasattr(&ch, DW_AT_low_pc) ||
			    dwarf_hasattr(&ch, DW_AT_ranges))
				err = walk(&ch, dwarf_dieoffset(&ch),
					   die_name(&ch), 0, 0, level + 1);
			break;
		case DW_TAG_inlined_subroutine:
			org = origin_of(&ch, &o);
			if (org && org == outer && split_rest(&ch, &o)) {
				/* the rest of the same call */
				err = walk(&ch, fn, caller, depth, outer,
					   level + 1);
				break;
			}
			if (org && fn) {
				if (util_grow(&inl_cache.use, inl_cache.nuse,
					      sizeof(*inl_cache.use)))
					return -ENOMEM;
				u = &inl_cache.use[inl_cache.nuse++];
				u->origin = org;
				u->die = dwarf_dieoffset(&ch);
				u->fn = fn;
				u->caller = caller;
				u->depth = depth;
			}
			err = walk(&ch, fn, org ? die_name(&o) : "?",
				   depth + 1, org, level + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			err = walk(&ch, fn, caller, depth, outer, level + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&ch, &ch) == 0);
	return err;
}

static int use_cmp(const void *a, const void *b)
{
	const struct inl_use *x = a, *y = b;

	if (x->origin != y->origin)
		return (x->origin > y->origin) - (x->origin < y->origin);
	return (x->die > y->die) - (x->die < y->die);
}

/* the cache's instance index, built once per file; 0 or -ENOMEM */
static int uses_build(void)
{
	Dwarf_Off off = 0, next;
	size_t hs;
	int err = 0;

	if (inl_cache.use_built)
		return 0;
	while (!err &&
	       dwarf_nextcu(inl_cache.dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(inl_cache.dw, off + hs, &cu))
			err = walk(&cu, 0, "?", 0, 0, 0);
		off = next;
	}
	if (err)
		return err;
	if (inl_cache.nuse)
		qsort(inl_cache.use, inl_cache.nuse, sizeof(*inl_cache.use), use_cmp);
	inl_cache.use_built = 1;
	return 0;
}

/* the instances of abstract DIE @origin, planned into @c */
static void instances_of(struct collect *c, Dwarf_Off origin)
{
	size_t lo = 0, hi = inl_cache.nuse, m;
	Dwarf_Die d, fn;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (inl_cache.use[m].origin < origin)
			lo = m + 1;
		else
			hi = m;
	}
	for (; !c->err && lo < inl_cache.nuse && inl_cache.use[lo].origin == origin;
	     lo++) {
		const struct inl_use *u = &inl_cache.use[lo];

		if (dwarf_offdie(inl_cache.dw, u->die, &d) &&
		    dwarf_offdie(inl_cache.dw, u->fn, &fn))
			instance(c, &d, &fn, u->caller, u->depth);
	}
}

static int inst_cmp(const void *a, const void *b)
{
	const struct inl_inst *x = a, *y = b;

	return (x->entry.addr > y->entry.addr) - (x->entry.addr < y->entry.addr);
}

int inl_find(const char *path, const char *func, const char *debugdir,
	     struct inl_inst **v, size_t *n, size_t *more, int *nodwarf,
	     char *err, size_t errlen)
{
	struct collect c = { .path = path };
	struct inl_ent key = { .name = func };
	size_t lo, hi, m;
	int ret;

	*v = NULL;
	*n = 0;
	if (more)
		*more = 0;
	if (nodwarf)
		*nodwarf = 0;
	ret = file_open(path, debugdir, err, errlen);
	if (ret)
		return ret;
	if (!inl_cache.dw) {
		if (nodwarf)
			*nodwarf = 1;
		return 0;
	}
	if (nodwarf && inl_cache.other_lang)
		*nodwarf = 2;
	/* the first entry named @func */
	lo = 0;
	hi = inl_cache.nidx;
	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (strcmp(inl_cache.idx[m].name, key.name) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	ret = lo < inl_cache.nidx && !strcmp(inl_cache.idx[lo].name, func) ?
		      uses_build() : 0;
	if (ret)
		return ret;
	for (; lo < inl_cache.nidx && !strcmp(inl_cache.idx[lo].name, func) && !c.err;
	     lo++)
		instances_of(&c, inl_cache.idx[lo].off);
	inl_graph_free(&c.g);
	if (c.err) {
		inl_free(c.v, c.n);
		return c.err;
	}
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), inst_cmp);
	*v = c.v;
	*n = c.n;
	if (more)
		*more = c.more;
	return 0;
}

int inl_names(const char *path, const char *debugdir, struct ksyms *k,
	      char *err, size_t errlen)
{
	size_t i;
	int ret = file_open(path, debugdir, err, errlen);

	for (i = 0; !ret && i < inl_cache.nidx; i++)
		if (!i || strcmp(inl_cache.idx[i].name, inl_cache.idx[i - 1].name))
			ret = ksyms_add(k, inl_cache.idx[i].name,
					strlen(inl_cache.idx[i].name), NULL);
	if (!ret)
		ksyms_sort(k);
	return ret;
}

#else /* !__x86_64__ */

int inl_find(const char *path, const char *func, const char *debugdir,
	     struct inl_inst **v, size_t *n, size_t *more, int *nodwarf,
	     char *err, size_t errlen)
{
	(void)path;
	if (more)
		*more = 0;
	(void)func;
	(void)debugdir;
	(void)err;
	(void)errlen;
	*v = NULL;
	*n = 0;
	if (nodwarf)
		*nodwarf = 1;
	return 0;
}

void inl_free(struct inl_inst *v, size_t n)
{
	(void)n;
	free(v);
}

void inl_forget(void)
{
}

int inl_names(const char *path, const char *debugdir, struct ksyms *k,
	      char *err, size_t errlen)
{
	(void)path;
	(void)debugdir;
	(void)k;
	(void)err;
	(void)errlen;
	return 0;
}

#endif
