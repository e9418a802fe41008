// SPDX-License-Identifier: GPL-2.0-only
/*
 * list.c - iprof list tracepoints|functions|kernel (src/cli/list.h).
 *
 * Every listing is a struct ksyms name list (iprof/ksym.h), matched with
 * ksyms_match_clones(): the names a probe line's glob would match, each
 * compiler clone (NAME.isra.0, NAME.cold) shown after its function.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/inline.h"
#include "iprof/ksym.h"
#include "iprof/plan.h"
#include "iprof/sym.h"
#include "iprof/usdt.h"
#include "cli/list.h"
#include "kernel/loader.h"
#include "kernel/tracefs.h"
#include "cli/log.h"

struct list_opts {
	int verbose;	  /* -v: each event's fields (-q: log_set_switches()) */
	const char *glob; /* NULL: everything */
	const char *debuginfo; /* --debuginfo DIR (functions), or NULL */
};

/* list_main()'s long-only options */
enum { LIST_O_DEBUGINFO = 256 };

/* What the print callbacks share. */
struct printer {
	const struct list_opts *o;
	const char *tracefs;   /* list tracepoints -v */
	const char *fentry_on; /* list kernel: a function to try fentry on */
	unsigned long n;       /* lines printed */
};

/* the options of iprof list WHAT (iprof list OPTIONS is the live run's
 * --dry-run: opts.c's), as --help lists them */
/* clang-format off */
static const struct optdef list_rows[] = {
	OPT("verbose", 'v', no_argument, NULL, "(tracepoints) each event's fields"),
	OPT("debuginfo", LIST_O_DEBUGINFO, required_argument, "DIR", "(functions) more separate debug files, as a run's"),
	OPT("quiet", 'q', no_argument, NULL, "no count on stderr"),
	OPT("help", 'h', no_argument, NULL, NULL, .flags = OPTAB_NOHELP),
	{ 0 },
};

const struct optab_cmd list_cmd_opts = {
	.head =
		"Usage: iprof list tracepoints [-v] [GLOB]\n"
		"       iprof list functions [--debuginfo DIR] BINARY [GLOB]\n"
		"       iprof list kernel [GLOB]\n"
		"       iprof list usdt BINARY [GLOB]\n"
		"       iprof list [OPTIONS] (-P FILE | -e SPEC)...   the plan, as --dry-run\n"
		"\n"
		"  tracepoints  CAT:EVENT of every tracepoint (tracefs events/); GLOB\n"
		"               matches CAT:EVENT; -v adds each event's fields, 'TYPE NAME'\n"
		"  functions    the functions of ELF file BINARY that uprobe:BINARY:FUNC\n"
		"               can name (.symtab and .dynsym); a compiler clone shows\n"
		"               '(clone of FUNC)' (timed with FUNC), a C++ function its\n"
		"               demangled name '(ns::foo(int))'; a function the compiler\n"
		"               inlined everywhere (its DWARF says so) '(inlined only)'\n"
		"  kernel       the kernel functions fentry:/kprobe:/func: can name (ftrace's\n"
		"               available_filter_functions, else /proc/kallsyms), with their\n"
		"               module; stderr says whether fentry and kprobes attach here\n"
		"  usdt         the USDT probes of ELF file BINARY (its .note.stapsdt) that\n"
		"               usdt:BINARY:PROVIDER:NAME can name, 'PROVIDER:NAME', its\n"
		"               argument count and specs (SIZE@WHERE, as the note has\n"
		"               them) and its semaphore's address (0: none); GLOB matches\n"
		"               PROVIDER:NAME\n"
		"\n"
		"GLOB is fnmatch(3)'s (* ? [...]): quote it.  A clone is listed when it or\n"
		"its function matches; with GLOB, a C++ or Rust function is listed by its\n"
		"demangled name ('ns::*', 'parse*'; a GLOB that starts with '_', '_Z*',\n"
		"lists symbols as they are).\n"
		"One item per line, sorted; the count on stderr.\n",
	.rows = list_rows,
	.foot =
		"Exit status: 0 listed, 1 nothing matched, 2 bad arguments or nothing to\n"
		"read (no tracefs, no such BINARY, not an ELF file).\n",
	.col = 18,
};
/* clang-format on */

int list_is_subcommand(const char *name)
{
	return name && (!strcmp(name, "tracepoints") || !strcmp(name, "-h") ||
			!strcmp(name, "--help") || !strcmp(name, "functions") ||
			!strcmp(name, "kernel") || !strcmp(name, "usdt"));
}

static int print_field(const char *name, const struct plan_tp_field_info *fi,
		       void *ctx)
{
	(void)ctx;
	printf("    %s %s\n", fi->type, name);
	return 0;
}

static int print_tp(const char *name, void *ctx)
{
	struct printer *pr = ctx;
	char cat[256];
	size_t n = strcspn(name, ":");

	pr->n++;
	printf("%s\n", name);
	if (pr->o->verbose && n < sizeof(cat)) {
		memcpy(cat, name, n);
		cat[n] = '\0';
		plan_tp_fields(pr->tracefs, cat, name + n + 1, print_field,
			       NULL);
	}
	return 0;
}

/* A function: "NAME [MODULE] (clone of BASE) (iprof refuses it: WHY)". */
static int print_func(const char *name, void *ctx)
{
	struct printer *pr = ctx;
	const char *mod = ksyms_module(name), *why;
	size_t base = ksym_base_len(name);
	char *dem;

	pr->n++;
	printf("%s", name);
	if (*mod)
		printf(" [%s]", mod);
	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R') && !*mod &&
	    (dem = sym_demangle(name))) {
		/* the name a uprobe can give it: ns::foo(int), rs::parse */
		printf(" (%s)", dem);
		free(dem);
	} else if (name[base]) {
		printf(" (clone of %.*s)", (int)base, name);
	}
	/* the kernel's deny list: what iprof refuses to time */
	if (pr->fentry_on && (why = ksym_denied(name)))
		printf(" (iprof does not time it: %s)", why);
	else if (pr->fentry_on && !name[base] && !*mod && !*pr->fentry_on)
		pr->fentry_on = name; /* fentry is tried on it */
	printf("\n");
	return 0;
}

/* "iprof: N WHATs [in WHERE] [matching 'GLOB']" on stderr (info: not -q). */
static void count_line(const struct list_opts *o, unsigned long n,
		       const char *what, const char *where)
{
	log_info("%lu %s%s%s%s%s%s%s", n, what, n == 1 ? "" : "s",
		 where ? " in " : "", where ? where : "",
		 o->glob ? " matching '" : "", o->glob ? o->glob : "",
		 o->glob ? "'" : "");
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The events of tracefs @dir: "CAT:EVENT" of each events/CAT/EVENT/format. */
static int read_events(const char *dir, struct ksyms *k)
{
	char path[PATH_MAX], name[2 * NAME_MAX + 2];
	struct dirent *c, *e;
	DIR *cd, *ed;
	int err = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	cd = opendir(path);
	if (!cd)
		return -errno;
	while (!err && (c = readdir(cd))) {
		if (c->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, c->d_name);
		if (!is_dir(path) || !(ed = opendir(path)))
			continue;
		while (!err && (e = readdir(ed))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format",
				 dir, c->d_name, e->d_name);
			if (access(path, F_OK))
				continue;
			snprintf(name, sizeof(name), "%s:%s", c->d_name,
				 e->d_name);
			err = ksyms_add(k, name, strlen(name), NULL);
		}
		closedir(ed);
	}
	closedir(cd);
	ksyms_sort(k);
	return err;
}

/*
 * tp_near() - for a GLOB that matched none of @k's CAT:EVENT names, say
 * "0 tracepoints matching 'GLOB'; did you mean ...?" with the names
 * nearest to it (ksym_suggest()), else, its category being none, GLOB
 * with the categories nearest to its own ('sycalls:*': 'syscalls:*').
 * 1 when said, 0 when none is near (or out of memory).
 */
static int tp_near(const struct ksyms *k, const char *glob)
{
	const char *colon = strchr(glob, ':');
	char near[512] = "", **cats = NULL;
	size_t i, n = 0, clen;

	if (!ksym_suggest(k->funcs, k->nfuncs, glob, near, sizeof(near)) &&
	    colon && (cats = calloc(k->nfuncs, sizeof(*cats)))) {
		/* each category once (k->funcs is sorted), with GLOB's rest */
		for (i = 0; i < k->nfuncs; i++) {
			clen = strcspn(k->funcs[i], ":");
			if (n && !strncmp(cats[n - 1], k->funcs[i], clen) &&
			    cats[n - 1][clen] == ':')
				continue;
			if (asprintf(&cats[n], "%.*s%s", (int)clen,
				     k->funcs[i], colon) < 0)
				break;
			n++;
		}
		ksym_suggest(cats, n, glob, near, sizeof(near));
		for (i = 0; i < n; i++)
			free(cats[i]);
		free(cats);
	}
	if (!*near)
		return 0;
	log_info("0 tracepoints matching '%s'" KSYM_SUGGEST_PFX "%s?", glob,
		 near);
	return 1;
}

static int list_tracepoints(const struct list_opts *o)
{
	struct printer pr = {o, NULL, NULL, 0};
	struct ksyms k = {0};
	int err;

	pr.tracefs = tracefs_dir();
	if (!pr.tracefs) {
		log_error("tracefs is not mounted and cannot be (%s): "
			  "mount -t tracefs tracefs /sys/kernel/tracing",
			  strerror(errno));
		return LIST_ERROR;
	}
	err = read_events(pr.tracefs, &k);
	if (err) {
		log_error("%s/events: %s", pr.tracefs, strerror(-err));
		ksyms_free(&k);
		return LIST_ERROR;
	}
	ksyms_match(&k, o->glob, print_tp, &pr);
	/* none: said with the names near the GLOB, if any */
	if (pr.n || !o->glob || !tp_near(&k, o->glob))
		count_line(o, pr.n, "tracepoint", NULL);
	ksyms_free(&k);
	return pr.n ? LIST_FOUND : LIST_NONE;
}

/* the functions of @path inlined everywhere: no symbol in @syms, but
 * instances in its DWARF (src/probe/inline.c), each "NAME (inlined
 * only)"; a C++ glob leaves them out (their DWARF names are not
 * qualified) */
static void list_inlined(const struct list_opts *o, const char *path,
			 const struct ksyms *syms, struct printer *pr)
{
	struct ksyms in = { 0 };
	char err[PATH_MAX + 256];
	size_t i;

	if (o->glob && strstr(o->glob, "::"))
		return;
	if (inl_names(path, o->debuginfo, &in, err, sizeof(err))) {
		log_warn("%s: its inlined functions are not listed: %s", path,
			 err);
		ksyms_free(&in);
		return;
	}
	for (i = 0; i < in.nfuncs; i++) {
		if (ksyms_exists(syms, in.funcs[i]) == 1 ||
		    (o->glob && fnmatch(o->glob, in.funcs[i], 0)))
			continue;
		printf("%s (inlined only)\n", in.funcs[i]);
		pr->n++;
	}
	ksyms_free(&in);
	inl_forget();
}

static int list_functions(const struct list_opts *o, const char *bin)
{
	struct printer pr = {o, NULL, NULL, 0};
	struct ksyms k = {0};
	char err[PATH_MAX + 512], *path = NULL;
	int ret;

	ret = sym_resolve_path(bin, &path, err, sizeof(err));
	if (!ret)
		ret = sym_func_names(path, &k, err, sizeof(err));
	if (!ret && o->glob) {
		/* the names uprobe:BINARY:GLOB matches */
		struct ksyms g;

		ret = sym_glob_names(&k, o->glob, &g);
		ksyms_free(&k);
		k = g;
		if (ret)
			snprintf(err, sizeof(err), "%s: %s", path,
				 strerror(-ret));
	}
	if (ret) {
		log_error("%s", err);
		free(path);
		return LIST_ERROR;
	}
	ksyms_match_clones(&k, o->glob, print_func, &pr);
	list_inlined(o, path, &k, &pr);
	ksyms_free(&k);
	count_line(o, pr.n, "function", path);
	free(path);
	return pr.n ? LIST_FOUND : LIST_NONE;
}

static int list_kernel(const struct list_opts *o)
{
	struct printer pr = {o, NULL, "", 0};
	const char *tracefs = tracefs_dir();
	char filter[PATH_MAX], why[512];
	struct ksyms k = {0};

	snprintf(filter, sizeof(filter), "%s/available_filter_functions",
		 tracefs ? tracefs : "");
	if (ksyms_load(&k, "/proc/kallsyms", tracefs ? filter : NULL)) {
		log_error("out of memory");
		return LIST_ERROR;
	}
	if (!k.funcs && !k.traceable) {
		log_error("cannot read /proc/kallsyms nor %s: no kernel "
			  "function names",
			  tracefs ? filter
				  : "available_filter_functions (no tracefs)");
		ksyms_free(&k);
		return LIST_ERROR;
	}
	ksyms_match_clones(&k, o->glob, print_func, &pr);
	if (log_enabled(LOG_LVL_INFO)) {
		count_line(o, pr.n, "kernel function",
			   k.traceable ? "available_filter_functions"
				       : "/proc/kallsyms");
		if (!k.traceable)
			log_info("%s is unreadable: which functions "
				 "ftrace can patch (fentry needs it) is "
				 "unknown; listed: every text symbol",
				 filter);
		int kp = loader_kprobes();

		if (!*pr.fentry_on)
			pr.fentry_on = "vfs_read";
		if (!loader_try_fentry(pr.fentry_on, why, sizeof(why)))
			log_info("fentry/fexit: the kernel loads them "
				 "(tried on %s)",
				 pr.fentry_on);
		else
			log_info("fentry/fexit: refused (%s): fentry: "
				 "timers cannot attach; func: %s",
				 why, kp ? "uses kprobes" :
					   "cannot either (no kprobes)");
		log_info("kprobes: %s",
			 kp ? "available"
			    : "absent (CONFIG_KPROBES off): "
			      "kprobe: timers cannot attach");
	}
	ksyms_free(&k);
	return pr.n ? LIST_FOUND : LIST_NONE;
}

/* "PROVIDER:NAME  N args  SPECS  semaphore 0xADDR[  (K sites)]" of each
 * USDT probe of @bin (its sites once, in file order) matching the GLOB */
static int list_usdt(const struct list_opts *o, const char *bin)
{
	char err[PATH_MAX + 512], *path = NULL, pn[512];
	struct usdt_note *v = NULL;
	size_t n = 0, i, j, sites;
	unsigned long shown = 0;
	int ret;

	ret = sym_resolve_path(bin, &path, err, sizeof(err));
	if (!ret)
		ret = usdt_notes_read(path, &v, &n, err, sizeof(err));
	if (ret) {
		log_error("%s", err);
		free(path);
		return LIST_ERROR;
	}
	for (i = 0; i < n; i++) {
		for (j = 0, sites = 0; j < n; j++)
			if (!strcmp(v[j].provider, v[i].provider) &&
			    !strcmp(v[j].name, v[i].name)) {
				if (j < i)
					break;
				sites++;
			}
		snprintf(pn, sizeof(pn), "%s:%s", v[i].provider, v[i].name);
		if (j < i || (o->glob && fnmatch(o->glob, pn, 0)))
			continue; /* listed at its first site, or no match */
		printf("%s  %d arg%s%s%s  semaphore %#llx", pn, v[i].nargs,
		       v[i].nargs == 1 ? "" : "s", v[i].nargs ? "  " : "",
		       v[i].args, (unsigned long long)v[i].sema);
		if (sites > 1)
			printf("  (%zu sites)", sites);
		putchar('\n');
		shown++;
	}
	count_line(o, shown, "USDT probe", path);
	usdt_notes_free(v, n);
	free(path);
	return shown ? LIST_FOUND : LIST_NONE;
}

int list_main(int argc, char **argv)
{
	struct stat st;
	const char *sub = argv[0];
	struct list_opts o = {0};
	struct optab t;
	int c, nargs = !strcmp(sub, "functions") || !strcmp(sub, "usdt");

	argv[0] = (char *)"iprof list"; /* getopt_long(3)'s messages */

	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		optab_help(stdout, &list_cmd_opts);
		return LIST_FOUND;
	}
	if (optab_getopt(&t, &list_cmd_opts))
		return LIST_ERROR;
	optind = 1;
	while ((c = getopt_long(argc, argv, t.shorts, t.lo, NULL)) != -1) {
		switch (c) {
		case 'v':
			o.verbose = 1;
			break;
		case 'q':
			log_set_switches(1, 0);
			break;
		case 'h':
			optab_help(stdout, &list_cmd_opts);
			return LIST_FOUND;
		case LIST_O_DEBUGINFO:
			if (stat(optarg, &st) || !S_ISDIR(st.st_mode) ||
			    sym_set_debugdir(optarg)) {
				log_error("--debuginfo %s: not a directory",
					  optarg);
				return LIST_ERROR;
			}
			o.debuginfo = optarg;
			break;
		default:
			fprintf(stderr, "Try 'iprof list --help'.\n");
			return LIST_ERROR;
		}
	}
	argv += optind;
	argc -= optind;
	if (argc < nargs || argc > nargs + 1) {
		log_error("list %s: expected %s[GLOB]%s", sub,
			  nargs ? "BINARY " : "",
			  argc > nargs + 1
				  ? " (quote the GLOB: the shell expanded it?)"
				  : "");
		return LIST_ERROR;
	}
	if (o.verbose && strcmp(sub, "tracepoints")) {
		log_error("list %s: -v applies to list tracepoints only", sub);
		return LIST_ERROR;
	}
	if (o.debuginfo && strcmp(sub, "functions")) {
		log_error("list %s: --debuginfo applies to list functions only",
			  sub);
		return LIST_ERROR;
	}
	o.glob = argc > nargs ? argv[nargs] : NULL;
	if (!strcmp(sub, "tracepoints"))
		return list_tracepoints(&o);
	if (!strcmp(sub, "functions"))
		return list_functions(&o, argv[0]);
	if (!strcmp(sub, "usdt"))
		return list_usdt(&o, argv[0]);
	return list_kernel(&o);
}
