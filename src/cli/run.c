// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's outputs: the recording and the timeline opened and finished
 * (the records reach them through the pipeline, include/iprof/pipeline.h),
 * the reports of the pipeline's tree while tracing and at the end, the
 * /metrics renewals, and the detach that ends a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/util.h"
#include "cli/run.h"
#include "cli/plan_print.h"
#include "cli/calib.h"
#include "cli/log.h"

/* More attachments than this are released by a background child. */
#define BACKGROUND_DETACH 16

/* -v: each timer as it is skipped; else the summary says it once */
void run_on_skip(const struct plan_timer *t, const struct loader_timer *st)
{
	log_debug("cannot attach %s: %s", t->name, st->error);
}

/*
 * In run_detach()'s child: return once the process @parent has ended.  The
 * kernel releases a probe when the last descriptor of it closes, and the
 * parent closes its copies as it ends: were the child's closes first, the
 * parent's would be the last and slow (a CI run's foreground took 18.9 s
 * after SIGINT while its child said "done in 16.0 ms").  The parent's
 * death signal comes after its descriptors are closed (do_exit():
 * exit_files() before exit_notify()); getppid() is checked too, for a
 * parent gone before prctl(2), and every second in case of a lost signal.
 */
static void wait_parent_gone(pid_t parent)
{
	struct timespec one = { 1, 0 };
	sigset_t usr2;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR2);
	while (getppid() == parent)
		sigtimedwait(&usr2, NULL, &one);
}

/*
 * Detach every probe of @l.  Releasing a tracepoint's
 * last perf event waits for RCU grace periods under the kernel's
 * event_mutex, one tracepoint after the other (about 50 ms each here).
 * With many, hand the release to a child that holds the same file
 * descriptors and let it finish in the background: iprof returns now, after
 * a report or a cancel alike.  The caller still loader__close()s @l.
 */
void run_detach(struct loader *l)
{
	unsigned int natt = loader__nprobes(l);
	struct loader_emu e;
	uint64_t t0;

	/* -v: what the emulating uprobe programs ran (include/iprof/emu.h) */
	if (!loader__emu(l, &e))
		log_debug("probed instructions run by iprof's programs: %llu; single-stepped instead: %llu (shadow stack %llu, ip moved by another program %llu, return address unreadable %llu)",
			 (unsigned long long)e.done,
			 (unsigned long long)(e.shstk + e.moved + e.fault),
			 (unsigned long long)e.shstk,
			 (unsigned long long)e.moved,
			 (unsigned long long)e.fault);
	fflush(NULL); /* nothing buffered twice by the child */

	if (natt > BACKGROUND_DETACH) {
		pid_t parent = getpid(), bg = fork();
		int devnull;

		if (bg == 0) {
			setsid();
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			/* a reader of iprof's stdout (-o -) gets its EOF
			 * when iprof ends, not after the detach */
			devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
			if (devnull >= 0)
				dup2(devnull, STDOUT_FILENO);
			wait_parent_gone(parent);
			t0 = util_now_ns();
			loader__close(l);
			log_info("background detach (pid %d) done in %.1f ms",
				 (int)getpid(),
				 (double)(util_now_ns() - t0) / 1e6);
			_exit(0);
		}
		if (bg > 0) {
			log_info(
				"detaching %u probes in the background (pid %d)",
				natt, (int)bg);
			return;
		}
	}
	t0 = util_now_ns();
	loader__detach(l);
	log_info("detached in %.1f ms", (double)(util_now_ns() - t0) / 1e6);
}

/*
 * The run as reports and recordings say it (struct rec_run): the command,
 * uname(2), when tracing started (@t0, record clock, and the real-time
 * clock now), --rb-size as given.  @un holds the strings.
 */
void run_start(struct rec_run *run, const struct opts *o,
		      struct utsname *un, uint64_t t0)
{
	struct timespec ts;

	run->command = o->cmd;
	run->pids = o->pids;
	run->npids = (size_t)o->npids;
	run->select = o->select;
	run->nselect = (size_t)o->nselect;
	if (!uname(un)) {
		run->host = un->nodename;
		run->kernel = un->release;
		run->kernel_version = un->version;
		run->machine = un->machine;
	}
	if (!clock_gettime(CLOCK_REALTIME, &ts))
		run->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ull +
					 (uint64_t)ts.tv_nsec;
	run->start_ns = t0;
	run->end_ns = t0;
	run->rb_requested = o->rb_bytes;
}

/*
 * Read the timers (@plan) and the loader's counters now into @run
 * (run->timers malloc'ed, freed here on the next call and by the caller
 * at the end).  Returns 0 or -ENOMEM.
 */
int run_costs(struct run_calib *rc, const struct plan *plan,
	      struct pipeline *p)
{
	uint32_t i;
	int e;

	e = calib_wait(rc->job);
	rc->job = NULL;
	if (e) {
		log_error("calibration: out of memory");
		return e;
	}
	calib_log(rc->calib);
	for (i = 0; i < plan->ntimers; i++) {
		rc->costs[i] = calib_cost(rc->calib, rc->cls[i],
					  plan->timers[i].entry_only);
		calib_cost_inline(rc->calib, plan_calib_inline_class(plan, i),
				  &rc->costs[i]);
	}
	e = pipeline__set_costs(p, rc->costs);
	if (!e)
		e = pipeline__set_cpu_scale(p, rc->calib->cpu_pm,
					    rc->calib->ncpu_pm);
	if (e)
		log_error("cannot set the probes' costs: %s", strerror(-e));
	return e;
}

void run_set_calib(struct rec_run *run, const struct run_calib *rc,
		   const struct plan *plan, const struct loader *l,
		   struct report_calib *rep)
{
	unsigned int used = 0;
	uint32_t i;

	for (i = 0; i < plan->ntimers; i++)
		if (rc->cls[i] >= 0 && loader__timer(l, i)->attached) {
			int c = plan_calib_inline_class(plan, i);

			used |= 1u << rc->cls[i];
			if (c >= 0)
				used |= 1u << c;
		}
	if (calib_needs_step(plan))
		used |= 1u << CALIB_RETSITE | 1u << CALIB_RETSITE_STEP;
	run->ncalib = calib_report(rc->calib, used, rep);
	run->calib = rep;
	run->costs = rc->costs;
	run->cpu_pm = rc->calib->cpu_pm;
	run->ncpu_pm = rc->calib->ncpu_pm;
}

int run_counters(struct rec_run *run, const struct plan *plan,
			struct loader *l)
{
	struct report_timer *rt = plan_print_timers(plan, l);
	uint32_t i;

	if (!rt)
		return -ENOMEM;
	free(run->timers);
	run->timers = rt;
	run->ntimers = plan->ntimers;
	memset(&run->loss, 0, sizeof(run->loss));
	if (l) {
		loader__loss(l, &run->loss);
		run->rb_bytes = loader__rb_bytes(l, &run->rb_rings);
	}
	for (i = 0; i < plan->ntimers; i++)
		run->loss.kprobe_misses += rt[i].kprobe_misses;
	return 0;
}

static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			const struct rec_run *run, uint64_t since,
			uint64_t duration_ns, unsigned int no, int final);

int run_lost_data(struct pipeline *p, const struct rec_run *run, uint64_t now,
		  int warn)
{
	struct agg *agg = pipeline__tree(p, now);
	struct report r = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int lost;

	r.agg = agg;
	r.loss = run->loss;
	lost = report_lost_data(&run->loss, agg ? agg__stats(agg) : NULL);
	/* the report in a file or a recording: stderr says why the exit
	 * status is 3 (the report's own "lost:" line, as the table has it) */
	if (lost && warn && r.agg && (f = open_memstream(&buf, &len))) {
		report_loss_line(f, &r, 0);
		if (!fclose(f) && len) {
			buf[len - 1] = buf[len - 1] == '\n' ? 0 : buf[len - 1];
			log_warn("calls were lost (exit status 3): %s", buf);
		}
		free(buf);
	}
	if (agg)
		pipeline__tree_done(p, agg);
	return lost;
}

/*
 * One report, number @no (1.., counted with --interval), while tracing or
 * at the end (@final), covering @since..@now (ns, record clock).  If the
 * output cannot be written, the final report goes to stdout instead.
 * Returns 0 or -errno.
 */
int run_emit_report(const struct opts *o, struct output *w, struct pipeline *p,
		    const struct rec_run *run, uint64_t t0, uint64_t since,
		    uint64_t now, unsigned int no, int final)
{
	struct agg *agg = pipeline__tree(p, now);
	char tmp[PATH_MAX];
	FILE *f;
	int ret;

	if (!agg) {
		log_error("cannot merge the shards for the report: %s",
			  strerror(ENOMEM));
		return -ENOMEM;
	}

	f = output_begin(w, tmp, sizeof(tmp));
	if (!f) {
		ret = -errno;
		goto fallback;
	}
	if (o->interval_ns && report_fmt_has(o->r.fmt, REPORT_CAP_COMMENTS))
		fprintf(f, "# %s%.0u: %.3fs to %.3fs after tracing began%s\n",
			final ? "final report" : "interval ", final ? 0 : no,
			(double)(since - t0) / 1e9, (double)(now - t0) / 1e9,
			o->delta ? "" : " (cumulative)");
	ret = write_report(o, f, agg, run, since - t0, now - since, no, final);
	ret = output_end(w, f, tmp, ret);
fallback:
	if (ret && w->name) {
		/* not into a traced command's stdout */
		FILE *alt = o->cmd ? stderr : stdout;
		/* not again into the file that failed (-o /dev/stdout) */
		int retry = final && !output_is(w, alt);

		log_error("cannot write '%s': %s%s%s", w->name, strerror(-ret),
			  retry ? "; the report follows on " : "",
			  retry ? (o->cmd ? "stderr" : "stdout") : "");
		if (retry)
			write_report(o, alt, agg, run, since - t0,
				     now - since, no, final);
	} else if (ret) {
		log_error("cannot write the report to stdout: %s",
			  strerror(-ret));
	}
	if (!ret && o->delta)
		pipeline__reset(p);
	pipeline__tree_done(p, agg);
	/* a report builds and frees tens of MB (JSON: json-c objects for
	 * every path); the tree's own allocations made meanwhile land among
	 * them, so glibc's heap would keep the freed pages, growing with
	 * every report: give the free pages back (bench/soak.sh) */
	if (!final)
		malloc_trim(0);
	return ret;
}

/*
 * One report of @agg for @run (its counters as last read), covering
 * @duration_ns from @since (ns after the start of tracing), in -f's format.
 */
static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			const struct rec_run *run, uint64_t since,
			uint64_t duration_ns, unsigned int no, int final)
{
	struct report r = { 0 };

	r.agg = agg;
	rec_run_report(run, &r);
	if (r.start_realtime_ns)
		r.start_realtime_ns += since;
	r.duration_ns = duration_ns;
	report_opts_apply(&o->r, &r);
	r.width = report_opts_term_width(out);
	r.interval = o->interval_ns ? no : 0;
	r.final = final;
	r.delta = o->delta;
	r.offcpu_stacks = o->offcpu_stacks != 0;
	return report_write(out, &r, o->r.fmt,
			    log_enabled(LOG_LVL_INFO) ? stderr : NULL);
}

/*
 * --listen: render the OpenMetrics report covering t0..@now (cumulative)
 * and hand it to the /metrics server.  Returns 0 or -errno.
 */
int run_publish_metrics(const struct opts *o, struct monitor *mon,
			struct pipeline *p, const struct rec_run *run,
			uint64_t t0, uint64_t now)
{
	struct opts mo = *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct agg *agg;
	int ret;

	if (!f)
		return -errno;
	agg = pipeline__tree(p, now);
	mo.r.fmt = REPORT_FMT_OPENMETRICS;
	ret = agg ? write_report(&mo, f, agg, run, 0, now - t0, 0, 0) : -ENOMEM;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret)
		ret = monitor__publish(mon, buf, len);
	free(buf);
	if (agg)
		pipeline__tree_done(p, agg);
	return ret;
}

/* The report is written: always, but by iprof record only on request. */
int run_want_report(const struct opts *o)
{
	return !report_fmt_has(o->r.fmt, REPORT_CAP_STREAM) &&
	       (!o->record_mode || o->report_output);
}

/* iprof record: open the recording (-o; '-' is stdout).  0 or -errno. */
int run_record_open(const struct opts *o, const struct output *w,
		       FILE **f)
{
	struct stat st;
	int fd = -1, e;

	if (!strcmp(o->record, "-")) {
		if (w->direct == stdout && o->report_output) {
			log_cmd(LOG_LVL_ERROR, "record",
				"the recording and the report cannot both go to stdout");
			return -EINVAL;
		}
		*f = stdout;
		return 0;
	}
	/*
	 * Written in place as it goes (a killed run leaves the blocks written
	 * so far), so opened so that it can neither block nor be redirected
	 * (issue 15): no symbolic link followed, a FIFO nobody reads is an
	 * error, a regular file, FIFO or character device only.
	 */
	fd = open(o->record,
		  O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0 && fstat(fd, &st))
		goto fail;
	if (fd >= 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !S_ISCHR(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	/* a regular file is truncated only when tracing starts
	 *  (run_record_truncate()): a run that fails before leaves the last
	 * recording as it was */
	if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		goto fail;
	*f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (*f)
		return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	log_error("cannot write '%s': %s", o->record,
		  e == ELOOP	? "a symbolic link (give the file itself)"
		  : e == ENXIO	? "a FIFO that nobody reads"
		  : e == EINVAL ? "not a regular file, FIFO or device"
				: strerror(e));
	return -e;
}

/*
 * iprof record: empty the file run_record_open() opened, now that tracing
 * starts (a regular file; a FIFO or device has nothing to empty).  0 or
 * -errno.
 */
int run_record_truncate(FILE *f)
{
	struct stat st;

	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		return 0;
	if (ftruncate(fileno(f), 0) || fseek(f, 0, SEEK_SET))
		return -errno;
	return 0;
}

/* iprof record: the trailer, and a line on stderr.  0 or -errno. */
int run_record_finish(const struct opts *o, struct rec_writer *rw,
			 const struct rec_run *run)
{
	int e = rec_writer__finish(rw, run);

	if (e)
		log_error("cannot write '%s': %s", o->record, strerror(-e));
	else
		log_info("recorded %llu records to '%s'",
			 (unsigned long long)rec_writer__records(rw),
			 o->record);
	return e;
}

int run_timeline_open(struct timeline *tl, struct output *w,
		      enum report_fmt fmt)
{
	tl->fmt = report_fmt_get(fmt)->stream;
	tl->h = NULL;
	tl->tmp[0] = '\0';
	tl->f = output_begin(w, tl->tmp, sizeof(tl->tmp));
	if (!tl->f) {
		log_error("cannot write '%s': %s", w->name, strerror(errno));
		tl->tmp[0] = '\0';
		return -errno;
	}
	if (w->direct)
		tl->tmp[0] = '\0';
	return 0;
}

int run_timeline_begin(struct timeline *tl, struct pipeline *p,
		       const struct rec_run *run, uint32_t max_depth)
{
	tl->h = tl->fmt->open(p, tl->f, run, max_depth, 0);
	if (!tl->h) {
		log_error("cannot write the timeline: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int run_stream_mark(const struct report_stream *fmt, void *h,
		    struct pipeline *p, uint64_t now_ns)
{
	struct agg *agg;
	int e;

	if (!fmt->mark)
		return 0;
	agg = pipeline__tree(p, now_ns);
	if (!agg) {
		log_error("cannot mark the slowest calls: %s", strerror(errno));
		return -errno;
	}
	e = fmt->mark(h, agg);
	pipeline__tree_done(p, agg);
	if (e)
		log_error("cannot write the timeline: %s", strerror(-e));
	return e;
}

int run_timeline_finish(struct timeline *tl, struct output *w, uint64_t end_ns)
{
	int e = tl->fmt->finish(tl->h, end_ns);

	if (tl->tmp[0]) {
		e = output_end(w, tl->f, tl->tmp, e);
		tl->f = NULL;
		tl->tmp[0] = '\0';
	}
	if (e)
		log_error("cannot write the timeline: %s", strerror(-e));
	else
		log_info("timeline of %llu calls written",
			 (unsigned long long)tl->fmt->events(tl->h));
	return e;
}

/* an unfinished timeline's temporary file goes */
void run_timeline_close(struct timeline *tl)
{
	if (tl->tmp[0]) {
		fclose(tl->f);
		unlink(tl->tmp);
	}
}
