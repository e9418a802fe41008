// SPDX-License-Identifier: GPL-2.0-only
/*
 * retsite_find() (src/probe/retsite.c) on tail jumps to code without a
 * symbol: tests/e2e/helpers/tailjmp.c ($IPROF_TAILJMP_FIXTURE).  The code
 * jumped to is read whole, as its .eh_frame FDE bounds it (not the first
 * row of the FDE's table only), so its rets are the function's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iprof/retsite.h"
#include "iprof/sym.h"

/* The return sites of function @fn of @path as offsets from its start
 * (negative: in a piece before it) into @rel (at most @max), their number
 * into *@n, the tail calls among them into *@nj; the error. */
static int sites_of(const char *path, const char *fn, int64_t *rel,
		    size_t max, size_t *n, size_t *nj)
{
	uint64_t off, size, *sites = NULL;
	char why[256];
	size_t i;
	int r;

	assert_int_equal(sym_func_range(path, fn, &off, &size, why,
					sizeof(why)),
			 0);
	*n = 0;
	*nj = 0;
	r = retsite_find(NULL, path,
			 (struct retsite_code[]){ { off, size, 0 } }, 1, &sites,
			 n, nj, why, sizeof(why));
	if (r)
		print_message("%s: %d: %s\n", fn, r, why);
	for (i = 0; !r && i < *n && i < max; i++)
		rel[i] = (int64_t)(sites[i] - off);
	free(sites);
	return r;
}

/*
 * tj_only is one jmp to .Ltj_local (push rbx; ...; pop rbx; ret): its
 * site is that ret, 9 bytes before tj_only (.Ltj_local is padded to 16
 * bytes, its ret its 8th); tj_mixed: that (-0x29, past tj_only and
 * tj_direct) and its own ret (+6); tj_hot: its ret (+0xc) and its cold
 * part's (+0x15, right after it).
 */
static void tail_jumps(void **state)
{
#ifdef __x86_64__
	const char *w = getenv("IPROF_TAILJMP_FIXTURE");
	int64_t rel[4];
	size_t n, nj;

	(void)state;
	assert_non_null(w);
	assert_int_equal(sites_of(w, "tj_only", rel, 4, &n, &nj), 0);
	assert_int_equal(n, 1);
	assert_int_equal(nj, 0);
	assert_int_equal(rel[0], -9);
	/* its ret, and its jmp at +7, with the frame gone: a tail call
	 * (entry_sp()), not .Ltj_local's ret, shared with its callers */
	assert_int_equal(sites_of(w, "tj_mixed", rel, 4, &n, &nj), 0);
	assert_int_equal(n, 2);
	assert_int_equal(nj, 1);
	assert_int_equal(rel[0], 6);
	assert_int_equal(rel[1], 7);
	/* the cold part's ret, entered with rbx pushed: in its FDE's last
	 * row, after the pop */
	assert_int_equal(sites_of(w, "tj_hot", rel, 4, &n, &nj), 0);
	assert_int_equal(n, 2);
	assert_int_equal(nj, 0);
	assert_int_equal(rel[0], 0xc);
	assert_int_equal(rel[1], 0x15);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tail_jumps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
