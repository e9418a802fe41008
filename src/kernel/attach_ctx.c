// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack switches told by the switch itself: uprobes on the context
 * functions of the libc a traced file uses (src/kernel/attach_ctx.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "iprof/abi.h"
#include "iprof/sym.h"
#include "kernel/attach_ctx.h"
#include "kernel/kmech.h"

/* the functions, their cookie being their index (enum iprof_ctx_fn) */
static const char *const ctx_fns[] = {
	[IPROF_CTXFN_GET] = "getcontext",
	[IPROF_CTXFN_SET] = "setcontext",
	[IPROF_CTXFN_SWAP] = "swapcontext",
};

#define NFNS (sizeof(ctx_fns) / sizeof(ctx_fns[0]))

/* Does ELF file @path define swapcontext (2: linked in, a function in
 * .symtab or .dynsym) or import setcontext or swapcontext (1: an
 * undefined .dynsym symbol)?  0 when neither, or when it cannot be read. */
static int has_switch(const char *path)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	Elf *e = NULL;
	const char *n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	size_t i;

	if (fd < 0)
		return 0;
	if (elf_version(EV_CURRENT) != EV_NONE)
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && !found && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (!n || (strcmp(n, "setcontext") &&
				   strcmp(n, "swapcontext")))
				continue;
			if (s.st_shndx != SHN_UNDEF &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    !strcmp(n, "swapcontext"))
				found = 2;
			else if (s.st_shndx == SHN_UNDEF &&
				 sh.sh_type == SHT_DYNSYM)
				found = 1;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/* uprobes on the context functions @path defines, once per file; the
 * number attached, or -ENOMEM */
static int attach_file(struct loader *l, const char *path)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link *ln;
	char err[256];
	uint64_t off;
	size_t i;
	int n = 0;

	for (i = 0; i < l->nctx_files; i++)
		if (!strcmp(l->ctx_files[i], path))
			return 0;
	if (l->nctx_files >= ATTACH_CTX_MAX / NFNS)
		return 0;
	l->ctx_files[l->nctx_files] = strdup(path);
	if (!l->ctx_files[l->nctx_files])
		return -ENOMEM;
	l->nctx_files++;
	for (i = 0; i < NFNS; i++) {
		if (sym_func_offset(path, ctx_fns[i], &off, err, sizeof(err)))
			continue;
		uo.bpf_cookie = i;
		ln = bpf_program__attach_uprobe_opts(
			l->skel->progs.ctx_switch,
			l->opts.upid > 0 ? l->opts.upid : -1, path,
			(size_t)off, &uo);
		if (!ln)
			continue;
		l->ctx_links[l->nctx++] = ln;
		n++;
	}
	return n;
}

int attach_ctx_switches(struct loader *l)
{
	const struct plan *p = l->plan;
	char *libc = NULL, err[256];
	uint32_t i, j;
	int n = 0, r, how;

	if (bpf_program__fd(l->skel->progs.ctx_switch) < 0)
		return 0; /* not loaded: no user timer */
	for (i = 0; i < p->natt; i++) {
		const char *path = p->att[i].path;

		if (!kmech(p->att[i].mech)->user || !path)
			continue;
		for (j = 0; j < i; j++)
			if (p->att[j].path && !strcmp(p->att[j].path, path) &&
			    (p->att[j].session || !p->att[i].session))
				break;
		if (j < i)
			continue; /* looked at */
		/* a uprobe session's file: libc's switches, whoever makes
		 * them (a library: unwind_judge()'s 2) */
		how = p->att[i].session ? 1 : has_switch(path);
		if (how == 2) {
			r = attach_file(l, path); /* linked in */
		} else if (how == 1) {
			if (!libc && sym_resolve_path("libc.so.6", &libc, err,
						      sizeof(err)))
				continue;
			r = attach_file(l, libc);
			if (r > 0)
				l->ctx_libc = r;
		} else {
			continue;
		}
		if (r < 0) {
			free(libc);
			return r;
		}
		n += r;
	}
	free(libc);
	return n;
}

void attach_ctx_detach(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nctx; i++)
		bpf_link__destroy(l->ctx_links[i]);
	l->nctx = 0;
	for (i = 0; i < l->nctx_files; i++)
		free(l->ctx_files[i]);
	l->nctx_files = 0;
}
