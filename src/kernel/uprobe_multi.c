// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_multi.c - does the kernel make uprobe_multi and uprobe session
 * links?  See uprobe_multi.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

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

/*
 * union bpf_attr's link_create with its uprobe_multi member (include/uapi/
 * linux/bpf.h, Linux 6.6), spelled here: Debian 12's kernel headers (6.1)
 * have no uprobe_multi member.
 */
struct usess_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, umflags, pid;
};

int uprobe_session_link(int prog, const char *path, const unsigned long *offs,
			const __u64 *cookies, __u32 cnt)
{
	union bpf_attr a;
	struct usess_attr u;
	int fd;

	memset(&u, 0, sizeof(u));
	u.prog_fd = (__u32)prog;
	u.attach_type = IPROF_TRACE_UPROBE_SESSION;
	u.path = (__u64)(unsigned long)path;
	u.offsets = (__u64)(unsigned long)offs;
	u.cookies = (__u64)(unsigned long)cookies;
	u.cnt = cnt;
	memset(&a, 0, sizeof(a));
	memcpy(&a, &u, sizeof(u) < sizeof(a) ? sizeof(u) : sizeof(a));
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

int uprobe_session_supported(void)
{
	static int known = -1;
	const char *e = getenv("IPROF_UPROBE_SESSION");
	unsigned long off = 0;
	int prog, link;

	if (e && !strcmp(e, "0"))
		return 0;
	if (known >= 0)
		return known;
	known = 0;
	if (!uprobe_multi_supported())
		return 0;
	prog = uprobe_multi_probe_prog(IPROF_TRACE_UPROBE_SESSION);
	if (prog < 0)
		return 0;
	/* "/" is no regular file: EBADF where the type is dispatched to
	 * uprobe_multi links, EINVAL before 6.13 */
	link = uprobe_session_link(prog, "/", &off, NULL, 1);
	known = link == -EBADF;
	if (link >= 0)
		close(link);
	close(prog);
	return known;
}
