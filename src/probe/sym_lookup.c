// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function's targets in a uprobe binary (sym_func_targets(),
 * sym_cache_targets(): func_targets() through the planner's cache or
 * not, the same answers either way; a message with suggestions when none
 * is found), and the names a glob or a C++ name matches
 * (sym_glob_names(), sym_cxx_names(), sym_cache_glob_names()).
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

struct cxx_fn {
	char *part; /* the name all overloads share */
	const char *full; /* this overload: part and parameter list (in
			   * @own, or the cache's demangled name) */
	char *own;
};

static int cxx_fn_cmp(const void *a, const void *b)
{
	const struct cxx_fn *x = a, *y = b;
	int c = strcmp(x->part, y->part);

	return c ? c : strcmp(x->full, y->full);
}

/* Add C++ name @name (its parameter list at @paren, or its end) to *@v,
 * *@n; @own: the malloc'ed string holding it, freed with *@v, or NULL. */
static int cxx_fn_add(struct cxx_fn **v, size_t *n, const char *name,
		      const char *paren, char *own)
{
	if (util_grow(v, *n, sizeof(**v))) {
		free(own);
		return -ENOMEM;
	}
	/* as demangled: "(anonymous namespace)::f" */
	(*v)[*n].part = strndup(name, (size_t)(paren - name));
	(*v)[*n].full = name;
	(*v)[*n].own = own;
	return (*v)[(*n)++].part ? 0 : -ENOMEM;
}

static int cxx_names(const struct ksyms *names, struct ksyms *out,
		     struct ksyms *plain, struct sym_file *f)
{
	struct cxx_fn *v = NULL;
	const char *name, *paren;
	char d[1024], *dem;
	size_t i, j, n = 0;
	bool cold;
	int err;

	memset(out, 0, sizeof(*out));
	err = util_grow(&out->funcs, 0, sizeof(*out->funcs));
	for (i = 0; !err && i < names->nfuncs; i++) {
		const struct sym_ent *e = sym_ent_of(f, names->funcs[i]);
		const char *cd;
		bool mangled;

		if (e && !sym_ent_tried(e))
			continue; /* it cannot match (sym_cxx_index()'s token) */
		if (e) { /* demangled once, by the cache */
			if (sym_ent_cxx(e, &mangled, &cd, &name, &paren))
				err = cxx_fn_add(&v, &n, name, paren, NULL);
			else if (!mangled && plain)
				err = ksyms_add(plain, names->funcs[i],
						strlen(names->funcs[i]), NULL);
			continue;
		}
		err = sym_demangle_raw(names->funcs[i], &dem, &cold);
		if (err == 1) { /* not C++ */
			err = plain ? ksyms_add(plain, names->funcs[i],
						strlen(names->funcs[i]), NULL) :
				      0;
			continue;
		}
		if (!err && !cold &&
		    sym_cxx_name_part(dem, d, sizeof(d), &name, &paren))
			err = cxx_fn_add(&v, &n, name, paren, dem);
		else
			free(dem);
	}
	if (!err && n)
		qsort(v, n, sizeof(*v), cxx_fn_cmp);
	/* a name once; with its parameters where it has overloads */
	for (i = 0; !err && i < n; i = j) {
		bool overloaded = false;

		for (j = i + 1; j < n && !strcmp(v[j].part, v[i].part); j++)
			overloaded |= strcmp(v[j].full, v[i].full) != 0;
		if (!overloaded) {
			err = ksyms_add(out, v[i].part, strlen(v[i].part), NULL);
			continue;
		}
		for (size_t k = i; !err && k < j; k++)
			if (k == i || strcmp(v[k].full, v[k - 1].full))
				err = ksyms_add(out, v[k].full,
						strlen(v[k].full), NULL);
	}
	for (i = 0; i < n; i++) {
		free(v[i].part);
		free(v[i].own);
	}
	free(v);
	if (err) {
		ksyms_free(out);
		return -ENOMEM;
	}
	ksyms_sort(out);
	return 0;
}

int sym_cxx_names(const struct ksyms *names, struct ksyms *out)
{
	return cxx_names(names, out, NULL, NULL);
}

/* sym_glob_names(), demangling through @f (NULL: none) */
static int glob_names(const struct ksyms *names, const char *glob,
		      struct ksyms *out, struct sym_file *f)
{
	struct ksyms plain = { 0 };
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if (glob[0] == '_' && !strstr(glob, "::")) {
		for (i = 0, err = 0; !err && i < names->nfuncs; i++)
			err = ksyms_add(out, names->funcs[i],
					strlen(names->funcs[i]), NULL);
		goto out;
	}
	err = cxx_names(names, out, strstr(glob, "::") ? NULL : &plain, f);
	if (err || strstr(glob, "::")) {
		ksyms_free(&plain);
		return err;
	}
	/* and the names that are no mangled ones, as they are */
	for (i = 0; !err && i < plain.nfuncs; i++)
		err = ksyms_add(out, plain.funcs[i], strlen(plain.funcs[i]),
				NULL);
	ksyms_free(&plain);
out:
	if (err) {
		ksyms_free(out);
		return -ENOMEM;
	}
	ksyms_sort(out); /* sorted and each name once */
	return 0;
}

int sym_glob_names(const struct ksyms *names, const char *glob,
		   struct ksyms *out)
{
	return glob_names(names, glob, out, NULL);
}

/* "; did you mean a or b?" after @err when functions of @path are named
 * nearly as @func (ksym_suggest()), among the names written as @func is:
 * C and demangled, or symbols as they are (sym_glob_names()) */
static void suggest_funcs(const char *path, const char *func, char *err,
			  size_t errlen)
{
	struct ksyms all, names;
	char near[256], why[128];
	size_t used = err ? strlen(err) : 0;

	/* no message asked for (sym_func_offset(..., NULL, 0)) */
	if (!err || !errlen || sym_func_names(path, &all, why, sizeof(why)))
		return;
	if (!sym_glob_names(&all, func, &names)) {
		if (ksym_suggest(names.funcs, names.nfuncs, func, near,
				 sizeof(near)) && used < errlen)
			snprintf(err + used, errlen - used,
				 KSYM_SUGGEST_PFX "%s?", near);
		ksyms_free(&names);
	}
	ksyms_free(&all);
}

static int func_targets(struct sym_file *f, const char *path, const char *func,
			struct sym_target **out, size_t *nout, char *err,
			size_t errlen);

/*
 * sym_make_targets() of @lk, and for an IFUNC it refuses the
 * implementation ld.so picks on this CPU (sym_ifunc_impl()), timed in its
 * place, each target marked ifunc; else -EOPNOTSUPP, @err as it said.
 */
static int targets_of(struct sym_file *f, Elf *elf, Elf *dbg,
		      const char *path, struct lookup *lk,
		      struct sym_target **out, size_t *nout, char *err,
		      size_t errlen)
{
	char impl[256];
	uint64_t va;
	size_t i;
	int ret;

	ret = sym_make_targets(lk, elf, path, out, nout, err, errlen);
	if (ret != -EOPNOTSUPP)
		return ret;
	ret = sym_ifunc_impl(elf, dbg, path, lk->func, impl, sizeof(impl),
			     &va);
	if (ret)
		return -EOPNOTSUPP;
	if (!strcmp(impl, lk->func))
		return -EOPNOTSUPP; /* never twice */
	sym_targets_free(*out, *nout); /* other versions added before it */
	*out = NULL;
	*nout = 0;
	ret = func_targets(f, path, impl, out, nout, err, errlen);
	for (i = 0; !ret && i < *nout; i++)
		(*out)[i].ifunc = 1;
	return ret;
}

/* sym_func_targets() through @f (the cache's, or NULL: the file read
 * here): the same answers either way. */
static int func_targets(struct sym_file *f, const char *path, const char *func,
			struct sym_target **out, size_t *nout, char *err,
			size_t errlen)
{
	struct lookup lk = {.other_type = -1};
	char base[512], dpath[PATH_MAX] = "";
	Elf *elf, *dbg = NULL;
	const char *at;
	int fd = -1, dfd = -1, ret, pass, nb;
	size_t colds = 0, i;

	*out = NULL;
	*nout = 0;
	at = strchr(func, '@');
	if (at && (strlen(func) >= sizeof(base) || at == func ||
		   !at[1 + (at[1] == '@')])) {
		util_set_err(err, errlen, "'%s': expected FUNC@VERSION or "
			"FUNC@@VERSION", func);
		return -EINVAL;
	}
	if (at) {
		snprintf(base, sizeof(base), "%.*s", (int)(at - func), func);
		lk.func = base;
		lk.ver_default = at[1] == '@';
		lk.ver = at + 1 + lk.ver_default;
	} else {
		lk.func = func;
	}
	nb = (int)ksym_base_len(lk.func);
	if (sym_clone_suffix(lk.func + nb) == 2) {
		util_set_err(err, errlen,
			"'%s' is a cold part of %.*s, not a function: blocks "
			"the compiler moved out of %.*s, entered by a jump with "
			"no return address on the stack (a return probe there "
			"would corrupt the program); time %.*s",
			lk.func, nb, lk.func, nb, lk.func, nb, lk.func);
		return -EOPNOTSUPP;
	}
	if (f) {
		elf = f->elf;
		dbg = f->dbg;
		snprintf(dpath, sizeof(dpath), "%s", f->dpath);
	} else {
		ret = sym_open_elf(path, &fd, &elf, err, errlen);
		if (ret)
			return ret;
		ret = sym_check_ehdr(elf, path, err, errlen);
		if (ret)
			goto out;
		/* a stripped binary: its separate debug file's .symtab
		 * beside its own .dynsym, so that a function it exports has
		 * its clones and cold part too */
		if (!sym_has_symtab(elf))
			sym_find_debug_file(elf, path, &dfd, &dbg, dpath,
					sizeof(dpath));
	}
	/* pass 0: the name and its clones; 1: C++ names demangled */
	for (pass = 0; pass < 2; pass++) {
		colds += lk.colds;
		sym_lookup_reset(&lk);
		lk.cxx = pass & 1;
		if (lk.cxx && (lk.ver || (!sym_cxx_name(lk.func) &&
					  lk.other_type >= 0)))
			continue;
		if (f) {
			ret = sym_collect_cached(f, &lk);
		} else {
			ret = sym_collect(elf, &lk, NULL, 0, 0);
			if (!ret && dbg)
				ret = sym_collect(dbg, &lk, NULL, 0, 0);
		}
		if (ret) {
			util_set_err(err, errlen, "%s: out of memory", path);
			goto out;
		}
		if (lk.n)
			break;
	}
	if (!lk.n) {
		if (lk.ver) {
			util_set_err(err, errlen,
				"no function '%s' of version %s%s in %s (nm -D "
				"--with-symbol-versions lists them)",
				lk.func, lk.ver_default ? "(default) " : "",
				lk.ver, path);
			ret = -ENOENT;
		} else if (colds + lk.colds) {
			util_set_err(err, errlen,
				"'%s' in %s has only a cold part (%s.cold: "
				"blocks the compiler moved out of it, entered "
				"by a jump, never called): the function itself "
				"was inlined into its callers",
				lk.func, path, lk.func);
			ret = -ENOENT;
		} else {
			ret = sym_not_found(&lk, path, dpath, err, errlen);
			/* suggest_funcs() takes @err NULL (hint_zero_hits()) */
			if (ret == -ENOENT && lk.other_type < 0)
				suggest_funcs(path, lk.func, err, errlen);
		}
		goto out;
	}
	ret = targets_of(f, elf, dbg, path, &lk, out, nout, err, errlen);
	for (i = 0; !ret && i < *nout; i++) {
		uint64_t coff;

		(*out)[i].cold = colds + lk.colds > 0;
		if (lk.have_cold && !sym_file_offset(elf, &lk.cold, &coff)) {
			(*out)[i].cold_off = coff;
			(*out)[i].cold_size = lk.cold.size;
			(*out)[i].cold_addr = lk.cold.value;
		}
	}
	if (ret) {
		sym_targets_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
out:
	sym_lookup_reset(&lk);
	free(lk.v);
	if (!f)
		sym_close_elfs(elf, fd, dbg, dfd);
	return ret;
}

int sym_cache_glob_names(struct sym_cache *c, const char *path,
			 const char *glob, struct ksyms *out, char *err,
			 size_t errlen)
{
	struct sym_file *f = NULL;
	struct ksyms names;
	char tok[272];
	bool has_tok;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sym_glob_func_names(path, &names, err, errlen);
	if (ret)
		return ret;
	/* a mangled glob compares symbols: nothing to demangle */
	if (c && (glob[0] != '_' || strstr(glob, "::")) &&
	    !sym_file_get(c, path, &f, err, errlen)) {
		/* "hot::*": only the names that hold "3hot" can match */
		has_tok = strstr(glob, "::") &&
			  sym_name_token(glob, tok, sizeof(tok));
		ret = sym_cxx_index(&f->ix[0], has_tok ? tok : NULL);
		if (!ret)
			ret = sym_cxx_index(&f->ix[1], has_tok ? tok : NULL);
	}
	if (!ret)
		ret = glob_names(&names, glob, out, f);
	ksyms_free(&names);
	if (ret)
		util_set_err(err, errlen, "%s: out of memory", path);
	return ret;
}

int sym_cache_targets(struct sym_cache *c, const char *path, const char *func,
		      struct sym_target **out, size_t *nout, char *err,
		      size_t errlen)
{
	struct sym_file *f = NULL;

	/* a file the cache cannot hold is read here, its errors said */
	if (c && sym_file_get(c, path, &f, err, errlen))
		f = NULL;
	return func_targets(f, path, func, out, nout, err, errlen);
}

int sym_func_targets(const char *path, const char *func,
		     struct sym_target **out, size_t *nout, char *err,
		     size_t errlen)
{
	return func_targets(NULL, path, func, out, nout, err, errlen);
}

int sym_func_range(const char *path, const char *func, uint64_t *offset,
		   uint64_t *size, char *err, size_t errlen)
{
	struct sym_target *v;
	size_t n;
	int ret;

	ret = sym_func_targets(path, func, &v, &n, err, errlen);
	if (ret)
		return ret;
	*offset = v[0].offset;
	if (size)
		*size = v[0].size;
	sym_targets_free(v, n);
	return 0;
}

int sym_func_offset(const char *path, const char *func, uint64_t *offset,
		    char *err, size_t errlen)
{
	return sym_func_range(path, func, offset, NULL, err, errlen);
}
