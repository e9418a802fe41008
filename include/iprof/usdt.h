/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usdt.h - the USDT probes an ELF file declares: its .note.stapsdt notes
 * (systemtap's sys/sdt.h, DTrace's), read with libelf, for `iprof list
 * usdt` and the planner's checks of `usdt:PATH[:PROVIDER]:NAME`.  The
 * probes are attached by libbpf (bpf_program__attach_usdt()), which reads
 * the notes itself; this is only what iprof shows and checks.
 * Kernel-free.  Errors are 0 or -errno with a message.
 */
#ifndef IPROF_USDT_H
#define IPROF_USDT_H

#include <stddef.h>
#include <stdint.h>

/* One SDT note: one site of a probe (a probe may have several sites,
 * one note each: an inlined or duplicated call of the macro). */
struct usdt_note {
	char *provider, *name; /* owned */
	char *args;    /* the argument specs as written, "-4@%eax 8@-16(%rbp)",
			* owned ("" without arguments) */
	int nargs;     /* how many specs @args holds */
	uint64_t pc;   /* the site's address (the nop), link-time */
	uint64_t sema; /* its semaphore's address, 0: not guarded */
};

/*
 * usdt_notes_read() - every SDT note of ELF file @path, in file order,
 * into *@v (malloc'ed, usdt_notes_free()) and *@n (0: the file has none,
 * not an error).  Errors: -ENOENT etc. (open), -ENOEXEC (not an ELF
 * file), -ENOMEM; a message in @err (@errlen bytes).
 */
int usdt_notes_read(const char *path, struct usdt_note **v, size_t *n,
		    char *err, size_t errlen);

/* usdt_notes_free() - free @n notes at @v (NULL is fine) */
void usdt_notes_free(struct usdt_note *v, size_t n);

/*
 * usdt_find() - the first note of @v (@n) that is probe @name of
 * @provider (NULL: of any provider), or -1; *@nprov (may be NULL): how
 * many providers have a probe @name (more than one with @provider NULL:
 * ambiguous, the caller says which).
 */
long usdt_find(const struct usdt_note *v, size_t n, const char *provider,
	       const char *name, int *nprov);

/*
 * usdt_probe_list() - "prov:a, prov:b, ..." of @v's distinct probes
 * (sites of one probe once), as many as fit in @buf (@len bytes; "..."
 * when cut); the count of distinct probes.
 */
size_t usdt_probe_list(const struct usdt_note *v, size_t n, char *buf,
		       size_t len);

/*
 * usdt_suggest() - "; did you mean prov:x?" (KSYM_SUGGEST_PFX, up to 3
 * names near @name by edit distance, as ksym_suggest()) into @buf (@len
 * bytes), "" when none is near.
 */
void usdt_suggest(const struct usdt_note *v, size_t n, const char *name,
		  char *buf, size_t len);

#endif /* IPROF_USDT_H */
