// SPDX-License-Identifier: GPL-2.0-only
/*
 * One traced run, once the plan is built: the outputs opened, the command
 * spawned, the probes attached, the rings polled until the command exits,
 * the duration ends, the -p processes are gone or a signal comes, then the
 * final report, recording and timeline, and the detach.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iprof/util.h"
#include "cli.h"
#include "log.h"

/*
 * The main loop's periods.  POLL_MS: how long a poll of the rings waits,
 * and so how late a deadline, an --interval report or the command's exit
 * is seen.  ALIVE_CHECK_NS: -p targets are checked for life this often
 * (a walk over the targets map), and --cgroup directories for a new id
 * (made anew: a restarted service).  PUBLISH_DEFAULT_NS: --listen without
 * --interval renews /metrics every second.  KILL_GRACE_POLLS: after the
 * report, a command that ignores SIGTERM gets SIGKILL after this many
 * waits of KILL_GRACE_US (2 s in all).
 */
#define POLL_MS 10
#define ALIVE_CHECK_NS 200000000ull
#define PUBLISH_DEFAULT_NS 1000000000ull
#define KILL_GRACE_POLLS 200
#define KILL_GRACE_US 10000
/* agg__prune(): threads whose EXIT record was lost are looked for this
 * often (a read of /proc/TID/stat per thread with state) */
#define PRUNE_NS 30000000000ull

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t report_out; /* the final report, recording and timeline are written */

static int tid_alive(uint32_t tid, void *ctx)
{
	(void)ctx;
	return util_proc_alive((int)tid);
}

/*
 * The first SIGINT/SIGTERM/SIGHUP asks for a clean stop (report, detach in
 * the background); a second one ends iprof at once, exit status 128 + the
 * signal, wherever it is (a temporary -o file it leaves is removed by the
 * next run: output_clean_stale()).
 */
static void on_signal(int sig)
{
	static const char msg[] =
		"iprof: a second signal: exiting at once, without a report\n";
	static const char done[] =
		"iprof: a second signal: exiting at once (all output is written)\n";

	if (stop_requested) {
		/* write(2): async-signal-safe, unlike the log module */
		ssize_t r = report_out ? write(STDERR_FILENO, done, sizeof(done) - 1) :
					 write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)r;
		_exit(128 + sig);
	}
	stop_requested = 1;
}

/*
 * trace_run() - trace @plan as @o asks (@o->cmd[0] may be replaced by its
 * path in $PATH; what attached is the loader's: loader_timer()).  Returns the
 * exit status (see src/main.c).
 */
int trace_run(struct opts *o, const struct plan *plan)
{
	struct output w = { 0 };
	struct loader *l = NULL;
	struct agg *agg = NULL;
	struct loader_opts lo = { 0 };
	struct sigaction sa = { 0 };
	uint64_t t0 = 0, deadline = 0, now, last_check = 0, since = 0;
	uint64_t next_report = 0, next_publish = 0, next_prune = 0;
	struct monitor *mon = NULL;
	unsigned int nreports = 0;
	pid_t child = -1;
	int exec_r = -1, ret = EXIT_USAGE, n, i, status = 0;
	int child_done = 0, e, wait_ms;
	uint32_t plan_errors = 0, nattached = 0;
	char *cmd_path = NULL;
	char err[1024];
	struct sinks sk = { 0 };
	struct rec_run run = { 0 };
	struct utsname un;
	struct timeline tl = { 0 };
	struct target_sel sel;
	FILE *rec_f = NULL;
	int has_sel = target_has_sel(o);

	if (output_open(&w, o->r.output, err, sizeof(err))) {
		log_error("%s", err);
		goto out;
	}
	if (o->record && run_record_open(o, &w, &rec_f))
		goto out;
	if (o->listen && (e = monitor_listen(&mon, o->listen, err, sizeof(err)))) {
		log_error("%s", err);
		ret = e == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	/* the port, which :0 leaves to the kernel */
	if (mon)
		log_info("serving /metrics on port %d (--listen %s)",
			 monitor_port(mon), o->listen);
	if (report_fmt_has(o->r.fmt, REPORT_CAP_STREAM) &&
	    run_timeline_open(&tl, &w))
		goto out;
	plan_errors = 0;
	for (i = 0; i < (int)plan->ntimers; i++)
		plan_errors += !!plan->timers[i].error;
	if (o->fold_threads > 1) {
		/* --fold-threads: the records folded by shards (fold.h) */
		sk.fold = fold__new(o->fold_threads, plan->ntimers, o->r.by,
				    o->r.max_paths, o->r.max_keys);
		if (!sk.fold) {
			log_error("cannot start %u folding threads: %s",
				  o->fold_threads, strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
	} else {
		agg = agg__new(plan->ntimers);
		if (!agg) {
			ret = EXIT_RUNTIME;
			goto out;
		}
		agg__set_by(agg, o->r.by);
		agg__set_limits(agg, o->r.max_paths, o->r.max_keys);
		sk.agg = agg;
	}

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* the terminal went away: report */
	/* a reader of stdout that goes away is a write error (EPIPE: exit
	 * 1, the command stopped), not a death that leaves it running */
	signal(SIGPIPE, SIG_IGN);

	if (o->cmd && !strchr(o->cmd[0], '/')) {
		/* search $PATH here, not in the traced child: its failed
		 * execve(2)s would show up in spans on execve */
		cmd_path = target_find_in_path(o->cmd[0]);
		if (!cmd_path) {
			log_error("cannot run '%s': not found in $PATH",
				  o->cmd[0]);
			ret = EXIT_USAGE;
			goto out;
		}
		o->cmd[0] = cmd_path;
	}
	if (o->cmd) {
		/* a recording, a timeline or interval reports streamed to
		 * stdout: the command's output goes to stderr, not into it */
		int on_stderr = rec_f == stdout || (tl.f && tl.f == stdout) ||
				(o->interval_ns && !o->r.output &&
				 run_want_report(o));

		if (on_stderr)
			log_info("the command's stdout goes to stderr: stdout carries the %s",
				 rec_f == stdout	   ? "recording" :
				 tl.f && tl.f == stdout ? "timeline" :
							  "interval reports");
		child = target_spawn_gated(o->cmd, &exec_r, on_stderr);
		if (child < 0) {
			log_error("cannot fork: %s", strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
	}

	if (target_resolve_sel(o, &sel))
		goto out; /* EXIT_USAGE */
	target_raise_fd_limit();
	lo.rb_bytes = o->rb_bytes;
	lo.maxactive = o->maxactive;
	lo.filter = o->cmd || o->npids || has_sel;
	lo.sel = has_sel ? &sel : NULL;
	lo.verbose = o->verbose;
	lo.cancel = &stop_requested;
	lo.progress = log_enabled(LOG_LVL_INFO);
	ret = EXIT_RUNTIME;
	if (loader_open(&l, plan, &lo, run_on_record, &sk, err, sizeof(err))) {
		log_error("%s", err);
		goto out;
	}
	if (sk.fold && !rec_f && !report_fmt_has(o->r.fmt, REPORT_CAP_ORDERED)) {
		/* nothing needs every record in one order: each shard
		 * merges its own threads' records from the rings */
		struct loader_unmerged u = { run_fold_push, run_fold_flush,
					     sk.fold };
		unsigned int nrings;

		loader_rb_bytes(l, &nrings);
		if ((e = fold__set_sources(sk.fold, nrings))) {
			log_error("cannot merge the rings in the folding threads: %s",
				  strerror(-e));
			goto out;
		}
		loader_set_unmerged(l, &u);
	}
	if (child > 0 && loader_add_target(l, child))
		goto out;
	for (i = 0; i < o->npids; i++)
		if (loader_add_target(l, o->pids[i]))
			goto out;
	if (o->npids) {
		n = target_add_descendants(l, o->pids, o->npids);
		if (n)
			log_info(
				"also tracing %d process%s that the -p process%s forked before",
				n, n == 1 ? "" : "es",
				o->npids > 1 ? "es" : "");
	}

	t0 = util_now_ns();
	n = loader_attach(l, run_on_skip);
	if (n == -EINTR || stop_requested) {
		log_error("interrupted before tracing began; detaching");
		ret = 128 + SIGINT;
		run_detach(l);
		goto out;
	}
	if (n < 0) {
		log_error("cannot attach: %s", strerror(-n));
		goto out;
	}
	if (!n) {
		/* no report follows: say here why each timer is missing */
		log_error("no probe could be attached");
		cli_print_not_attached(plan, l, "iprof: ");
		/* every probe wrong in the files (not refused by the kernel):
		 * bad input */
		if (plan_errors == plan->ntimers)
			ret = EXIT_USAGE;
		goto out;
	}
	nattached = (uint32_t)n;
	if (sel.ncomm || sel.nexe) {
		/* BPF now follows execs: the processes running now */
		n = target_scan_sel(l, &sel);
		log_info("%d process%s selected by --comm/--exe running now", n,
			 n == 1 ? "" : "es");
	}
	if (o->strict && nattached != plan->ntimers) {
		cli_print_not_attached(plan, l, "iprof: --strict: ");
		log_error("--strict: %u of %u timers could not be attached",
			  plan->ntimers - nattached, plan->ntimers);
		ret = EXIT_USAGE; /* as for an error in the probe files */
		goto out;
	}
	now = util_now_ns();
	/* the timers not attached are listed once, in the report's summary
	 * (stderr for folded); here only how many */
	if (nattached < plan->ntimers)
		snprintf(err, sizeof(err), " (%u not attached: listed %s)",
			 plan->ntimers - nattached,
			 report_fmt_has(o->r.fmt, REPORT_CAP_SUMMARY_APART) ?
				 "at the end" :
				 "in the report");
	else
		err[0] = '\0';
	/* -p alone, and every process gone while the probes were loaded
	 * and attached: nothing to trace (not an empty report, exit 0) */
	if (o->npids && !has_sel && loader_targets_alive(l) == 0) {
		log_error(
			"every process given with -p exited before tracing began (while iprof loaded and attached its probes): nothing traced");
		ret = EXIT_RUNTIME;
		goto out;
	}
	/* recording starts now, with every probe in place; then the line
	 * that says so (tests and scripts wait for it) */
	if ((e = loader_set_tracing(l, 1))) {
		log_error("cannot start tracing: %s", strerror(-e));
		goto out;
	}
	log_info("%u of %u timers attached in %.1f ms%s; tracing%s... %s",
		 nattached, plan->ntimers, (double)(now - t0) / 1e6, err,
		 o->cmd	    ? " the command"
		 : has_sel  ? " the selected processes"
		 : o->npids ? " the process"
			    : " system-wide",
		 o->cmd ? "" : "Ctrl-C to stop");
	t0 = util_now_ns();
	run_start(&run, o, &un, t0);
	if (run_counters(&run, plan, l))
		goto out;
	if (rec_f && (run_record_truncate(rec_f) ||
		      !(sk.rec = rec_writer_new(rec_f, o->record, &run)))) {
		log_error("cannot write '%s': %s", o->record, strerror(errno));
		goto out;
	}
	if (tl.f && !(sk.chrome = chrome_new(tl.f, &run, o->r.max_depth))) {
		log_error("cannot write the timeline: %s", strerror(errno));
		goto out;
	}
	if (o->duration_ns)
		deadline = t0 + o->duration_ns;
	since = t0;
	if (o->interval_ns)
		next_report = t0 + o->interval_ns;
	if (mon) {
		run_publish_metrics(o, mon, &sk, &run, t0, t0);
		next_publish = t0 + (o->interval_ns ? o->interval_ns :
						    PUBLISH_DEFAULT_NS);
	}
	snprintf(err, sizeof(err), "READY=1\nSTATUS=tracing: %u of %u timers attached",
		 nattached, plan->ntimers);
	monitor_notify(err);
	if (child > 0) {
		if (kill(child, SIGUSR1)) {
			log_error("cannot start the command: %s",
				  strerror(errno));
			goto out;
		}
		/* exec's errno, or EOF once the exec succeeded */
		if (read(exec_r, &e, sizeof(e)) == sizeof(e)) {
			log_error("cannot run '%s': %s", o->cmd[0],
				  strerror(e));
			ret = EXIT_USAGE;
			goto out;
		}
		close(exec_r);
		exec_r = -1;
	}

	while (!stop_requested) {
		/* a duration ends on time, not at the next poll period */
		wait_ms = POLL_MS;
		if (deadline) {
			now = util_now_ns();
			if (deadline <= now)
				break;
			if ((deadline - now + 999999) / 1000000 < POLL_MS)
				wait_ms = (int)((deadline - now + 999999) / 1000000);
		}
		n = loader_poll(l, wait_ms);
		if (n < 0 && n != -EINTR) {
			log_error("ring buffer: %s", strerror(-n));
			break;
		}
		now = util_now_ns();
		if (deadline && now >= deadline)
			break;
		if (next_report && now >= next_report && run_want_report(o)) {
			run_counters(&run, plan, l);
			run_emit_report(o, &w, &sk, &run, t0,
				    o->delta ? since : t0, now, ++nreports, 0);
			since = now;
			next_report += o->interval_ns;
			if (next_report <= now)
				next_report = now + o->interval_ns;
		}
		if (mon && now >= next_publish) {
			run_counters(&run, plan, l);
			run_publish_metrics(o, mon, &sk, &run, t0, now);
			next_publish = now + (o->interval_ns ? o->interval_ns :
							      PUBLISH_DEFAULT_NS);
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child_done = 1;
			break;
		}
		if (now >= next_prune) {
			if (next_prune && sk.fold)
				fold__prune(sk.fold, tid_alive, NULL);
			else if (next_prune)
				agg__prune(agg, tid_alive, NULL);
			next_prune = now + PRUNE_NS;
		}
		if ((o->npids || sel.ncg) && now - last_check > ALIVE_CHECK_NS) {
			last_check = now;
			if (sel.ncg)
				target_refresh_cgroups(l, &sel);
			/* with --comm, --exe or --cgroup more may come */
			if (o->npids && !has_sel && loader_targets_alive(l) == 0) {
				log_info("every traced process has exited");
				break;
			}
		}
	}

	/* the trace ends here: stop recording, then read the stop time, so
	 * that no record is stamped after it (a start after it would show as
	 * incomplete for 0 ns), and take what is in the rings */
	monitor_notify("STOPPING=1");
	loader_set_tracing(l, 0);
	now = util_now_ns();
	loader_drain(l);
	if (child > 0 && !child_done)
		kill(child, SIGTERM);
	/* the counters once, for the recording and the report alike */
	e = run_counters(&run, plan, l);
	run.end_ns = now;
	if (!e && sk.rec)
		e = run_record_finish(o, sk.rec, &run);
	if (!e && sk.chrome)
		e = run_timeline_finish(&tl, &w, sk.chrome, now);
	if (!e && run_want_report(o))
		e = run_emit_report(o, &w, &sk, &run, t0, o->delta ? since : t0,
				now, nreports + 1, 1);
	report_out = !e;
	/* a script learns from the status whether all it asked was traced,
	 * and all of it counted */
	ret = e ? EXIT_RUNTIME :
	      nattached < plan->ntimers || run_lost_data(&sk, &run, now) ?
		      EXIT_PARTIAL :
		      0;
	if (child > 0 && !child_done) {
		/* the report is out; a command that ignores SIGTERM gets
		 * SIGKILL after 2 s */
		for (i = 0; i < KILL_GRACE_POLLS &&
			    waitpid(child, &status, WNOHANG) != child;
		     i++)
			usleep(KILL_GRACE_US);
		if (i == KILL_GRACE_POLLS) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
		child_done = 1;
	}
	if (child > 0)
		target_command_status(status);
	fflush(NULL);
	run_detach(l);
out:
	if (exec_r >= 0)
		close(exec_r);
	if (child > 0 && !child_done) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	loader_close(l);
	rec_writer_free(sk.rec);
	if (rec_f && rec_f != stdout)
		fclose(rec_f);
	chrome_free(sk.chrome);
	run_timeline_close(&tl);
	free(run.timers);
	agg__free(agg);
	fold__free(sk.fold);
	output_close(&w);
	monitor_close(mon);
	free(cmd_path);
	return ret;
}
