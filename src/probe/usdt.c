// SPDX-License-Identifier: GPL-2.0-only
/*
 * usdt.c - the SDT notes of an ELF file (.note.stapsdt, owner "stapsdt",
 * type 3), read with libelf's gelf_getnote().  A note's descriptor is the
 * site's address, the .stapsdt.base address the tools adjust it by and
 * the semaphore's address (each of the file's word size), then
 * "provider\0name\0args\0".  See include/iprof/usdt.h.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/usdt.h"
#include "iprof/util.h"

#include "probe/sym_int.h"

#define NT_STAPSDT 3

void usdt_notes_free(struct usdt_note *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].provider);
		free(v[i].name);
		free(v[i].args);
	}
	free(v);
}

/* the number of blank-separated specs in @s */
static int count_args(const char *s)
{
	int n = 0, in = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t')
			in = 0;
		else if (!in++)
			n++;
	}
	return n;
}

/* note descriptor @d (@len bytes, words of @w bytes) into @o: 0, or
 * -EINVAL (malformed: skipped), -ENOMEM */
static int parse_desc(const char *d, size_t len, size_t w, struct usdt_note *o)
{
	const char *prov, *name, *args, *end = d + len;
	uint64_t a[3] = {0};
	size_t i;

	if (len < 3 * w + 3)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		if (w == 8) {
			memcpy(&a[i], d + 8 * i, 8);
		} else {
			uint32_t x;

			memcpy(&x, d + 4 * i, 4);
			a[i] = x;
		}
	}
	prov = d + 3 * w;
	name = memchr(prov, '\0', (size_t)(end - prov));
	if (!name++ || name >= end)
		return -EINVAL;
	args = memchr(name, '\0', (size_t)(end - name));
	if (!args++ || args >= end || !memchr(args, '\0', (size_t)(end - args)))
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	o->pc = a[0];
	o->sema = a[2];
	o->provider = strdup(prov);
	o->name = strdup(name);
	o->args = strdup(args);
	if (!o->provider || !o->name || !o->args) {
		free(o->provider);
		free(o->name);
		free(o->args);
		return -ENOMEM;
	}
	o->nargs = count_args(args);
	return 0;
}

/* the notes of section @scn into *@v, *@n: 0 or -ENOMEM */
static int read_scn(Elf_Scn *scn, size_t w, struct usdt_note **v, size_t *n)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, next, noff, doff;
	GElf_Nhdr nh;
	int err;

	while (data && (next = gelf_getnote(data, off, &nh, &noff, &doff))) {
		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((char *)data->d_buf + noff, "stapsdt", 8))
			continue;
		if (util_grow(v, *n, sizeof(**v)))
			return -ENOMEM;
		err = parse_desc((char *)data->d_buf + doff, nh.n_descsz, w,
				 &(*v)[*n]);
		if (err == -ENOMEM)
			return err;
		if (!err)
			(*n)++;
	}
	return 0;
}

int usdt_notes_read(const char *path, struct usdt_note **v, size_t *n,
		    char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, w;
	GElf_Shdr sh;
	Elf *elf;
	int fd, ret = 0;
	const char *nm;

	*v = NULL;
	*n = 0;
	ret = sym_open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		util_set_err(err, errlen, "%s: not an ELF file", path);
		ret = -ENOEXEC;
		goto out;
	}
	w = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm || strcmp(nm, ".note.stapsdt"))
			continue;
		ret = read_scn(scn, w, v, n);
		if (ret)
			break;
	}
	if (ret == -ENOMEM)
		util_set_err(err, errlen, "out of memory");
out:
	elf_end(elf);
	close(fd);
	if (ret) {
		usdt_notes_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return ret;
}

long usdt_find(const struct usdt_note *v, size_t n, const char *provider,
	       const char *name, int *nprov)
{
	long first = -1;
	size_t i, j;
	int np = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) ||
		    (provider && strcmp(v[i].provider, provider)))
			continue;
		if (first < 0)
			first = (long)i;
		for (j = 0; j < i; j++) /* a provider counted once */
			if (!strcmp(v[j].name, name) &&
			    !strcmp(v[j].provider, v[i].provider))
				break;
		np += j == i;
	}
	if (nprov)
		*nprov = np;
	return first;
}

/* has a note before @i the probe of note @i? */
static int seen(const struct usdt_note *v, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(v[j].name, v[i].name) &&
		    !strcmp(v[j].provider, v[i].provider))
			return 1;
	return 0;
}

size_t usdt_probe_list(const struct usdt_note *v, size_t n, char *buf,
		       size_t len)
{
	size_t i, used = 0, count = 0;
	int w;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (seen(v, i))
			continue;
		count++;
		if (used >= len)
			continue;
		w = snprintf(buf + used, len - used, "%s%s:%s",
			     used ? ", " : "", v[i].provider, v[i].name);
		if (w < 0 || (size_t)w >= len - used) {
			/* cut: end with "..." where it fits */
			if (len > 4)
				snprintf(
					buf + (used < len - 4 ? used : len - 4),
					4, "...");
			used = len;
			continue;
		}
		used += (size_t)w;
	}
	return count;
}

void usdt_suggest(const struct usdt_note *v, size_t n, const char *name,
		  char *buf, size_t len)
{
	char **names = calloc(n ? n : 1, sizeof(*names));
	char near[256];
	size_t i, m = 0;

	if (len)
		buf[0] = '\0';
	if (!names)
		return;
	for (i = 0; i < n; i++)
		if (!seen(v, i))
			names[m++] = v[i].name;
	if (ksym_suggest(names, m, name, near, sizeof(near)))
		snprintf(buf, len, KSYM_SUGGEST_PFX "%s?", near);
	free(names);
}
