// SPDX-License-Identifier: GPL-2.0-only
// A C library whose function calls back into its caller: a C++ caller's
// exception passes through call_cb()'s frame (gcc gives C code .eh_frame
// on x86-64).  Nothing in this file can unwind, but a program that loads
// it can (cbmain.cc).
__attribute__((noinline)) int call_cb(int (*f)(int), int x)
{
	int r = f(x);

	return r + 1;
}
