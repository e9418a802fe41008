// SPDX-License-Identifier: GPL-2.0-only
// A function whose return iprof cannot see, though it returns: hop()
// leaves by jmp *%rax to leaf() (no bounded jump table explains it), so
// under --returns sites it has no return sites and no uretprobe.  main
// calls hop() M times at the top level, each followed by a getppid(); then
// parent() N times, which calls hop(), getppid() and other() in turn.  A
// timer on hop must count its calls where they are made (M top level, N
// under parent) and never be the parent of getppid or other.
// Ground truth on stdout: root_hop=M, parent=N, hop=N, getppid=N+M,
// other=N.
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
	sink = i;
}
void hop(int i);
__asm__(".text\n.globl hop\n.type hop, @function\nhop:\n"
	"	.cfi_startproc\n"
	"	lea leaf(%rip), %rax\n"
	"	jmp *%rax\n"
	"	.cfi_endproc\n"
	".size hop, .-hop\n");

__attribute__((noinline)) void other(int i)
{
	sink = i + 1;
}

// statements after each call: no tail call, parent's frame stays open
__attribute__((noinline)) void parent(int i)
{
	hop(i);
	sink = (int)syscall(SYS_getppid);
	other(i);
	sink = 3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int m = argc > 2 ? atoi(argv[2]) : 3;

	for (int i = 0; i < m; i++) {
		hop(i);
		sink = (int)syscall(SYS_getppid);
	}
	for (int i = 0; i < n; i++)
		parent(i);
	printf("root_hop=%d\nparent=%d\nhop=%d\ngetppid=%d\nother=%d\n", m,
	       n, n, n + m, n);
	return 0;
}
