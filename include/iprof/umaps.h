/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --offcpu-stacks=user: user addresses of traced processes to function
 * names.  While the run goes on, each process whose user stack came in
 * has its executable mappings read from /proc/TID/maps (umaps_note(), as
 * the rings are drained: the process is still there then, mostly); at
 * the report, an address is found in its process's mappings, made a file
 * offset, and named from that file's ELF symbols (.symtab, else its
 * separate debug file's, else .dynsym), read then (src/probe/umaps.c).
 * A recording keeps the mappings (its trailer: struct rec_umap), so that
 * `iprof report` names the same frames on the same machine.
 *
 * Locked inside: umaps_note() (the thread reading the rings) and
 * umaps_name() (the one writing a report) may run at once.
 */
#ifndef IPROF_UMAPS_H
#define IPROF_UMAPS_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/rec.h"

struct umaps;

/* umaps_new() - an empty set; NULL with errno ENOMEM. */
struct umaps *umaps_new(void);

/* umaps_free() - free @u and every file it read (NULL ok). */
void umaps_free(struct umaps *u);

/*
 * umaps_note() - thread @tid sent user addresses @addr (@n of them, 0s
 * ignored): read its process's mappings from /proc/@tid/maps unless they
 * are read already and cover every address (a process is read again
 * at most 8 times: a dlopen, a new mapping).  Returns 0, or -errno
 * (-ENOENT: the thread is gone; -ENOMEM); @u is unchanged on error.
 */
int umaps_note(struct umaps *u, uint32_t tid, const uint64_t *addr, size_t n);

/*
 * umaps_add() - mapping @m (copied; its path too), as a recording keeps
 * it: after the mappings of its process that umaps_note() or earlier
 * umaps_add() calls gave.  0 or -ENOMEM.
 */
int umaps_add(struct umaps *u, const struct rec_umap *m);

/*
 * umaps_list() - every mapping kept, process by process, into *@out (an
 * array owned by @u, valid until its next call or umaps_free()); how
 * many.  For the recording's trailer.
 */
size_t umaps_list(struct umaps *u, const struct rec_umap **out);

/*
 * umaps_name() - the function of process @tgid that holds user address
 * @addr, into @buf (@size bytes): "func" (C++ and Rust demangled), or
 * "FILE+0xOFF" (FILE the mapping's base name, OFF the file offset) where
 * no symbol covers it.  Returns @buf, or NULL where no mapping of @tgid
 * holds @addr (the caller shows it in hex).  A return address names the
 * instruction after its call: pass addr - 1 for every frame but the
 * innermost.
 */
const char *umaps_name(struct umaps *u, uint32_t tgid, uint64_t addr, char *buf,
		       size_t size);

#endif /* IPROF_UMAPS_H */
