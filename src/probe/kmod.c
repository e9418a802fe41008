// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug files of the loaded kernel modules: see include/iprof/kmod.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "iprof/kmod.h"
#include "iprof/util.h"

/* the loaded modules' names ('-' as '_') and what the search found */
struct kmod_search {
	char **names;
	size_t n;
	char **found; /* per name: its debug file, or NULL */
	unsigned char *stale; /* per name: a file of another build seen */
	int err;
	const char *root; /* kmod_debug_files()'s @sysroot, "" for / */
};

/* @s with '-' as '_' into @out (@len bytes) */
static void norm(const char *s, size_t n, char *out, size_t len)
{
	size_t i;

	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		out[i] = s[i] == '-' ? '_' : s[i];
	out[n] = '\0';
}

/* the GNU build ID of loaded module @mod into @id (up to @len bytes):
 * its length, or -1 (the note as elf(5) lays it out: namesz, descsz,
 * type, "GNU\0", the ID) */
static ssize_t loaded_id(const char *root, const char *mod, unsigned char *id,
			 size_t len)
{
	char p[PATH_MAX];
	unsigned char buf[256];
	uint32_t nsz, dsz;
	ssize_t r;
	int fd;

	snprintf(p, sizeof(p), "%s/sys/module/%s/notes/.note.gnu.build-id",
		 root, mod);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf));
	close(fd);
	if (r < 12)
		return -1;
	memcpy(&nsz, buf, 4);
	memcpy(&dsz, buf + 4, 4);
	if (nsz != 4 || memcmp(buf + 12, "GNU", 4) || dsz > len ||
	    16 + (size_t)dsz > (size_t)r)
		return -1;
	memcpy(id, buf + 16, dsz);
	return dsz;
}

/* does ELF file @path carry build ID @id (@n bytes)? */
static int file_has_id(const char *path, const unsigned char *id, ssize_t n)
{
	const void *fid = NULL;
	ssize_t fn = -1;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (elf_version(EV_CURRENT) != EV_NONE &&
	    (e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		fn = dwelf_elf_gnu_build_id(e, &fid);
		fn = fn == n && n > 0 && !memcmp(fid, id, (size_t)n);
		elf_end(e);
	}
	close(fd);
	return fn == 1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @path (its last component at @base) into @s when it is the debug
 * file of a loaded module of @s; 0, or 1 to stop (s->err set) */
static int visit(struct kmod_search *s, const char *path, const char *base)
{
	const char *dot;
	char key[256], **hit;
	unsigned char id[64];
	ssize_t n;
	size_t i;

	/* NAME.ko: an unstripped module, as Debian's -dbg has them (a
	 * separated debug file, code NOBITS, cannot serve: the caller's
	 * code is read from it) */
	dot = strstr(base, ".ko");
	if (!dot || strcmp(dot, ".ko"))
		return 0;
	norm(base, (size_t)(dot - base), key, sizeof(key));
	{
		char *k = key;

		hit = bsearch(&k, s->names, s->n, sizeof(*s->names), name_cmp);
	}
	if (!hit)
		return 0;
	i = (size_t)(hit - s->names);
	if (s->found[i])
		return 0; /* an earlier directory's */
	n = loaded_id(s->root, s->names[i], id, sizeof(id));
	if (n <= 0 || !file_has_id(path, id, n)) {
		s->stale[i] = 1;
		return 0;
	}
	s->found[i] = strdup(path);
	if (!s->found[i]) {
		s->err = -ENOMEM;
		return 1;
	}
	return 0;
}

/* search the tree at @dir for @s (a link to a directory followed; below
 * it links are not: FTS_PHYSICAL), depth first in directory order */
static void walk(struct kmod_search *s, const char *dir)
{
	char *r = realpath(dir, NULL);
	char *paths[] = { r, NULL };
	FTSENT *e;
	FTS *t;

	t = r ? fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, NULL) : NULL;
	while (t && (e = fts_read(t)))
		if (e->fts_info == FTS_F &&
		    visit(s, e->fts_path, e->fts_name))
			break;
	if (t)
		fts_close(t);
	free(r);
}

/* the names of /proc/modules, sorted, into @s */
static int loaded_names(struct kmod_search *s)
{
	char *line = NULL, key[256], path[PATH_MAX];
	size_t cap = 0;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/proc/modules", s->root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!r && getline(&line, &cap, f) > 0) {
		norm(line, strcspn(line, " "), key, sizeof(key));
		if (!key[0])
			continue;
		if (util_grow(&s->names, s->n, sizeof(*s->names)) ||
		    !(s->names[s->n] = strdup(key)))
			r = -ENOMEM;
		else
			s->n++;
	}
	free(line);
	fclose(f);
	if (s->n)
		qsort(s->names, s->n, sizeof(*s->names), name_cmp);
	return r;
}

/* the running kernel's GNU build ID (/sys/kernel/notes: the image's
 * notes, elf(5)'s layout, 4-byte aligned) into @id (@len bytes): its
 * length, or -1 */
static ssize_t kernel_id(const char *root, unsigned char *id, size_t len)
{
	char p[PATH_MAX];
	unsigned char buf[4096];
	uint32_t nsz, dsz, type;
	size_t o = 0;
	ssize_t r;
	int fd;

	snprintf(p, sizeof(p), "%s/sys/kernel/notes", root);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf));
	close(fd);
	while (r > 0 && o + 12 <= (size_t)r) {
		size_t name = o + 12, desc;

		memcpy(&nsz, buf + o, 4);
		memcpy(&dsz, buf + o + 4, 4);
		memcpy(&type, buf + o + 8, 4);
		desc = name + ((nsz + 3u) & ~3u);
		if (nsz > sizeof(buf) || dsz > sizeof(buf) ||
		    desc + dsz > (size_t)r)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && dsz <= len) {
			memcpy(id, buf + desc, dsz);
			return dsz;
		}
		o = desc + ((dsz + 3u) & ~3u);
	}
	return -1;
}

/*
 * The running kernel image's debug file (vmlinux with DWARF) into *@path
 * (malloc'ed; NULL: none): the first of DIR/vmlinux-RELEASE,
 * DIR/vmlinux, DIR/boot/vmlinux-RELEASE (@debugdir, NULL: none),
 * /usr/lib/debug/boot/vmlinux-RELEASE (Debian's linux-image-RELEASE-dbg),
 * /usr/lib/debug/lib/modules/RELEASE/vmlinux (Fedora's kernel-debuginfo)
 * and /lib/modules/RELEASE/build/vmlinux (a build tree) whose build ID
 * is the kernel's; *@stale set when one of another build was seen.
 * 0 or -ENOMEM.
 */
static int kernel_file(const char *root, const char *debugdir,
		       const char *rel, char **path, int *stale)
{
	const char *fmt[][2] = {
		{ "%s/vmlinux-%s", "d" }, { "%s/vmlinux", "d" },
		{ "%s/boot/vmlinux-%s", "d" },
		{ "%s/usr/lib/debug/boot/vmlinux-%s", "r" },
		{ "%s/usr/lib/debug/lib/modules/%s/vmlinux", "r" },
		{ "%s/lib/modules/%s/build/vmlinux", "r" },
	};
	unsigned char id[64];
	ssize_t n = kernel_id(root, id, sizeof(id));
	char p[PATH_MAX];
	size_t i;

	*path = NULL;
	for (i = 0; n > 0 && i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		const char *base = fmt[i][1][0] == 'd' ? debugdir : root;

		if (!base)
			continue;
		snprintf(p, sizeof(p), fmt[i][0], base, rel);
		if (access(p, R_OK))
			continue;
		if (!file_has_id(p, id, n)) {
			*stale = 1;
			continue;
		}
		*path = strdup(p);
		return *path ? 0 : -ENOMEM;
	}
	return 0;
}

int kmod_debug_files(const char *sysroot, const char *debugdir,
		     struct kmod_debug **v, size_t *n, size_t *stale)
{
	struct kmod_search s = { 0 };
	struct utsname u;
	char std[PATH_MAX], *kpath = NULL;
	size_t i, k = 0, old = 0;
	int r, kold = 0;

	*v = NULL;
	*n = 0;
	if (stale)
		*stale = 0;
	s.root = sysroot ? sysroot : "";
	if (uname(&u))
		u.release[0] = '\0';
	/* the kernel image first: most inlined functions are there */
	r = kernel_file(s.root, debugdir, u.release, &kpath, &kold);
	old += (size_t)kold;
	if (!r && kpath) {
		if (util_grow(v, k, sizeof(**v)) ||
		    !((*v)[k].mod = strdup("vmlinux"))) {
			free(kpath);
			r = -ENOMEM;
		} else {
			(*v)[k++].path = kpath;
		}
	}
	if (!r)
		r = loaded_names(&s);
	if (!r && s.n) {
		s.found = calloc(s.n, sizeof(*s.found));
		s.stale = calloc(s.n, 1);
		if (!s.found || !s.stale)
			r = -ENOMEM;
	}
	if (!r && s.n) {
		if (debugdir)
			walk(&s, debugdir);
		if (!s.err && u.release[0]) {
			snprintf(std, sizeof(std),
				 "%s/usr/lib/debug/lib/modules/%s", s.root,
				 u.release);
			walk(&s, std);
		}
		r = s.err;
	}
	for (i = 0; !r && i < s.n; i++) {
		if (!s.found[i]) {
			old += s.stale[i];
			continue;
		}
		if (util_grow(v, k, sizeof(**v))) {
			r = -ENOMEM;
			break;
		}
		(*v)[k].mod = s.names[i];
		(*v)[k++].path = s.found[i];
		s.names[i] = s.found[i] = NULL;
	}
	for (i = 0; i < s.n; i++) {
		free(s.names[i]);
		if (s.found)
			free(s.found[i]);
	}
	free(s.names);
	free(s.found);
	free(s.stale);
	if (r) {
		kmod_debug_free(*v, k);
		*v = NULL;
		return r;
	}
	*n = k;
	if (stale)
		*stale = old;
	return 0;
}

void kmod_debug_free(struct kmod_debug *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].mod);
		free(v[i].path);
	}
	free(v);
}

int kmod_mentions(const char *path, const char *name)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	size_t shstr, nl = strlen(name);
	const char *nm, *p, *end;
	int fd, ret = 0;
	Elf *e;

	/* GCC writes a name no longer than a .debug_str offset in the DIE
	 * itself (DW_FORM_string): not searched here */
	if (nl <= 4)
		return 1;
	/* unreadable: maybe (inl_find() says why) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return 1;
	}
	ret = 1; /* no .debug_str: maybe */
	if (elf_getshdrstrndx(e, &shstr))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    !(nm = elf_strptr(e, shstr, sh.sh_name)) ||
		    strcmp(nm, ".debug_str"))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			break; /* cannot tell cheaply: maybe */
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			break;
		ret = 0;
		/* a whole string: at the start or after a NUL, NUL after */
		for (p = d->d_buf, end = p + d->d_size;
		     (p = memmem(p, (size_t)(end - p), name, nl + 1)); p++)
			if (p == (const char *)d->d_buf || p[-1] == '\0') {
				ret = 1;
				break;
			}
		break;
	}
out:
	elf_end(e);
	close(fd);
	return ret;
}
