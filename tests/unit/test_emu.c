/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of emu_decode() (src/probe/emu.c): which probed instructions
 * iprof's uprobe programs may run themselves.  Encodings: Intel SDM vol. 2
 * (RET, ENDBR64, NOP), checked against objdump of GCC's output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iprof/abi.h"
#include "iprof/emu.h"

static int dec(const uint8_t *b, size_t n, int site, struct plan_emu *e)
{
	return emu_decode(b, n, site, e);
}

#define DEC(site, e, ...)                                                      \
	dec((const uint8_t[]){ __VA_ARGS__ },                                  \
	    sizeof((const uint8_t[]){ __VA_ARGS__ }), site, e)

static void test_rets(void **state)
{
	struct plan_emu e;

	(void)state;
	assert_int_equal(DEC(1, &e, 0xc3), IPROF_EMU_RET);
	assert_int_equal(e.pop, 0);
	/* rep ret (GCC for AMD), bnd ret (MPX) */
	assert_int_equal(DEC(1, &e, 0xf3, 0xc3), IPROF_EMU_RET);
	assert_int_equal(DEC(1, &e, 0xf2, 0xc3), IPROF_EMU_RET);
	/* ret $0x10 */
	assert_int_equal(DEC(1, &e, 0xc2, 0x10, 0x00), IPROF_EMU_RET);
	assert_int_equal(e.pop, 16);
	/* too far to pop in the cookie's 14 bits: the kernel's */
	assert_int_equal(DEC(1, &e, 0xc2, 0xff, 0xff), IPROF_EMU_NONE);
	/* retw (16-bit operand), far ret, truncated ret imm16, a jmp */
	assert_int_equal(DEC(1, &e, 0x66, 0xc3), IPROF_EMU_NONE);
	assert_int_equal(DEC(1, &e, 0xcb), IPROF_EMU_NONE);
	assert_int_equal(DEC(1, &e, 0xc2, 0x10), IPROF_EMU_NONE);
	assert_int_equal(DEC(1, &e, 0xe9, 0, 0, 0, 0), IPROF_EMU_NONE);
	assert_int_equal(DEC(1, &e, 0xff, 0x25, 0, 0, 0, 0), IPROF_EMU_NONE);
	/* a ret is no entry to skip */
	assert_int_equal(DEC(0, &e, 0xc3), IPROF_EMU_NONE);
}

static void test_entries(void **state)
{
	struct plan_emu e;

	(void)state;
	assert_int_equal(DEC(0, &e, 0xf3, 0x0f, 0x1e, 0xfa, 0x55), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 4);
	assert_int_equal(DEC(0, &e, 0x90), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 1);
	assert_int_equal(DEC(0, &e, 0x66, 0x90), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 2);
	/* nopl (%rax); nopl 0(%rax); (nopl 0(%rax,%rax,1): the kernel's,
	 * it optimizes that uprobe); nopw 0(%rax,%rax,1); nopl 0L(%rax);
	 * nopl 0L(%rax,%rax,1) */
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x00), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 3);
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x40, 0x00), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 4);
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x44, 0x00, 0x00), IPROF_EMU_NONE);
	assert_int_equal(DEC(0, &e, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 6);
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x80, 0, 0, 0, 0), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 7);
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0), IPROF_EMU_SKIP);
	assert_int_equal(e.len, 8);
	/* cut short: the kernel's */
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x84, 0x00, 0, 0), IPROF_EMU_NONE);
	/* push %rbp (the kernel emulates it), sub $8,%rsp, endbr32 */
	assert_int_equal(DEC(0, &e, 0x55), IPROF_EMU_NONE);
	assert_int_equal(DEC(0, &e, 0x48, 0x83, 0xec, 0x08), IPROF_EMU_NONE);
	assert_int_equal(DEC(0, &e, 0xf3, 0x0f, 0x1e, 0xfb), IPROF_EMU_NONE);
	/* 0f 1f with a reg field other than 0 is not a nop */
	assert_int_equal(DEC(0, &e, 0x0f, 0x1f, 0x48, 0x00), IPROF_EMU_NONE);
}

/* the cookie carries what the program needs, and the chain unchanged */
static void test_cookie(void **state)
{
	iprof_u64 c = IPROF_EMU_COOKIE(123456u, IPROF_EMU_RET, 0, 0xabc, 16);

	(void)state;
	assert_int_equal((iprof_u32)c, 123456u);
	assert_int_equal(IPROF_EMU_KIND(c), IPROF_EMU_RET);
	assert_int_equal(IPROF_EMU_PGOFF(c), 0xabc);
	assert_int_equal(IPROF_EMU_POP(c), 16);
	c = IPROF_EMU_COOKIE(0xffffffffu, IPROF_EMU_SKIP, 15, 4095, IPROF_EMU_POP_MAX);
	assert_int_equal((iprof_u32)c, 0xffffffffu);
	assert_int_equal(IPROF_EMU_KIND(c), IPROF_EMU_SKIP);
	assert_int_equal(IPROF_EMU_LEN(c), 15);
	assert_int_equal(IPROF_EMU_PGOFF(c), 4095);
	assert_int_equal(IPROF_EMU_POP(c), IPROF_EMU_POP_MAX);
}

/* emu_shstk(): the x86_Thread_features line of proc(5) status files */
static void test_shstk(void **state)
{
	static const struct {
		const char *text;
		int want;
	} c[] = {
		{ "Name:\tx\nx86_Thread_features:\tshstk wrss\nx86_Thread_features_locked:\t\n", 1 },
		{ "Name:\tx\nx86_Thread_features:\twrss shstk\n", 1 },
		{ "Name:\tx\nx86_Thread_features:\t\nx86_Thread_features_locked:\tshstk\n", 0 },
		{ "Name:\tx\nx86_Thread_features:\tshstkx\n", 0 },
		{ "Name:\tx\nState:\tR (running)\n", 0 },
	};
	char path[] = "/tmp/iprof-status.XXXXXX";
	size_t i;
	FILE *f;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fd = mkstemp(path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		assert_non_null(f);
		fputs(c[i].text, f);
		fclose(f);
		assert_int_equal(emu_shstk(path), c[i].want);
		unlink(path);
		strcpy(path, "/tmp/iprof-status.XXXXXX");
	}
	assert_int_equal(emu_shstk("/nonexistent/status"), -ENOENT);
	/* this process: never with a shadow stack here (iprof's tests are
	 * not built for one) */
	assert_true(emu_shstk("/proc/self/status") == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rets),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_cookie),
		cmocka_unit_test(test_shstk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
