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
#include "probe/x86dec.h"

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

/*
 * x86dec_avx_len(): VEX and EVEX instructions as GNU objdump (binutils
 * 2.40) decodes them, from glibc 2.36's __strlen_evex, __strchr_evex and
 * __memmove_avx512_unaligned_erms (x86dec_next() agrees with objdump on
 * every instruction boundary of glibc's 154 AVX2, EVEX and AVX-512
 * functions); 0 for what is none, or is cut short.
 */
static void avx_lengths(void **state)
{
	static const struct {
		uint8_t b[12];
		size_t n, want;
	} v[] = {
		/* vpbroadcastb %esi,%ymm17 */
		{ { 0x62, 0xe2, 0x7d, 0x28, 0x7a, 0xce }, 6, 6 },
		/* vpcmpeqb (%rdi),%ymm16,%k0: map 0F3A, imm8 */
		{ { 0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07, 0x00 }, 7, 7 },
		/* vmovdqu64 -0x100(%rsi,%rdx,1),%zmm24: SIB, disp8 (x64) */
		{ { 0x62, 0x61, 0xfe, 0x48, 0x6f, 0x44, 0x16, 0xfc }, 8, 8 },
		/* vmovntdq %zmm24,0x2000(%rdi): disp32 */
		{ { 0x62, 0x61, 0x7d, 0x48, 0xe7, 0x87, 0x00, 0x20, 0, 0 },
		  10,
		  10 },
		/* vmovaps 0x0(%rip),%zmm0: RIP-relative */
		{ { 0x62, 0xf1, 0x7c, 0x48, 0x28, 0x05, 0, 0, 0, 0 }, 10, 10 },
		/* kmovd %k0,%eax (two-byte VEX) */
		{ { 0xc5, 0xfb, 0x93, 0xc0 }, 4, 4 },
		/* bzhi %eax,%ecx,%ecx (three-byte VEX, map 0F38) */
		{ { 0xc4, 0xe2, 0x78, 0xf5, 0xc9 }, 5, 5 },
		/* vpshufd $0x1b,%xmm1,%xmm0 (VEX map 0F, 70: imm8) */
		{ { 0xc5, 0xf9, 0x70, 0xc1, 0x1b }, 5, 5 },
		/* cut short: the imm8 missing */
		{ { 0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07 }, 6, 0 },
		/* EVEX map 7, P1's fixed bit clear, VEX map 4: none */
		{ { 0x62, 0xf7, 0x7d, 0x28, 0x7a, 0xce }, 6, 0 },
		{ { 0x62, 0xe2, 0x79, 0x28, 0x7a, 0xce }, 6, 0 },
		{ { 0xc4, 0xe4, 0x78, 0xf5, 0xc9 }, 5, 0 },
		/* not VEX or EVEX */
		{ { 0x90 }, 1, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (x86dec_avx_len(v[i].b, v[i].n) != v[i].want)
			fail_msg("case %zu: %zu bytes, want %zu", i,
				 x86dec_avx_len(v[i].b, v[i].n), v[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tail_jumps),
		cmocka_unit_test(avx_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
