/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uprobe_multi links (Linux 6.6+): many user functions of one binary in one
 * BPF link, registered and, above all, released at once (one uprobe per
 * perf event costs the kernel ~150 ms each to release: 2000 uprobes took
 * 5 minutes).  libbpf 1.1 (Debian 12) has no API for them, so the link is
 * made with the bpf(2) command itself, its attribute laid out as in
 * include/uapi/linux/bpf.h (link_create.uprobe_multi, 6.6).
 */
#ifndef IPROF_UPROBE_MULTI_H
#define IPROF_UPROBE_MULTI_H

#include <stdint.h>

/* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI (include/uapi/linux/bpf.h) */
#define UMULTI_ATTACH_TYPE 48

/*
 * multi_probe_prog() - an empty kprobe-type program loaded with expected
 * attach type @attach_type (a feature probe: BPF_TRACE_UPROBE_MULTI here,
 * BPF_TRACE_KPROBE_MULTI in src/attach_kprobe.c).  Returns its fd (the
 * caller closes it) or -errno.
 */
int multi_probe_prog(int attach_type);

/*
 * umulti_supported() - 1 if the kernel makes uprobe_multi links, 0 if not
 * (probed once, as libbpf's probe_uprobe_multi_link() does: a link on "/"
 * fails with EBADF where the link type exists).
 */
int umulti_supported(void);

/*
 * umulti_attach() - attach @prog_fd (a kprobe-type program loaded with
 * expected_attach_type UMULTI_ATTACH_TYPE) to the @cnt functions of @path
 * at file @offsets (bytes), the i-th with BPF cookie @cookies[i], in every
 * process; at their returns if @retprobe.  Returns the link's fd (the
 * caller closes it, which detaches) or -errno.
 */
int umulti_attach(int prog_fd, const char *path, const uint64_t *offsets,
		  const uint64_t *cookies, uint32_t cnt, int retprobe);

#endif
