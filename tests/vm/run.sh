#!/usr/bin/env bash
# VM test tier: boot Debian's stock cloud kernel in qemu (TCG) with a small
# initramfs (busybox, a static iprof, the workloads, the test scripts) and
# run there the tests that the build host's kernel cannot run: fentry/fexit
# and kprobe timers.  As root:
#
#   sudo tests/vm/run.sh                       all tests/vm/test_*.sh + $VM_E2E
#   sudo tests/vm/run.sh fentry test_kprobe    some (tests/vm/, then tests/e2e/)
#   sudo tests/vm/run.sh e2e/test_follow       a test of tests/e2e/
#
# Environment: BUILD_VM (static build dir, default build-vm; VM_PREBUILT=1:
# built already, not built again),
# PKG_CONFIG_PATH and IPROF_BPFTOOL (a libbpf >= 1.4 and its bpftool, if
# not the system's: tools/libbpf-backports.sh),
# IPROF_VM_KERNEL (kernel package, default: the one linux-image-cloud-amd64
# depends on, "-unsigned"), IPROF_VM_SUITE (take the kernel from this
# Debian suite alone, e.g. bookworm-backports: 6.12, which has kprobe_multi;
# unstable: 7.x, whose uprobe programs may write their registers;
# IPROF_VM_MIRROR its mirror), VM_ACCEL (qemu -accel, tcg,thread=single),
# VM_TIMEOUT (seconds for the whole VM run, 1800), VM_TEST_TIMEOUT (seconds
# per test, 120; a test's "# vm-timeout: N" line may ask for more),
# VM_APPEND (more kernel arguments), VM_CPU (qemu -cpu, max), VM_E2E
# (tests/e2e/ tests to add to the default list), VM_EXCLUDE (tests/vm/
# tests to leave out of the default list, e.g. "test_kvm test_vfio": the
# ones another run takes, tests/run.sh), VM_TAG (the name of the console
# log kept in tests/vm/cache, default the suite's: runs of one suite that
# overlap take one each), IPROF_REQUIRE_E2E=1 (a SKIP fails).
# Exit status: 0 all tests passed; 1 a test failed, or the VM did not boot,
# timed out, panicked or reported no summary; 2 usage or setup error.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

vm=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$vm/../.." && pwd)
cache=$vm/cache
build=${BUILD_VM:-$src/build-vm}
vm_timeout=${VM_TIMEOUT:-1800}
# -cpu max: TCG emulates AMD SVM (with nested paging), so KVM (kvm-amd.ko)
# runs guests inside the VM (tests/vm/test_kvm.sh).  q35 with an emulated
# Intel IOMMU (intel_iommu=on) and an NVMe controller (which has an FLR):
# VFIO's device (tests/vm/test_vfio.sh)
cpu=${VM_CPU:-max}
# 6.12 (IPROF_VM_SUITE=bookworm-backports) under Debian 12's qemu 7.2 TCG
# takes a double fault with garbage flags right after SLUB's per-CPU
# cmpxchg16b (kmem_cache_alloc_noprof, at boot or within a minute): without
# CX16 SLUB takes its locked path.  7.x (unstable) needs CX16: BPF local
# storage comes from kmalloc_nolock(), which fails without it (every task
# storage create: "lost: no_storage")
[ -n "${VM_CPU:-}" ] || [ "${IPROF_VM_SUITE:-}" != bookworm-backports ] || cpu=max,-cx16
# one host thread for both guest CPUs: with MTTCG (thread=multi) the
# guest deadlocked about once in 20 tests in text_poke_bp() (a CPU stuck in
# exc_int3 on half-patched code while the patching CPU waits in
# smp_call_function_many_cond), e.g. when a tp_btf program attaches
accel=${VM_ACCEL:-tcg,thread=single}
test_timeout=${VM_TEST_TIMEOUT:-120}
# tests of tests/e2e/ to run in the VM too (by default none: they assume a
# real CPU's timing, e.g. test_uprobe's 300 us spins average 0.3 ms, and
# TCG with 3 threads on 2 vCPUs stretches them; tests/vm/test_uprobe.sh
# checks times against the workload's own measurements only)
VM_E2E=${VM_E2E:-}

say() { echo "vm: $*" >&2; }
die() { echo "vm: error: $*" >&2; exit 2; }

[ "$(id -u)" = 0 ] || die "needs root (apt-get install, apt-get download)"
t_start=$(date +%s.%N)

# ---- host packages ---------------------------------------------------------
# qemu and the initramfs contents; the build itself needs what
# tools/install-deps.sh installs.
pkgs=(qemu-system-x86 busybox-static bash-static cpio)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
apt_updated=0
# the kernel's package lists: the system's, or with IPROF_VM_SUITE (e.g.
# bookworm-backports) that suite's alone, kept in tests/vm/cache/apt-SUITE
# so that the system's apt sources stay as they are
kapt=()
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	apt-get update -qq || say "apt-get update failed; using the package lists as they are"
	apt_updated=1
}
kapt_updated=0
kapt_update() {
	[ ${#kapt[@]} -gt 0 ] || { apt_update; return; }
	[ "$kapt_updated" = 1 ] && return 0
	apt-get "${kapt[@]}" update -qq || say "apt-get update ($IPROF_VM_SUITE) failed"
	kapt_updated=1
}
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	apt_update
	apt-get install -y -qq --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
fi
command -v cmake >/dev/null && command -v clang >/dev/null &&
	command -v bpftool >/dev/null || bash "$src/tools/install-deps.sh"

# ---- the kernel: Debian's stock cloud kernel, unsigned image ---------------
mkdir -p "$cache"
if [ -n "${IPROF_VM_SUITE:-}" ]; then
	a=$cache/apt-$IPROF_VM_SUITE
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${IPROF_VM_MIRROR:-http://deb.debian.org/debian} $IPROF_VM_SUITE main" >"$a/sources.list"
	kapt=(-o "Dir::Etc::sourcelist=$a/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
fi
resolve_kernel() {
	local img
	img=$(apt-cache "${kapt[@]}" depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *|\?Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -1 || true)
	if [ -n "$img" ] && apt-cache "${kapt[@]}" show "$img-unsigned" >/dev/null 2>&1; then
		echo "$img-unsigned"
		return
	fi
	# unstable (7.x) has no -unsigned package: the image itself (qemu
	# boots it directly; its signature is of no concern there)
	if [ -n "$img" ] && apt-cache "${kapt[@]}" show "$img" >/dev/null 2>&1; then
		echo "$img"
		return
	fi
	apt-cache "${kapt[@]}" search --names-only '^linux-image-[0-9].*-cloud-amd64-unsigned$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -1 || true
}
candidate() { apt-cache "${kapt[@]}" policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' || true; }
# kernel modules the tests load (tests/vm/test_module.sh, test_kvm.sh,
# test_vfio.sh), from the package; a change here makes the next run fetch
# the package again
vm_modules="cpuid irqbypass kvm kvm-amd vfio vfio_virqfd vfio_iommu_type1 vfio-pci-core vfio-pci"
# fetch PKG VER DIR: DIR/vmlinuz, DIR/config and DIR/modules/*.ko from the
# package
fetch_kernel() {
	local dl=$cache/dl${IPROF_VM_SUITE:+-$IPROF_VM_SUITE} m f
	rm -rf "$3" "$3.tmp" "$dl"
	mkdir -p "$dl" "$3.tmp/modules"
	local v=${1#linux-image-} d
	v=${v%-unsigned}
	(cd "$dl" && apt-get "${kapt[@]}" download -q -o APT::Sandbox::User=root "$1=$2" >/dev/null) &&
		dpkg-deb -x "$dl"/*.deb "$3.tmp/x" || { rm -rf "$3.tmp" "$dl"; return 1; }
	# Debian 14 (unstable, 7.x) splits the image package: the kernel in
	# linux-binary-unsigned-V (usr/lib/modules/V/vmlinuz.unsigned), its
	# config in linux-base-V, the modules in linux-modules-V
	if ! ls "$3.tmp"/x/boot/vmlinuz-* >/dev/null 2>&1; then
		rm -f "$dl"/*.deb
		for d in "linux-binary-unsigned-$v" "linux-base-$v" "linux-modules-$v"; do
			(cd "$dl" && apt-get "${kapt[@]}" download -q -o APT::Sandbox::User=root "$d=$2" >/dev/null) ||
				{ rm -rf "$3.tmp" "$dl"; return 1; }
		done
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$3.tmp/x" || { rm -rf "$3.tmp" "$dl"; return 1; }; done
	fi
	f=$(ls "$3.tmp"/x/boot/vmlinuz-* "$3.tmp"/x/usr/lib/modules/*/vmlinuz* 2>/dev/null | head -1)
	d=$(ls "$3.tmp"/x/boot/config-* "$3.tmp"/x/usr/lib/modules/*/config 2>/dev/null | head -1)
	[ -n "$f" ] && [ -n "$d" ] && cp "$f" "$3.tmp/vmlinuz" && cp "$d" "$3.tmp/config" ||
		{ rm -rf "$3.tmp" "$dl"; return 1; }
	for m in $vm_modules; do
		f=$(find "$3.tmp/x" -path '*/lib/modules/*' -name "$m.ko*" | head -1)
		case $f in
		*.ko) cp "$f" "$3.tmp/modules/$m.ko" ;;
		*.ko.xz) xz -dc "$f" >"$3.tmp/modules/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$3.tmp/modules/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$3.tmp/modules/$m.ko" ;;
		*) say "no module $m in $1" ;;
		esac
	done
	echo "$vm_modules" >"$3.tmp/modules.searched"
	rm -rf "$3.tmp/x" "$dl" && mv "$3.tmp" "$3" || { rm -rf "$3.tmp" "$dl"; return 1; }
}
kpkg=${IPROF_VM_KERNEL:-}
[ -n "$kpkg" ] || kpkg=$(resolve_kernel)
kver=""
[ -z "$kpkg" ] || kver=$(candidate "$kpkg")
kdir=""
# the package was searched for every module of $vm_modules (a newer
# kernel lacks some: 6.12 has no vfio_virqfd)
have_modules() {
	[ "$(cat "$1/modules.searched" 2>/dev/null)" = "$vm_modules" ]
}
if [ -n "$kver" ] && [ "$kver" != "(none)" ] && [ -f "$cache/kernel-$kpkg-$kver/vmlinuz" ] &&
	have_modules "$cache/kernel-$kpkg-$kver"; then
	kdir=$cache/kernel-$kpkg-$kver
else
	for try in 1 2; do
		if [ -n "$kver" ] && [ "$kver" != "(none)" ]; then
			say "fetching $kpkg $kver"
			if fetch_kernel "$kpkg" "$kver" "$cache/kernel-$kpkg-$kver"; then
				kdir=$cache/kernel-$kpkg-$kver
				break
			fi
		fi
		[ "$try" = 1 ] || break
		# no or stale package lists: update them and resolve again
		kapt_update
		[ -n "${IPROF_VM_KERNEL:-}" ] || kpkg=$(resolve_kernel)
		kver=""
		[ -z "$kpkg" ] || kver=$(candidate "$kpkg")
	done
	if [ -n "$kdir" ]; then
		# keep one kernel of a series (6.1, 6.12): drop older ones
		series=$(basename "$kdir" | sed 's/^\(kernel-linux-image-[0-9]*\.[0-9]*\)[^0-9].*/\1/')
		for d in "$cache/$series".*/ "$cache/$series"-*/ "$cache/$series"+*/; do
			if [ -d "$d" ] && [ "${d%/}" != "$kdir" ]; then rm -rf "${d%/}"; fi
		done
	else
		# apt failed: the newest kernel in the cache, if any (of the
		# package asked for, if it was named)
		kdir=$(ls -d "$cache"/kernel-"${IPROF_VM_KERNEL:-}"*/ 2>/dev/null | sort -V | tail -1 || true)
		kdir=${kdir%/}
		[ -n "$kdir" ] && [ -f "$kdir/vmlinuz" ] ||
			die "cannot fetch the cloud kernel (${kpkg:-apt-cache depends linux-image-cloud-amd64: nothing}) and none is cached"
		say "cannot fetch ${kpkg:-the kernel package}; using the cached $(basename "$kdir")"
	fi
fi

# the debug files of the modules whose inlined functions the tests time
# (test_vfio.sh: vfio_device_open, vfio_pin_map_dma), from the kernel's
# -dbg package (about 280 MB, of which these few files are kept in the
# cache as DIR/debug/usr/lib/debug/lib/modules/RELEASE/...), and the
# kernel image's (test_kinline.sh: task_tgid_vnr), reduced to what
# iprof reads (590 MB to about 165 MB: no relocations, location lists,
# BTF or ORC; DWARF compressed; the build ID kept); the default suite's
# kernel only (these tests run there)
debug_modules="vfio vfio_iommu_type1"
debug_want="$debug_modules vmlinux"
fetch_debug() {
	local dl=$cache/dl-dbg${IPROF_VM_SUITE:+-$IPROF_VM_SUITE} pkg m v pat=("*/boot/vmlinux-*")
	[ "$(cat "$kdir/debug.searched" 2>/dev/null)" = "$debug_want" ] && return 0
	pkg=${kpkg%-unsigned}-dbg
	for m in $debug_modules; do pat+=("*/$m.ko"); done
	rm -rf "$dl" "$kdir/debug"
	mkdir -p "$dl" "$kdir/debug"
	if (cd "$dl" && apt-get "${kapt[@]}" download -q -o APT::Sandbox::User=root "$pkg=$kver" >/dev/null 2>&1) &&
		dpkg-deb --fsys-tarfile "$dl"/*.deb | tar -x -C "$kdir/debug" --wildcards "${pat[@]}"; then
		for v in "$kdir"/debug/usr/lib/debug/boot/vmlinux-*; do
			[ -f "$v" ] || continue
			objcopy --remove-section='.rela*' --remove-section=.debug_loclists \
				--remove-section=.debug_loc --remove-section=.BTF \
				--remove-section=.orc_unwind --remove-section=.orc_unwind_ip \
				--compress-debug-sections=zlib "$v" "$v.small" && mv "$v.small" "$v" ||
				rm -f "$v" "$v.small"
		done
		say "debug files of $debug_modules and vmlinux from $pkg"
	else
		say "no $pkg $kver: test_vfio's inlined kernel functions will fail (no debug files)"
		rm -rf "$kdir/debug"
	fi
	rm -rf "$dl"
	echo "$debug_want" >"$kdir/debug.searched"
}
[ -n "${IPROF_VM_SUITE:-}" ] || [ -z "$kver" ] || [ "$kver" = "(none)" ] || fetch_debug

# ---- static iprof and workloads --------------------------------------------
# libbpf 1.4 (libbpf.a) as the host build has it: the system's
# (tools/install-deps.sh), else bookworm-backports' unpacked in a folder
# of its own (tools/libbpf-backports.sh; PKG_CONFIG_PATH and IPROF_BPFTOOL
# may name one already)
if ! pkg-config --atleast-version=1.4 libbpf; then
	eval "$(bash "$src/tools/libbpf-backports.sh")"
fi
vm_bins="iprof uprobe-workload usdt-workload usdt-strings churn-workload longjmp-workload kvm-msr-exit vfio-dma vm-read-workload vm-sleep-workload vm-knested bench_probe bench_scale bench_cxx e2e-rename e2e-replaced e2e-longjmp e2e-recurse e2e-execer e2e-coro e2e-ucoro e2e-throw e2e-keyed e2e-inline e2e-inline_shapes e2e-forker e2e-hitonly e2e-offcpu"
# VM_PREBUILT=1: $build is built already (tests/run.sh builds it in the
# first suite's run and then runs two suites at once, which must not both
# build it)
if [ "${VM_PREBUILT:-0}" = 1 ]; then
	say "static iprof in $build, built already (VM_PREBUILT=1)"
else
	say "building static iprof in $build (libbpf $(pkg-config --modversion libbpf))"
	cmake -S "$src" -B "$build" -DIPROF_STATIC=ON -DIPROF_TESTS=OFF \
		${IPROF_BPFTOOL:+-DBPFTOOL="$IPROF_BPFTOOL"} \
		-DIPROF_WERROR="${IPROF_WERROR:-OFF}" >/dev/null
	# glibc's static link warns of every NSS and dlopen call it keeps (libelf,
	# libbpf: "Using 'dlopen' in statically linked applications requires at
	# runtime the shared libraries ..."); iprof's static build is only ever run
	# in the VM, where that is known, so those pairs of lines are dropped and
	# every other line of the build is shown (issue 48: the demo prints no
	# warning that is not about the user's run)
	blog=$(mktemp /tmp/iprof-vm-build.XXXXXX)
	# shellcheck disable=SC2086
	if ! cmake --build "$build" -j"$(nproc)" --target $vm_bins >/dev/null 2>"$blog"; then
		cat "$blog" >&2
		rm -f "$blog"
		die "the static build failed"
	fi
	awk '/in function .*:$/ { held = $0; next }
		/statically linked applications requires at runtime/ { held = ""; next }
		{ if (held != "") print held; held = ""; print }
		END { if (held != "") print held }' "$blog" >&2
	rm -f "$blog"
fi
for b in $vm_bins; do
	file -b "$build/$b" 2>/dev/null | grep -q 'statically linked' ||
		ldd "$build/$b" 2>&1 | grep -q 'not a dynamic executable' ||
		die "$build/$b is not statically linked"
done

# ---- which tests -----------------------------------------------------------
# a name is vm/test_x, e2e/test_x, test_x (tests/vm/ first) or x
resolve_test() {
	local n=${1%.sh} d
	n=${n#tests/}
	case $n in
	*/*) [ -f "$src/tests/$n.sh" ] && { echo "$n"; return; } ;;
	*)
		for d in vm e2e; do
			for f in "test_$n" "$n"; do
				[ -f "$src/tests/$d/$f.sh" ] && { echo "$d/$f"; return; }
			done
		done
		;;
	esac
	die "no test '$1' (tests/vm/test_*.sh, tests/e2e/test_*.sh)"
}
tests=()
if [ $# -gt 0 ]; then
	for a in "$@"; do tests+=("$(resolve_test "$a")"); done
else
	# a test names the suites it runs in on a line "# vm-suite: SUITE..."
	# ("default": without IPROF_VM_SUITE, e.g. "default unstable"); a
	# test without that line runs only without IPROF_VM_SUITE
	for f in "$vm"/test_*.sh; do
		n=$(basename "$f" .sh)
		s=$(sed -n 's/^# vm-suite: *//p' "$f" | head -1)
		case " ${VM_EXCLUDE:-} " in *" $n "*) continue ;; esac
		case " ${s:-default} " in
		*" ${IPROF_VM_SUITE:-default} "*) tests+=("vm/$n") ;;
		esac
	done
	for t in $VM_E2E; do tests+=("$(resolve_test "$t")"); done
fi

# ---- the initramfs ---------------------------------------------------------
# per-run files in $work (runs may overlap); the last console log of each
# suite in cache/
work=$(mktemp -d /tmp/iprof-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,iprof/build,iprof/src/tests}
cp /bin/busybox "$root/bin/busybox"
cp /bin/bash-static "$root/bin/bash"
install -m 755 "$vm/init" "$root/init"
for b in $vm_bins; do
	cp "$build/$b" "$root/iprof/build/$b"
done
# the inlined function's stripped copy and its debug file (made with it)
cp "$build"/e2e-inline-stripped "$build"/e2e-inline-stripped.debug "$root/iprof/build/"
# jq for the tests that read iprof's JSON: Debian's, with the shared
# libraries and dynamic loader it needs, at their host paths
for f in /usr/bin/jq $(ldd /usr/bin/jq | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
done
# the static binaries' debug info is not needed to trace them: uprobes use
# the symbol table; but the inlined function's DWARF is how it is found
for f in "$root"/iprof/build/*; do
	case $f in */e2e-inline*) ;; *) strip --strip-debug "$f" ;; esac
done
# kernel modules for the tests (insmod /iprof/modules/NAME.ko)
mkdir -p "$root/iprof/modules"
cp "$kdir"/modules/*.ko "$root/iprof/modules/" 2>/dev/null || true
# their debug files where Debian installs them (fetch_debug)
[ ! -d "$kdir/debug/usr" ] || cp -a "$kdir/debug/usr" "$root/"
mkdir -p "$root/iprof/src/tests/e2e" "$root/iprof/src/tests/vm" "$root/iprof/src/probes.d"
cp "$src"/probes.d/*.conf "$root/iprof/src/probes.d/"
cp "$src"/tests/e2e/*.sh "$root/iprof/src/tests/e2e/"
cp "$vm"/*.sh "$root/iprof/src/tests/vm/"
printf '%s\n' "${tests[@]}" >"$root/iprof/tests.list"
cat >"$root/iprof/env" <<EOF
VM_TEST_TIMEOUT=$test_timeout
IPROF_REQUIRE_E2E=${IPROF_REQUIRE_E2E:-0}
EOF
initrd=$work/initramfs.cpio
(cd "$root" && find . | cpio -o -H newc --quiet >"$initrd")

# ---- boot ------------------------------------------------------------------
# the NVMe controller's backing file (test_vfio.sh binds it to vfio-pci)
truncate -s 1M "$work/nvme.img"
log=$work/console.log
# no_timer_check (Documentation/admin-guide/kernel-parameters.txt): the
# boot's check that the timer interrupt arrives through the IO-APIC times
# out under TCG on a loaded host, "Kernel panic - not syncing: timer
# doesn't work through Interrupt-remapped IO-APIC" (7.2 under stress-ng)
say "booting $(basename "$kdir") (tests: ${tests[*]})"
t_boot=$(date +%s.%N)
set +e
timeout -k 10 "$vm_timeout" \
	qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 1G -smp 2 -nographic -no-reboot \
	-machine q35 -device intel-iommu \
	-drive file="$work/nvme.img",if=none,id=nvm,format=raw -device nvme,serial=iprof,drive=nvm \
	-nic none -kernel "$kdir/vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 quiet loglevel=5 softlockup_panic=1 intel_iommu=on no_timer_check ${VM_APPEND:-}" </dev/null 2>&1 |
	sed -u 's/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' |
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in "VM: booted"*) date +%s.%N >"$work/booted" ;; esac
	done | tee "$log"
rc=${PIPESTATUS[0]}
set -e
t_end=$(date +%s.%N)
# one per suite (or VM_TAG): the runs may overlap (tests/run.sh); the
# verdict reads this run's own
tag=${VM_TAG:-${IPROF_VM_SUITE:-}}
cp "$log" "$cache/console${tag:+-$tag}.log"
keep=$cache/console${tag:+-$tag}.log

# ---- verdict ---------------------------------------------------------------
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
fail() { echo "vm: FAIL: $*" >&2; exit 1; }
booted=""
[ -f "$work/booted" ] && booted="; /init started $(elapsed "$t_boot" "$(cat "$work/booted")") s after qemu"
say "qemu ran $(elapsed "$t_boot" "$t_end") s (exit $rc)$booted; run.sh $(elapsed "$t_start" "$t_end") s in all"
[ "$rc" = 124 ] || [ "$rc" = 137 ] &&
	fail "the VM timed out after ${vm_timeout}s, during ${tests[$(grep -cE '^(PASS|FAIL|SKIP) ' "$log" || true)]:-?}"
grep -q '^VM: booted' "$log" || fail "the VM did not boot (qemu exit $rc): see $keep"
summary=$(grep -E '^VM: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
if [ -z "$summary" ]; then
	done_=$(grep -cE '^(PASS|FAIL|SKIP) ' "$log" || true)
	running=${tests[$done_]:-?}
	kp=$(grep -m1 -o 'Kernel panic - .*' "$log" || true)
	[ -z "$kp" ] || fail "the guest kernel panicked during $running (${kp}): see $keep"
	fail "the VM stopped during $running with no summary (qemu exit $rc): see $keep"
fi
npass=$(grep -c '^PASS ' "$log" || true)
nfail=$(grep -c '^FAIL ' "$log" || true)
nskip=$(grep -c '^SKIP ' "$log" || true)
[ $((npass + nfail + nskip)) = ${#tests[@]} ] ||
	fail "${#tests[@]} tests, but $((npass + nfail + nskip)) results: see $keep"
[ "$nfail" = 0 ] || fail "$nfail test(s) failed: $(grep '^FAIL ' "$log" | cut -c6- | tr '\n' ';')"
if [ "$nskip" != 0 ] && [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
	fail "$nskip test(s) skipped and IPROF_REQUIRE_E2E=1"
fi
say "ok: $summary"
