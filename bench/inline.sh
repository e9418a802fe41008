#!/usr/bin/env bash
# What finding inlined instances costs (issue 24, bench/README.md
# "Inlined functions"): `iprof --dry-run` on one function of a large
# binary, with its DWARF read (the default) and without (--no-inline: the
# floor, measured in the same run), best of ROUNDS each, interleaved:
#  - libpython3.11d.so (Debian's libpython3.11-dbg: 25 MB, 10 MB of
#    .debug_info): PyList_Append (a symbol: the common case, DWARF indexed
#    for nothing) and Py_INCREF (inlined 2683 times, no symbol: the worst);
#  - libpython3.11.so (stripped, no debug file installed): a binary
#    without DWARF, which should cost nothing extra.
# Prints seconds and the ratio to the floor.  A benchmark, not a test.
#
#   bench/inline.sh [BUILD_DIR]      (default: $BUILD, else ./build)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
IPROF=$BUILD/iprof
ROUNDS=${ROUNDS:-5}
[ -x "$IPROF" ] || { echo "bench/inline.sh: $IPROF is not built" >&2; exit 1; }
D=/usr/lib/x86_64-linux-gnu/libpython3.11d.so.1.0
S=/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0
[ -f "$D" ] || { echo "bench/inline.sh: $D missing (apt-get install libpython3.11-dbg)" >&2; exit 1; }
[ -f "$S" ] || { echo "bench/inline.sh: $S missing (apt-get install libpython3.11)" >&2; exit 1; }

# secs ARGS...: wall seconds of one dry run (bash's time, ms resolution)
secs() {
	local TIMEFORMAT=%3R
	{ time "$IPROF" --dry-run "$@" -- true >/dev/null 2>&1; } 2>&1 | tail -1
}
best() { # NAME ARGS...: runs interleaved by the caller; keeps the minimum
	local n=$1 v
	shift
	v=$(secs "$@")
	if [ -z "${B[$n]:-}" ] || awk -v a="$v" -v b="${B[$n]}" 'BEGIN { exit !(a < b) }'; then
		B[$n]=$v
	fi
}
declare -A B
for ((r = 0; r < ROUNDS; r++)); do
	best dbg_sym_floor --no-inline -e "uprobe:$D:PyList_Append"
	best dbg_sym -e "uprobe:$D:PyList_Append"
	best dbg_inl -e "uprobe:$D:Py_INCREF"
	best nodw_floor --no-inline -e "uprobe:$S:PyList_Append"
	best nodw -e "uprobe:$S:PyList_Append"
done
printf '# %s, best of %d\n' "$(uname -r)" "$ROUNDS"
printf '%-44s %8s %8s\n' case seconds ratio
row() { printf '%-44s %8s %8s\n' "$1" "${B[$2]}" "$(awk -v a="${B[$2]}" -v b="${B[$3]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"; }
row "libpython3.11d PyList_Append --no-inline" dbg_sym_floor dbg_sym_floor
row "libpython3.11d PyList_Append (DWARF read)" dbg_sym dbg_sym_floor
row "libpython3.11d Py_INCREF (2683 inlined)" dbg_inl dbg_sym_floor
row "libpython3.11 PyList_Append --no-inline" nodw_floor nodw_floor
row "libpython3.11 PyList_Append (no DWARF)" nodw nodw_floor

# Kernel modules' debug files (KO_DIR: a tree of them, as Debian's
# linux-image-RELEASE-dbg installs under /usr/lib/debug/lib/modules/RELEASE;
# default the running kernel's): inl_find() itself on the largest found
# here (kvm.ko) and on vfio_iommu_type1.ko, by bench_inline (iprof plans
# modules only when loaded); best of ROUNDS, first function indexing the
# file's DWARF
KO_DIR=${KO_DIR:-/usr/lib/debug/lib/modules/$(uname -r)}
kbest() { # FILE FUNC...: the best "all:" ns of ROUNDS runs
	local b="" v
	for ((r = 0; r < ROUNDS; r++)); do
		v=$("$BUILD/bench_inline" "$@" | sed -n 's/^all: \([0-9]*\) ns$/\1/p')
		[ -n "$v" ] && { [ -z "$b" ] || [ "$v" -lt "$b" ]; } && b=$v
	done
	printf '%-44s %8.3f  (%s)\n' "$(basename "$1") ${*:2}" "$(awk -v n="${b:-0}" 'BEGIN { print n / 1e9 }')" \
		"$("$BUILD/bench_inline" "$@" | grep -v '^all:' | sed 's/, [0-9]* ns$//' | paste -sd';' -)"
}
kvm=$(find "$KO_DIR" -name kvm.ko 2>/dev/null | head -1)
vt1=$(find "$KO_DIR" -name vfio_iommu_type1.ko 2>/dev/null | head -1)
if [ -x "$BUILD/bench_inline" ] && { [ -n "$kvm" ] || [ -n "$vt1" ]; }; then
	printf '%-44s %8s\n' "module debug file, functions" seconds
	[ -z "$vt1" ] || kbest "$vt1" vfio_pin_map_dma
	[ -z "$kvm" ] || kbest "$kvm" kvm_vcpu_apicv_active kvm_rip_read
else
	echo "(no kernel module debug files under $KO_DIR: KO_DIR=DIR for a -dbg package's tree)"
fi
# The kernel image's debug file (VMLINUX, default Debian's place for the
# running kernel): the same, on two functions inlined all over it
VMLINUX=${VMLINUX:-/usr/lib/debug/boot/vmlinux-$(uname -r)}
if [ -x "$BUILD/bench_inline" ] && [ -r "$VMLINUX" ]; then
	printf '%-44s %8s\n' "kernel image debug file, functions" seconds
	kbest "$VMLINUX" task_tgid_vnr pte_offset_kernel
else
	echo "(no kernel image debug file $VMLINUX: VMLINUX=FILE for a -dbg package's vmlinux)"
fi
