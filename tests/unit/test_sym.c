// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for src/probe/sym.c: uprobe binary paths and function offsets.
 *
 * Binaries under test: this test program itself (it has a .symtab), libc
 * (no .symtab: exported functions in .dynsym, with versions), and copies
 * made at test time under a mkdtemp() directory with strip(1) and
 * objcopy(1) (binutils).
 *
 * Expected offsets are computed independently of ELF headers: the kernel
 * maps a file page at offset O to address A (/proc/self/maps: "A-END perms
 * O ..."), so the file offset of a function at runtime address X in that
 * mapping is X - A + O, exactly what a uprobe needs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "iprof/sym.h"
#include "iprof/umaps.h"
#include "iprof/unwind.h"

static char g_tmp[] = "/tmp/iprof-test-sym-XXXXXX";
static char g_self[PATH_MAX]; /* this test program, absolute */
static char g_err[PATH_MAX + 512];

/* Probed by the tests: global, never inlined, kept. */
__attribute__((noinline, used)) int sym_test_target(int x)
{
	return x * 3 + 1;
}

/* A static (STB_LOCAL) function: .symtab only. */
__attribute__((noinline, used)) static int sym_test_static(int x)
{
	return x ^ 0x55;
}

/* Data, not a function. */
int sym_test_data = 42;

/* Run a shell command; it must succeed. */
static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run(const char *fmt, ...)
{
	char cmd[3 * PATH_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	if (ret)
		fail_msg("'%s' failed (%d)", cmd, ret);
}

/*
 * File offset of runtime address @addr from /proc/self/maps; the mapped
 * file's path into @path (size PATH_MAX) if not NULL.
 */
static uint64_t maps_offset(const void *addr, char *path)
{
	unsigned long long start, end, off;
	uintptr_t a = (uintptr_t)addr;
	char line[PATH_MAX + 128], file[PATH_MAX];
	uint64_t ret = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start,
			   &end, &off, file) < 3)
			continue;
		if (a < start || a >= end)
			continue;
		ret = a - start + off;
		if (path)
			snprintf(path, PATH_MAX, "%s", file);
		found = 1;
		break;
	}
	fclose(f);
	if (!found)
		fail_msg("address %p not in /proc/self/maps", addr);
	return ret;
}

/* Link-time address (st_value) of @addr in the main program. */
static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *)data = info->dlpi_addr;
	return 1; /* the first object is the main program */
}

static uint64_t link_addr(const void *addr)
{
	uintptr_t bias = 0;

	dl_iterate_phdr(main_bias, &bias);
	return (uintptr_t)addr - bias;
}

static int offset_of(const char *path, const char *func, uint64_t *off)
{
	g_err[0] = '\0';
	*off = 0;
	return sym_func_offset(path, func, off, g_err, sizeof(g_err));
}

/* @func in @path must fail with @ret and a message containing @msg. */
static void offset_bad(const char *path, const char *func, int ret,
		       const char *msg)
{
	uint64_t off;
	int r = offset_of(path, func, &off);

	if (r != ret || !strstr(g_err, msg))
		print_error("%s:%s: got %d '%s', want %d '%s'\n", path, func, r,
			    g_err, ret, msg);
	assert_int_equal(r, ret);
	assert_non_null(strstr(g_err, msg));
}

/* ---- offsets --------------------------------------------------------------
 */

static void self_offsets(void **state)
{
	uint64_t off;

	(void)state;
	assert_int_equal(sym_test_target(1) + sym_test_static(1), 4 + 0x54);
	assert_int_equal(offset_of(g_self, "sym_test_target", &off), 0);
	assert_int_equal(off, maps_offset((void *)sym_test_target, NULL));
	assert_int_equal(offset_of(g_self, "sym_test_static", &off), 0);
	assert_int_equal(off, maps_offset((void *)sym_test_static, NULL));
	/* a prefix is not a match */
	offset_bad(g_self, "sym_test_targe", -ENOENT,
		   "no function 'sym_test_targe' in ");
	offset_bad(g_self, "no_such_function", -ENOENT,
		   "(its symbol table has no such FUNC symbol)");
	offset_bad(g_self, "sym_test_data", -ENOENT, "'sym_test_data' in ");
	assert_non_null(strstr(g_err, "is not a function (symbol type "
				      "STT_OBJECT, data)"));
}

/* libc: versioned symbols in .dynsym, no .symtab. */
/* sym_is_executable(): this test program (a PIE: DF_1_PIE) is one; libc,
 * which has a PT_INTERP and an entry point, is a library (issue 43); a
 * file that is no ELF is none */
static void executables(void **state)
{
	char libc[PATH_MAX], self[PATH_MAX];
	void *fn;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(sym_is_executable(self), 1);
	fn = dlsym(RTLD_DEFAULT, "clock_nanosleep");
	assert_non_null(fn);
	maps_offset(fn, libc);
	assert_true(libc[0] == '/');
	assert_int_equal(sym_is_executable(libc), 0);
	assert_int_equal(sym_is_executable("/proc/self/status"), 0);
	assert_int_equal(sym_is_executable("/nonexistent/x"), 0);
}

/* libc's memcpy as ld.so relocated it for this program (an IFUNC) */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

static void libc_versions(void **state)
{
	char libc[PATH_MAX], path2[PATH_MAX];
	struct sym_target *v;
	void *fn;
	uint64_t off;
	size_t n;
	int ret;

	(void)state;
	/* two versions at one address (GLIBC_2.2.5 and GLIBC_2.17 on
	 * x86-64): libbpf 1.1 says "ambiguous match" */
	fn = dlsym(RTLD_DEFAULT, "clock_nanosleep");
	assert_non_null(fn);
	off = maps_offset(fn, libc);
	assert_true(libc[0] == '/');
	assert_int_equal(offset_of(libc, "clock_nanosleep", &off), 0);
	assert_int_equal(off, maps_offset(fn, NULL));

	/* two versions at different addresses: the default one (the one
	 * dlsym() finds, pthread_cond_wait@@GLIBC_2.3.2) */
	fn = dlsym(RTLD_DEFAULT, "pthread_cond_wait");
	assert_non_null(fn);
	maps_offset(fn, path2);
	if (!strcmp(path2, libc)) {
		assert_int_equal(offset_of(libc, "pthread_cond_wait", &off), 0);
		assert_int_equal(off, maps_offset(fn, NULL));
	}

	/* a version named (.dynsym: .gnu.version, .gnu.version_d): the old
	 * pthread_cond_wait that dlvsym() finds, and the default one */
	fn = dlvsym(RTLD_DEFAULT, "pthread_cond_wait", "GLIBC_2.2.5");
	if (fn && (maps_offset(fn, path2), !strcmp(path2, libc))) {
		assert_int_equal(offset_of(libc, "pthread_cond_wait@GLIBC_2.2.5",
					   &off), 0);
		assert_int_equal(off, maps_offset(fn, NULL));
		fn = dlvsym(RTLD_DEFAULT, "pthread_cond_wait", "GLIBC_2.3.2");
		assert_non_null(fn);
		assert_int_equal(offset_of(libc,
					   "pthread_cond_wait@@GLIBC_2.3.2",
					   &off), 0);
		assert_int_equal(off, maps_offset(fn, NULL));
		/* no version named: every version, the default first */
		{
			struct sym_target *v;
			size_t n;

			assert_int_equal(sym_func_targets(libc,
							  "pthread_cond_wait",
							  &v, &n, g_err,
							  sizeof(g_err)), 0);
			assert_int_equal(n, 2);
			assert_int_equal(v[0].offset, off);
			assert_string_equal(v[0].name,
					    "pthread_cond_wait@@GLIBC_2.3.2");
			assert_string_equal(v[1].name,
					    "pthread_cond_wait@GLIBC_2.2.5");
			sym_targets_free(v, n);
		}
	}

	/* memcpy's default version is an IFUNC: timed by the implementation
	 * ld.so gave this process (its relocation of memcpy_fn, read in
	 * /proc/self/maps) where that has a symbol (libc6-dbg), else
	 * refused */
	ret = sym_func_targets(libc, "memcpy", &v, &n, g_err, sizeof(g_err));
	if (ret) {
		offset_bad(libc, "memcpy", -EOPNOTSUPP,
			   "is an indirect function (STT_GNU_IFUNC)");
	} else {
		char where[PATH_MAX];
		uint64_t off = maps_offset(memcpy_fn, where);

		assert_int_equal(n, 1);
		assert_int_equal(v[0].ifunc, 1);
		/* under ASan (the sanitizer build) this process's memcpy is
		 * the sanitizer's interceptor, in the test binary: libc's
		 * choice is then not this process's to compare with */
		if (strstr(where, "libc.so"))
			assert_int_equal(v[0].offset, off);
		assert_int_equal(strncmp(v[0].name, "__mem", 5), 0);
		sym_targets_free(v, n);
	}
	/* no .symtab: the message says where to look */
	offset_bad(libc, "no_such_function", -ENOENT,
		   "no function 'no_such_function' in ");
	if (strstr(g_err, "nor in its debug file")) /* libc6-dbg */
		return;
	assert_non_null(strstr(g_err, "it has no .symtab"));
	assert_non_null(strstr(g_err, "check with nm -D"));
}

/* strip(1)ped copies. */
/* First instructions a uprobe can (not) take, by their prefixes (x86-64). */
static void insn_prefixes(void **state)
{
	static const struct {
		const char *bytes;
		int want;
	} c[] = {
		{ "\xf3\x0f\x1e\xfa", 0 }, /* endbr64 */
		{ "\x55", 0 }, /* push %rbp */
		{ "\x66\x90", 0 }, /* xchg %ax,%ax */
		{ "\xf0\xff\x07", -EOPNOTSUPP }, /* lock incl (%rdi) */
		{ "\x66\xf0\x0f\xc1\x07", -EOPNOTSUPP }, /* lock after 66 */
		{ "\x3e\xff\xe0", -EOPNOTSUPP }, /* notrack jmp *%rax (ds) */
		{ "\x2e\x0f\x1f\x84", -EOPNOTSUPP }, /* cs nopw */
	};
	char path[PATH_MAX], err[512];
	size_t i;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/insn", g_tmp);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("pad", f); /* the instruction at offset 3 */
		fputs(c[i].bytes, f);
		assert_int_equal(fclose(f), 0);
		err[0] = '\0';
#if defined(__x86_64__)
		assert_int_equal(sym_insn_check(path, 3, err, sizeof(err)),
				 c[i].want);
		assert_true(!c[i].want || strstr(err, "prefix"));
#else
		assert_int_equal(sym_insn_check(path, 3, err, sizeof(err)), 0);
#endif
	}
}

/* -DIPROF_SANITIZE=ON: ASan with gcc or clang */
#ifdef __SANITIZE_ADDRESS__
#define TEST_ASAN 1
#endif
#ifdef __has_feature
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

static void stripped(void **state)
{
	char copy[PATH_MAX], libc[PATH_MAX], want[2 * PATH_MAX];
	void *fn = dlsym(RTLD_DEFAULT, "clock_nanosleep");
	uint64_t off, want_off;

	(void)state;
	/* this program: no .symtab, nothing exported in .dynsym (unless
	 * built with ASan, whose runtime exports its interceptors) */
#ifndef TEST_ASAN
	snprintf(copy, sizeof(copy), "%s/self-stripped", g_tmp);
	run("strip -o '%s' '%s'", copy, g_self);
	offset_bad(copy, "sym_test_target", -ENODATA, "");
	snprintf(want, sizeof(want),
		 "%s has no symbol table (stripped): no .symtab, no "
		 "functions in .dynsym, and no separate debug file "
		 "(/usr/lib/debug/.build-id/, .gnu_debuglink; one "
		 "elsewhere: --debuginfo DIR)",
		 copy);
	assert_string_equal(g_err, want);
#else
	(void)want;
#endif

	/* the symbols in a separate debug file: beside it (.gnu_debuglink
	 * NAME), then in .debug/ (gdb's and elfutils' search order) */
	snprintf(copy, sizeof(copy), "%s/self-dbg", g_tmp);
	run("objcopy --only-keep-debug '%s' '%s.debug' && "
	    "strip --strip-all -o '%s' '%s' && "
	    "objcopy --add-gnu-debuglink='%s.debug' '%s'",
	    g_self, copy, copy, g_self, copy, copy);
	want_off = maps_offset((void *)sym_test_target, NULL);
	assert_int_equal(offset_of(copy, "sym_test_target", &off), 0);
	assert_int_equal(off, want_off);
	assert_int_equal(offset_of(copy, "sym_test_static", &off), 0);
	assert_int_equal(off, maps_offset((void *)sym_test_static, NULL));
	run("mkdir -p '%s/.debug' && mv '%s.debug' '%s/.debug/'", g_tmp, copy,
	    g_tmp);
	assert_int_equal(offset_of(copy, "sym_test_target", &off), 0);
	assert_int_equal(off, want_off);
	offset_bad(copy, "no_such_function", -ENOENT,
		   "no function 'no_such_function' in ");
	assert_non_null(strstr(g_err, ", nor in its debug file "));
	assert_non_null(strstr(g_err, "/.debug/self-dbg.debug"));

	/* libc, stripped again: its exported functions stay, same offset */
	want_off = maps_offset(fn, libc);
	snprintf(copy, sizeof(copy), "%s/libc-stripped.so", g_tmp);
	run("strip --strip-all -o '%s' '%s'", copy, libc);
	assert_int_equal(offset_of(copy, "clock_nanosleep", &off), 0);
	assert_int_equal(off, want_off);
}

/*
 * Symbols added with objcopy (absolute: st_shndx SHN_ABS, so the offset
 * comes from the PT_LOAD segment) at sym_test_target's link-time address
 * A and at A + 16.
 */
static void choosing(void **state)
{
	char copy[PATH_MAX];
	uint64_t a = link_addr((void *)sym_test_target);
	uint64_t want = maps_offset((void *)sym_test_target, NULL);
	uint64_t off;

	(void)state;
	snprintf(copy, sizeof(copy), "%s/self-syms", g_tmp);
	run("objcopy "
	    "--add-symbol dupfn=%#llx,function,local "
	    "--add-symbol dupfn=%#llx,function,local "
	    "--add-symbol globfn=%#llx,function,local "
	    "--add-symbol globfn=%#llx,function,global "
	    "--add-symbol 'verfn@V1=%#llx,function,global' "
	    "--add-symbol 'verfn@@V2=%#llx,function,global' "
	    "--add-symbol samefn=%#llx,function,local "
	    "--add-symbol samefn=%#llx,function,global "
	    "--add-symbol ifn=%#llx,indirect-function,global "
	    "'%s' '%s'",
	    (unsigned long long)a, (unsigned long long)a + 16,
	    (unsigned long long)a + 16, (unsigned long long)a,
	    (unsigned long long)a + 16, (unsigned long long)a,
	    (unsigned long long)a, (unsigned long long)a, (unsigned long long)a,
	    g_self, copy);

	/* two static functions of one name: refused, both addresses named */
	offset_bad(copy, "dupfn", -ENOTUNIQ, "'dupfn' in ");
	assert_non_null(strstr(g_err, "is ambiguous"));
	/* a global one wins over a static one */
	assert_int_equal(offset_of(copy, "globfn", &off), 0);
	assert_int_equal(off, want);
	/* f@@V2 (default) over f@V1 (hidden) */
	assert_int_equal(offset_of(copy, "verfn", &off), 0);
	assert_int_equal(off, want);
	/* a version named: that one */
	assert_int_equal(offset_of(copy, "verfn@V1", &off), 0);
	assert_int_equal(off, want + 16);
	assert_int_equal(offset_of(copy, "verfn@V2", &off), 0);
	assert_int_equal(off, want);
	assert_int_equal(offset_of(copy, "verfn@@V2", &off), 0);
	assert_int_equal(off, want);
	offset_bad(copy, "verfn@@V1", -ENOENT,
		   "no function 'verfn' of version (default) V1 in ");
	offset_bad(copy, "verfn@V3", -ENOENT,
		   "no function 'verfn' of version V3 in ");
	offset_bad(copy, "verfn@", -EINVAL, "'verfn@': expected FUNC@VERSION");
	/* one address, several symbols: fine */
	assert_int_equal(offset_of(copy, "samefn", &off), 0);
	assert_int_equal(off, want);
	offset_bad(copy, "ifn", -EOPNOTSUPP, "STT_GNU_IFUNC");
	/* the original symbols are still resolved from their sections */
	assert_int_equal(offset_of(copy, "sym_test_target", &off), 0);
	assert_int_equal(off, want);
}

/* Which symbol names are clones of a function, which are cold parts. */
/* ksym_suggest(): the nearest names within a quarter of the name's length
 * (1 edit up to 4 bytes), nearest first, at most 3, none when none near */
static void suggest(void **state)
{
	char *names[] = { "inner", "outer", "outer_fn", "read_group",
			  "vfs_read", "vfs_reada", "vfs_readv", "vfs_ready",
			  "vfs_write", "x" };
	size_t n = sizeof(names) / sizeof(names[0]);
	char buf[128];

	(void)state;
	assert_int_equal(ksym_suggest(names, n, "outter", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "outer");
	assert_int_equal(ksym_suggest(names, n, "read_grp", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "read_group");
	/* a swap of neighbours is one edit: vfs_read 1, the others 2 */
	assert_int_equal(ksym_suggest(names, n, "vfs_raed", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "vfs_read, vfs_reada or vfs_readv");
	/* nearest first: vfs_ready 1, then the three at 2 in order */
	assert_int_equal(ksym_suggest(names, n, "vfs_readyy", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "vfs_ready, vfs_read or vfs_reada");
	/* short: one edit only */
	assert_int_equal(ksym_suggest(names, n, "y", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "x");
	assert_int_equal(ksym_suggest(names, n, "innr", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "inner");
	assert_int_equal(ksym_suggest(names, n, "zzzzzz", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* truncated, not overrun */
	assert_int_equal(ksym_suggest(names, n, "vfs_readz", buf, 10), 3);
	assert_string_equal(buf, "vfs_read,");
}

static void clone_names(void **state)
{
	(void)state;
	assert_int_equal(sym_clone_of("f.isra.0", "f"), 1);
	assert_int_equal(sym_clone_of("f.constprop.0.isra.0", "f"), 1);
	assert_int_equal(sym_clone_of("f.part.3", "f"), 1);
	assert_int_equal(sym_clone_of("f.lto_priv.0", "f"), 1);
	assert_int_equal(sym_clone_of("f.llvm.1234567", "f"), 1);
	assert_int_equal(sym_clone_of("f.cold", "f"), 2);
	assert_int_equal(sym_clone_of("f.part.0.cold", "f"), 2);
	assert_int_equal(sym_clone_of("f", "f"), 0);
	assert_int_equal(sym_clone_of("f.x", "f"), 0);
	assert_int_equal(sym_clone_of("f.", "f"), 0);
	assert_int_equal(sym_clone_of("fg.isra.0", "f"), 0);
	assert_int_equal(sym_clone_of("f.isra..0", "f"), 0);
	/* Go: closures, methods, nested closures are functions of their
	 * own, not clones of the function whose name they begin with */
	assert_int_equal(sym_clone_of("main.main.func1", "main"), 0);
	assert_int_equal(sym_clone_of("main.main.func1", "main.main"), 0);
	assert_int_equal(sym_clone_of("pkg.f.func2.1", "pkg.f.func2"), 0);
	assert_int_equal(sym_clone_of("pkg.f.func2.1", "pkg.f"), 0);
	assert_int_equal(sym_clone_of("main.(*T).M", "main"), 0);
	/* a number first is no clone (GCC's nested function inner.0) */
	assert_int_equal(sym_clone_of("inner.0", "inner"), 0);
	/* the base of a clone: up to the first '.' of its clone suffix */
	assert_int_equal(ksym_base_len("f.constprop.0.isra.0"), 1);
	assert_int_equal(ksym_base_len("main.main.func1"), 15);
	assert_int_equal(ksym_base_len("main.(*T).M"), 11);
	assert_int_equal(ksym_base_len("pkg.f.func2.1"), 13);
	assert_int_equal(ksym_base_len("main.main.isra.0"), 9);
	assert_int_equal(ksym_base_len("inner.0"), 7);
}

static void not_elf(void **state)
{
	char path[PATH_MAX], want[2 * PATH_MAX];
	uint64_t off;

	(void)state;
	offset_bad("/etc/passwd", "top", -ENOEXEC, "");
	assert_string_equal(g_err, "/etc/passwd: not an ELF file");
	offset_bad(g_tmp, "top", -EISDIR, "");
	snprintf(want, sizeof(want), "%s: is a directory", g_tmp);
	assert_string_equal(g_err, want);
	offset_bad("/dev/null", "top", -EINVAL, "");
	assert_string_equal(g_err, "/dev/null: not a regular file");
	offset_bad("/nonexistent/bin", "top", -ENOENT, "");
	assert_string_equal(g_err,
			    "/nonexistent/bin: No such file or directory");

	/* empty, and a truncated ELF header */
	snprintf(path, sizeof(path), "%s/empty", g_tmp);
	run("> '%s'", path);
	offset_bad(path, "top", -ENOEXEC, "not an ELF file");
	snprintf(path, sizeof(path), "%s/trunc", g_tmp);
	run("head -c 20 '%s' > '%s'", g_self, path);
	offset_bad(path, "top", -ENOEXEC, "not an ELF file");
	/* cut after its header: the section headers (at the end) are gone */
	snprintf(path, sizeof(path), "%s/cut", g_tmp);
	run("head -c 5000 '%s' > '%s'", g_self, path);
	offset_bad(path, "top", -ENOEXEC,
		   "truncated: its section headers end at byte ");

	/* an object file is not something a uprobe attaches to */
	snprintf(path, sizeof(path), "%s/obj.o", g_tmp);
	run("objcopy -I binary -O elf64-little /etc/passwd '%s'", path);
	assert_int_equal(offset_of(path, "top", &off), -ENOEXEC);
	assert_non_null(strstr(g_err, "an ELF object file (.o)"));
}

/* ---- paths ----------------------------------------------------------------
 */

static int resolve(const char *name, char **out)
{
	g_err[0] = '\0';
	return sym_resolve_path(name, out, g_err, sizeof(g_err));
}

static void paths(void **state)
{
	char cwd[PATH_MAX], want[2 * PATH_MAX], *old_path, *out = NULL;
	const char *env;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/prog", g_tmp);
	run("cp '%s' '%s'", g_self, want);
	snprintf(want, sizeof(want), "%s/lib.so", g_tmp);
	run("cp '%s' '%s' && chmod 644 '%s'", g_self, want, want);
	run("touch '%s/libiproftest.so.1' '%s/iproftest-binary'", g_tmp, g_tmp);

	/* an absolute path stays; symlinks are resolved */
	assert_int_equal(resolve(g_self, &out), 0);
	assert_string_equal(out, g_self);
	free(out);
	snprintf(want, sizeof(want), "%s/link", g_tmp);
	run("ln -sf prog '%s'", want);
	assert_int_equal(resolve(want, &out), 0);
	snprintf(want, sizeof(want), "%s/prog", g_tmp);
	assert_string_equal(out, want);
	free(out);

	/* a relative path with '/': from the current directory */
	assert_int_equal(chdir(g_tmp), 0);
	assert_int_equal(resolve("./prog", &out), 0);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(resolve("./nope", &out), -ENOENT);
	assert_null(out);
	assert_string_equal(g_err, "./nope: No such file or directory");

	/* a bare name is not looked for in the current directory ... */
	env = getenv("PATH");
	old_path = strdup(env ? env : "");
	assert_non_null(old_path);
	assert_int_equal(setenv("PATH", "/nonexistent::", 1), 0);
	assert_int_equal(resolve("prog", &out), -ENOENT);
	assert_string_equal(g_err, "prog not found in $PATH or the library "
				   "directories; give a path (./prog)");
	/* ... but in $PATH, where it must be executable */
	assert_int_equal(setenv("PATH", g_tmp, 1), 0);
	assert_int_equal(resolve("prog", &out), 0);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(resolve("lib.so", &out), -ENOENT);
	/* a name found nowhere: its versions, or the names near it */
	assert_int_equal(resolve("libiproftest.so", &out), -ENOENT);
	assert_string_equal(g_err, "libiproftest.so not found in $PATH or the "
				   "library directories; give a path "
				   "(./libiproftest.so); did you mean "
				   "libiproftest.so.1?");
	assert_int_equal(resolve("iproftest-binray", &out), -ENOENT);
	assert_non_null(strstr(g_err, "; did you mean iproftest-binary?"));
	assert_int_equal(setenv("PATH", old_path, 1), 0);
	free(old_path);
	assert_int_equal(chdir(cwd), 0);

	/* then in the library directories */
	assert_int_equal(resolve("libc.so.6", &out), 0);
	assert_true(out[0] == '/');
	assert_non_null(strstr(out, "/libc.so.6"));
	free(out);
	assert_int_equal(resolve("", &out), -ENOENT);
}

static int setup(void **state)
{
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", g_self, sizeof(g_self) - 1);
	if (n <= 0)
		return -1;
	g_self[n] = '\0';
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[sizeof(g_tmp) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	return system(cmd) ? -1 : 0;
}

static int collect(const char *name, void *ctx)
{
	char *buf = ctx;

	strcat(buf, name);
	strcat(buf, "|");
	return 0;
}

/*
 * ksyms_repeated(): a name that two kernel functions share (static
 * functions of two files; one of them a module's) is flagged, a name seen
 * once is not, after ksyms_sort() keeps one entry per name; and the module
 * of the entry kept still reads.
 */
static void ksyms_repeated_names(void **state)
{
	struct ksyms k = { 0 };

	(void)state;
	assert_int_equal(ksyms_repeated(&k, "x"), -1);
	assert_int_equal(ksyms_add(&k, "name_show", 9, NULL), 0);
	assert_int_equal(ksyms_add(&k, "vfs_read", 8, NULL), 0);
	assert_int_equal(ksyms_add(&k, "name_show", 9, "kvm"), 0);
	assert_int_equal(ksyms_add(&k, "type_show", 9, "kvm"), 0);
	ksyms_sort(&k);
	assert_int_equal(k.nfuncs, 3);
	assert_int_equal(ksyms_repeated(&k, "name_show"), 1);
	assert_int_equal(ksyms_repeated(&k, "vfs_read"), 0);
	assert_int_equal(ksyms_repeated(&k, "type_show"), 0);
	assert_int_equal(ksyms_repeated(&k, "nope"), 0);
	assert_int_equal(ksyms_exists(&k, "name_show"), 1);
	assert_string_equal(ksyms_module(k.funcs[1]), "kvm"); /* type_show */
	ksyms_free(&k);
}

/*
 * sym_func_names() on the fixture ELF (tests/fixtures/glob-fixture.c):
 * exactly its functions, sorted, clones under their own names, the IFUNC
 * and the data symbol left out; globs through ksyms_match() and
 * ksyms_match_clones(); errors as sym_func_offset() gives them.
 */
/* What a C++ glob is matched against: a name per function, an overload
 * with its parameters, clones folded, cold parts and C names left out. */
static void cxx_names(void **state)
{
	static const char *const syms[] = {
		"_ZN2ns3fooEi",			/* ns::foo(int) */
		"_ZN2ns3fooEd",			/* ns::foo(double) */
		"_ZN2ns3barEi",			/* ns::bar(int) */
		"_ZN2ns3barEi.isra.0",		/* its clone */
		"_ZN2ns3bazEv.cold",		/* a cold part only */
		"_ZNK2ns3Box3getEv",		/* ns::Box::get() const */
		"_ZN2ns5twiceIiEET_S1_",	/* int ns::twice<int>(int) */
		"main",
	};
	struct ksyms in = {0}, out;
	char got[512] = "";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		assert_int_equal(ksyms_add(&in, syms[i], strlen(syms[i]), NULL), 0);
	ksyms_sort(&in);
	assert_int_equal(sym_cxx_names(&in, &out), 0);
	for (i = 0; i < out.nfuncs; i++) {
		strcat(got, out.funcs[i]);
		strcat(got, ";");
	}
	assert_string_equal(got, "ns::Box::get;ns::bar;ns::foo(double);ns::foo(int);ns::twice<int>;");
	ksyms_free(&in);
	ksyms_free(&out);
}

/* One demangler for C++ and Rust (libiberty's cplus_demangle()): Rust
 * legacy names without their hash, v0 names, C++ as before. */
static void demangled(void **state)
{
	static const struct {
		const char *sym, *want;
	} t[] = {
		{ "_ZN2ns3fooEi", "ns::foo(int)" },
		{ "_ZNK2ns3Box3getEv", "ns::Box::get() const" },
		{ "_ZN2ns5twiceIiEET_S1_", "int ns::twice<int>(int)" },
		{ "_ZN2ns3barEi.isra.0", "ns::bar(int)" },
		{ "_ZN2rs5parse17h516047a969b77145E", "rs::parse" },
		{ "_ZN2rs4util5parse17h0123456789abcdefE", "rs::util::parse" },
		{ "_RNvCs1234_2rs5parse", "rs::parse" },
		{ "_RNvNtCs1234_2rs4util5parse", "rs::util::parse" },
	};
	struct ksyms in = { 0 }, out;
	char got[512] = "", *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		d = sym_demangle(t[i].sym);
		assert_non_null(d);
		assert_string_equal(d, t[i].want);
		free(d);
	}
	/* not mangled: C, Go */
	assert_null(sym_demangle("main"));
	assert_null(sym_demangle("main.main.func1"));
	assert_null(sym_demangle("_start"));
	/* Rust names as a "::" glob sees them: each once, no hash */
	for (i = 4; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(ksyms_add(&in, t[i].sym, strlen(t[i].sym),
					   NULL), 0);
	ksyms_sort(&in);
	assert_int_equal(sym_cxx_names(&in, &out), 0);
	for (i = 0; i < out.nfuncs; i++) {
		strcat(got, out.funcs[i]);
		strcat(got, ";");
	}
	assert_string_equal(got, "rs::parse;rs::util::parse;");
	ksyms_free(&in);
	ksyms_free(&out);
}

static void func_names(void **state)
{
	const char *fix = getenv("IPROF_GLOB_FIXTURE");
	struct ksyms k;
	char got[4096];
	size_t i, many = 0;
	uint64_t off;

	(void)state;
	if (!fix)
		fail_msg("IPROF_GLOB_FIXTURE is not set: run under ctest");
	assert_int_equal(sym_func_names(fix, &k, g_err, sizeof(g_err)), 0);
	assert_null(k.traceable);
	for (i = 0; i < k.nfuncs; i++) {
		many += !strncmp(k.funcs[i], "many_", 5);
		if (i)
			assert_true(strcmp(k.funcs[i - 1], k.funcs[i]) < 0);
		assert_string_equal(ksyms_module(k.funcs[i]), "");
	}
	assert_int_equal(many, 2001);
	/* an IFUNC of a file this process has not loaded: refused */
	assert_int_equal(sym_func_offset(fix, "handle_ifunc", &off, g_err,
					 sizeof(g_err)),
			 -EOPNOTSUPP);
	got[0] = '\0';
	ksyms_match(&k, "handle_*", collect, got);
	assert_string_equal(got, "handle_get|handle_put|handle_put.cold|"
				 "handle_put.isra.0|handle_static|");
	got[0] = '\0';
	ksyms_match(&k, "handle_put", collect, got);
	assert_string_equal(got, "handle_put|");
	got[0] = '\0';
	ksyms_match_clones(&k, "handle_put", collect, got);
	assert_string_equal(got, "handle_put|handle_put.cold|handle_put.isra.0|");
	got[0] = '\0';
	ksyms_match(&k, "*ifunc*", collect, got);
	assert_string_equal(got, "ifunc_impl|resolve_handle_ifunc|");
	assert_int_equal(ksyms_exists(&k, "handle_data"), 0);
	assert_int_equal(ksym_base_len("handle_put.isra.0"), 10);
	assert_int_equal(ksym_base_len("handle_put"), 10);
	ksyms_free(&k);

	assert_int_equal(sym_func_names("/etc/passwd", &k, g_err,
					sizeof(g_err)), -ENOEXEC);
	assert_string_equal(g_err, "/etc/passwd: not an ELF file");
	assert_null(k.funcs);
	assert_int_equal(sym_func_names("/tmp", &k, g_err, sizeof(g_err)),
			 -EISDIR);
	assert_int_equal(sym_func_names("/nonexistent", &k, g_err,
					sizeof(g_err)), -ENOENT);
}

/* Entries keep their module: "NAME [MODULE]" of kallsyms. */
static void modules(void **state)
{
	const char *d = getenv("IPROF_TESTDATA");
	char ks[PATH_MAX], aff[PATH_MAX], got[512] = "";
	struct ksyms k;

	(void)state;
	snprintf(ks, sizeof(ks), "%s/kallsyms", d ? d : "tests/unit/data");
	snprintf(aff, sizeof(aff), "%s/tracefs/available_filter_functions",
		 d ? d : "tests/unit/data");
	assert_int_equal(ksyms_load(&k, ks, aff), 0);
	assert_int_equal(k.nfuncs, 15); /* text symbols, not jiffies */
	assert_int_equal(k.ntraceable, 10);
	assert_int_equal(ksyms_exists(&k, "kvm_vcpu_block"), 1);
	ksyms_match(&k, "kvm_*", collect, got);
	assert_string_equal(got, "kvm_vcpu_block|");
	assert_string_equal(ksyms_module(k.traceable[3]), "kvm");
	assert_string_equal(ksyms_module(k.traceable[4]), "");
	ksyms_free(&k);
}

/*
 * unwind_judge(): a program whose only non-local exits are longjmp-style
 * (tools/longjmp-workload: longjmp, siglongjmp) cannot unwind through a
 * uretprobe, and the evidence says so; a stack switch (e2e-coro:
 * swapcontext) can: 1 in the program itself, 2 in another file (a
 * library's, which a uprobe session survives).
 */
static void unwind_longjmp(void **state)
{
	const char *lj = getenv("IPROF_LONGJMP_FIXTURE"),
		   *co = getenv("IPROF_CORO_FIXTURE"), *both[2];
	char why[PATH_MAX + 256], want[PATH_MAX + 64], rp[PATH_MAX];

	(void)state;
	if (!lj || !co)
		skip();
	assert_non_null(realpath(lj, rp));
	assert_int_equal(unwind_judge(&lj, 1, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "longjmp-style exits only (%s imports ",
		 rp);
	assert_non_null(strstr(why, want));
	assert_non_null(
		strstr(why, "longjmp): the frames they skip close as unwound"));
	assert_int_equal(unwind_judge(&co, 1, why, sizeof(why)), 1);
	assert_non_null(strstr(why, " imports swapcontext"));
	/* the switch in another file than the program's: 2, a uprobe
	 * session's case */
	both[0] = lj;
	both[1] = co;
	assert_int_equal(unwind_judge(both, 2, why, sizeof(why)), 2);
	assert_non_null(strstr(why, " imports swapcontext (a stack switch by libc's context functions, which iprof sees)"));
}

/* Two target lists the same: names, offsets, sizes, clones, cold parts. */
static void same_targets(const char *path, const char *func, int r1,
			 const char *e1, const struct sym_target *v1,
			 size_t n1, int r2, const char *e2,
			 const struct sym_target *v2, size_t n2)
{
	size_t i;

	if (r1 != r2 || (r1 && strcmp(e1, e2)) || n1 != n2)
		fail_msg("%s:%s: uncached %d (%s) n=%zu, cached %d (%s) n=%zu",
			 path, func, r1, r1 ? e1 : "", n1, r2, r2 ? e2 : "",
			 n2);
	for (i = 0; i < n1; i++)
		if (strcmp(v1[i].name, v2[i].name) ||
		    v1[i].offset != v2[i].offset ||
		    v1[i].addr != v2[i].addr || v1[i].size != v2[i].size ||
		    v1[i].clone != v2[i].clone || v1[i].cold != v2[i].cold ||
		    v1[i].cold_off != v2[i].cold_off ||
		    v1[i].cold_size != v2[i].cold_size ||
		    v1[i].cold_addr != v2[i].cold_addr)
			fail_msg("%s:%s: target %zu: %s %#llx vs %s %#llx",
				 path, func, i, v1[i].name,
				 (unsigned long long)v1[i].offset, v2[i].name,
				 (unsigned long long)v2[i].offset);
}

/* sym_cache_targets() of the names in @names that @glob matches (and of
 * a few that are no function) gives what sym_func_targets() gives;
 * returns how many resolved. */
static size_t cached_as_uncached(struct sym_cache *c, const char *path,
				 const struct ksyms *names, const char *glob)
{
	static const char *const extra[] = { "no_such_function", "main@V",
					     "f.cold", "_init", "ns::p",
					     "ns::p(int *)", "sym_test_data",
					     "vers@V1", "vers@@V2", "vers@V3" };
	static char e1[PATH_MAX + 512], e2[PATH_MAX + 512];
	struct sym_target *v1, *v2;
	size_t i, n1, n2, ok = 0;
	const char *f;
	int r1, r2;

	for (i = 0; i < names->nfuncs + sizeof(extra) / sizeof(extra[0]);
	     i++) {
		f = i < names->nfuncs ? names->funcs[i] :
					extra[i - names->nfuncs];
		if (i < names->nfuncs && fnmatch(glob, f, 0))
			continue;
		e1[0] = e2[0] = '\0';
		r1 = sym_func_targets(path, f, &v1, &n1, e1, sizeof(e1));
		r2 = sym_cache_targets(c, path, f, &v2, &n2, e2, sizeof(e2));
		same_targets(path, f, r1, e1, v1, n1, r2, e2, v2, n2);
		ok += !r1;
		sym_targets_free(v1, n1);
		sym_targets_free(v2, n2);
	}
	return ok;
}

/* The names glob @glob over @path matches, cached (a new cache: a C++
 * glob's token, cxx_index(), at work) and not: the same; every one, and
 * every symbol it matches, resolves the same through the cache.  Returns
 * how many resolved. */
static size_t glob_same(const char *path, const char *glob)
{
	struct sym_cache *c = sym_cache_new();
	struct ksyms all, want, got;
	size_t i, j, ok;

	assert_non_null(c);
	assert_int_equal(sym_glob_func_names(path, &all, g_err, sizeof(g_err)),
			 0);
	assert_int_equal(sym_glob_names(&all, glob, &want), 0);
	assert_int_equal(sym_cache_glob_names(c, path, glob, &got, g_err,
					      sizeof(g_err)),
			 0);
	for (i = j = 0; i < want.nfuncs || j < got.nfuncs;) {
		if (i < want.nfuncs && fnmatch(glob, want.funcs[i], 0)) {
			i++;
			continue;
		}
		if (j < got.nfuncs && fnmatch(glob, got.funcs[j], 0)) {
			j++;
			continue;
		}
		if (i == want.nfuncs || j == got.nfuncs)
			fail_msg("%s: '%s': uncached %zu names, cached %zu",
				 path, glob, i, j);
		assert_string_equal(got.funcs[j], want.funcs[i]);
		i++;
		j++;
	}
	ok = cached_as_uncached(c, path, &want, glob);
	ok += cached_as_uncached(c, path, &all, glob);
	ksyms_free(&all);
	ksyms_free(&want);
	ksyms_free(&got);
	sym_cache_free(c);
	return ok;
}

/* The names of @path glob @glob matches, "a;b;", into @buf. */
static void glob_list(struct sym_cache *c, const char *path, const char *glob,
		      char *buf, size_t len)
{
	struct ksyms got;
	size_t i;

	buf[0] = '\0';
	assert_int_equal(sym_cache_glob_names(c, path, glob, &got, g_err,
					      sizeof(g_err)),
			 0);
	for (i = 0; i < got.nfuncs; i++)
		if (!fnmatch(glob, got.funcs[i], 0))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s;",
				 got.funcs[i]);
	ksyms_free(&got);
}

/* Through the planner's cache (struct sym_cache): the same targets and
 * errors as each lookup alone, for C, versioned libc, compiler clones,
 * C++ overloads and Rust names; the C++ glob's names exact. */
static void cached_lookups(void **state)
{
	static const char *const fixtures[] = {
		"IPROF_GLOB_FIXTURE", "IPROF_CXXNAMES_FIXTURE",
		"IPROF_LANGNAMES_FIXTURE", "IPROF_CLONES_FIXTURE"
	};
	struct sym_cache *c = sym_cache_new();
	char libc[PATH_MAX], buf[1024], copy[PATH_MAX];
	const char *path;
	size_t i;

	(void)state;
	assert_non_null(c);
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		path = getenv(fixtures[i]);
		if (!path)
			fail_msg("%s is not set: run under ctest", fixtures[i]);
		assert_true(glob_same(path, "*") > 0);
		glob_same(path, "ns::*");
		glob_same(path, "rs::*");
		glob_same(path, "rs::util::*");
		glob_same(path, "_Z*");
		glob_same(path, "*::*");
	}
	assert_true(glob_same(g_self, "sym_*") > 2);
	/* versions in .symtab names (f@V1 beside f@@V2) and a clone */
	snprintf(copy, sizeof(copy), "%s/glob-versions", g_tmp);
	run("objcopy --add-symbol 'vers@V1=.text:0x10,function,global' "
	    "--add-symbol 'vers@@V2=.text:0x20,function,global' "
	    "--add-symbol 'vers.isra.0=.text:0x30,function,local' '%s' '%s'",
	    getenv("IPROF_GLOB_FIXTURE"), copy);
	assert_int_equal(glob_same(copy, "vers*"), 2 * 5);
	maps_offset((void *)printf, libc);
	/* versions at several addresses, IFUNCs, no .symtab */
	assert_true(glob_same(libc, "pthread_*") > 10);
	assert_true(glob_same(libc, "mem*") > 3);

	/* e2e-cxxnames: ns::p's overloads each with its parameters */
	path = getenv("IPROF_CXXNAMES_FIXTURE");
	glob_list(c, path, "ns::*", buf, sizeof(buf));
	assert_string_equal(buf, "ns::label[abi:cxx11];ns::p(int*);ns::p(int**);");
	/* e2e-langnames: Rust legacy and v0 names, demangled */
	path = getenv("IPROF_LANGNAMES_FIXTURE");
	glob_list(c, path, "rs::*", buf, sizeof(buf));
	assert_string_equal(buf, "rs::parse;rs::util::split;");
	sym_cache_free(c);
}

/* a function of this program's own, for user_addresses() */
__attribute__((noinline)) int umaps_target(int x)
{
	return x * 3 + 1;
}

/*
 * --offcpu-stacks=user's names (src/probe/umaps.c, sym_addr.c): this
 * process's mappings read from /proc, an address inside one of its
 * functions named as that function (the test program's, and libc's
 * getpid, an exported one), an address in no mapping unnamed, one of
 * another process unnamed; the mappings listed and added again (as a
 * recording's) name the same
 */
static void user_addresses(void **state)
{
	uint64_t a[2] = { (uint64_t)(uintptr_t)&umaps_target + 4,
			  (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid") };
	struct umaps *u = umaps_new(), *v = umaps_new();
	const struct rec_umap *m;
	char buf[256];
	size_t n, i;

	(void)state;
	assert_non_null(u);
	assert_non_null(v);
	assert_int_equal(umaps_note(u, (uint32_t)getpid(), a, 2), 0);
	assert_non_null(umaps_name(u, (uint32_t)getpid(), a[0], buf,
				   sizeof(buf)));
	assert_string_equal(buf, "umaps_target");
	assert_non_null(umaps_name(u, (uint32_t)getpid(), a[1], buf,
				   sizeof(buf)));
	assert_true(strstr(buf, "getpid") != NULL);
	assert_null(umaps_name(u, (uint32_t)getpid(), 8, buf, sizeof(buf)));
	assert_null(umaps_name(u, (uint32_t)getpid() + 1, a[0], buf,
			       sizeof(buf)));
	n = umaps_list(u, &m);
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		assert_int_equal(m[i].tgid, (uint32_t)getpid());
		assert_int_equal(umaps_add(v, &m[i]), 0);
	}
	assert_non_null(umaps_name(v, (uint32_t)getpid(), a[0], buf,
				   sizeof(buf)));
	assert_string_equal(buf, "umaps_target");
	umaps_free(u);
	umaps_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_offsets), cmocka_unit_test(libc_versions),
		cmocka_unit_test(executables),
		cmocka_unit_test(stripped),
		cmocka_unit_test(insn_prefixes),
		cmocka_unit_test(choosing),
		cmocka_unit_test(clone_names),
		cmocka_unit_test(not_elf),	cmocka_unit_test(paths),
		cmocka_unit_test(func_names),	cmocka_unit_test(cxx_names),
		cmocka_unit_test(demangled),	cmocka_unit_test(suggest),
		cmocka_unit_test(ksyms_repeated_names),	cmocka_unit_test(modules),
		cmocka_unit_test(unwind_longjmp),
		cmocka_unit_test(cached_lookups),
		cmocka_unit_test(user_addresses),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
