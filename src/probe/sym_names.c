// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ and Rust names of uprobe functions: demangling with libiberty's
 * cplus_demangle (sym_demangle_raw(), sym_demangle()), and matching a demangled
 * name against the name asked for, with or without its parameter list
 * (sym_cxx_matches(), sym_cxx_name_part(), sym_squeeze(), sym_name_token()).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <zlib.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/util.h"
#include "probe/sym_int.h"

/* @s without white space into @buf (@len bytes); false if it did not fit. */
bool sym_squeeze(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t')
			continue;
		if (n + 1 >= len)
			return false;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return true;
}

/*
 * Does demangled C++ name @dem (" [clone .x]" suffixes cut) denote @func?
 * With a parameter list, @func names one overload (ns::foo(int)), compared
 * without white space; without, every overload (ns::foo): @dem's name,
 * before its parameter list, without a template function's return type
 * ("void ns::f<int>(int)" is ns::f<int>).
 */
static bool is_cxx_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/*
 * The length of the operator function name at @p, as the Itanium
 * demangler writes them ("operator<<", "operator()", "operator new[]",
 * "operator\"\" _km", a conversion "operator char const*"), or 0 when @p
 * is no operator name.
 */
static size_t cxx_operator_len(const char *p)
{
	/* longest first: "operator<<=" before "operator<<" before "<" */
	static const char *const ops[] = {
		" new[]", " delete[]", " new", " delete", "->*", "<<=", ">>=",
		"<=>", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=",
		"&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=",
		"|=", "^=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|",
		"~", "!", "=", ",",
	};
	size_t i;

	if (strncmp(p, "operator", 8) || is_cxx_ident(p[8]))
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p + 8, ops[i], strlen(ops[i])))
			return 8 + strlen(ops[i]);
	if (!strncmp(p + 8, "\"\"", 2) || p[8] == ' ')
		/* a literal operator, a conversion: up to its parameters */
		return 8 + strcspn(p + 8, "(");
	return 8;
}

/*
 * Split C++ name @s (as demangled, or as a user writes it): the name that
 * every overload shares starts at *@name (after a template function's
 * return type) and ends at *@paren, the top-level parameter list (or the
 * end of @s when it has none).  "(anonymous namespace)", operator names
 * and what <...> and {...} hold (template arguments, "{lambda(int)#1}")
 * are parts of the name.
 */
static void cxx_split(const char *s, const char **name, const char **paren)
{
	const char *p = s;
	size_t n;
	int depth = 0;

	*name = s;
	while (*p) {
		if (!strncmp(p, "(anonymous namespace)", 21)) {
			p += 21;
			continue;
		}
		if ((p == s || !is_cxx_ident(p[-1])) &&
		    (n = cxx_operator_len(p))) {
			p += n;
			continue;
		}
		if (*p == '<' || *p == '{')
			depth++;
		else if ((*p == '>' || *p == '}') && depth)
			depth--;
		else if (*p == ' ' && !depth)
			*name = p + 1; /* after a template's return type */
		else if (*p == '(' && !depth)
			break;
		p++;
	}
	*paren = p;
}

/*
 * The name in demangled @dem that every overload shares (cxx_split()),
 * into @d (@len bytes), without white space.  Its start in @dem in
 * *@name, the parameter list (or the end) in *@paren.  false if it did
 * not fit.
 */
bool sym_cxx_name_part(const char *dem, char *d, size_t len, const char **name_out,
		   const char **paren_out)
{
	const char *name, *paren;

	cxx_split(dem, &name, &paren);
	*name_out = name;
	*paren_out = paren;
	if ((size_t)(paren - name) >= len)
		return false;
	memcpy(d, name, (size_t)(paren - name));
	d[paren - name] = '\0';
	return sym_squeeze(d, d, len);
}

bool sym_cxx_matches(const char *dem, const char *func)
{
	char d[1024], f[512];
	const char *name, *paren, *fn, *fp;

	if (!sym_squeeze(func, f, sizeof(f)) ||
	    !sym_cxx_name_part(dem, d, sizeof(d), &name, &paren))
		return false;
	cxx_split(func, &fn, &fp);
	if (*fp) /* with its parameters: one overload */
		return sym_squeeze(name, d, sizeof(d)) && !strcmp(d, f);
	return !strcmp(d, f);
}

/*
 * Could @name be a Rust legacy name: "_ZN", then somewhere the hash
 * segment "17h" and 16 hex digits, then 'E'?  libiberty's rust_demangle()
 * takes none other (rust-demangle.c: it ends with that segment, checked
 * by is_legacy_prefixed_hash()), so a C++ name without it is given to
 * the C++ demangler alone.
 */
static bool rust_legacy_shape(const char *name)
{
	const char *p = name + 3;
	size_t k;

	if (strncmp(name, "_ZN", 3))
		return false;
	while ((p = strstr(p, "17h"))) {
		p += 3;
		for (k = 0; k < 16 && isxdigit((unsigned char)p[k]); k++)
			;
		if (k == 16 && p[16] == 'E')
			return true;
	}
	return false;
}

/*
 * @name demangled, its " [clone .x]" suffixes cut, into *@out
 * (malloc'ed); *@cold when one of them is a cold part.  C++ (Itanium ABI,
 * "_Z...") and Rust, legacy ("_ZN...17h<16 hex>E", shown without its
 * hash: rs::parse) and v0 ("_R..."), through libiberty's cplus_demangle()
 * (GCC's and binutils' demangler): a Rust scheme's name ("_R", or "_ZN"
 * with a legacy hash: rust_legacy_shape()) as Rust, then as C++ where
 * that fails, as DMGL_AUTO does; any other "_Z" name as C++ alone.
 * 0, 1 if @name is no mangled name it knows (or out of memory: it
 * returns NULL for both).
 */
int sym_demangle_raw(const char *name, char **out, bool *cold)
{
	char *d = NULL, *c;

	*out = NULL;
	*cold = false;
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return 1;
	/* each by its own scheme, as DMGL_AUTO would (Rust, then C++),
	 * without trying Rust on every C++ name */
	if (name[1] == 'R' || rust_legacy_shape(name))
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST);
	if (!d && name[1] == 'Z')
		d = cplus_demangle(name,
				   DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
	if (!d)
		return 1;
	while ((c = strstr(d, " [clone "))) {
		if (strstr(c, ".cold"))
			*cold = true;
		*c = '\0';
	}
	*out = d;
	return 0;
}

char *sym_demangle(const char *name)
{
	char *out;
	bool cold;

	if (sym_demangle_raw(name, &out, &cold))
		return NULL;
	return out;
}

/*
 * The token a demangled C++ or Rust name whose name part begins with
 * @s's first identifier and "::" ("hot::f" -> "3hot") holds in its mangled
 * form: that identifier as a <source-name> (Itanium ABI; Rust legacy and
 * v0 alike), or a substitution of an earlier one.  Into @tok (@len
 * bytes); false when @s has none that tells: no leading identifier and
 * "::", one starting with '_' (Rust v0 writes "_" after the length), or
 * "std" (the demangler writes it for St, Sa, Ss, ...).
 */
bool sym_name_token(const char *s, char *tok, size_t len)
{
	size_t n = 0;

	while (is_cxx_ident(s[n]) && s[n] != '$')
		n++;
	if (!n || s[0] == '_' || (s[0] >= '0' && s[0] <= '9') ||
	    strncmp(s + n, "::", 2) || (n == 3 && !strncmp(s, "std", 3)))
		return false;
	return snprintf(tok, len, "%zu%.*s", n, (int)n, s) < (int)len;
}
