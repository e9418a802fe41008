// SPDX-License-Identifier: GPL-2.0-only
// Functions whose return sites the symbol table alone does not give, as
// release builds make them (tests/e2e/test_fallback.sh builds this file
// at -O2: into a stripped shared library, into a program, into a
// -rdynamic program with a separate debug file):
//  - lthrow() throws at every i % 3 == 0: GCC moves the throw into
//    lthrow.cold, a symbol strip --strip-unneeded removes (and a
//    -rdynamic program's .dynsym never has), so only .eh_frame says
//    where that part lies;
//  - pick() is a switch GCC turns into a jump table (jmp *%rax), whose
//    case 3 throws.
#include <stdexcept>

static volatile int sink;

extern "C" {
__attribute__((noinline)) void lthrow(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("lthrow");
	sink = i;
}

// a statement after the call: no tail call, lmid's frame stays
__attribute__((noinline)) void lmid(int i)
{
	lthrow(i);
	sink = 2;
}

__attribute__((noinline)) int pick(int k, int i)
{
	switch (k) {
	case 0:
		sink = 10;
		break;
	case 1:
		sink = 11;
		return i + 3;
	case 2:
		sink = 12;
		break;
	case 3:
		if (i >= 0)
			throw std::runtime_error("pick");
		sink = 13;
		break;
	case 4:
		sink = 14;
		return i * 7;
	case 5:
		sink = 15;
		break;
	case 6:
		sink = 16;
		return i - 1;
	default:
		sink = 0;
	}
	return sink + i;
}
}
