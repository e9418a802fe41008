// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_multi.c - uprobe_multi links through bpf(2).  See uprobe_multi.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include <bpf/bpf.h>

#include "uprobe_multi.h"

/* BPF_F_UPROBE_MULTI_RETURN (include/uapi/linux/bpf.h, 6.6) */
#define UMULTI_RETURN 1u

/* union bpf_attr's link_create with its uprobe_multi member (6.6) */
struct umulti_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t um_flags;
	uint32_t pid;
	uint32_t pad;
};

_Static_assert(sizeof(struct umulti_attr) == 64, "link_create layout");

static int link_create(int prog_fd, const char *path, const uint64_t *offsets,
		       const uint64_t *cookies, uint32_t cnt, int retprobe)
{
	struct umulti_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = UMULTI_ATTACH_TYPE;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = cnt;
	a.um_flags = retprobe ? UMULTI_RETURN : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

int multi_probe_prog(int attach_type)
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

int umulti_supported(void)
{
	static int known = -1;
	uint64_t off = 0;
	int prog, link;

	if (known >= 0)
		return known;
	known = 0;
	prog = multi_probe_prog(UMULTI_ATTACH_TYPE);
	if (prog < 0)
		return 0;
	link = link_create(prog, "/", &off, NULL, 1, 0);
	known = link == -EBADF;
	if (link >= 0)
		close(link);
	close(prog);
	return known;
}

int umulti_attach(int prog_fd, const char *path, const uint64_t *offsets,
		  const uint64_t *cookies, uint32_t cnt, int retprobe)
{
	return link_create(prog_fd, path, offsets, cookies, cnt, retprobe);
}
