// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_retsite FILE...: how many functions of each ELF file get return
 * sites from retsite_find() (src/probe/retsite.c), the stops iprof's
 * --returns sites puts on a user function instead of a uretprobe.
 *
 * Every defined FUNC symbol of the file's .symtab (else .dynsym), one per
 * address, its cold part (NAME.cold) left out, is read as the planner reads
 * one without a cold symbol: its st_size bytes.  A function "with a ret"
 * has a ret instruction in a linear sweep of those bytes (Capstone).  Per
 * file, one line:
 *   FILE: funcs=N with_ret=R sites=S (P%) indirect=I never=V other=O
 * sites: functions with a ret that got return sites; indirect: with a ret,
 * refused for an indirect jmp (a jump table iprof cannot read, or a tail
 * call through a register); never: retsite_find() says it never returns
 * (no ret reached); other: refused for anything else.  Without a ret:
 * functions with no ret in their own bytes (one tail jmp, a call of a
 * function that never returns) that get sites (a tail call, or the rets
 * of a local function they jump to) and that never return.
 * BENCH_RETSITE_WHY=1 prints each refused function with a ret and why;
 * BENCH_RETSITE_FUNC=NAME reads that function alone.  A benchmark, not a
 * test: exit status 0, 1 when a file cannot be read, 2 on a usage error.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iprof/retsite.h"

struct fn {
	uint64_t addr, off, size;
	const char *name;
};

struct count {
	size_t funcs, with_ret, sites, indirect, never, other;
	/* functions without a ret of their own (a tail jump, a call of a
	 * function that never returns): with sites, never returning */
	size_t jmp_sites, jmp_never;
};

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Virtual address @a to the file offset of its bytes, or -1. */
static int64_t addr_off(Elf *e, uint64_t a)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(e, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    a >= ph.p_vaddr && a - ph.p_vaddr < ph.p_filesz)
			return (int64_t)(a - ph.p_vaddr + ph.p_offset);
	return -1;
}

/* The functions of @e's symbol table of type @type into *@v (*@n). */
static int read_syms(Elf *e, Elf32_Word type, struct fn **v, size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, cnt;
	int64_t off;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		*v = calloc(cnt, sizeof(**v));
		if (!*v)
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !s.st_size)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || strstr(name, ".cold"))
				continue;
			off = addr_off(e, s.st_value);
			if (off < 0)
				continue;
			(*v)[(*n)++] = (struct fn){ s.st_value, (uint64_t)off,
						    s.st_size, name };
		}
		return 0;
	}
	return 0;
}

/* Has the code of @f a ret instruction (linear sweep)? */
static bool has_ret(csh h, cs_insn *in, const uint8_t *img, size_t len,
		    const struct fn *f)
{
	const uint8_t *code;
	uint64_t a;
	size_t left;

	if (f->off >= len || f->size > len - f->off)
		return false;
	code = img + f->off;
	left = f->size;
	a = f->off;
	while (left) {
		if (!cs_disasm_iter(h, &code, &left, &a, in)) {
			/* skip a byte that is no instruction */
			code++;
			left--;
			a++;
			continue;
		}
		if (in->id == X86_INS_RET)
			return true;
	}
	return false;
}

static void one(const char *path, const struct fn *f, csh h, cs_insn *in,
		const uint8_t *img, size_t len, struct count *c)
{
	struct retsite_code code = { f->off, f->size, f->addr };
	uint64_t *sites = NULL;
	size_t n = 0;
	char why[256] = "";
	int r;

	c->funcs++;
	if (!has_ret(h, in, img, len, f)) {
		r = retsite_find(NULL, path, &code, 1, &sites, &n, NULL, why,
				 sizeof(why));
		free(sites);
		c->jmp_sites += !r;
		c->jmp_never += r == -ENOENT;
		return;
	}
	c->with_ret++;
	r = retsite_find(NULL, path, &code, 1, &sites, &n, NULL, why, sizeof(why));
	free(sites);
	if (!r) {
		c->sites++;
		return;
	}
	if (r == -ENOENT)
		c->never++;
	else if (strstr(why, "indirect jmp") || strstr(why, "jump table"))
		c->indirect++;
	else
		c->other++;
	if (getenv("BENCH_RETSITE_WHY"))
		printf("  %s %#llx: %s\n", f->name,
		       (unsigned long long)f->addr, why);
}

static int file(const char *path, csh h, cs_insn *in)
{
	const char *only = getenv("BENCH_RETSITE_FUNC");
	struct count c = { 0 };
	struct fn *v = NULL;
	size_t n = 0, i;
	uint8_t *img = NULL;
	off_t len;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || (len = lseek(fd, 0, SEEK_END)) <= 0 ||
	    !(img = malloc((size_t)len)) ||
	    pread(fd, img, (size_t)len, 0) != len ||
	    !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		fprintf(stderr, "bench_retsite: %s: cannot read it\n", path);
		free(img);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (read_syms(e, SHT_SYMTAB, &v, &n) || (!n && (free(v), v = NULL,
						       read_syms(e, SHT_DYNSYM,
								 &v, &n)))) {
		fprintf(stderr, "bench_retsite: out of memory\n");
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_fn);
	for (i = 0; i < n; i++) {
		if (i && v[i].addr == v[i - 1].addr)
			continue; /* an alias */
		if (only && strcmp(only, v[i].name))
			continue;
		one(path, &v[i], h, in, img, (size_t)len, &c);
	}
	printf("%s: funcs=%zu with_ret=%zu sites=%zu (%.1f%%) indirect=%zu never=%zu other=%zu; without a ret: sites=%zu never=%zu\n",
	       path, c.funcs, c.with_ret, c.sites,
	       c.with_ret ? 100.0 * (double)c.sites / (double)c.with_ret : 0.0,
	       c.indirect, c.never, c.other, c.jmp_sites, c.jmp_never);
	free(v);
	free(img);
	elf_end(e);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	cs_insn *in;
	csh h;
	int i, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_retsite FILE...\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    !(in = cs_malloc(h))) {
		fprintf(stderr, "bench_retsite: libelf or Capstone failed\n");
		return 1;
	}
	for (i = 1; i < argc; i++)
		ret |= file(argv[i], h, in);
	cs_free(in, 1);
	cs_close(&h);
	return ret;
}
