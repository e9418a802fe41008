/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The debug files of the loaded kernel modules, for timing a kernel
 * function where the compiler inlined it (src/probe/inline.c reads
 * them).  A module's debug file is its unstripped object (ET_REL, with
 * DWARF and .debug_frame), as Debian's linux-image-RELEASE-dbg ships it
 * under /usr/lib/debug/lib/modules/RELEASE/ with the module's own
 * relative path (kernel/drivers/vfio/vfio.ko).
 *
 * The kernel image's is its vmlinux with DWARF (Debian's
 * /usr/lib/debug/boot/vmlinux-RELEASE, ET_EXEC).
 *
 * A debug file is taken only when its GNU build ID is the loaded
 * module's (/sys/module/NAME/notes/.note.gnu.build-id: an ELF note,
 * elf(5)), or the running kernel's (/sys/kernel/notes), so that another
 * build's offsets never place a kprobe.
 */
#ifndef IPROF_KMOD_H
#define IPROF_KMOD_H

#include <stddef.h>

struct kmod_debug {
	char *mod; /* the module's name, as /proc/modules gives it, or
		    * "vmlinux" for the kernel image; owned */
	char *path; /* its debug file; owned */
};

/*
 * kmod_debug_files() - the running kernel image's debug file (first, mod
 * "vmlinux": DIR/vmlinux-RELEASE, DIR/vmlinux or DIR/boot/vmlinux-RELEASE
 * under @debugdir, then /usr/lib/debug/boot/vmlinux-RELEASE,
 * /usr/lib/debug/lib/modules/RELEASE/vmlinux,
 * /lib/modules/RELEASE/build/vmlinux), and the debug files of the
 * modules loaded now (/proc/modules), found by name (NAME.ko, unstripped: its code is read
 * too; '-' and '_' alike, as modprobe(8) takes them) under @debugdir
 * (NULL: none), then
 * under /usr/lib/debug/lib/modules/RELEASE (uname(2)'s release), each
 * searched to any depth; the first whose build ID is the module's.
 * @sysroot (NULL: "") prefixes /proc, /sys and /usr/lib/debug (the unit
 * tests' fixture system; the debug files' paths include it).
 * On success returns 0 with *@v (free with kmod_debug_free()) and *@n
 * (0: none found), and in *@stale (may be NULL) how many modules (and
 * the kernel image) had files of another build only.  Errors: -ENOMEM.  Unreadable
 * directories and files are as none.
 */
int kmod_debug_files(const char *sysroot, const char *debugdir,
		     struct kmod_debug **v, size_t *n, size_t *stale);

/* kmod_debug_free() - free what kmod_debug_files() returned; NULL ok. */
void kmod_debug_free(struct kmod_debug *v, size_t n);

/*
 * kmod_mentions() - may ELF file @path's DWARF name @name?  1 when its
 * .debug_str holds @name as a whole string, or cannot tell (the file
 * unreadable, no .debug_str or a compressed one, a name of 4 bytes or
 * less, which GCC writes in the DIE itself); 0 when it does not (a cheap
 * test before indexing the file's DWARF).
 */
int kmod_mentions(const char *path, const char *name);

#endif /* IPROF_KMOD_H */
