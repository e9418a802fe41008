/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/rings.c: the per-CPU ring buffers and their merge, made
 * before loading and opened after (loader__poll(), loader__drain() and the
 * ring sizes are in loader.h).  Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_RINGS_H
#define IPROF_KERNEL_RINGS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/* rings_create() - before loading: one ring per CPU.  0/-errno. */
int rings_create(struct loader *l, char *err, size_t errlen);
/* rings_open() - after loading: install and poll them.  0/-errno. */
int rings_open(struct loader *l, char *err, size_t errlen);

#endif /* IPROF_KERNEL_RINGS_H */
