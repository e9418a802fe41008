/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words for iprof's mechanisms, each spelled once: what the report,
 * the JSON and --dry-run say a timer attached with (loader_timer.mech,
 * report_timer.mech), what a failed attachment was (the loader's errors),
 * and the calibration classes (report_calib.mech, calib_class_name()).
 * Kernel-free data: the kernel's row per attachment mechanism (its
 * programs and attach function) is src/kernel/kmech.h, which names its
 * words here.  Every function returns a static string, never NULL.
 */
#ifndef IPROF_MECH_H
#define IPROF_MECH_H

/* what plan_timer.ret_why (report_timer.no_sites_why) of a user function
 * in a uprobe session (plan_att.session) holds: the report offers no
 * --returns uretprobe for its calls counted only (it would kill the
 * program) */
#define PLAN_SESSION_WHY "--returns auto: a uprobe session's"

enum mech_label {
	/* a timer's mechanism */
	MLABEL_TRACEPOINT, /* a span on tracepoints (tp_hit) */
	MLABEL_TP_SYSCALLS, /* a syscall span on the raw syscalls */
	MLABEL_UPROBE_URETPROBE,
	MLABEL_UPROBE_URETPROBE_MULTI,
	MLABEL_UPROBE_RSITES,
	MLABEL_UPROBE_RSITES_MULTI,
	MLABEL_UPROBE_INLINED,
	MLABEL_UPROBE_INLINED_MULTI,
	MLABEL_UPROBE_ENTRY_ONLY, /* --returns refused it a uretprobe */
	MLABEL_UPROBE_NORET,
	MLABEL_KPROBE_INLINED, /* also one such attachment */
	MLABEL_FENTRY,
	MLABEL_FENTRY_NORET,
	/* kprobe timers: alone, in kprobe_multi links, in kprobe sessions;
	 * each followed by its never-returns word (mech_label_kprobe()) */
	MLABEL_KPROBE,
	MLABEL_KPROBE_NORET,
	MLABEL_KMULTI,
	MLABEL_KMULTI_NORET,
	MLABEL_KSESSION,
	MLABEL_KSESSION_NORET,
	/* one attachment, in why it failed (else its timer's word) */
	MLABEL_ATT_UPROBE,
	MLABEL_ATT_URETPROBE,
	MLABEL_ATT_RETSITE,
	MLABEL_ATT_UMARK,
	/* the calibration classes (calib_class_name()) */
	MLABEL_CAL_RETSITE,
	MLABEL_CAL_RETSITE_STEP,
	MLABEL_CAL_URETPROBE,
	MLABEL_CAL_URETPROBE_STEP,
	MLABEL_CAL_URETPROBE_SPLIT,
	MLABEL_CAL_SYSCALL,
	MLABEL_CAL_TRACEPOINT,
	MLABEL_CAL_FUNC, /* (fentry and kprobe: their timers' words) */
	MLABEL_USDT, /* a span with a USDT side (usdt_hit), an attachment,
		      * its calibration class */
	MLABEL_N,
};

/* mech_label() - the words of @l ("tracepoint", "fentry/fexit", ...);
 * "none" for a value out of range */
static inline const char *mech_label(enum mech_label l)
{
	static const char *const w[MLABEL_N] = {
		[MLABEL_TRACEPOINT] = "tracepoint",
		[MLABEL_TP_SYSCALLS] = "tracepoint (raw syscalls)",
		[MLABEL_UPROBE_URETPROBE] = "uprobe/uretprobe",
		[MLABEL_UPROBE_URETPROBE_MULTI] =
			"uprobe/uretprobe (uprobe_multi)",
		[MLABEL_UPROBE_RSITES] = "uprobe/return sites",
		[MLABEL_UPROBE_RSITES_MULTI] =
			"uprobe/return sites (uprobe_multi)",
		[MLABEL_UPROBE_INLINED] = "uprobe (inlined)",
		[MLABEL_UPROBE_INLINED_MULTI] =
			"uprobe (inlined, uprobe_multi)",
		[MLABEL_UPROBE_ENTRY_ONLY] = "uprobe (entry only)",
		[MLABEL_UPROBE_NORET] = "uprobe (never returns)",
		[MLABEL_KPROBE_INLINED] = "kprobe (inlined)",
		[MLABEL_FENTRY] = "fentry/fexit",
		[MLABEL_FENTRY_NORET] = "fentry (never returns)",
		[MLABEL_KPROBE] = "kprobe/kretprobe",
		[MLABEL_KPROBE_NORET] = "kprobe (never returns)",
		[MLABEL_KMULTI] = "kprobe/kretprobe (kprobe_multi)",
		[MLABEL_KMULTI_NORET] = "kprobe (never returns, kprobe_multi)",
		[MLABEL_KSESSION] = "kprobe/kretprobe (kprobe session)",
		[MLABEL_KSESSION_NORET] =
			"kprobe (never returns, kprobe session)",
		[MLABEL_ATT_UPROBE] = "uprobe",
		[MLABEL_ATT_URETPROBE] = "uretprobe",
		[MLABEL_ATT_RETSITE] = "uprobe (return site)",
		[MLABEL_ATT_UMARK] = "uprobe (split entry's mark)",
		[MLABEL_CAL_RETSITE] = "uprobe (entry emulated)/return sites",
		[MLABEL_CAL_RETSITE_STEP] =
			"uprobe (entry single-stepped)/return sites",
		[MLABEL_CAL_URETPROBE] = "uprobe (entry emulated)/uretprobe",
		[MLABEL_CAL_URETPROBE_STEP] =
			"uprobe (entry single-stepped)/uretprobe",
		[MLABEL_CAL_URETPROBE_SPLIT] =
			"uprobe (entry split)/uretprobe",
		[MLABEL_CAL_SYSCALL] = "syscall tracepoints",
		[MLABEL_CAL_TRACEPOINT] = "tracepoints",
		[MLABEL_CAL_FUNC] = "func (fentry, else kprobes)",
		[MLABEL_USDT] = "usdt",
	};

	return (unsigned int)l < MLABEL_N ? w[l] : "none";
}

/*
 * mech_label_kprobe() - a kprobe timer's words: @kmulti 0 one
 * kprobe/kretprobe, 1 a kprobe_multi entry/return link pair, 2 a kprobe
 * session link (another value: 0); @entry_only: a function that never
 * returns.
 */
static inline const char *mech_label_kprobe(int kmulti, int entry_only)
{
	return mech_label(MLABEL_KPROBE +
			  2 * (kmulti >= 0 && kmulti <= 2 ? kmulti : 0) +
			  !!entry_only);
}

/* mech_label_fentry() - a fentry timer's words (@entry_only: never
 * returns) */
static inline const char *mech_label_fentry(int entry_only)
{
	return mech_label(entry_only ? MLABEL_FENTRY_NORET : MLABEL_FENTRY);
}

/*
 * mech_label_ufunc() - a user function timer's words, from its plan
 * (struct plan_timer's inl_only, ret_entry, entry_only, ret_sites) and
 * @multi: its probes are in uprobe_multi links.
 */
static inline const char *mech_label_ufunc(int inl_only, int ret_entry,
					   int entry_only, int ret_sites,
					   int multi)
{
	if (inl_only)
		return mech_label(multi ? MLABEL_UPROBE_INLINED_MULTI :
					  MLABEL_UPROBE_INLINED);
	if (ret_entry)
		return mech_label(MLABEL_UPROBE_ENTRY_ONLY);
	if (entry_only)
		return mech_label(MLABEL_UPROBE_NORET);
	if (ret_sites)
		return mech_label(multi ? MLABEL_UPROBE_RSITES_MULTI :
					  MLABEL_UPROBE_RSITES);
	return mech_label(multi ? MLABEL_UPROBE_URETPROBE_MULTI :
				  MLABEL_UPROBE_URETPROBE);
}

#endif /* IPROF_MECH_H */
