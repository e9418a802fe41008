/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Can a program unwind or switch stacks through a user function?  A
 * uretprobe replaces the return address on the stack with the kernel's
 * trampoline (include/iprof/retsite.h): a C++ exception or a Rust panic
 * unwinding through it or a coroutine switch past it kills the program; a
 * longjmp past it does not (the kernel drops the skipped instances, and
 * BPF closes their frames as unwound: bpf/iprof.bpf.h drop_left()), nor
 * does glibc's forced unwind (pthread_exit, pthread_cancel): it stops at
 * the trampoline, runs the C cleanup handlers and ends the thread
 * (bench/README.md, "What kills a program under a uretprobe").  Where a
 * function's return sites cannot be found, --returns auto (plan_env.
 * returns) gives it a uretprobe only where the binaries show none of
 * that can happen.  Kernel-free: it reads ELF files (libelf).
 */
#ifndef IPROF_UNWIND_H
#define IPROF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>

/* Most files one judgment reads (the DT_NEEDED closure included). */
#define UNWIND_MAX_FILES 256

/* unwind_judge()'s evidence that a uprobe session survives: a library's
 * stack switch */
#define UNWIND_SWITCH_LIB 2

/*
 * unwind_judge() - can a process made of the @n ELF files @files (an
 * executable, the libraries it maps, the file a timer is in) unwind or
 * switch stacks?  Reads each file and, transitively, its DT_NEEDED
 * libraries (found by DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN,
 * then the multiarch and default directories; /etc/ld.so.cache is not
 * read: a library found only there is missed), at most UNWIND_MAX_FILES.
 * Evidence, in .dynsym or .symtab: a file that defines or imports
 * rust_eh_personality or __rust_start_panic (Rust), runtime.morestack or
 * runtime.gopanic (Go); a file that imports (not defines: libc does)
 * swapcontext or setcontext; and an unwind that can cross a function of
 * @files[0] on its way to what stops it above: a catch (a file that
 * defines or imports __cxa_begin_catch, the Itanium C++ ABI's 2.5.3)
 * beside a thrower (anywhere: __cxa_throw, __cxa_rethrow,
 * _Unwind_RaiseException defined or imported), or a cleanup (a file that
 * imports _Unwind_Resume) beside a forced unwind (anywhere: an import of
 * _Unwind_ForcedUnwind, pthread_exit, pthread_cancel); the catch or the
 * cleanup only in a file whose code can be above @files[0]'s: @files[0]
 * itself, a file one of whose .dynsym imports @files[0] exports, or one
 * that exports what @files[0] imports (by name).  Without a catch above
 * it, an exception ends the program through the trampoline or not
 * (std::terminate), and a cleanup runs only under a found handler or a
 * forced unwind.  Not seen: a catch two libraries away that an
 * intermediate library hands @files[0]'s callback to.  A static
 * @files[0] (no .dynsym) keeps the whole list: a file that defines or
 * imports __cxa_throw, __cxa_rethrow, _Unwind_RaiseException,
 * _Unwind_Resume, _Unwind_ForcedUnwind or a Rust or Go runtime's symbol.
 * Only said: an import of
 * longjmp, _longjmp, siglongjmp or __longjmp_chk (the frames skipped
 * close as unwound), of dlopen or dlmopen (what it loads later is not in
 * @files: unwind_runtime() judges it once mapped).
 *
 * A stack switch imported by a file other than @files[0] (a library's
 * coroutines: OpenSSL's async jobs in libcrypto) is told apart: libc's
 * setcontext and swapcontext, which iprof sees (bpf/iprof.bpf.c
 * ctx_switch()), make the switch, so a uprobe session whose entry takes no
 * return probe on a stack the thread switched to survives it
 * (UNWIND_SWITCH_LIB).
 *
 * Returns 1 (it can: @why, @len bytes, names the file and the symbol,
 * or the two files and symbols of a pair), UNWIND_SWITCH_LIB (only a
 * library's stack switch: @why names the first file and symbol), 0 (it
 * cannot: @why says how
 * many files were read, a thrower and where the catch is that is not
 * beside @files[0], and with "longjmp-
 * style exits only (FILE imports SYM)" the first such import, then
 * "FILE imports dlopen: ..." the first loader), or
 * -ENOMEM.  A file
 * that cannot be read is skipped (a missing library cannot be loaded
 * either).
 */
int unwind_judge(const char *const *files, size_t n, char *why, size_t len);

/*
 * unwind_runtime() - is the ELF file @path (one a process mapped, its
 * DT_NEEDED libraries not read) a runtime that unwinds: the evidence
 * unwind_judge() takes of a static program (an unwinder defined or
 * imported, a stack switch imported: a library mapped later is judged
 * alone, not by what it sits beside), but for a definition of
 * _Unwind_*: the unwinder's own
 * library (libgcc_s, which glibc loads for pthread_exit's forced unwind)
 * throws nothing; a runtime that throws imports it or defines more.
 * Returns 1 (@why, @len bytes: "PATH defines SYM"), UNWIND_SWITCH_LIB
 * (a stack switch only: "PATH imports setcontext"), 0 (no, or the file
 * cannot be read), -ENOMEM.
 */
int unwind_runtime(const char *path, char *why, size_t len);

/*
 * unwind_is_go() - is the ELF file @path a Go program or library: it has
 * the Go toolchain's build information section (.go.buildinfo, Go 1.13 on;
 * src/debug/buildinfo in Go's sources) or its build ID note
 * (.note.go.buildid).  Returns true or false (not ELF, unreadable).
 */
bool unwind_is_go(const char *path);

/*
 * unwind_loads() - does the program @exe load the ELF file @path at its
 * start: @path (realpath'ed) is @exe or in its DT_NEEDED closure, found as
 * ld.so(8) searches (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the default
 * directories; not ld.so.cache, up to UNWIND_MAX_FILES files).  Returns 1,
 * 0 (not at its start: it may still dlopen(3) it), -errno (@path or @exe
 * unreadable: -ENOENT...).
 */
int unwind_loads(const char *exe, const char *path);

#endif /* IPROF_UNWIND_H */
