/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Probe list parser.  See include/iprof/probe.h for the API and
 * probes.d/README.md for the grammar.
 *
 * A line is parsed with a cursor over its bytes; columns are 1-based byte
 * offsets.  Each line is parsed into a local struct probe that is appended
 * to the list only when the whole line is valid, so a syntax error leaves
 * the list as it was before that line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/probe.h"
#include "iprof/util.h"

/* Nesting levels of `include` below the top-level file. */
#define MAX_INCLUDE_DEPTH 16
/* Limits on what a probe file may hold (a guard against /dev/zero & co). */
#define MAX_FILE_BYTES (1024 * 1024)
#define MAX_LINE_BYTES 4096
/* Bytes of a token quoted in messages before it is cut with "...". */
#define MAX_TOKEN_SHOWN 74

#define EXPECT_KIND                                                            \
	"a probe kind (fentry:, kprobe:, func:, uprobe:, span, include)"
#define EXPECT_OP "an operator (== != < <= > >= &)"
#define EXPECT_NUM "a number (decimal or 0x hex)"
#define EXPECT_TYPE "a type right after ':' (s8 u8 s16 u16 s32 u32 s64 u64)"
#define EXPECT_KEY                                                             \
	"a key field (a field of the start's tracepoint, or pid, tid, cpu)"
#define EXPECT_KEY_STOP                                                        \
	"a field of the stop's tracepoint after '=' (or pid, tid, cpu)"

struct open_file {
	dev_t dev;
	ino_t ino;
};

/* Bytes of a line shown under a gathered error (a window around the
 * column beyond that) */
#define MAX_LINE_SHOWN 100

/* State shared by one probe_parse_file()/probe_parse_line() call. */
struct ctx {
	struct probe_list *pl;
	char *err;
	size_t errlen;
	int depth; /* files on stack[] */
	struct open_file stack[MAX_INCLUDE_DEPTH + 1];
	/* gathering (pl->max_errors): set_err() writes into msg; the
	 * entries go to out (the caller's err buffer) */
	char msg[1024];
	char *out;
	size_t outlen, outused;
	int pending; /* msg holds an error not yet gathered */
	int first; /* the first error's code */
};

/* Cursor over one line. */
struct lex {
	struct ctx *ctx;
	const char *line;
	const char *origin;
	int lineno;
};

/* one row per probe kind (include/iprof/probe.h) */
#define SYN_KFUNC (PROBE_SYN_FUNC | PROBE_SYN_ALTS)
#define SYN_UFUNC (PROBE_SYN_FUNC | PROBE_SYN_PATH)
static const struct probe_kind_info kinds[] = {
	[PROBE_FENTRY] = {"fentry", PROBE_AT_KFUNC, PROBE_VIA_FENTRY, SYN_KFUNC},
	[PROBE_KPROBE] = {"kprobe", PROBE_AT_KFUNC, PROBE_VIA_KPROBE, SYN_KFUNC},
	[PROBE_FUNC] = {"func", PROBE_AT_KFUNC,
			PROBE_VIA_FENTRY | PROBE_VIA_KPROBE, SYN_KFUNC},
	[PROBE_UPROBE] = {"uprobe", PROBE_AT_UFUNC, 0, SYN_UFUNC},
	[PROBE_SPAN] = {"span", PROBE_AT_SPAN, 0, 0},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))
static const struct probe_kind_info unknown_kind = {"unknown", PROBE_AT_SPAN,
						    0, 0};

static const char *const op_names[] = {
	[IPROF_OP_EQ] = "==", [IPROF_OP_NE] = "!=", [IPROF_OP_LT] = "<",
	[IPROF_OP_LE] = "<=", [IPROF_OP_GT] = ">",  [IPROF_OP_GE] = ">=",
	[IPROF_OP_AND] = "&",  [IPROF_OP_STREQ] = "==", [IPROF_OP_STRNE] = "!=",
	[IPROF_OP_STRPRE] = "=~",
};

const struct probe_kind_info *probe_kind(enum probe_kind k)
{
	if ((unsigned int)k >= NKINDS || !kinds[k].name)
		return &unknown_kind;
	return &kinds[k];
}

enum probe_at probe_kind_at(enum probe_kind k)
{
	return probe_kind(k)->at;
}

const char *probe_kind_str(enum probe_kind k)
{
	return probe_kind(k)->name;
}

const char *probe_op_str(enum iprof_cond_op op)
{
	if ((unsigned int)op >= sizeof(op_names) / sizeof(op_names[0]))
		return "?";
	return op_names[op];
}

/* ---- character classes (ASCII, locale-independent) ---------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_';
}

static bool is_name(char c)
{
	return is_ident(c) || c == '.' || c == '-';
}

static bool is_func(char c)
{
	return is_ident(c) || c == '.' || c == '*' || c == '?';
}

static bool is_opchar(char c)
{
	return c && strchr("=!<>&|", c);
}

/* End of the meaningful part of a line: NUL or a comment. */
static bool is_eol(const char *p)
{
	return *p == '\0' || *p == '#';
}

/* Characters of a "word" token in messages and of a uprobe PATH:FUNC. */
static bool is_word(char c)
{
	return c && !is_space(c) && c != '#' && !is_opchar(c) &&
	       (unsigned char)c > 0x20 && c != 0x7f;
}

static const char *skip_ws(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static const char *scan(const char *p, bool (*cls)(char))
{
	while (cls(*p))
		p++;
	return p;
}

static int col_of(const struct lex *lx, const char *p)
{
	return (int)(p - lx->line) + 1;
}

/* Is @p at keyword @kw followed by a word boundary? */
static bool at_keyword(const char *p, const char *kw)
{
	size_t n = strlen(kw);

	return !strncmp(p, kw, n) && (is_space(p[n]) || is_eol(p + n));
}

/* ---- error messages ------------------------------------------------------ */

static void set_err(struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx->err || !ctx->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->err, ctx->errlen, fmt, ap);
	va_end(ap);
	ctx->pending = 1;
}

/* Length of the token at @p, as quoted in messages. */
static size_t token_len(const char *p)
{
	const char *e;

	if (p[0] == '-' && p[1] == '>')
		return 2;
	if (is_opchar(*p))
		return scan(p, is_opchar) - p;
	e = p;
	while (is_word(*e) && !(e[0] == '-' && e[1] == '>'))
		e++;
	return e > p ? (size_t)(e - p) : 1;
}

/*
 * quote() - 'TOKEN' for the @len bytes at @p into @buf (at least
 * 4 * MAX_TOKEN_SHOWN + 8 bytes): bytes outside printable ASCII are shown
 * as \xNN, and a token longer than MAX_TOKEN_SHOWN bytes is cut with "...".
 */
static void quote(char *buf, const char *p, size_t len)
{
	size_t i, n = len > MAX_TOKEN_SHOWN ? MAX_TOKEN_SHOWN : len;
	unsigned char c;

	*buf++ = '\'';
	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
		if (c < 0x20 || c >= 0x7f)
			buf += sprintf(buf, "\\x%02x", c);
		else
			*buf++ = (char)c;
	}
	strcpy(buf, len > n ? "...'" : "'");
}

/* is the token at @p (@len bytes) a piece of a path (a '/' after a
 * "KIND:") that a ':' or a blank cut: one after the first piece, or the
 * first with more on its line? */
static bool path_cut(const struct lex *lx, const char *p, size_t len)
{
	if (*p != '/' || p == lx->line ||
	    !memchr(lx->line, ':', (size_t)(p - lx->line)))
		return false;
	return p[-1] != ':' || !is_eol(skip_ws(p + len));
}

/*
 * syntax_error_len() - "ORIGIN:LINE:COL: found 'TOKEN', expected WHAT" for
 * the @len bytes at @p (0: the token at @p).  Returns -EINVAL.
 */
static int syntax_error_len(struct lex *lx, const char *p, size_t len,
			    const char *what)
{
	char tok[4 * MAX_TOKEN_SHOWN + 8];

	/* Point at the next token, not at the blanks before it. */
	if (is_space(*p)) {
		p = skip_ws(p);
		len = 0;
	}
	if (is_eol(p)) {
		snprintf(tok, sizeof(tok), "end of line");
	} else {
		if (!len)
			len = token_len(p);
		quote(tok, p, len);
	}
	/* a byte past ASCII: most likely a name that needs its quotes; a
	 * path begun before it: most likely a ':' or a blank in the path
	 * (newcomer trial 5: uprobe:/tmp/we:ird/s l:slp) */
	set_err(lx->ctx, "%s:%d:%d: found %s, expected %s%s", lx->origin,
		lx->lineno, col_of(lx, p), tok, what,
		(unsigned char)*p >= 0x80 ?
			" (a name with bytes other than ASCII letters, digits, '_' and '.' goes in double quotes: \"NAME\")" :
		path_cut(lx, p, len) ?
			" (a path with ':' or blanks goes in double quotes: uprobe:\"/a b/c:d\":FUNC)" :
			"");
	return -EINVAL;
}

static int syntax_error(struct lex *lx, const char *p, const char *what)
{
	return syntax_error_len(lx, p, 0, what);
}

/*
 * A KIND: that is none: the syntax error, with "; did you mean uprobe:?"
 * when a kind's name is near the @n bytes at @p (ksym_suggest()).
 */
static int kind_error(struct lex *lx, const char *p, size_t n)
{
	char nb[NKINDS][24], *names[NKINDS], want[64], near[128], what[256];
	size_t k, m = 0;

	for (k = 0; k < NKINDS; k++)
		if (kinds[k].syntax & PROBE_SYN_FUNC) {
			snprintf(nb[m], sizeof(nb[m]), "%s:", kinds[k].name);
			names[m] = nb[m];
			m++;
		}
	snprintf(want, sizeof(want), "%.*s:", (int)n, p);
	/* a USDT probe is a point in the code, not a call: a side of a
	 * span (tracepoints likewise) */
	if ((n == 4 && !strncmp(p, "usdt", 4)) ||
	    (n == 2 && !strncmp(p, "tp", 2)) ||
	    (n == 10 && !strncmp(p, "tracepoint", 10)))
		return syntax_error_len(
			lx, p, n + 1,
			EXPECT_KIND "; a USDT probe or tracepoint marks a point, "
				    "not a call: time between two with 'span "
				    "NAME = START -> STOP' (doc/probes.md)");
	if (!ksym_suggest(names, m, want, near, sizeof(near)))
		return syntax_error_len(lx, p, n + 1, EXPECT_KIND);
	snprintf(what, sizeof(what), "%s" KSYM_SUGGEST_PFX "%s?", EXPECT_KIND,
		 near);
	return syntax_error_len(lx, p, n + 1, what);
}

/* ---- gathering errors (probe_list.max_errors) ----------------------------- */

/* Append the printf(3) text of @fmt to ctx->out, cut at its end. */
static void out_add(struct ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_add(struct ctx *ctx, const char *fmt, ...)
{
	size_t room = ctx->outlen - ctx->outused;
	va_list ap;
	int n;

	if (!ctx->out || ctx->outused + 1 >= ctx->outlen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(ctx->out + ctx->outused, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		ctx->outused += (size_t)n < room ? (size_t)n : room - 1;
}

int probe_show_line(char *buf, size_t len, const char *line, int col)
{
	char win[MAX_LINE_SHOWN + 8], *b = win;
	size_t n = strlen(line), from = 0, to, i, at = 0;
	unsigned char c;

	if (col < 1 || (size_t)col > n + 1 || !len)
		return -EINVAL;
	if ((size_t)col > MAX_LINE_SHOWN / 2 && n > MAX_LINE_SHOWN)
		from = (size_t)col - 1 - MAX_LINE_SHOWN / 2;
	while (from && ((unsigned char)line[from] & 0xc0) == 0x80)
		from++;
	to = from + MAX_LINE_SHOWN < n ? from + MAX_LINE_SHOWN : n;
	while (to < n && ((unsigned char)line[to] & 0xc0) == 0x80)
		to--;
	if (from) {
		b += sprintf(b, "...");
		at = 3;
	}
	for (i = from; i < to; i++) {
		c = (unsigned char)line[i];
		*b++ = c < 0x20 || c == 0x7f ? '?' : (char)c;
		if (i < (size_t)col - 1 && (c & 0xc0) != 0x80)
			at++;
	}
	strcpy(b, to < n ? "..." : "");
	snprintf(buf, len, "  %s\n  %*s^\n", win, (int)at, "");
	return 0;
}

/* probe_show_line() of @line at @col into ctx->out */
static void show_line(struct ctx *ctx, const char *line, int col)
{
	char buf[2 * MAX_LINE_SHOWN + 32];

	if (!probe_show_line(buf, sizeof(buf), line, col))
		out_add(ctx, "%s", buf);
}

/*
 * gather() - in gathering mode, the pending message as an entry of
 * ctx->out, counted in pl->nerrors: with @line and a caret when it starts
 * "@origin:@lineno:COL:" (@line NULL: none).
 */
static void gather(struct ctx *ctx, const char *line, const char *origin,
		   int lineno)
{
	size_t n = origin ? strlen(origin) : 0;
	const char *m = ctx->msg;
	char *end;
	long col;

	if (!ctx->pl->max_errors || !ctx->pending)
		return;
	ctx->pending = 0;
	if (++ctx->pl->nerrors > ctx->pl->max_errors)
		return;
	out_add(ctx, "%s\n", m);
	if (!line || strncmp(m, origin, n) || m[n] != ':' ||
	    strtol(m + n + 1, &end, 10) != lineno || *end != ':')
		return;
	col = strtol(end + 1, &end, 10);
	if (*end == ':')
		show_line(ctx, line, (int)col);
}

/* Whether a gathering parse goes on after error @err (limits and memory
 * stop it). */
static bool go_on(const struct ctx *ctx, int err)
{
	return ctx->pl->max_errors && err != -ENOMEM && err != -EFBIG &&
	       err != -E2BIG;
}

static int nomem(struct lex *lx)
{
	set_err(lx->ctx, "%s:%d: out of memory", lx->origin, lx->lineno);
	return -ENOMEM;
}

/* ---- probe memory -------------------------------------------------------- */

static void point_free(struct probe_point *pt)
{
	int i;

	free(pt->category);
	free(pt->event);
	free(pt->usdt);
	free(pt->uprobe);
	for (i = 0; i < pt->ncond; i++) {
		free(pt->cond[i].field);
		free(pt->cond[i].str);
	}
}

static void probe_free(struct probe *pr)
{
	int i;

	for (i = 0; i < pr->nkey; i++) {
		free(pr->key[i].start);
		free(pr->key[i].stop);
	}
	free(pr->name);
	free(pr->func);
	free(pr->path);
	free(pr->file);
	point_free(&pr->start);
	point_free(&pr->stop);
	for (i = 0; i < pr->nalt; i++)
		point_free(&pr->alt[i]);
	free(pr->alt);
	free(pr->name_src.field);
	free(pr->name_src2.field);
	free(pr->stop_src.field);
	free(pr->stop_src2.field);
}

static int list_push(struct probe_list *pl, struct probe *pr)
{
	struct probe *v;
	size_t cap;

	if (pl->n == pl->cap) {
		cap = pl->cap ? pl->cap * 2 : 16;
		v = realloc(pl->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pl->v = v;
		pl->cap = cap;
	}
	pl->v[pl->n++] = *pr;
	return 0;
}

void probe_list_free(struct probe_list *pl)
{
	size_t i;

	if (!pl)
		return;
	for (i = 0; i < pl->n; i++)
		probe_free(&pl->v[i]);
	free(pl->v);
	pl->v = NULL;
	pl->n = 0;
	pl->cap = 0;
}

/* ---- conditions ---------------------------------------------------------- */

/* argN with N 0..11, no leading zero: returns N, or -1 if not argN. */
static int parse_argn(const char *p, const char *end)
{
	size_t n = end - p;

	if (n == 4 && is_digit(p[3]))
		return p[3] - '0';
	if (n == 5 && p[3] == '1' && (p[4] == '0' || p[4] == '1'))
		return 10 + p[4] - '0';
	return -1;
}

/* Does the identifier [p, end) look like argDIGITS? */
static bool looks_argn(const char *p, const char *end)
{
	const char *q;

	if (end - p < 4 || strncmp(p, "arg", 3))
		return false;
	for (q = p + 3; q < end; q++)
		if (!is_digit(*q))
			return false;
	return true;
}

static int parse_op(const char *p, const char *end, enum iprof_cond_op *op)
{
	size_t n = end - p;
	size_t i;

	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
		if (strlen(op_names[i]) == n && !strncmp(p, op_names[i], n)) {
			*op = (enum iprof_cond_op)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct {
	const char *name;
	int width, is_signed;
} cond_types[] = {
	{"s8", 1, 1},  {"u8", 1, 0},  {"s16", 2, 1}, {"u16", 2, 0},
	{"s32", 4, 1}, {"u32", 4, 0}, {"s64", 8, 1}, {"u64", 8, 0},
};

/* TYPE of FIELD:TYPE at *pp (after the ':') into @c. */
static int parse_type(struct lex *lx, const char **pp, struct probe_cond *c)
{
	const char *p = *pp, *e = scan(p, is_ident);
	size_t i, n = (size_t)(e - p);

	for (i = 0; i < sizeof(cond_types) / sizeof(cond_types[0]); i++) {
		if (n && strlen(cond_types[i].name) == n &&
		    !strncmp(p, cond_types[i].name, n)) {
			c->has_type = 1;
			c->width = cond_types[i].width;
			c->is_signed = cond_types[i].is_signed;
			*pp = e;
			return 0;
		}
	}
	return syntax_error_len(lx, p, n, EXPECT_TYPE);
}

/*
 * parse_value() - VALUE at *pp: decimal with an optional '-', or 0x hex.
 * Negative values are stored two's complement.
 */
static int parse_value(struct lex *lx, const char **pp, uint64_t *out)
{
	const char *p = *pp, *q, *end, *d;
	bool neg = *p == '-';
	uint64_t v = 0;
	unsigned int dig;

	q = neg ? p + 1 : p;
	end = scan(q, is_ident);
	if (end == q)
		return syntax_error(lx, p, EXPECT_NUM);
	if (!neg && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		if (end == q + 2)
			return syntax_error_len(lx, p, end - p, EXPECT_NUM);
		for (d = q + 2; d < end; d++) {
			if (is_digit(*d))
				dig = *d - '0';
			else if (*d >= 'a' && *d <= 'f')
				dig = *d - 'a' + 10;
			else if (*d >= 'A' && *d <= 'F')
				dig = *d - 'A' + 10;
			else
				return syntax_error_len(lx, p, end - p,
							EXPECT_NUM);
			if (v > UINT64_MAX >> 4)
				return syntax_error_len(
					lx, p, end - p,
					"a number that fits in 64 bits");
			v = v << 4 | dig;
		}
	} else {
		for (d = q; d < end; d++) {
			if (!is_digit(*d))
				return syntax_error_len(lx, p, end - p,
							EXPECT_NUM);
			dig = *d - '0';
			if (v > (UINT64_MAX - dig) / 10)
				return syntax_error_len(
					lx, p, end - p,
					"a number that fits in 64 bits");
			v = v * 10 + dig;
		}
		if (neg && v > (uint64_t)INT64_MAX + 1)
			return syntax_error_len(
				lx, p, end - p,
				"a number that fits in 64 bits");
		if (neg)
			v = -v;
	}
	*out = v;
	*pp = end;
	return 0;
}

static int parse_name_str(struct lex *lx, const char **pp,
			  struct probe_cond *c);
static int at_str(const char *p);

/* a hex digit's value, or -1 */
static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#define EXPECT_STROP "'==', '!=' or '=~' after str(...)"
#define EXPECT_STR                                                             \
	"a string in double quotes (\\\" \\\\ \\xNN escapes)"

/*
 * parse_strval() - the rest of `str(F) OP "TEXT"` at *pp (at OP) into @c:
 * OP ==, != or =~ (a prefix: TEXT ends with its only '*'), TEXT with the
 * escapes \" \\ \xNN (not \x00), at most IPROF_STRCOND_MAX bytes.  0 or
 * the error (as syntax_error()).
 */
static int parse_strval(struct lex *lx, const char **pp, struct probe_cond *c)
{
	const char *p = *pp, *q;
	char buf[IPROF_STRCOND_MAX + 2]; /* a prefix's '*' too */
	char what[96];
	int n = 0, h, l;

	if (!strncmp(p, "==", 2) || !strncmp(p, "!=", 2))
		c->op = p[0] == '=' ? IPROF_OP_STREQ : IPROF_OP_STRNE;
	else if (!strncmp(p, "=~", 2))
		c->op = IPROF_OP_STRPRE;
	else
		return syntax_error(lx, p, EXPECT_STROP);
	p = skip_ws(p + 2);
	if (*p != '"')
		return syntax_error(lx, p, EXPECT_STR);
	for (q = p + 1; *q && *q != '"'; q++) {
		int b = (unsigned char)*q;

		if (*q == '\\' && (q[1] == '"' || q[1] == '\\')) {
			b = (unsigned char)*++q;
		} else if (*q == '\\' && q[1] == 'x' &&
			   (h = hexval(q[2])) >= 0 && (l = hexval(q[3])) >= 0 &&
			   (h | l)) {
			b = h << 4 | l;
			q += 3;
		} else if (*q == '\\') {
			return syntax_error_len(lx, q, 2,
						"an escape: \\\" \\\\ or "
						"\\xNN (not \\x00)");
		}
		if (n == IPROF_STRCOND_MAX + (c->op == IPROF_OP_STRPRE)) {
			snprintf(what, sizeof(what),
				 "at most %d bytes in a string",
				 IPROF_STRCOND_MAX);
			return syntax_error_len(lx, p, q - p, what);
		}
		buf[n++] = (char)b;
	}
	if (!*q)
		return syntax_error(lx, q, "'\"' closing the string");
	if (c->op == IPROF_OP_STRPRE &&
	    (!n || buf[n - 1] != '*' || memchr(buf, '*', n - 1)))
		return syntax_error_len(lx, p, q + 1 - p,
					"a prefix after '=~': \"TEXT*\" (one "
					"'*', at the end)");
	if (c->op == IPROF_OP_STRPRE)
		n--;
	c->str = malloc((size_t)n + 1);
	if (!c->str)
		return nomem(lx);
	memcpy(c->str, buf, (size_t)n);
	c->str[n] = 0;
	c->str_len = n;
	*pp = q + 1;
	return 0;
}

/*
 * parse_cond() - COND after `if` at *pp into @pt; on return *pp is at the
 * first non-blank after the last comparison.  Fields are owned by @pt as
 * soon as they are stored, so the caller's cleanup frees them on error.
 */
static int parse_cond(struct lex *lx, const char **pp, struct probe_point *pt)
{
	const char *p = *pp, *e;
	struct probe_cond *c;
	int arg, err;

	for (;;) {
		p = skip_ws(p);
		if (at_str(p)) {
			/* str(F) OP "TEXT" */
			c = &pt->cond[pt->ncond];
			memset(c, 0, sizeof(*c));
			pt->ncond++;
			err = parse_name_str(lx, &p, c);
			if (!err) {
				p = skip_ws(p);
				err = parse_strval(lx, &p, c);
			}
			if (err)
				return err;
			goto next;
		}
		e = p;
		if (is_alpha(*e) || *e == '_')
			e = scan(e, is_ident);
		if (e == p)
			return syntax_error(lx, p,
					    "a condition field (a tracepoint "
					    "field name or argN)");
		arg = -1;
		if (looks_argn(p, e)) {
			arg = parse_argn(p, e);
			if (arg < 0)
				return syntax_error_len(
					lx, p, e - p,
					"argN with N from 0 to 11");
		}
		c = &pt->cond[pt->ncond];
		memset(c, 0, sizeof(*c));
		c->arg = arg;
		c->col = col_of(lx, p);
		if (arg < 0) {
			c->field = strndup(p, e - p);
			if (!c->field)
				return nomem(lx);
		}
		pt->ncond++;

		if (*e == ':') {
			e++;
			err = parse_type(lx, &e, c);
			if (err)
				return err;
		}

		p = skip_ws(e);
		e = scan(p, is_opchar);
		if (e == p || parse_op(p, e, &c->op))
			return syntax_error(lx, p, EXPECT_OP);

		p = skip_ws(e);
		c->hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
		err = parse_value(lx, &p, &c->value);
		if (err)
			return err;
next:
		p = skip_ws(p);
		if (p[0] != '&' || p[1] != '&')
			break;
		if (pt->ncond == IPROF_MAX_COND) {
			char what[64];

			snprintf(what, sizeof(what),
				 "at most %d comparisons in a condition",
				 IPROF_MAX_COND);
			return syntax_error_len(lx, p, 2, what);
		}
		p += 2;
	}
	*pp = p;
	return 0;
}

/*
 * parse_name() - `name FIELD[:TYPE]` at *pp (at "name") into @pr: FIELD is
 * argN or a tracepoint field of the start; on return *pp is at the first
 * non-blank after it.
 */
/*
 * parse_name_src() - argN or a start's tracepoint field at *pp into @c; on
 * return *pp is just past it.
 */
static int parse_name_src(struct lex *lx, const char **pp, struct probe_cond *c)
{
	const char *p = *pp, *e = p;

	if (is_alpha(*e) || *e == '_')
		e = scan(e, is_ident);
	if (e == p)
		return syntax_error(lx, p,
				    "what names each call after 'name' (argN, "
				    "a tracepoint field of the start, or "
				    "str(argN))");
	free(c->field);
	memset(c, 0, sizeof(*c));
	c->arg = -1;
	c->col = col_of(lx, p);
	if (looks_argn(p, e)) {
		c->arg = parse_argn(p, e);
		if (c->arg < 0)
			return syntax_error_len(lx, p, e - p,
						"argN with N from 0 to 11");
	} else {
		c->field = strndup(p, e - p);
		if (!c->field)
			return nomem(lx);
	}
	*pp = e;
	return 0;
}

/*
 * parse_name_str() - `str(F)` at *pp (at "str") into @c: F's value is the
 * user address of the string that names the call; *pp then past ')'.
 */
static int parse_name_str(struct lex *lx, const char **pp, struct probe_cond *c)
{
	const char *p = skip_ws(*pp + 3);
	int err;

	if (*p != '(')
		return syntax_error(lx, p, "'(' after str");
	p = skip_ws(p + 1);
	err = parse_name_src(lx, &p, c);
	if (err)
		return err;
	c->has_type = 1; /* an address */
	c->width = 8;
	p = skip_ws(p);
	if (*p != ')')
		return syntax_error(lx, p, "')' after str(argN");
	*pp = p + 1;
	return 0;
}

static int at_str(const char *p)
{
	return !strncmp(p, "str", 3) && *skip_ws(p + 3) == '(';
}

/*
 * parse_name_expr() - FIELD[:TYPE] or str(FIELD)[:str(FIELD)] at *pp (after
 * `name` or a span's `stop`) into @c and @c2, *@parts the str() parts
 * (0: an integer); *pp then at the first non-blank after it.
 */
static int parse_name_expr(struct lex *lx, const char **pp,
			   struct probe_cond *c, struct probe_cond *c2,
			   int *parts)
{
	const char *e = *pp;
	int err;

	if (at_str(e)) {
		err = parse_name_str(lx, &e, c);
		if (!err && *e == ':' && at_str(e + 1)) {
			e++;
			err = parse_name_str(lx, &e, c2);
			*parts = 2;
		} else if (!err && *e == ':') {
			return syntax_error(lx, e + 1,
					    "str(argN) after ':' (a name of "
					    "two strings)");
		} else {
			*parts = 1;
		}
		if (err)
			return err;
		*pp = skip_ws(e);
		return 0;
	}
	*parts = 0;
	err = parse_name_src(lx, &e, c);
	if (err)
		return err;
	if (*e == ':') {
		e++;
		err = parse_type(lx, &e, c);
		if (err)
			return err;
	}
	*pp = skip_ws(e);
	return 0;
}

/*
 * parse_name() - `name FIELD[:TYPE]` or `name str(FIELD)[:str(FIELD)]` at
 * *pp (at "name") into @pr: FIELD is argN or a tracepoint field of the
 * start; on return *pp is at the first non-blank after it.
 */
static int parse_name(struct lex *lx, const char **pp, struct probe *pr)
{
	const char *p = skip_ws(*pp + 4);
	int err;

	err = parse_name_expr(lx, &p, &pr->name_src, &pr->name_src2,
			      &pr->name_parts);
	if (err)
		return err;
	pr->named = 1;
	*pp = p;
	return 0;
}

/*
 * parse_stop_name() - a named span's `stop ARG2` at *pp (at "stop"): the
 * name each stop reads, in the shape of the start's (an integer, or as
 * many str() parts); *pp then at the first non-blank after it.
 */
static int parse_stop_name(struct lex *lx, const char **pp, struct probe *pr)
{
	const char *p = skip_ws(*pp + 4), *at = p;
	int err, parts = 0;

	err = parse_name_expr(lx, &p, &pr->stop_src, &pr->stop_src2, &parts);
	if (err)
		return err;
	if (parts != pr->name_parts) {
		set_err(lx->ctx,
			"%s:%d:%d: stop names the call as name does: %s",
			lx->origin, lx->lineno, col_of(lx, at),
			pr->name_parts == 2 ? "str(ARG):str(ARG), two strings" :
			pr->name_parts ? "str(ARG), one string" :
					 "an integer (ARG[:TYPE]), no str()");
		return -EINVAL;
	}
	pr->stop_named = 1;
	*pp = p;
	return 0;
}

/* ---- probe forms --------------------------------------------------------- */

/* tracepoint:CAT:EVENT or tp:CAT:EVENT at *pp. */
static int parse_tracepoint(struct lex *lx, const char **pp,
			    struct probe_point *pt)
{
	const char *p = *pp, *e;

	pt->col = col_of(lx, p);
	if (!strncmp(p, "tracepoint:", 11))
		p += 11;
	else if (!strncmp(p, "tp:", 3))
		p += 3;
	else
		return syntax_error(lx, p,
				    "a tracepoint (tracepoint:CAT:EVENT or "
				    "tp:CAT:EVENT)");
	e = scan(p, is_ident);
	if (e == p)
		return syntax_error(lx, p, "a tracepoint category");
	pt->category = strndup(p, e - p);
	if (!pt->category)
		return nomem(lx);
	p = e;
	if (*p != ':')
		return syntax_error(lx, p,
				    "':' between tracepoint category and "
				    "event");
	p++;
	e = scan(p, is_ident);
	if (e == p)
		return syntax_error(lx, p, "a tracepoint event name");
	pt->event = strndup(p, e - p);
	if (!pt->event)
		return nomem(lx);
	*pp = e;
	return 0;
}

/*
 * usdt:PATH[:PROVIDER]:NAME at *pp (after "usdt:"): PATH, PROVIDER and
 * NAME split at the last two ':' (PATH:NAME with one), NAME and PROVIDER
 * C names.  0 or the error (as syntax_error()).
 */
static int parse_usdt(struct lex *lx, const char **pp, struct probe_point *pt)
{
	const char *p = *pp, *e = scan(p, is_word), *c1 = NULL, *c2 = NULL, *q;

	while (e > p && e[-1] == '-') /* "usdt:x:y->": the arrow */
		e--;
	for (q = p; q < e; q++)
		if (*q == ':') {
			c1 = c2;
			c2 = q;
		}
	if (!c2 || c2 == p)
		return syntax_error_len(lx, p, e - p,
					"PATH[:PROVIDER]:NAME (a binary, "
					"':' and a USDT probe's name)");
	if (c1 == p)
		c1 = NULL; /* ":x:y": no path */
	if (scan(c2 + 1, is_ident) != e || c2 + 1 == e)
		return syntax_error(lx, c2 + 1, "a USDT probe name");
	if (c1 && scan(c1 + 1, is_ident) != c2)
		return syntax_error(lx, c1 + 1, "a USDT provider name");
	pt->usdt = strndup(p, (size_t)((c1 ? c1 : c2) - p));
	pt->event = strndup(c2 + 1, (size_t)(e - c2 - 1));
	if (c1)
		pt->category = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	if (!pt->usdt || !pt->event || (c1 && !pt->category))
		return nomem(lx);
	*pp = e;
	return 0;
}

static int parse_uprobe_path(struct lex *lx, const char **pp,
			     struct probe *pr, bool *quoted);
static const char *scan_user_func(const char *p);

/*
 * uprobe:PATH:FUNC or uretprobe:PATH:FUNC at *pp (after the kind's ':'),
 * a user function's entry or return as a span side: PATH and FUNC as a
 * uprobe line's (quotes included) into pt->uprobe and pt->event; no glob
 * (a side is one function).  0 or the error (as syntax_error()).
 */
static int parse_uside(struct lex *lx, const char **pp, struct probe_point *pt)
{
	struct probe tmp = {0};
	const char *p = *pp, *e, *f;
	bool quoted = false;
	int err;

	err = parse_uprobe_path(lx, &p, &tmp, &quoted);
	if (!err && !quoted) {
		e = scan_user_func(p);
		if (e == p)
			err = syntax_error(lx, p, "a function name");
		else if (!(tmp.func = strndup(p, e - p)))
			err = nomem(lx);
		p = e;
	}
	f = tmp.func ? tmp.func : "";
	if (!err && !quoted && strpbrk(f, "*?") && !strchr(f, '('))
		err = syntax_error_len(lx, p - strlen(f), strlen(f),
				       "one function (a span's side is one "
				       "point: no glob)");
	pt->uprobe = tmp.path;
	pt->event = tmp.func;
	if (!err)
		*pp = skip_ws(p);
	return err;
}

/* the side kinds: a word and its length, for parse_span_side() */
#define SIDE_KINDS                                                             \
	"tracepoint:CAT:EVENT, usdt:PATH[:PROVIDER]:NAME, uprobe:PATH:FUNC "  \
	"or uretprobe:PATH:FUNC"

/* One side of a span: tracepoint, USDT probe, or a user function's entry
 * or return, and optional condition. */
static int parse_span_side(struct lex *lx, const char **pp,
			   struct probe_point *pt, bool *has_cond)
{
	const char *p = *pp;
	int err;

	pt->col = col_of(lx, p);
	if (!strncmp(p, "usdt:", 5)) {
		p += 5;
		err = parse_usdt(lx, &p, pt);
	} else if (!strncmp(p, "uprobe:", 7) || !strncmp(p, "uretprobe:", 10)) {
		pt->ret = p[1] == 'r';
		p += pt->ret ? 10 : 7;
		err = parse_uside(lx, &p, pt);
	} else if (!strncmp(p, "fentry:", 7) || !strncmp(p, "kprobe:", 7) ||
		   !strncmp(p, "func:", 5)) {
		set_err(lx->ctx,
			"%s:%d:%d: a kernel function is no span side here: "
			"its entry and return are a timer of their own "
			"(func:NAME); a span's sides are " SIDE_KINDS,
			lx->origin, lx->lineno, pt->col);
		return -EINVAL;
	} else {
		err = parse_tracepoint(lx, &p, pt);
	}
	if (err)
		return err;
	p = skip_ws(p);
	*has_cond = at_keyword(p, "if");
	if (*has_cond) {
		p += 2;
		err = parse_cond(lx, &p, pt);
		if (err)
			return err;
	}
	*pp = p;
	return 0;
}

/* The end of a field name [A-Za-z_][A-Za-z0-9_]* at @p, or @p if none. */
static const char *scan_field(const char *p)
{
	return is_alpha(*p) || *p == '_' ? scan(p, is_ident) : p;
}

/* Is [p, e) one of @pr's key fields so far: a start (@stop 0) or stop? */
static bool key_has(const struct probe *pr, const char *p, const char *e,
		    int stop)
{
	size_t n = (size_t)(e - p);
	const char *f;
	int i;

	for (i = 0; i < pr->nkey; i++) {
		f = stop ? pr->key[i].stop : pr->key[i].start;
		if (f && strlen(f) == n && !strncmp(f, p, n))
			return true;
	}
	return false;
}

/*
 * parse_key() - KEY after `key` at *pp into @pr: A[=B] joined by ',', at
 * most IPROF_MAX_KEY, no start field (nor stop field) twice; on return
 * *pp is at the first non-blank after the last field.  The strings are
 * owned by @pr as soon as they are stored, so the caller's cleanup frees
 * them on error.
 */
static int parse_key(struct lex *lx, const char **pp, struct probe *pr)
{
	const char *p = *pp, *e, *q;
	struct probe_key *k;
	char what[64];

	for (;;) {
		p = skip_ws(p);
		e = scan_field(p);
		if (e == p)
			return syntax_error_len(lx, p, *p == ',', EXPECT_KEY);
		if (key_has(pr, p, e, 0))
			return syntax_error_len(lx, p, e - p,
						"a field not already in the "
						"key");
		k = &pr->key[pr->nkey++];
		memset(k, 0, sizeof(*k));
		k->col = col_of(lx, p);
		k->start = strndup(p, e - p);
		if (!k->start)
			return nomem(lx);
		/* B: written after '=', else A's name */
		q = p;
		p = skip_ws(e);
		if (*p == '=') {
			q = skip_ws(p + 1);
			e = scan_field(q);
			if (e == q)
				return syntax_error_len(lx, q, *q == ',',
							EXPECT_KEY_STOP);
			p = skip_ws(e);
		}
		/* two A that must equal one B: k->stop is still NULL */
		if (key_has(pr, q, e, 1))
			return syntax_error_len(lx, q, e - q,
						"a stop field not already in "
						"the key");
		k->stop_col = col_of(lx, q);
		k->stop = strndup(q, e - q);
		if (!k->stop)
			return nomem(lx);
		if (*p != ',')
			break;
		if (pr->nkey == IPROF_MAX_KEY) {
			snprintf(what, sizeof(what),
				 "at most %d fields in a key", IPROF_MAX_KEY);
			return syntax_error_len(lx, p, 1, what);
		}
		p++;
	}
	*pp = p;
	return 0;
}

/*
 * parse_alt_stops() - `| STOP2 | ...` after a span's first stop, at *pp:
 * each alternative a span side with its own conditions, into @pr->alt
 * (at most PROBE_MAX_STOPS stops in all; an empty one, `| |` or `|` at
 * the end, is an error at its '|').  @has_cond: whether the last side
 * read has conditions (for the next message).  0 or the error.
 */
static int parse_alt_stops(struct lex *lx, const char **pp, struct probe *pr,
			   bool *has_cond)
{
	const char *p = *pp, *q;
	char what[80];
	int err;

	while (*p == '|') {
		if (pr->nalt + 1 >= PROBE_MAX_STOPS) {
			snprintf(what, sizeof(what),
				 "at most %d stops in a span", PROBE_MAX_STOPS);
			return syntax_error_len(lx, p, 1, what);
		}
		q = skip_ws(p + 1);
		if (is_eol(q) || *q == '|' || at_keyword(q, "name") ||
		    at_keyword(q, "key"))
			return syntax_error_len(lx, p, 1,
						"a stop after '|' (an "
						"alternative stop: " SIDE_KINDS
						")");
		if (!pr->alt) {
			pr->alt = calloc(PROBE_MAX_STOPS - 1, sizeof(*pr->alt));
			if (!pr->alt)
				return nomem(lx);
		}
		/* counted first: the cleanup frees what the side kept */
		err = parse_span_side(lx, &q, &pr->alt[pr->nalt++], has_cond);
		if (err)
			return err;
		p = q;
	}
	*pp = p;
	return 0;
}

/* span NAME = START -> STOP [| STOP2 ...] [key KEY]; @p is after "span". */
static int parse_span(struct lex *lx, const char *p, struct probe *pr)
{
	const char *e;
	bool has_cond;
	int err;

	pr->kind = PROBE_SPAN;
	p = skip_ws(p);
	e = scan(p, is_name);
	if (e == p)
		return syntax_error(lx, p, "a span name");
	pr->name = strndup(p, e - p);
	if (!pr->name)
		return nomem(lx);
	pr->name_col = col_of(lx, p);
	p = skip_ws(e);
	if (*p != '=')
		return syntax_error(lx, p, "'=' after the span name");
	p = skip_ws(p + 1);

	err = parse_span_side(lx, &p, &pr->start, &has_cond);
	if (err)
		return err;
	if (p[0] != '-' || p[1] != '>')
		return syntax_error(lx, p,
				    at_keyword(p, "key") ?
					    "'->' and the stop before 'key' "
					    "(the key ends the line)" :
				    has_cond ? "'&&' or '->' between span "
					       "start and stop"
					     : "'if' or '->' between span "
					       "start and stop");
	p = skip_ws(p + 2);

	err = parse_span_side(lx, &p, &pr->stop, &has_cond);
	if (!err)
		err = parse_alt_stops(lx, &p, pr, &has_cond);
	if (err)
		return err;
	if (at_keyword(p, "name")) {
		err = parse_name(lx, &p, pr);
		if (!err && at_keyword(p, "stop"))
			err = parse_stop_name(lx, &p, pr);
		if (err)
			return err;
		if (at_keyword(p, "key")) {
			set_err(lx->ctx,
				"%s:%d:%d: name applies to spans on one thread: "
				"a keyed span's calls cannot be named",
				lx->origin, lx->lineno, col_of(lx, p));
			return -EINVAL;
		}
		if (!is_eol(p))
			return syntax_error(lx, p,
					    pr->stop_named ?
						    "end of line" :
						    "'stop' or end of line");
		return 0;
	}
	if (at_keyword(p, "key") && pr->nalt) {
		set_err(lx->ctx,
			"%s:%d:%d: key applies to spans of one stop: a keyed "
			"span's stop takes its key from its own tracepoint",
			lx->origin, lx->lineno, col_of(lx, p));
		return -EINVAL;
	}
	if (at_keyword(p, "key")) {
		p += 3;
		err = parse_key(lx, &p, pr);
		if (err)
			return err;
		if (!is_eol(p))
			return syntax_error(lx, p, "',' or end of line");
		return 0;
	}
	if (!is_eol(p))
		return syntax_error(lx, p,
				    has_cond ? "'&&', '|', 'key' or end of line"
					     : "'if', '|', 'key' or end of line");
	return 0;
}

/*
 * The end of a user function's name at @p, or @p if none: a C name or
 * glob (is_func), a symbol version (f@VER, f@@VER), or a C++ name as
 * demangled: "::", "~", template arguments <...> and one parameter list
 * (...) with what they hold, white space included (ns::f(int, char*)), or
 * a Go method's receiver, main.(*T).M.
 */
static const char *scan_user_func(const char *p)
{
	const char *q = p;
	int depth = 0;

	if (!is_alpha(*q) && *q != '_' && *q != '*' && *q != '?' &&
	    *q != '~')
		return p;
	for (; *q; q++) {
		if (depth) {
			if (*q == '#')
				return p; /* unbalanced: a comment */
			if (*q == '(' || *q == '<')
				depth++;
			else if (*q == ')' || *q == '>')
				depth--;
			if (!depth && *q == ')') {
				q++;
				/* Go: a method on a pointer, main.(*T).M */
				if (*q == '.' &&
				    (is_alpha(q[1]) || q[1] == '_'))
					continue;
				/* "const", "&", "&&" qualifiers of a method */
				while (*q == ' ' && !strncmp(q + 1, "const", 5) &&
				       !is_func(q[6]))
					q += 6;
				return q;
			}
			continue;
		}
		if (is_func(*q) || *q == ':' || *q == '~' || *q == '@' ||
		    *q == '[' || *q == ']')
			continue;
		if (*q == '(' || *q == '<') {
			depth++;
			continue;
		}
		break;
	}
	return depth ? p : q;
}

/*
 * "FUNC" at @f - 1 (@f after its opening '"'): into pr->func, *@pp moved
 * past it.  0 or the error (as syntax_error()).
 */
static int parse_quoted_func(struct lex *lx, const char **pp, const char *f,
			     struct probe *pr)
{
	const char *end = strchr(f, '"');

	if (!end)
		return syntax_error(lx, f - 1,
				    "a function name and a closing '\"'");
	if (end == f)
		return syntax_error(lx, f, "a function name");
	pr->func = strndup(f, end - f);
	if (!pr->func)
		return nomem(lx);
	pr->name_col = col_of(lx, f);
	*pp = skip_ws(end + 1);
	return 0;
}

/*
 * uprobe:"PATH":FUNC, a path with spaces or other bytes a plain PATH
 * cannot hold, up to the next '"' (no escapes): pr->path, *@pp moved to
 * FUNC, or past "FUNC" (*@quoted set).  0 or the error.
 */
static int parse_quoted_path(struct lex *lx, const char **pp,
			     struct probe *pr, bool *quoted)
{
	const char *p = *pp + 1, *end = strchr(p, '"');

	if (!end)
		return syntax_error(lx, *pp, "a binary path and a closing '\"'");
	if (end == p)
		return syntax_error(lx, p, "a binary path (uprobe:PATH:FUNC)");
	if (end[1] != ':')
		return syntax_error(lx, end + 1,
				    "':' and a function name after the path");
	pr->path = strndup(p, end - p);
	if (!pr->path)
		return nomem(lx);
	*pp = end + 2;
	if (end[2] != '"')
		return 0;
	*quoted = true;
	return parse_quoted_func(lx, pp, end + 3, pr);
}

/* fentry:/kprobe:/func:/uprobe: FUNC [as NAME] [if COND]; @p after "kind:" */
/*
 * uprobe:PATH:FUNC: the binary's path from *@pp into pr->path, *@pp moved
 * to FUNC; or PATH:"FUNC" (*@quoted set): both, *@pp moved past them;
 * PATH may be quoted too ("PATH", parse_quoted_path()).  0 or the error
 * (as syntax_error()).
 */
static int parse_uprobe_path(struct lex *lx, const char **pp,
			     struct probe *pr, bool *quoted)
{
	const char *p = *pp, *e, *q, *colon;

	if (*p == '"')
		return parse_quoted_path(lx, pp, pr, quoted);
	e = scan(p, is_word);
	if (e == p)
		return syntax_error(lx, p,
				    "a binary path (uprobe:PATH:FUNC)");
	/* PATH:"FUNC": a C++ name as demangled, with what a FUNC
	 * cannot hold ("(anonymous namespace)::f", "operator<<",
	 * "{lambda(int)#1}"), up to the next '"' */
	q = memmem(p, (size_t)(e - p), ":\"", 2);
	if (q) {
		if (q == p)
			return syntax_error_len(lx, p, e - p,
						"a binary path "
						"(uprobe:PATH:FUNC)");
		pr->path = strndup(p, q - p);
		if (!pr->path)
			return nomem(lx);
		*quoted = true;
		return parse_quoted_func(lx, pp, q + 2, pr);
	}
	/* PATH:FUNC splits at the last ':' that is not half of a
	 * C++ "::" and comes before FUNC's parameters, template
	 * arguments or ABI tag (uprobe:./prog:ns::foo(int),
	 * ns::name[abi:cxx11]) */
	colon = NULL;
	for (q = p; q < e && *q != '(' && *q != '<' && *q != '['; q++) {
		if (*q != ':')
			continue;
		if (q[1] == ':') {
			q++;
			continue;
		}
		colon = q;
	}
	if (!colon)
		return syntax_error_len(lx, p, e - p,
					"PATH:FUNC (a binary path, "
					"':' and a function name)");
	if (colon == p)
		return syntax_error_len(lx, p, e - p,
					"a binary path "
					"(uprobe:PATH:FUNC)");
	pr->path = strndup(p, colon - p);
	if (!pr->path)
		return nomem(lx);
	*pp = colon + 1;
	return 0;
}

static int parse_function(struct lex *lx, const char *p, struct probe *pr)
{
	const char *e, *q;
	bool has_as = false, has_cond = false, quoted = false;
	int err;

	p = skip_ws(p);
	pr->start.col = col_of(lx, p);
	if (probe_kind(pr->kind)->syntax & PROBE_SYN_PATH) {
		err = parse_uprobe_path(lx, &p, pr, &quoted);
		if (err)
			return err;
		if (quoted)
			goto options;
	}

	e = p;
	if (probe_kind(pr->kind)->syntax & PROBE_SYN_PATH)
		e = scan_user_func(p);
	else if (is_alpha(*e) || *e == '_' || *e == '*' || *e == '?')
		e = scan(e, is_func);
	if (e == p)
		return syntax_error(lx, p, "a function name");
	/* kernel functions: NAME|OTHER|... names the same function under
	 * the names it had in different kernel versions (first that exists) */
	while (probe_kind(pr->kind)->syntax & PROBE_SYN_ALTS && *e == '|') {
		q = e + 1;
		if (!is_alpha(*q) && *q != '_')
			return syntax_error(lx, q,
					    "a function name after '|'");
		e = scan(q, is_func);
	}
	pr->func = strndup(p, e - p);
	if (!pr->func)
		return nomem(lx);
	if (strchr(pr->func, '|') && strpbrk(pr->func, "*?"))
		return syntax_error_len(lx, p, e - p,
					"plain function names around '|' (no glob)");
	pr->name_col = col_of(lx, p);
	p = skip_ws(e);

options:
	if (at_keyword(p, "as")) {
		has_as = true;
		p = skip_ws(p + 2);
		e = scan(p, is_name);
		if (e == p)
			return syntax_error(lx, p, "a timer name after 'as'");
		pr->name = strndup(p, e - p);
		if (!pr->name)
			return nomem(lx);
		pr->name_col = col_of(lx, p);
		p = skip_ws(e);
	} else {
		/* the first of NAME|OTHER names the timer */
		pr->name = strndup(pr->func, strcspn(pr->func, "|"));
		if (!pr->name)
			return nomem(lx);
	}

	if (at_keyword(p, "if")) {
		has_cond = true;
		p += 2;
		err = parse_cond(lx, &p, &pr->start);
		if (err)
			return err;
	}
	if (at_keyword(p, "name")) {
		err = parse_name(lx, &p, pr);
		if (err)
			return err;
		if (at_keyword(p, "stop")) {
			set_err(lx->ctx,
				"%s:%d:%d: stop names a span's stops: a "
				"function timer's return is its entry's call",
				lx->origin, lx->lineno, col_of(lx, p));
			return -EINVAL;
		}
	}

	if (at_keyword(p, "key")) {
		/* start and stop are the entry and return of one call */
		set_err(lx->ctx,
			"%s:%d:%d: key applies to spans only: a function "
			"timer's entry and return match on their thread",
			lx->origin, lx->lineno, col_of(lx, p));
		return -EINVAL;
	}
	if (!is_eol(p)) {
		if (has_cond)
			return syntax_error(lx, p, "'&&' or end of line");
		if (has_as)
			return syntax_error(lx, p, "'if' or end of line");
		return syntax_error(lx, p, "'as', 'if' or end of line");
	}
	return 0;
}

static int parse_file_at(struct ctx *ctx, const char *path, struct lex *site,
			 const char *site_p);

/* include FILE or include "FILE"; @p is after "include". */
static int parse_include(struct lex *lx, const char *p)
{
	const char *name, *end, *slash;
	char *file = NULL, *path = NULL;
	size_t dirlen;
	int err;

	p = skip_ws(p);
	if (is_eol(p))
		return syntax_error(lx, p, "a file name");
	name = p;
	if (*p == '"') {
		end = strchr(p + 1, '"');
		if (!end)
			return syntax_error(lx, p + strlen(p),
					    "'\"' closing the file name");
		if (end == p + 1)
			return syntax_error_len(lx, p, 2, "a file name");
		file = strndup(p + 1, end - p - 1);
		p = end + 1;
	} else {
		end = p;
		while (*end && !is_space(*end) && *end != '#')
			end++;
		file = strndup(p, end - p);
		p = end;
	}
	if (!file)
		return nomem(lx);

	p = skip_ws(p);
	if (!is_eol(p)) {
		err = syntax_error(lx, p,
				   "end of line after the file name (quote "
				   "a name that contains spaces)");
		goto out;
	}

	/* Relative to the directory of the including file (or of "-e": .) */
	slash = strrchr(lx->origin, '/');
	dirlen = file[0] != '/' && slash ? (size_t)(slash - lx->origin) + 1 : 0;
	path = malloc(dirlen + strlen(file) + 1);
	if (path) {
		memcpy(path, lx->origin, dirlen);
		strcpy(path + dirlen, file);
	}
	if (!path) {
		err = nomem(lx);
		goto out;
	}
	if (++lx->ctx->pl->nincludes > PROBE_MAX_INCLUDES) {
		set_err(lx->ctx, "%s:%d:%d: more than %d includes in all",
			lx->origin, lx->lineno, col_of(lx, name),
			PROBE_MAX_INCLUDES);
		err = -E2BIG;
		goto out;
	}
	err = parse_file_at(lx->ctx, path, lx, name);
out:
	free(path);
	free(file);
	return err;
}

/*
 * A probe kind without its ':' ("kprobe vfs_read"): the message says so,
 * at the column after the kind.  0 when @p .. @n is no kind's name.
 */
static int kind_colon_error(struct lex *lx, const char *p, size_t n)
{
	size_t k;

	for (k = 0; k < NKINDS; k++)
		if (kinds[k].syntax & PROBE_SYN_FUNC &&
		    strlen(kinds[k].name) == n && !strncmp(p, kinds[k].name, n))
			break;
	if (!n || k == NKINDS || !is_space(p[n]))
		return 0;
	set_err(lx->ctx, "%s:%d:%d: missing ':' after '%s' (%s:FUNCTION)",
		lx->origin, lx->lineno, col_of(lx, p + n), kinds[k].name,
		kinds[k].name);
	return -EINVAL;
}

static int parse_line_one(struct ctx *ctx, const char *line,
			  const char *origin, int lineno)
{
	struct lex lx = {
		.ctx = ctx, .line = line, .origin = origin, .lineno = lineno};
	struct probe pr = {0};
	const char *p, *e;
	size_t n, k;
	int err;

	p = skip_ws(line);
	if (is_eol(p))
		return 0;

	e = scan(p, is_ident);
	n = e - p;
	if (n && *e == ':') {
		/* KIND:..., a kind that times a function */
		for (k = 0; k < NKINDS; k++) {
			if (kinds[k].syntax & PROBE_SYN_FUNC &&
			    strlen(kinds[k].name) == n &&
			    !strncmp(p, kinds[k].name, n))
				break;
		}
		if (k == NKINDS)
			return kind_error(&lx, p, n);
		pr.kind = k;
		err = parse_function(&lx, e + 1, &pr);
	} else if (at_keyword(p, "span")) {
		err = parse_span(&lx, p + 4, &pr);
	} else if (at_keyword(p, "include")) {
		return parse_include(&lx, p + 7);
	} else {
		err = kind_colon_error(&lx, p, n);
		return err ? err : syntax_error(&lx, p, EXPECT_KIND);
	}
	if (err)
		goto fail;

	pr.line = lineno;
	pr.file = strdup(origin);
	if (!pr.file) {
		err = nomem(&lx);
		goto fail;
	}
	if (ctx->pl->n >= PROBE_MAX_PROBES) {
		err = -E2BIG;
		set_err(ctx, "%s:%d: more than %d timers defined", origin,
			lineno, PROBE_MAX_PROBES);
		goto fail;
	}
	err = list_push(ctx->pl, &pr);
	if (err) {
		err = nomem(&lx);
		goto fail;
	}
	return 0;
fail:
	probe_free(&pr);
	return err;
}

/* One line; in gathering mode its error (not one inside a file it
 * includes: gathered there) becomes an entry. */
static int parse_line_ctx(struct ctx *ctx, const char *line, const char *origin,
			  int lineno)
{
	int err = parse_line_one(ctx, line, origin, lineno);

	if (err && !ctx->first)
		ctx->first = err;
	if (err)
		gather(ctx, line, origin, lineno);
	return err;
}

/*
 * open_probe_file() - open @path for reading without blocking
 * (util_open_read()): a regular file of at most MAX_FILE_BYTES (else
 * -EFBIG) or an anonymous pipe (`-P <(cmd)`); a directory is -EISDIR, a
 * named FIFO, device or socket -EINVAL.  On error *@why is the reason, for
 * messages.
 */
static int open_probe_file(const char *path, FILE **fp, struct stat *st,
			   const char **why)
{
	int fd;

	fd = util_open_read(path, UTIL_OPEN_PIPE, st, why);
	if (fd < 0)
		return fd;
	if (S_ISREG(st->st_mode) && st->st_size > MAX_FILE_BYTES) {
		close(fd);
		*why = "larger than 1 MiB";
		return -EFBIG;
	}
	*fp = fdopen(fd, "r");
	if (!*fp) {
		close(fd);
		*why = strerror(ENOMEM);
		return -ENOMEM;
	}
	return 0;
}

/*
 * read_line() - the next line of @f into @buf (MAX_LINE_BYTES + 2 bytes),
 * without its "\n" or "\r\n", NUL-terminated.  *@total counts the bytes
 * read from the file so far.  Returns 1 for a line, 0 at end of file, or a
 * negative errno with the message set (@path, @lineno: for messages).
 */
static int read_line(struct ctx *ctx, FILE *f, const char *path, int lineno,
		     char *buf, size_t *total)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (++*total > MAX_FILE_BYTES) {
			set_err(ctx, "%s:%d:%zu: file larger than 1 MiB", path,
				lineno, n + 1);
			return -EFBIG;
		}
		if (++ctx->pl->bytes > PROBE_MAX_BYTES) {
			set_err(ctx,
				"%s:%d:%zu: more than %u MiB read from probe "
				"files in all",
				path, lineno, n + 1, PROBE_MAX_BYTES >> 20);
			return -EFBIG;
		}
		if (c == '\n')
			break;
		if (!c) {
			set_err(ctx,
				"%s:%d:%zu: found a NUL byte: a probe file is "
				"text",
				path, lineno, n + 1);
			return -EINVAL;
		}
		/* one byte more than the limit: a "\r" before the "\n" */
		if (n > MAX_LINE_BYTES)
			break;
		buf[n++] = (char)c;
	}
	if (c == EOF && ferror(f)) {
		c = errno ? errno : EIO;
		set_err(ctx, "%s:%d: %s", path, lineno, strerror(c));
		return -c;
	}
	if (c == EOF && !n)
		return 0;
	if ((c == '\n' || c == EOF) && n && buf[n - 1] == '\r')
		n--;
	if (n > MAX_LINE_BYTES || (c != '\n' && c != EOF)) {
		set_err(ctx, "%s:%d:%d: line longer than %d bytes", path,
			lineno, MAX_LINE_BYTES + 1, MAX_LINE_BYTES);
		return -EFBIG;
	}
	buf[n] = '\0';
	return 1;
}

/*
 * parse_file_at() - parse @path; @site is the include line (NULL for the
 * top-level file) and @site_p the file name on it, for messages.
 */
static int parse_file_at(struct ctx *ctx, const char *path, struct lex *site,
			 const char *site_p)
{
	char *line = NULL;
	const char *why = "";
	size_t total = 0;
	struct stat st;
	FILE *f = NULL;
	int lineno = 0, err, i;

	err = open_probe_file(path, &f, &st, &why);
	if (err) {
		if (site)
			set_err(ctx, "%s:%d:%d: cannot open '%s': %s",
				site->origin, site->lineno,
				col_of(site, site_p), path, why);
		else
			set_err(ctx, "%s: %s", path, why);
		goto out;
	}

	for (i = 0; i < ctx->depth; i++) {
		if (ctx->stack[i].dev == st.st_dev &&
		    ctx->stack[i].ino == st.st_ino) {
			set_err(ctx,
				"%s:%d:%d: include cycle: '%s' is already "
				"being read",
				site->origin, site->lineno,
				col_of(site, site_p), path);
			err = -ELOOP;
			goto out;
		}
	}
	if (ctx->depth > MAX_INCLUDE_DEPTH) {
		set_err(ctx, "%s:%d:%d: includes nested deeper than %d at '%s'",
			site->origin, site->lineno, col_of(site, site_p),
			MAX_INCLUDE_DEPTH, path);
		err = -ELOOP;
		goto out;
	}
	line = malloc(MAX_LINE_BYTES + 2);
	if (!line) {
		set_err(ctx, "%s: out of memory", path);
		err = -ENOMEM;
		goto out;
	}
	ctx->stack[ctx->depth].dev = st.st_dev;
	ctx->stack[ctx->depth].ino = st.st_ino;
	ctx->depth++;

	for (;;) {
		errno = 0;
		err = read_line(ctx, f, path, lineno + 1, line, &total);
		if (err <= 0)
			break;
		lineno++;
		/* a UTF-8 byte order mark, as some editors write: not part
		 * of the first line (columns count after it) */
		if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
			memmove(line, line + 3, strlen(line + 3) + 1);
		err = parse_line_ctx(ctx, line, path, lineno);
		if (err && !go_on(ctx, err))
			break;
		err = 0;
	}
	ctx->depth--;
out:
	free(line);
	if (f)
		fclose(f);
	return err;
}

/* A context for @pl: in gathering mode the messages go to ctx->msg and
 * the entries to @err. */
static void ctx_init(struct ctx *ctx, struct probe_list *pl, char *err,
		     size_t errlen)
{
	ctx->pl = pl;
	ctx->err = err;
	ctx->errlen = errlen;
	if (!pl->max_errors)
		return;
	ctx->err = ctx->msg;
	ctx->errlen = sizeof(ctx->msg);
	ctx->out = err;
	ctx->outlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

int probe_parse_file(struct probe_list *pl, const char *path, char *err,
		     size_t errlen)
{
	struct ctx *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (!ctx) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	ctx_init(ctx, pl, err, errlen);
	ret = parse_file_at(ctx, path, NULL, NULL);
	/* the file itself unreadable, or a limit: no line to show */
	gather(ctx, NULL, NULL, 0);
	if (ctx->first)
		ret = ctx->first;
	free(ctx);
	return ret;
}

int probe_parse_line(struct probe_list *pl, const char *line,
		     const char *origin, int lineno, char *err, size_t errlen)
{
	struct ctx *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (!ctx) {
		if (err && errlen)
			snprintf(err, errlen, "%s:%d: out of memory", origin,
				 lineno);
		return -ENOMEM;
	}
	ctx_init(ctx, pl, err, errlen);
	ret = parse_line_ctx(ctx, line, origin, lineno);
	gather(ctx, NULL, NULL, 0);
	free(ctx);
	return ret;
}

/* Order probes by name, then by position in the list (qsort). */
static int cmp_by_name(const void *x, const void *y)
{
	const struct probe *a = *(const struct probe *const *)x;
	const struct probe *b = *(const struct probe *const *)y;
	int c = strcmp(a->name, b->name);

	return c ? c : (a > b) - (a < b);
}

/* The first use of @name in @ix (@n probes sorted by name, then
 * position; @name is one of theirs). */
static const struct probe *first_use(const struct probe **ix, size_t n,
				     const char *name)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ix[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ix[lo];
}

/*
 * dups_gather() - each later use of a name as a line of @err, in list
 * order (@ix: @pl's probes sorted by name, then position), counted in
 * @pl->nerrors; written while that is within the bound and @err has room.
 * Returns -EINVAL when there was one, else 0.
 */
static int dups_gather(struct probe_list *pl, const struct probe **ix,
		       char *err, size_t errlen)
{
	const struct probe *a, *b;
	size_t i, used = 0;
	int w, ret = 0;

	if (err && errlen)
		err[0] = '\0';
	for (i = 0; i < pl->n; i++) {
		b = &pl->v[i];
		a = first_use(ix, pl->n, b->name);
		if (a == b)
			continue;
		ret = -EINVAL;
		if (++pl->nerrors > pl->max_errors || !err || used + 1 >= errlen)
			continue;
		w = snprintf(err + used, errlen - used,
			     "%s:%d:%d: timer '%s' already defined at %s:%d\n",
			     b->file, b->line, b->name_col, b->name, a->file,
			     a->line);
		if (w > 0 && (size_t)w < errlen - used)
			used += (size_t)w;
		else
			err[used] = '\0';
	}
	return ret;
}

int probe_list_check(struct probe_list *pl, char *err, size_t errlen)
{
	const struct probe **ix, *a = NULL, *b = NULL;
	size_t i;
	int ret;

	if (pl->n < 2)
		return 0;
	/* O(n log n): sorted by (name, position), a duplicate is the second
	 * of a run of equal names; the one reported is the earliest second
	 * use in the list, as a reader would find it */
	ix = malloc(pl->n * sizeof(*ix));
	if (!ix) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < pl->n; i++)
		ix[i] = &pl->v[i];
	qsort(ix, pl->n, sizeof(*ix), cmp_by_name);
	if (pl->max_errors) {
		ret = dups_gather(pl, ix, err, errlen);
		free(ix);
		return ret;
	}
	for (i = 1; i < pl->n; i++) {
		if (strcmp(ix[i - 1]->name, ix[i]->name) ||
		    (i >= 2 && !strcmp(ix[i - 2]->name, ix[i]->name)))
			continue;
		if (!b || ix[i] < b) {
			a = ix[i - 1];
			b = ix[i];
		}
	}
	free(ix);
	if (!b)
		return 0;
	if (err && errlen)
		snprintf(err, errlen,
			 "%s:%d:%d: timer '%s' already defined at %s:%d",
			 b->file, b->line, b->name_col, b->name, a->file,
			 a->line);
	return -EINVAL;
}
