/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attach plan: the probe list resolved against the running system, before
 * anything is loaded.  Kernel-free: it reads tracepoint format files under
 * a tracefs directory given by the caller (a fixture directory in tests),
 * and links no libbpf.
 *
 * Every probe becomes one timer (timer id = index in plan.timers).  Every
 * timer has two or more BPF attachments (plan.att), each carrying the index
 * of its action (plan.actions, the BPF `actions` map) as its cookie.
 * A probe that cannot be resolved (tracepoint or field missing) keeps its
 * timer, marked with an error, so the report can say why it is absent.
 */
#ifndef IPROF_PLAN_H
#define IPROF_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"
#include "iprof/probe.h"

enum plan_mech {
	MECH_TRACEPOINT, /* tracepoint CAT:EVENT, program tp_hit */
	MECH_UPROBE, /* uprobe, program fn_entry */
	MECH_URETPROBE, /* uretprobe, program fn_return */
	MECH_FUNC_ENTRY, /* kernel function entry: fentry or kprobe */
	MECH_FUNC_RETURN, /* kernel function return: fexit or kretprobe */
};

struct plan_att {
	enum plan_mech mech;
	uint32_t timer; /* timer id */
	uint32_t action; /* index into plan.actions: the BPF cookie */
	char *category, *event; /* MECH_TRACEPOINT, owned */
	char *path; /* MECH_U*PROBE: binary (absolute when it had a '/') */
	char *func; /* function name (user or kernel), owned */
};

struct plan_timer {
	char *name; /* owned copy of the probe's name */
	enum probe_kind kind;
	char *where; /* human description of what it attaches to, owned */
	const struct probe *probe; /* into the probe list given to plan_build */
	char *error; /* why it cannot be traced, owned; NULL if plannable */
	const char *mech; /* after attach: "tracepoint", "uprobe", "fentry", ... */
	int attached; /* set by the loader once all its attachments hold */
};

struct plan {
	struct plan_timer *timers;
	uint32_t ntimers;
	struct iprof_action *actions;
	uint32_t nactions;
	struct plan_att *att;
	uint32_t natt;
};

/*
 * plan_build() - resolve @pl into @p.  @tracefs is the tracefs mount point
 * (its events/CAT/EVENT/format files give tracepoint field offsets, sizes
 * and signedness).  Per-probe problems (missing tracepoint or field, a
 * condition on an array field) do not fail the call: they set that timer's
 * error ("FILE:LINE:COL: ..." text).  Returns 0, or -ENOMEM.  @p is
 * zeroed first; free it with plan_free().
 */
int plan_build(struct plan *p, const struct probe_list *pl,
	       const char *tracefs);

/* plan_free() - free what plan_build() allocated; @p may be NULL. */
void plan_free(struct plan *p);

/*
 * plan_tp_field() - look up @field of tracepoint @cat:@event in its format
 * file under @tracefs.  On success fills @off, @size (bytes) and
 * @is_signed and returns 0; -ENOENT if the event does not exist, -ESRCH if
 * it has no such field (then @fields, if not NULL, receives a
 * comma-separated list of the event's own fields), -EINVAL if the field is
 * an array or not 1, 2, 4 or 8 bytes.  Format: see
 * Documentation/trace/events.rst, "Event formats".
 */
int plan_tp_field(const char *tracefs, const char *cat, const char *event,
		  const char *field, uint16_t *off, uint8_t *size,
		  uint8_t *is_signed, char *fields, size_t fields_len);

#endif /* IPROF_PLAN_H */
