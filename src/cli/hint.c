/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hints after a run (cli/hint.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "iprof/sym.h"
#include "iprof/unwind.h"
#include "cli/hint.h"
#include "cli/log.h"
#include "cli/plan_print.h"

/* the user-function entry of timer @i (or its uretprobe, its split
 * entry's mark or start), or NULL */
static const struct plan_att *uentry(const struct plan *plan, uint32_t i)
{
	uint32_t k;

	for (k = 0; k < plan->natt; k++)
		if (plan->att[k].timer == i && plan->att[k].path &&
		    plan->att[k].func &&
		    (plan->att[k].mech == MECH_UPROBE ||
		     plan->att[k].mech == MECH_URETPROBE ||
		     plan->att[k].mech == MECH_UMARK ||
		     (plan->att[k].mech == MECH_RETSITE &&
		      plan->att[k].split)))
			return &plan->att[k];
	return NULL;
}

void hint_zero_hits(const struct plan *plan, const struct report_timer *timers,
		    const struct agg *agg, const char *exe)
{
	const struct plan_att *a;
	struct stat st;
	uint64_t off;
	uint32_t i;

	if (!exe || !timers || stat(exe, &st))
		return;
	for (i = 0; i < plan->ntimers; i++) {
		if (!timers[i].attached || agg__timer_started(agg, i))
			continue;
		a = uentry(plan, i);
		if (!a || (a->dev == (uint64_t)st.st_dev &&
			   a->ino == (uint64_t)st.st_ino))
			continue;
		if (sym_func_offset(exe, a->func, &off, NULL, 0)) {
			if (unwind_loads(exe, a->path) == 0)
				log_info("hint: %s had 0 hits: %s does not load %s at its start (not among its libraries: it has the code linked in, or loads it later with dlopen(3)); -p PID of a running one, or --dry-run, shows what it maps",
					 plan->timers[i].name, exe, a->path);
			continue;
		}
		log_info("hint: %s had 0 hits: %s defines %s itself (linked in, not called in %s); time it there: -e 'uprobe:%s:%s'",
			 plan->timers[i].name, exe, a->func, a->path, exe,
			 a->func);
	}
}

/* does process @pid map the file (@dev, @ino)?  true when its maps
 * cannot be read */
static bool maps_file(pid_t pid, uint64_t dev, uint64_t ino)
{
	char path[64], line[PATH_MAX + 128];
	unsigned int maj, min;
	unsigned long long in;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return true;
	while (!found && fgets(line, sizeof(line), f))
		/* ADDR PERMS OFFSET MAJ:MIN INODE [PATH] */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &in) == 3 &&
		    in == ino && (uint64_t)makedev(maj, min) == dev)
			found = true;
	fclose(f);
	return found;
}

void hint_unmapped(const struct plan *plan, const pid_t *pids, size_t npids)
{
	char exe[PATH_MAX], link[64];
	uint32_t k, j;
	size_t i;
	ssize_t n;

	for (k = 0; k < plan->natt; k++) {
		const struct plan_att *a = &plan->att[k];
		bool seen = false;

		if (!a->path || !a->ino)
			continue;
		for (j = 0; j < k && !seen; j++) /* each file once */
			seen = plan->att[j].path && plan->att[j].ino == a->ino &&
			       plan->att[j].dev == a->dev;
		for (i = 0; i < npids && !seen; i++)
			seen = maps_file(pids[i], a->dev, a->ino);
		/* its timer traced in an older copy the process maps (a
		 * binary replaced on disk: plan_env.pids), said already */
		for (j = 0; j < plan->natt && !seen; j++)
			seen = j != k && plan->att[j].timer == a->timer &&
			       plan->att[j].ino && plan->att[j].ino != a->ino &&
			       maps_file(pids[0], plan->att[j].dev,
					 plan->att[j].ino);
		if (seen || !npids)
			continue;
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pids[0]);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		/* no executable: a kernel thread (warned of already) */
		if (n <= 0 && npids == 1)
			continue;
		log_warn("-p %d%s does not map %s (%s runs %s): its probes there fire only if it loads it later",
			 (int)pids[0], npids > 1 ? " and the others" : "", a->path,
			 npids > 1 ? "the first" : "it", n > 0 ? exe : "?");
	}
}

void hint_single_step(const struct plan *plan)
{
	const struct plan_timer *first = NULL;
	char names[160] = "";
	size_t len = 0;
	uint32_t i, n = 0;
	int w;

	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];

		if (t->error || !t->ret_sites || !t->ret_risk ||
		    !plan_print_step_why(plan, t))
			continue;
		if (!first)
			first = t;
		n++;
		if (len < sizeof(names)) {
			w = snprintf(names + len, sizeof(names) - len, "%s%s",
				     len ? ", " : "", t->name);
			len = w < 0 ? sizeof(names) : len + (size_t)w;
		}
	}
	if (!n)
		return;
	log_info("%u timer%s (%s%s) stop%s at return sites whose ret the kernel single-steps, dearer than a uretprobe here: --returns auto kept them because %s; --returns uretprobe is cheaper where nothing unwinds or switches stacks through them (doc/probes.md)",
		 n, n == 1 ? "" : "s", names,
		 len >= sizeof(names) ? "..." : "", n == 1 ? "s" : "",
		 first->ret_risk);
}
