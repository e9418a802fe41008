// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_multi.c - does the kernel make uprobe_multi links?  See
 * uprobe_multi.h.
 */
#include <errno.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/uprobe_multi.h"

int uprobe_multi_probe_prog(int attach_type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = attach_type);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "iprof_probe", "GPL",
			       insns, 2, &o);

	return fd < 0 ? -errno : fd;
}

int uprobe_multi_supported(void)
{
	static int known = -1;
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	enum bpf_attach_type type;
	enum bpf_prog_type ptype;
	unsigned long off = 0;
	int prog, link;

	if (known >= 0)
		return known;
	known = 0;
	/* BPF_TRACE_UPROBE_MULTI: libbpf knows it where the kernel headers
	 * (Debian 12's are 6.1) may not */
	if (libbpf_prog_type_by_name("uprobe.multi", &ptype, &type))
		return 0;
	prog = uprobe_multi_probe_prog(type);
	if (prog < 0)
		return 0;
	lo.uprobe_multi.path = "/";
	lo.uprobe_multi.offsets = &off;
	lo.uprobe_multi.cnt = 1;
	link = bpf_link_create(prog, 0, type, &lo);
	known = link == -EBADF;
	if (link >= 0)
		close(link);
	close(prog);
	return known;
}
