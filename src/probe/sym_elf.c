// SPDX-License-Identifier: GPL-2.0-only
/*
 * An ELF file as uprobe binaries are read: opened with libelf and checked
 * (sym_open_elf(), sym_check_ehdr(): ELF of this machine's class and byte order),
 * whether it has a symbol table (sym_has_symtab()), and a file and its debug
 * file closed together (sym_close_elfs()).
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

int sym_check_ehdr(Elf *elf, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	size_t size = 0;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		util_set_err(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	switch (eh.e_type) {
	case ET_EXEC:
	case ET_DYN:
		/* a cut file (a copy in progress, a full disk) loses its
		 * section headers first: they are at the end */
		if (elf_rawfile(elf, &size) && eh.e_shoff &&
		    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > size) {
			util_set_err(err, errlen,
				"%s: truncated: its section headers end at byte %llu, the file has %zu",
				path,
				(unsigned long long)(eh.e_shoff +
						     (uint64_t)eh.e_shnum *
							     eh.e_shentsize),
				size);
			return -ENOEXEC;
		}
		return 0;
	case ET_REL:
		util_set_err(err, errlen,
			"%s: an ELF object file (.o), not an executable or "
			"shared object",
			path);
		return -ENOEXEC;
	case ET_CORE:
		util_set_err(err, errlen,
			"%s: an ELF core dump, not an executable or shared "
			"object",
			path);
		return -ENOEXEC;
	default:
		util_set_err(err, errlen,
			"%s: ELF type %u, not an executable or shared object",
			path, (unsigned int)eh.e_type);
		return -ENOEXEC;
	}
}

/*
 * Open ELF file @path for reading, without blocking (util_open_read(): a
 * FIFO or device is refused, never waited on): *@fd and *@elf (elf_end()
 * and close() them).  Returns 0 or -errno with a message in @err: -EISDIR,
 * -EINVAL (not a regular file, libelf too old), -ENOEXEC (not ELF),
 * open(2)'s.
 */
int sym_open_elf(const char *path, int *fd, Elf **elf, char *err, size_t errlen)
{
	const char *why = "";
	struct stat st;
	int ret;

	*elf = NULL;
	*fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (*fd < 0) {
		ret = *fd;
		*fd = -1;
		if (ret == -EISDIR)
			util_set_err(err, errlen, "%s: is a directory", path);
		else
			util_set_err(err, errlen, "%s: %s", path, why);
		return ret;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		util_set_err(err, errlen, "libelf: %s", elf_errmsg(-1));
		ret = -EINVAL;
	} else if (!(*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL))) {
		util_set_err(err, errlen, "%s: not an ELF file (%s)", path,
			elf_errmsg(-1));
		ret = -ENOEXEC;
	} else {
		return 0;
	}
	close(*fd);
	*fd = -1;
	return ret;
}

/* Has @elf a .symtab with a symbol in it (not stripped)? */
bool sym_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1)
			return true;
	return false;
}

/* close a file and its debug file (NULL, -1: none) as sym_open_elf() and
 * sym_find_debug_file() opened them */
void sym_close_elfs(Elf *elf, int fd, Elf *dbg, int dfd)
{
	if (dbg)
		elf_end(dbg);
	if (dfd >= 0)
		close(dfd);
	elf_end(elf);
	close(fd);
}
