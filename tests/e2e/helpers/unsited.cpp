// SPDX-License-Identifier: GPL-2.0-only
// A C++ program with a function whose return sites cannot be found:
// hop() leaves by jmp *%rax, a jump through a register that no bounded
// jump table explains (iprof cannot tell a tail call from a jump inside
// it), to thrower(), which throws at every even i (the last call, N even,
// returns: no frame is open at exit).  With a
// uretprobe on hop the exception's unwinder meets the kernel's
// trampoline and calls std::terminate; --returns auto gives hop an
// entry-only timer and the program lives.
// Ground truth on stdout: calls=N, thrown=N/2 (rounded up), then
// "caught M" (M = thrown; exit 0).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static volatile int sink;

extern "C" {
__attribute__((noinline)) void thrower(int i)
{
	if (!(i & 1))
		throw std::runtime_error("odd");
	sink = i;
}
void hop(int i);
// hop(i): loads thrower's address and jumps there through %rax
__asm__(".text\n.globl hop\n.type hop, @function\nhop:\n"
	"	.cfi_startproc\n"
	"	lea thrower(%rip), %rax\n"
	"	jmp *%rax\n"
	"	.cfi_endproc\n"
	".size hop, .-hop\n");
// a statement after the call: no tail call, mid's frame stays on the stack
__attribute__((noinline)) void mid(int i) { hop(i); sink = 2; }
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			mid(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	printf("calls=%d\n", n);
	printf("thrown=%d\n", (n + 1) / 2);
	printf("caught %d\n", caught);
	return caught == (n + 1) / 2 ? 0 : 1;
}
