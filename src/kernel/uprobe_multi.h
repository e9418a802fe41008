/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uprobe_multi links (Linux 6.6+): many user functions of one binary in one
 * BPF link, registered and, above all, released at once (one uprobe per
 * perf event costs the kernel ~150 ms each to release: 2000 uprobes took
 * 5 minutes).  libbpf (1.4) makes them: bpf_program__attach_uprobe_multi()
 * in src/kernel/attach_tp.c; here, whether the kernel has them.
 */
#ifndef IPROF_UPROBE_MULTI_H
#define IPROF_UPROBE_MULTI_H

#include <stdint.h>

#include <linux/types.h>

/* enum bpf_attach_type's BPF_TRACE_UPROBE_SESSION (include/uapi/linux/
 * bpf.h, Linux 6.13): Debian 12's headers (6.1) lack it */
#define IPROF_TRACE_UPROBE_SESSION 57

/*
 * uprobe_multi_probe_prog() - an empty kprobe-type program loaded with expected
 * attach type @attach_type (enum bpf_attach_type; a feature probe: the
 * uprobe_multi type here, BPF_TRACE_KPROBE_MULTI in
 * src/kernel/attach_kprobe.c). Returns its fd (the caller closes it) or -errno.
 */
int uprobe_multi_probe_prog(int attach_type);

/*
 * uprobe_multi_supported() - 1 if the kernel makes uprobe_multi links, 0 if not
 * (probed once, as libbpf's probe_uprobe_multi_link() does: a link on "/"
 * fails with EBADF where the link type exists).
 */
int uprobe_multi_supported(void);

/*
 * uprobe_session_supported() - 1 if the kernel makes uprobe session links
 * (BPF_TRACE_UPROBE_SESSION, Linux 6.13+: one program at a function's
 * entry and, unless the entry returned 1, at its return), 0 if not, or
 * where IPROF_UPROBE_SESSION=0 (iprof(8)).  Probed once, as
 * uprobe_multi_supported().
 */
int uprobe_session_supported(void);

/*
 * uprobe_session_link() - BPF_LINK_CREATE of a uprobe session link of
 * program @prog on @cnt file offsets @offs (bytes) of @path, a BPF cookie
 * each (@cookies), in every process.  Through bpf(2) itself: libbpf 1.4's
 * bpf_link_create() copies the uprobe_multi options for
 * BPF_TRACE_UPROBE_MULTI only.  Returns the link fd (the caller closes
 * it) or -errno.
 */
int uprobe_session_link(int prog, const char *path, const unsigned long *offs,
			const __u64 *cookies, __u32 cnt);

#endif
