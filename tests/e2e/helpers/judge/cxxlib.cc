// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C++ library a C program links (tests/e2e/test_unwind_judge.sh), built
 * twice: with -DCATCH it also calls the program back inside a try block
 * (a catch above the program's frames: cxx_try) and throws for it
 * (cxx_throw); without, it has destructors only (a landing pad that
 * imports _Unwind_Resume, no catch).
 */
#include <string>

extern "C" int cxx_len(const char *s)
{
	std::string t(s);

	t += "x"; /* may throw: t's destructor is a landing pad */
	return (int)t.size();
}

#ifdef CATCH
extern "C" int cxx_try(void (*cb)(int), int i)
{
	try {
		cb(i);
	} catch (int) {
		return 1;
	}
	return 0;
}

extern "C" void cxx_throw(int i)
{
	throw i;
}
#endif
