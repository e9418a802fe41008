// SPDX-License-Identifier: GPL-2.0-only
/*
 * Separate debug files of stripped binaries (sym_find_debug_file(),
 * sym_debug_file()): by build ID (in the --debuginfo directory,
 * sym_set_debugdir(), then under /usr/lib/debug/.build-id/), then by
 * .gnu_debuglink (beside the file, in its .debug/, under /usr/lib/debug,
 * then under --debuginfo); the first that is ELF and whose build ID or
 * CRC-32 matches.
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

/* --debuginfo DIR (sym_set_debugdir()), absolute, or NULL */
static char *extra_dir;

/* the GNU build ID of @elf in hex into @hex (@len bytes); 1 if it has
 * one, else 0 (@hex empty) */
static int build_id_of(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, noff, doff, i;
	const unsigned char *b;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (off = 0;
		     (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || 2 * nh.n_descsz + 1 > len)
				continue;
			b = (const unsigned char *)d->d_buf + doff;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[i]);
			return 1;
		}
	}
	return 0;
}

/*
 * Is @dbg (open as @fd) the debug file of a binary whose build ID is
 * @hex ("" if none) and whose .gnu_debuglink CRC is @crc (@have_crc)?
 * A different build ID, or without build IDs a different CRC-32 of the
 * whole file, is another build's: its addresses would be wrong.  Neither
 * to compare: taken.
 */
static bool debug_matches(Elf *dbg, int fd, const char *hex, int have_crc,
			  uint32_t crc)
{
	char dhex[128];
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t pos = 0;
	ssize_t r;

	if (hex[0] && build_id_of(dbg, dhex, sizeof(dhex)))
		return !strcmp(hex, dhex);
	if (!have_crc)
		return true;
	while ((r = pread(fd, buf, sizeof(buf), pos)) > 0) {
		c = crc32(c, buf, (uInt)r);
		pos += r;
	}
	return r == 0 && (uint32_t)c == crc;
}

int sym_set_debugdir(const char *dir)
{
	char *abs = NULL;

	if (dir && !(abs = realpath(dir, NULL)))
		return -errno;
	free(extra_dir);
	extra_dir = abs;
	return 0;
}

int sym_find_debug_file(Elf *elf, const char *path, int *fd, Elf **dbg, char *out,
		    size_t outlen)
{
	char cand[6][PATH_MAX], link[256] = "", dir[PATH_MAX], id[128] = "";
	char hex[128];
	const char *nm;
	size_t shstr;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, noff, doff, i, nc = 0;
	const unsigned char *b;
	const char *slash, *why;
	struct stat st;
	char e[8];
	uint32_t crc = 0;
	int have_crc = 0;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (sh.sh_type == SHT_NOTE && !id[0]) {
			for (off = 0; (off = gelf_getnote(d, off, &nh, &noff,
							  &doff)) > 0;) {
				if (nh.n_type != NT_GNU_BUILD_ID ||
				    nh.n_namesz != 4 ||
				    memcmp((char *)d->d_buf + noff, "GNU", 4) ||
				    nh.n_descsz < 2 || nh.n_descsz > 60)
					continue;
				b = (const unsigned char *)d->d_buf + doff;
				for (i = 0; i < nh.n_descsz; i++)
					snprintf(hex + 2 * i, 3, "%02x", b[i]);
				if (snprintf(id, sizeof(id), "%.2s/%s", hex,
					     hex + 2) >= (int)sizeof(id))
					id[0] = '\0';
				break;
			}
		} else if (sh.sh_type == SHT_PROGBITS &&
			   !elf_getshdrstrndx(elf, &shstr) &&
			   (nm = elf_strptr(elf, shstr, sh.sh_name)) &&
			   !strcmp(nm, ".gnu_debuglink") && d->d_size > 4) {
			snprintf(link, sizeof(link), "%.*s",
				 (int)strnlen(d->d_buf, d->d_size - 4),
				 (const char *)d->d_buf);
			/* the debug file's CRC-32, in the file's byte order
			 * (gdb's manual, "Separate Debug Files") */
			memcpy(&crc, (const char *)d->d_buf + d->d_size - 4, 4);
			have_crc = 1;
		}
	}
	if (id[0] && extra_dir &&
	    snprintf(cand[nc], PATH_MAX, "%s/.build-id/%s.debug", extra_dir,
		     id) < PATH_MAX)
		nc++;
	if (id[0] && snprintf(cand[nc], PATH_MAX,
			      "/usr/lib/debug/.build-id/%s.debug",
			      id) < PATH_MAX)
		nc++;
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	if (link[0] && !strchr(link, '/')) {
		if (snprintf(cand[nc], PATH_MAX, "%s/%s", dir, link) <
		    PATH_MAX)
			nc++;
		if (snprintf(cand[nc], PATH_MAX, "%s/.debug/%s", dir, link) <
		    PATH_MAX)
			nc++;
		if (snprintf(cand[nc], PATH_MAX, "/usr/lib/debug%s/%s", dir,
			     link) < PATH_MAX)
			nc++;
		if (extra_dir && snprintf(cand[nc], PATH_MAX, "%s%s/%s",
					  extra_dir, dir, link) < PATH_MAX)
			nc++;
	}
	for (i = 0; i < nc; i++) {
		/* DIR/NAME may be the binary itself: not its debug file */
		if (!stat(cand[i], &st) && !strcmp(cand[i], path))
			continue;
		*fd = util_open_read(cand[i], UTIL_OPEN_REGULAR, &st, &why);
		if (*fd < 0)
			continue;
		*dbg = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
		if (*dbg && !sym_check_ehdr(*dbg, cand[i], e, sizeof(e)) &&
		    debug_matches(*dbg, *fd, hex, have_crc, crc)) {
			snprintf(out, outlen, "%s", cand[i]);
			return 0;
		}
		if (*dbg)
			elf_end(*dbg);
		close(*fd);
	}
	*fd = -1;
	*dbg = NULL;
	return -ENOENT;
}

int sym_debug_file(const char *path, char *out, size_t outlen)
{
	char e[256];
	Elf *elf, *dbg = NULL;
	int fd, dfd = -1, ret;

	ret = sym_open_elf(path, &fd, &elf, e, sizeof(e));
	if (ret)
		return ret;
	ret = sym_find_debug_file(elf, path, &dfd, &dbg, out, outlen);
	sym_close_elfs(elf, fd, dbg, dfd);
	return ret;
}
