/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of inl_find() (src/probe/inline.c) on the e2e workload
 * tests/e2e/helpers/inline.c (built -O2 -g, by GCC or, in the sanitizer
 * build, by clang): spin() inlined in loop_site, one_site and twice,
 * twice() in nest_site; its stripped copy with a .gnu_debuglink; the
 * same copy without the debug file.  $IPROF_INLINE_FIXTURE names it.  And
 * a kernel module's object ($IPROF_KMODULE_FIXTURE).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iprof/inline.h"

static const char *fixture(void)
{
	const char *f = getenv("IPROF_INLINE_FIXTURE");

	assert_non_null(f);
	return f;
}

/* the instances of @func in @path, each timed, their callers joined by
 * ',' in address order into @callers */
static size_t found(const char *path, const char *func, char *callers,
		    size_t len)
{
	struct inl_inst *v;
	size_t n, i, k, more = 7;
	int nodwarf = 7;
	char err[256];

	callers[0] = '\0';
	assert_int_equal(inl_find(path, func, NULL, &v, &n, &more, &nodwarf,
				  err, sizeof(err)),
			 0);
	assert_int_equal(nodwarf, 0);
	assert_int_equal(more, 0);
	for (i = 0; i < n; i++) {
		if (v[i].why) {
			char m[1024];

			snprintf(m, sizeof(m), "%s in %s at %#llx: %s", func,
				 v[i].caller,
				 (unsigned long long)v[i].entry.addr, v[i].why);
			inl_free(v, n);
			inl_forget();
			fail_msg("%s", m);
		}
		assert_true(v[i].nexits >= 1 && v[i].nexits <= INL_MAX_EXITS);
		assert_true(v[i].entry.off > 0);
		for (k = 0; k < v[i].nexits; k++) {
			assert_true(v[i].exits[k].off != v[i].entry.off);
			/* a ret exit finds the frame at the stack pointer */
			if (v[i].exits[k].ret)
				assert_true(!v[i].exits[k].reg &&
					    !v[i].exits[k].adj);
		}
		/* inline.c:LINE of the call */
		assert_non_null(strstr(v[i].call, "inline.c:"));
		snprintf(callers + strlen(callers), len - strlen(callers),
			 "%s%s/%u", i ? "," : "", v[i].caller, v[i].depth);
	}
	inl_free(v, n);
	return n;
}

static void test_instances(void **state)
{
	char c[512];

	(void)state;
	assert_int_equal(found(fixture(), "spin", c, sizeof(c)), 3);
	assert_string_equal(c, "loop_site/0,one_site/0,twice/1");
	assert_int_equal(found(fixture(), "twice", c, sizeof(c)), 1);
	assert_string_equal(c, "nest_site/0");
	/* a function with a symbol and no inlined instance */
	assert_int_equal(found(fixture(), "main", c, sizeof(c)), 0);
	assert_int_equal(found(fixture(), "no_such_function", c, sizeof(c)), 0);
	inl_forget();
}

static void test_debuglink(void **state)
{
	char path[PATH_MAX], c[512];

	(void)state;
	snprintf(path, sizeof(path), "%s-stripped", fixture());
	assert_int_equal(found(path, "spin", c, sizeof(c)), 3);
	assert_string_equal(c, "loop_site/0,one_site/0,twice/1");
	inl_forget();
}

static void test_no_dwarf(void **state)
{
	char path[PATH_MAX], dir[] = "/tmp/iprof-inl.XXXXXX", cmd[3 * PATH_MAX];
	struct inl_inst *v;
	size_t n;
	int nodwarf = 0;
	char err[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/alone", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s-stripped' '%s'", fixture(), path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(inl_find(path, "spin", NULL, &v, &n, NULL, &nodwarf,
				  err, sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	assert_int_equal(nodwarf, 1);
	inl_free(v, n);
	/* the same file again: the cache says the same */
	assert_int_equal(inl_find(path, "twice", NULL, &v, &n, NULL, &nodwarf,
				  err, sizeof(err)),
			 0);
	assert_int_equal(nodwarf, 1);
	inl_free(v, n);
	inl_forget();
	unlink(path);
	rmdir(dir);
	/* a file that is not there: an error that names it */
	assert_int_equal(inl_find("/nonexistent/x", "f", NULL, &v, &n, NULL,
				  NULL, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x"));
	inl_forget();
}

/*
 * A kernel module's object (tests/fixtures/kmodule.c, $IPROF_KMODULE_FIXTURE):
 * helper() inlined in caller(), its sites named as kprobes name them
 * (caller+OFF), its frame from .debug_frame; its loop's relocated call
 * is no exit, and the jump label's second edge gives it a second exit
 * (the nop is patched into a jmp to a block that calls slow() and goes
 * on in caller()): without __jump_table it would have one (GCC's code;
 * the fixture is built by the tests' compiler).
 */
static void test_module(void **state)
{
	const char *obj = getenv("IPROF_KMODULE_FIXTURE");
	struct inl_inst *v;
	size_t n, k, more = 7;
	int nodwarf = 7;
	char err[256];

	(void)state;
	assert_non_null(obj);
	assert_int_equal(inl_find(obj, "helper", NULL, &v, &n, &more, &nodwarf,
				  err, sizeof(err)),
			 0);
	assert_int_equal(nodwarf, 0);
	assert_int_equal(more, 0);
	assert_int_equal(n, 1);
	if (v[0].why)
		fail_msg("helper refused: %s", v[0].why);
	assert_string_equal(v[0].caller, "caller");
	assert_non_null(v[0].entry.sym);
	assert_string_equal(v[0].entry.sym, "caller");
#if defined(__clang__)
	/* clang joins the label's block back at the fall-through: one
	 * exit for both ways out */
	assert_true(v[0].nexits >= 1);
#else
	assert_int_equal(v[0].nexits, 2);
#endif
	for (k = 0; k < v[0].nexits; k++) {
		assert_string_equal(v[0].exits[k].sym, "caller");
		assert_true(v[0].exits[k].symoff > v[0].entry.symoff);
		/* rsp-based: no frame pointer in the kernel's build */
		assert_int_equal(v[0].exits[k].reg, 0);
		assert_int_equal(v[0].exits[k].symoff,
				 v[0].exits[k].addr - v[0].entry.addr +
					 v[0].entry.symoff);
	}
	inl_free(v, n);
	inl_forget();
}

/*
 * The kernel image (tests/fixtures/kimage.c, linked ET_EXEC as vmlinux
 * is): helper() inlined into caller() is timed at caller+OFF, its exits
 * the jmps to the return thunk (rets) and the jump label's second way;
 * inlined into caller_nokprobe(), on the kprobe blacklist, it is refused
 * with that reason.
 */
static void test_kernel_image(void **state)
{
	const char *img = getenv("IPROF_KIMAGE");
	struct inl_inst *v;
	size_t n, k, i, more = 7;
	int nodwarf = 7;
	char err[256];

	(void)state;
	assert_non_null(img);
	assert_int_equal(inl_find(img, "helper", NULL, &v, &n, &more, &nodwarf,
				  err, sizeof(err)),
			 0);
	assert_int_equal(nodwarf, 0);
	assert_int_equal(more, 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].caller, "caller_nokprobe")) {
			assert_non_null(v[i].why);
			assert_non_null(strstr(v[i].why, "caller_nokprobe+"));
			assert_non_null(strstr(v[i].why, "kprobe blacklist (NOKPROBE_SYMBOL)"));
			continue;
		}
		assert_string_equal(v[i].caller, "caller");
		if (v[i].why)
			fail_msg("helper in caller refused: %s", v[i].why);
		assert_string_equal(v[i].entry.sym, "caller");
#if defined(__clang__)
		assert_true(v[i].nexits >= 1);
#else
		/* the fall-through and the jump label's jmp */
		assert_int_equal(v[i].nexits, 2);
#endif
		for (k = 0; k < v[i].nexits; k++) {
			assert_string_equal(v[i].exits[k].sym, "caller");
			assert_int_equal(v[i].exits[k].reg, 0);
			assert_int_equal(v[i].exits[k].symoff,
					 v[i].exits[k].addr - v[i].entry.addr +
						 v[i].entry.symoff);
		}
	}
	inl_free(v, n);
	inl_forget();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_kernel_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
