#!/usr/bin/env bash
# User functions named as a programmer writes them (tests/e2e/helpers/
# clones.c and cxx.cc print their own counts):
#  - a function and its compiler clone (helper: 5 direct calls, 7 through
#    helper.constprop.0) are one timer, helper, counting 12; a clone whose
#    function has no symbol (lone.isra.0) is timed as lone; a cold part
#    (helper.cold) is refused, never probed;
#  - C++ names demangled: ns::foo(int) and ns::foo(double) apart, ns::foo
#    refused listing both overloads, ns::bar, a const method, a template;
#  - Rust (legacy without the hash, v0) and Go names (closures and methods
#    are no clones);
#  - symbol versions: foo without a version times foo@VER_1 and foo@@VER_2,
#    each named alone times its own;
#  - a stripped binary's functions from its separate debug file
#    (.gnu_debuglink), counts exact, for exact names, globs, iprof list
#    functions, clones and a .dynsym function's .cold part; messages give
#    virtual addresses.
. "$(dirname "$0")/lib.sh"
need_root

C=$BUILD/e2e-clones
[ -x "$C" ] || skip "$C not built"
"$IPROF" -q -f json -o "$TMP/clones.json" -e "uprobe:$C:helper" -e "uprobe:$C:lone" \
	-- "$C" 5 7 3 >"$TMP/clones.truth" 2>"$TMP/err"
check "clones: exit status" "$?" 0
check "helper with its clone" "$(jnode "$TMP/clones.json" helper count)" "$(truth helper.count "$TMP/clones.truth")"
check "helper = 5 + 7" "$(jnode "$TMP/clones.json" helper count)" 12
check "helper's plan names the clone" \
	"$(jq -r '.probes[] | select(.name == "helper") | .where' "$TMP/clones.json" | grep -c 'with helper.constprop.0$')" 1
check "lone through lone.isra.0" "$(jnode "$TMP/clones.json" lone count)" "$(truth lone.count "$TMP/clones.truth")"
check "nothing under helper (no helper > helper)" \
	"$(jq '[.tree[] | select(.name == "helper") | .children[]] | length' "$TMP/clones.json")" 0

"$IPROF" --dry-run -e "uprobe:$C:helper.cold" >"$TMP/cold" 2>&1
check "helper.cold: refused (bad input)" "$?" 2
check "helper.cold: says it is a cold part" "$(grep -c "'helper.cold' is a cold part of helper, not a function" "$TMP/cold")" 1

# a stripped copy whose symbols are in a debug file beside it
mkdir -p "$TMP/dbg"
cp "$C" "$TMP/dbg/prog"
objcopy --only-keep-debug "$TMP/dbg/prog" "$TMP/dbg/prog.debug" &&
	strip --strip-all "$TMP/dbg/prog" &&
	objcopy --add-gnu-debuglink="$TMP/dbg/prog.debug" "$TMP/dbg/prog" ||
	skip "objcopy/strip (binutils) failed"
check "the copy has no .symtab" "$(readelf -S "$TMP/dbg/prog" | grep -c '\.symtab')" 0
"$IPROF" -q -f json -o "$TMP/dbg.json" -e "uprobe:$TMP/dbg/prog:helper" \
	-- "$TMP/dbg/prog" 4 6 1 >"$TMP/dbg.truth" 2>>"$TMP/err"
check "stripped + debuglink: exit status" "$?" 0
check "stripped + debuglink: helper" "$(jnode "$TMP/dbg.json" helper count)" "$(truth helper.count "$TMP/dbg.truth")"
# globs, iprof list functions and clones read the debug file too
check "stripped + debuglink: iprof list functions" \
	"$("$IPROF" list functions -q "$TMP/dbg/prog" 'help*' | tr '\n' ,)" \
	"helper,helper.cold (clone of helper),helper.constprop.0 (clone of helper),"
"$IPROF" -q -f json -o "$TMP/dbgg.json" -e "uprobe:$TMP/dbg/prog:hel*" -e "uprobe:$TMP/dbg/prog:lo*" \
	-- "$TMP/dbg/prog" 4 6 2 >"$TMP/dbgg.truth" 2>>"$TMP/err"
check "stripped + debuglink, glob: exit status" "$?" 0
check "stripped + debuglink, glob: timers" "$(jq -r '[.probes[].name] | sort | join(",")' "$TMP/dbgg.json")" "helper,lone"
check "stripped + debuglink, glob: helper with its clone" "$(jnode "$TMP/dbgg.json" helper count)" "$(truth helper.count "$TMP/dbgg.truth")"
check "stripped + debuglink, glob: lone through lone.isra.0" "$(jnode "$TMP/dbgg.json" lone count)" "$(truth lone.count "$TMP/dbgg.truth")"
mv "$TMP/dbg/prog.debug" "$TMP/dbg/gone.debug"
"$IPROF" --dry-run -e "uprobe:$TMP/dbg/prog:helper" >"$TMP/nodbg" 2>&1
check "stripped, no debug file: refused" "$?" 2
check "stripped, no debug file: says so" "$(grep -c 'no separate debug file' "$TMP/nodbg")" 1
# ... and under --debuginfo DIR by build ID: list functions reads it too,
# the option after 'list functions' or before 'list'
bid=$(readelf -n "$TMP/dbg/prog" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || bad "the stripped copy has no build ID"
mkdir -p "$TMP/dbgdir/.build-id/${bid:0:2}"
cp "$TMP/dbg/gone.debug" "$TMP/dbgdir/.build-id/${bid:0:2}/${bid:2}.debug"
check "--debuginfo DIR: iprof list functions" \
	"$("$IPROF" list functions -q --debuginfo "$TMP/dbgdir" "$TMP/dbg/prog" 'help*' | tr '\n' ,)" \
	"helper,helper.cold (clone of helper),helper.constprop.0 (clone of helper),"
check "--debuginfo DIR before list: iprof list functions" \
	"$("$IPROF" --debuginfo "$TMP/dbgdir" list functions -q "$TMP/dbg/prog" 'lo*' | tr '\n' ,)" \
	"lone.isra.0 (clone of lone),"
"$IPROF" list kernel --debuginfo "$TMP/dbgdir" >/dev/null 2>"$TMP/dilk"
check "--debuginfo with list kernel: refused" "$?" 2
check "--debuginfo with list kernel: says so" "$(cat "$TMP/dilk")" "iprof: list kernel: --debuginfo applies to list functions only"

# a function exported in .dynsym (-rdynamic) of a stripped binary, its
# .cold part (GCC moves foo5's throw there at -O2) only in the debug file:
# found there, so foo5 stops at return sites, not by a uretprobe that the
# unwinder cannot pass (std::terminate); without the debug file the
# message names the cold part's virtual address (-no-pie: not the offset)
if command -v g++ >/dev/null; then
	T=$TMP/dbg/throw
	g++ -O2 -g -no-pie -rdynamic "$SRC/tests/e2e/helpers/throw.cpp" -o "$T" &&
		cold=$(nm "$T" | awk '$3 == "foo5.cold" { print $1 }') &&
		objcopy --only-keep-debug "$T" "$T.debug" && strip --strip-all "$T" &&
		objcopy --add-gnu-debuglink="$T.debug" "$T" || bad "building the stripped -O2 throw failed"
	check "throw -O2: foo5 has a cold part" "$([ -n "$cold" ] && echo yes)" yes
	check "throw -O2: foo5 exported in .dynsym" "$(nm -D "$T" | grep -c ' T foo5$')" 1
	"$IPROF" --dry-run -e "uprobe:$T:foo5" >"$TMP/tplan" 2>&1
	check "stripped throw: foo5 stops at return sites (its cold part from the debug file)" \
		"$(grep -c 'stops at [0-9]* return site' "$TMP/tplan")" 1
	"$IPROF" -q -f json -o "$TMP/throw.json" -e "uprobe:$T:foo1" -e "uprobe:$T:foo5" -- "$T" 10 \
		>"$TMP/throw.out" 2>>"$TMP/err"
	check "stripped throw: exit status" "$?" 0
	check "stripped throw: the program caught every exception" "$(grep '^caught' "$TMP/throw.out")" "caught 10"
	mv "$T.debug" "$TMP/dbg/throw.gone"
	"$IPROF" --dry-run -e "uprobe:$T:foo5" >"$TMP/tplan" 2>&1
	# without it the cold part, which no symbol names, is found by its
	# .eh_frame entry (the jump lands in it): return sites all the same
	check "no debug file: foo5 still stops at return sites (its cold part from .eh_frame)" \
		"$(grep -c 'stops at [0-9]* return site' "$TMP/tplan")" 1
else
	bad "g++ not found (build-essential, tools/install-deps.sh)"
fi

# Rust and Go names (tests/e2e/helpers/langnames.c: C functions with the
# symbols those compilers give): Rust legacy without its hash, Rust v0,
# Go closures and methods timed alone, never as clones of main or pkg.f
L=$BUILD/e2e-langnames
if [ -x "$L" ]; then
	"$IPROF" -q -f json -o "$TMP/lang.json" -e "uprobe:$L:rs::parse" \
		-e "uprobe:$L:rs::util::split" -e "uprobe:$L:main.main.func1" \
		-e "uprobe:$L:pkg.f.func2" -e "uprobe:$L:pkg.f.func2.1" \
		-e "uprobe:$L:main.(*T).M as method" \
		-- "$L" 3 >"$TMP/lang.truth" 2>>"$TMP/err"
	check "Rust/Go: exit status" "$?" 0
	check "Rust legacy: rs::parse (no hash)" "$(jnode "$TMP/lang.json" rs::parse count)" "$(truth rs_parse.count "$TMP/lang.truth")"
	check "Rust v0: rs::util::split" "$(jnode "$TMP/lang.json" rs::util::split count)" "$(truth rs_split.count "$TMP/lang.truth")"
	check "Go: main.main.func1" "$(jnode "$TMP/lang.json" main.main.func1 count)" "$(truth go_func1.count "$TMP/lang.truth")"
	check "Go: pkg.f.func2 without its closure pkg.f.func2.1" "$(jnode "$TMP/lang.json" pkg.f.func2 count)" "$(truth go_func2.count "$TMP/lang.truth")"
	check "Go: pkg.f.func2.1" "$(jnode "$TMP/lang.json" pkg.f.func2.1 count)" "$(truth go_func2_1.count "$TMP/lang.truth")"
	check "Go: main.(*T).M" "$(jnode "$TMP/lang.json" method count)" "$(truth go_method.count "$TMP/lang.truth")"
	check "Go: pkg.f.func2 has no clone" \
		"$(jq -r '.probes[] | select(.name == "pkg.f.func2") | .where' "$TMP/lang.json")" "uprobe:$L:pkg.f.func2"
	check "list functions: Go names are no clones" \
		"$("$IPROF" list functions -q "$L" 'main*' | tr '\n' ,)" "main,main.(*T).M,main.main.func1,"
	check "list functions: Rust names demangled, no hash" \
		"$("$IPROF" list functions -q "$L" 'rs::*' | tr '\n' ,)" "rs::parse,rs::util::split,"
	check "list functions: the mangled names with theirs" \
		"$("$IPROF" list functions -q "$L" '_[RZ]*' | tr '\n' ,)" \
		"_RNvNtCs1234_2rs4util5split (rs::util::split),_ZN2rs5parse17h516047a969b77145E (rs::parse),"
	"$IPROF" -q -f json -o "$TMP/langg.json" -e "uprobe:$L:rs::*" -- "$L" 2 >"$TMP/langg.truth" 2>>"$TMP/err"
	check "Rust glob: timers" "$(jq -r '[.probes[].name] | sort | join(",")' "$TMP/langg.json")" "rs::parse,rs::util::split"
	check "Rust glob: rs::parse" "$(jnode "$TMP/langg.json" rs::parse count)" "$(truth rs_parse.count "$TMP/langg.truth")"
else
	bad "$L not built"
fi

# symbol versions: a library with foo@VER_1 and the default foo@@VER_2, a
# program calling the old one (linked to it with .symver) and the new
V=$TMP/ver
mkdir -p "$V"
cat >"$V/libv.c" <<'EOF'
__attribute__((noinline)) int foo_v1(int x) { return x + 1; }
__attribute__((noinline)) int foo_v2(int x) { return x + 2; }
__asm__(".symver foo_v1, foo@VER_1");
__asm__(".symver foo_v2, foo@@VER_2");
EOF
printf 'VER_1 { global: foo; local: *; };\nVER_2 { global: foo; } VER_1;\n' >"$V/libv.map"
cat >"$V/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int foo(int);
int foo_old(int);
__asm__(".symver foo_old, foo@VER_1");
int main(int argc, char **argv)
{
	int old = atoi(argv[1]), new = atoi(argv[2]), i, s = 0;

	for (i = 0; i < old; i++)
		s += foo_old(i);
	for (i = 0; i < new; i++)
		s += foo(i);
	printf("old.count=%d\nnew.count=%d\nfoo.count=%d\n", old, new, old + new);
	return s == 0;
}
EOF
if gcc -O1 -fPIC -shared -Wl,--version-script="$V/libv.map" "$V/libv.c" -o "$V/libv.so" &&
	gcc -O1 "$V/prog.c" -o "$V/prog" -L"$V" -lv -Wl,-rpath,"$V"; then
	"$IPROF" -q -f json -o "$V/all.json" -e "uprobe:$V/libv.so:foo" -- "$V/prog" 10 4 >"$V/truth" 2>>"$TMP/err"
	check "versions: exit status" "$?" 0
	check "foo without a version: every version's calls" "$(jnode "$V/all.json" foo count)" "$(truth foo.count "$V/truth")"
	check "foo: the plan names both versions" \
		"$(jq -r '.probes[0].where' "$V/all.json")" "uprobe:$V/libv.so:foo = foo@@VER_2 with foo@VER_1"
	"$IPROF" --dry-run -e "uprobe:$V/libv.so:foo" >"$V/dry" 2>&1
	check "--dry-run says which versions" "$(grep -c 'foo = foo@@VER_2 with foo@VER_1' "$V/dry")" 1
	"$IPROF" -q -f json -o "$V/v1.json" -e "uprobe:$V/libv.so:foo@VER_1" -- "$V/prog" 10 4 >/dev/null 2>>"$TMP/err"
	check "foo@VER_1: the old version's calls" "$(jnode "$V/v1.json" foo@VER_1 count)" "$(truth old.count "$V/truth")"
	"$IPROF" -q -f json -o "$V/v2.json" -e "uprobe:$V/libv.so:foo@@VER_2" -- "$V/prog" 10 4 >/dev/null 2>>"$TMP/err"
	check "foo@@VER_2: the default version's calls" "$(jnode "$V/v2.json" foo@@VER_2 count)" "$(truth new.count "$V/truth")"
else
	bad "could not build the versioned library (gcc, ld)"
fi

X=$BUILD/e2e-cxx
if [ -x "$X" ]; then
	"$IPROF" -q -f json -o "$TMP/cxx.json" -e "uprobe:$X:ns::foo(int)" \
		-e "uprobe:$X:ns::foo(double) as foo_d" -e "uprobe:$X:ns::bar" \
		-e "uprobe:$X:ns::Box::get() const" -e "uprobe:$X:ns::twice<int>" \
		-- "$X" 4 >"$TMP/cxx.truth" 2>>"$TMP/err"
	check "C++: exit status" "$?" 0
	check "C++: ns::foo(int)" "$(jnode "$TMP/cxx.json" 'ns::foo(int)' count)" "$(truth foo_int.count "$TMP/cxx.truth")"
	check "C++: ns::foo(double)" "$(jnode "$TMP/cxx.json" foo_d count)" "$(truth foo_double.count "$TMP/cxx.truth")"
	check "C++: ns::bar" "$(jnode "$TMP/cxx.json" ns::bar count)" "$(truth bar.count "$TMP/cxx.truth")"
	check "C++: ns::Box::get() const" "$(jnode "$TMP/cxx.json" 'ns::Box::get() const' count)" "$(truth get.count "$TMP/cxx.truth")"
	check "C++: ns::twice<int>" "$(jnode "$TMP/cxx.json" 'ns::twice<int>' count)" "$(truth twice.count "$TMP/cxx.truth")"
	check "C++: iprof list functions shows the demangled name" \
		"$("$IPROF" list functions "$X" '_ZN2ns3fooEi' 2>/dev/null)" "_ZN2ns3fooEi (ns::foo(int))"
	"$IPROF" --dry-run -e "uprobe:$X:ns::foo" >"$TMP/amb" 2>&1
	check "C++: ns::foo is ambiguous (bad input)" "$?" 2
	check "C++: the overloads listed" \
		"$(grep -c "'ns::foo' in $X is ambiguous: 2 overloads: ns::foo(double); ns::foo(int)" "$TMP/amb")" 1
	# a C++ glob matches demangled names: a timer per function, one per
	# overload where it has several
	"$IPROF" -q -f json -o "$TMP/cxxg.json" -e "uprobe:$X:ns::*" \
		-- "$X" 3 >"$TMP/cxxg.truth" 2>>"$TMP/err"
	check "C++ glob: exit status" "$?" 0
	check "C++ glob: timers" "$(jq -r '[.probes[].name] | sort | join(",")' "$TMP/cxxg.json")" \
		"ns::Box::get,ns::bar,ns::foo(double),ns::foo(int),ns::twice<int>"
	check "C++ glob: ns::foo(int)" "$(jnode "$TMP/cxxg.json" 'ns::foo(int)' count)" "$(truth foo_int.count "$TMP/cxxg.truth")"
	check "C++ glob: ns::foo(double)" "$(jnode "$TMP/cxxg.json" 'ns::foo(double)' count)" "$(truth foo_double.count "$TMP/cxxg.truth")"
	check "C++ glob: ns::bar" "$(jnode "$TMP/cxxg.json" ns::bar count)" "$(truth bar.count "$TMP/cxxg.truth")"
	check "C++ glob: ns::Box::get" "$(jnode "$TMP/cxxg.json" ns::Box::get count)" "$(truth get.count "$TMP/cxxg.truth")"
	check "C++ glob: ns::twice<int>" "$(jnode "$TMP/cxxg.json" 'ns::twice<int>' count)" "$(truth twice.count "$TMP/cxxg.truth")"
	check "C++ glob: iprof list functions matches the same names" \
		"$("$IPROF" list functions "$X" 'ns::*' 2>/dev/null | tr '\n' ,)" \
		"ns::Box::get,ns::bar,ns::foo(double),ns::foo(int),ns::twice<int>,"
	# what a plain FUNC cannot hold, quoted: uprobe:PATH:"NAME" as the
	# demangler writes it
	Y=$BUILD/e2e-cxxnames
	"$IPROF" -q -f json -o "$TMP/cxxq.json" \
		-e "uprobe:$Y:\"(anonymous namespace)::anon\"" \
		-e "uprobe:$Y:\"operator<<\" as shl" \
		-e "uprobe:$Y:\"operator==(S const&, S const&)\" as eq" \
		-e "uprobe:$Y:\"main::{lambda(int)#1}::operator()\" as lambda" \
		-e "uprobe:$Y:\"chr<(char)92>\"" \
		-e "uprobe:$Y:\"ns::p(int*)\" as p1" -e "uprobe:$Y:ns::p(int**) as p2" \
		-e "uprobe:$Y:ns::label[abi:cxx11] as label" \
		-- "$Y" 3 >"$TMP/cxxq.truth" 2>>"$TMP/err"
	check "quoted C++ names: exit status" "$?" 0
	check "quoted: (anonymous namespace)::anon" "$(jnode "$TMP/cxxq.json" '(anonymous namespace)::anon' count)" "$(truth anon.count "$TMP/cxxq.truth")"
	check "quoted: operator<<" "$(jnode "$TMP/cxxq.json" shl count)" "$(truth shl.count "$TMP/cxxq.truth")"
	check "quoted: operator==(S const&, S const&)" "$(jnode "$TMP/cxxq.json" eq count)" "$(truth eq.count "$TMP/cxxq.truth")"
	check "quoted: a lambda's operator()" "$(jnode "$TMP/cxxq.json" lambda count)" "$(truth lambda.count "$TMP/cxxq.truth")"
	check "quoted: chr<(char)92>" "$(jnode "$TMP/cxxq.json" 'chr<(char)92>' count)" "$(truth chr.count "$TMP/cxxq.truth")"
	# a glob without '::' matches C++ names demangled too, not mangled
	check "C++, glob without '::': iprof list functions" \
		"$("$IPROF" list functions -q "$Y" 'ch*' | tr '\n' ,)" "chr<(char)92>,"
	"$IPROF" -q -f json -o "$TMP/cxxc.json" -e "uprobe:$Y:ch*" -- "$Y" 3 >"$TMP/cxxc.truth" 2>>"$TMP/err"
	check "C++, glob without '::': timers" "$(jq -r '[.probes[].name] | join(",")' "$TMP/cxxc.json")" "chr<(char)92>"
	check "C++, glob without '::': chr<(char)92>" "$(jnode "$TMP/cxxc.json" 'chr<(char)92>' count)" "$(truth chr.count "$TMP/cxxc.truth")"
	check "a '*' in parameters is a pointer: ns::p(int*)" "$(jnode "$TMP/cxxq.json" p1 count)" "$(truth p1.count "$TMP/cxxq.truth")"
	check "ns::p(int**)" "$(jnode "$TMP/cxxq.json" p2 count)" "$(truth p2.count "$TMP/cxxq.truth")"
	check "an ABI tag: ns::label[abi:cxx11]" "$(jnode "$TMP/cxxq.json" label count)" "$(truth label.count "$TMP/cxxq.truth")"
	check "one timer per line" "$(jq '.probes | length' "$TMP/cxxq.json")" 8
	"$IPROF" --dry-run -e "uprobe:$Y:ns::* as x" >"$TMP/globas" 2>&1
	check "'as' on a glob: refused" "$?" 2
	check "'as' on a glob: message" "$(grep -c "'as x' names one timer: a glob makes one per function" "$TMP/globas")" 1
	"$IPROF" --dry-run -e "uprobe:$Y:\"operator<<" >"$TMP/unq" 2>&1
	check "quoted: no closing quote (bad input)" "$?" 2
	check "quoted: no closing quote: message" "$(grep -c "expected a function name and a closing '\"'" "$TMP/unq")" 1
	check "C++ glob: (anonymous namespace)::*" \
		"$("$IPROF" list functions "$Y" '(anonymous namespace)::*' 2>/dev/null)" "(anonymous namespace)::anon"
else
	skip "$X not built (no C++ compiler: g++ comes with build-essential, tools/install-deps.sh)"
fi
finish
