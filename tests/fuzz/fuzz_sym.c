// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: the ELF symbol reader (src/probe/sym.c) on arbitrary bytes
 * as a file (a memfd): sym_func_names() lists the functions, and
 * sym_func_offset() looks up the first of them and a missing name.
 * Invariants: an error leaves a message; a listed name is found again or
 * refused with a message, never crashes.
 */
#undef NDEBUG /* the checks are the point, in every build type */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms k = { 0 };
	char path[64], err[1024];
	uint64_t off;
	int fd, ret;

	fd = memfd_create("fuzz.elf", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err[0] = '\0';
	ret = sym_func_names(path, &k, err, sizeof(err));
	assert(!ret || err[0] || ret == -ENOMEM);
	if (!ret && k.nfuncs) {
		err[0] = '\0';
		ret = sym_func_offset(path, k.funcs[0], &off, err, sizeof(err));
		assert(!ret || err[0]);
	}
	err[0] = '\0';
	ret = sym_func_offset(path, "no_such_function_anywhere", &off, err,
			      sizeof(err));
	assert(ret && err[0]);
	ksyms_free(&k);
out:
	close(fd);
	return 0;
}
