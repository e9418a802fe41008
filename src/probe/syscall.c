// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscall.c - system-call numbers of the syscall tracepoints.  See
 * include/iprof/syscall.h.
 */
#include <string.h>

#include "iprof/abi.h"
#include "iprof/syscall.h"

struct sc {
	const char *name;
	int nr;
};

/* __NR_NAME of the build host's asm/unistd_64.h (CMakeLists.txt) */
static const struct sc table[] = {
#include "syscalls.h"
	{ NULL, -1 },
};

/*
 * x86-64 syscalls newer than the headers Debian 12 builds with (6.1), from
 * arch/x86/entry/syscalls/syscall_64.tbl; each checked on 6.18 by calling
 * it with its sys_enter_/sys_exit_ tracepoints attached.  Used only where
 * the build's table lacks the name.
 */
static const struct sc newer[] = {
#if defined(__x86_64__)
	{ "cachestat", 451 },	      { "fchmodat2", 452 },
	{ "futex_wake", 454 },	      { "futex_wait", 455 },
	{ "futex_requeue", 456 },     { "statmount", 457 },
	{ "listmount", 458 },	      { "lsm_get_self_attr", 459 },
	{ "lsm_set_self_attr", 460 }, { "lsm_list_modules", 461 },
	{ "mseal", 462 },	      { "setxattrat", 463 },
	{ "getxattrat", 464 },	      { "listxattrat", 465 },
	{ "removexattrat", 466 },     { "open_tree_attr", 467 },
	{ "file_getattr", 468 },      { "file_setattr", 469 },
#endif
	{ NULL, -1 },
};

/* tracepoint name -> __NR_ name, where SYSCALL_DEFINE named them apart */
static const struct {
	const char *tp, *nr;
} aliases[] = {
	{ "newstat", "stat" },	   { "newlstat", "lstat" },
	{ "newfstat", "fstat" },   { "newuname", "uname" },
	{ "sendfile64", "sendfile" }, { "umount", "umount2" },
};

/* @name's number in @t (ending with a NULL name), or -1 */
static int lookup(const struct sc *t, const char *name)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t->nr;
	return -1;
}

int syscall_tp_nr(const char *category, const char *event, int *is_exit)
{
	const char *name;
	size_t i;
	int ex, nr;

	if (!category || !event || strcmp(category, "syscalls"))
		return -1;
	if (!strncmp(event, "sys_enter_", 10))
		ex = 0;
	else if (!strncmp(event, "sys_exit_", 9))
		ex = 1;
	else
		return -1;
	name = event + (ex ? 9 : 10);
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].tp)) {
			name = aliases[i].nr;
			break;
		}
	nr = lookup(table, name);
	if (nr < 0)
		nr = lookup(newer, name);
	if (nr < 0 || nr >= IPROF_NR_SYSCALLS)
		return -1;
	if (is_exit)
		*is_exit = ex;
	return nr;
}
