#!/usr/bin/env bash
# VM tier, systemd: boot a Debian 12 system with systemd as PID 1 under the
# VM tier's kernel (Debian's 6.1 cloud kernel, as tests/vm/run.sh boots it,
# qemu TCG), install iprof's .deb there with dpkg and run iprof@syscalls as
# a user would (tests/vm/systemd-guest.sh: readiness, interval reports
# with exact counts, kill -9 and restart, stop, a traced service restarted
# twice with uprobe, fentry and kprobe timers, the journal's priorities,
# systemd-analyze security).  About two minutes: 10 s to boot, 90 to 120
# s of checks, and a minute more to build the image when not cached.  As
# root:
#
#   sudo tests/vm/systemd.sh
#   sudo tests/vm/systemd.sh --prepare    the .deb and the image only
#
# The system image is built with mmdebstrap from the Debian mirror
# (bookworm, -updates, -security, and -backports for libbpf1 and bpftool,
# as tools/install-deps.sh takes them): systemd, jq, bpftool and the
# .deb's dependencies, no network needed in the VM.  It is cached in
# tests/vm/cache/systemd-KEY.img (KEY: a hash of the package list, the
# mirrors and this recipe; one image kept) and booted with qemu's
# -snapshot, so it stays as built.  The rootfs is an ext4 image on an
# NVMe namespace (the cloud kernel has NVMe and ext4 built in, virtio_blk
# as a module); the payload (the .deb, the static svc-workload, the guest
# script) is a tar archive on a second namespace.
#
# Environment: BUILD (the build dir whose .deb is tested, default build;
# `cmake --build BUILD --target package` makes it), IPROF_VM_MIRROR
# (default http://deb.debian.org/debian), IPROF_VM_SECURITY_MIRROR
# (http://deb.debian.org/debian-security), IPROF_VM_IMAGE_REBUILD=1
# (build the image again), VM_TIMEOUT (seconds for the VM, 600),
# VM_APPEND (more kernel arguments), VM_ACCEL (tcg,thread=single),
# IPROF_REQUIRE_E2E=1 (a SKIP fails).
# Exit status: 0 passed; 1 a check failed, or the VM did not boot, timed
# out or reported no summary; 77 skipped (not root, no mirror and no
# cached image); 2 usage or setup error.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

vm=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$vm/../.." && pwd)
cache=$vm/cache
build=${BUILD:-$src/build}
vm_timeout=${VM_TIMEOUT:-600}
mirror=${IPROF_VM_MIRROR:-http://deb.debian.org/debian}
smirror=${IPROF_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
suite=bookworm
# one host thread for both guest CPUs (tests/vm/run.sh says why)
accel=${VM_ACCEL:-tcg,thread=single}

say() { echo "vm-systemd: $*" >&2; }
die() { echo "vm-systemd: error: $*" >&2; exit 2; }
fail() { echo "vm-systemd: FAIL: $*" >&2; exit 1; }
skip() {
	if [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
		fail "required, cannot run: $*"
	fi
	echo "SKIP: tests/vm/systemd.sh: $*"
	exit 77
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# --prepare: the package and the system image only (tests/run.sh builds
# them while tests/vm/run.sh's VM runs), no VM
mode=run
case ${1:-} in
--prepare) mode=prepare ;;
"") ;;
*) die "usage: $0 [--prepare]" ;;
esac
[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap, apt-get, qemu)"
t_start=$(now)

# ---- host packages ---------------------------------------------------------
pkgs=(qemu-system-x86 mmdebstrap e2fsprogs)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	apt-get update -qq || say "apt-get update failed; using the package lists as they are"
	apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null ||
		skip "cannot install ${missing[*]}"
fi
command -v cmake >/dev/null && command -v cc >/dev/null || bash "$src/tools/install-deps.sh"

work=$(mktemp -d /tmp/iprof-vm-systemd.XXXXXX)
cleanup() {
	# a build interrupted inside mmdebstrap may leave mounts: never cross
	# into them
	[ -z "${imgtmp:-}" ] || rm -rf --one-file-system "$imgtmp"
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the package -----------------------------------------------------------
# cmake --build BUILD --target package, unless the .deb there is newer than
# iprof and what else goes into it (tests/run.sh: test_package made it)
t0=$(now)
if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$build" -DIPROF_WERROR="${IPROF_WERROR:-OFF}" >/dev/null || die "cmake -S $src -B $build failed"
fi
# (the sources of BUILD, which may be another tree than this one)
bsrc=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
bsrc=${bsrc:-$src}
ver=$(sed -n 's/^project(iprof VERSION \([0-9.]*\).*/\1/p' "$bsrc/CMakeLists.txt")
deb=$build/iprof_${ver}_$(dpkg --print-architecture).deb
cmake --build "$build" -j"$(nproc)" --target iprof >"$work/build.log" 2>&1 ||
	{ tail -n 20 "$work/build.log" >&2; die "cmake --build $build --target iprof failed"; }
pkg_state=reused
if [ ! -f "$deb" ] || [ -n "$(find "$build/iprof" "$bsrc/CMakeLists.txt" "$bsrc/README.md" "$bsrc/packaging" \
	"$bsrc/probes.d" "$bsrc/doc" -newer "$deb" -print -quit 2>/dev/null)" ]; then
	pkg_state=built
	cmake --build "$build" -j"$(nproc)" --target package >"$work/cpack.log" 2>&1 ||
		{ tail -n 20 "$work/cpack.log" >&2; die "cmake --build $build --target package failed"; }
fi
[ -f "$deb" ] || die "no $deb after cmake --build $build --target package"
t_pkg=$(elapsed "$t0" "$(now)")

# ---- the system image ------------------------------------------------------
# the .deb's dependencies (the first of alternatives), libbpf1 from
# bookworm-backports as the build host has it (tools/install-deps.sh)
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/^ *//; s/[ (].*//' |
	grep -v '^libbpf1$' | grep . | sort -u | tr '\n' ' ')
image_pkgs="systemd jq bpftool/$suite-backports libbpf1/$suite-backports $deps"
sources=("deb $mirror $suite main" "deb $mirror $suite-updates main"
	"deb $smirror $suite-security main" "deb $mirror $suite-backports main")

# image_setup ROOT: what the test needs in the system besides packages: a
# fixed machine-id (no first boot), no gettys or logind (no dbus), and
# iprof-vmtest.service, which runs the payload's guest script once the
# system is up, its output on the serial console, and powers off
image_setup() {
	local r=$1 u
	echo 5f0d2b7e9c4a41d6b3e8a1c2d4f60718 >"$r/etc/machine-id"
	echo iprof-vm >"$r/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 iprof-vm\n::1 localhost\n' >"$r/etc/hosts"
	echo '# the root file system: root= on the kernel command line' >"$r/etc/fstab"
	# and what no check needs, each a second or two of a TCG boot
	for u in getty.target serial-getty@ttyS0.service getty@tty1.service \
		console-getty.service systemd-firstboot.service systemd-logind.service \
		systemd-user-sessions.service systemd-update-utmp.service \
		systemd-update-utmp-runlevel.service modprobe@.service \
		systemd-modules-load.service systemd-pstore.service systemd-binfmt.service \
		proc-sys-fs-binfmt_misc.automount dev-hugepages.mount dev-mqueue.mount \
		sys-kernel-config.mount sys-fs-fuse-connections.mount; do
		ln -sf /dev/null "$r/etc/systemd/system/$u"
	done
	# the journal in /run: no flush to /var/log/journal at boot
	mkdir -p "$r/etc/systemd/journald.conf.d"
	printf '[Journal]\nStorage=volatile\n' >"$r/etc/systemd/journald.conf.d/vmtest.conf"
	cat >"$r/usr/local/sbin/iprof-vmtest" <<'EOF'
#!/bin/bash
# the payload: a tar archive on the NVMe controller's second namespace
# (tests/vm/systemd.sh)
for _ in $(seq 300); do [ -b /dev/nvme0n2 ] && break; sleep 0.1; done
mkdir -p /run/payload
if ! tar -xf /dev/nvme0n2 -C /run/payload; then
	echo "VMTEST: FAIL - no payload on /dev/nvme0n2"
	echo "VMTEST: done: 0 passed, 1 failed"
	exit 1
fi
. /run/payload/env
timeout -k 5 "$GUEST_TIMEOUT" bash /run/payload/systemd-guest.sh
rc=$?
[ $rc = 124 ] && echo "VMTEST: FAIL - the guest script timed out after $GUEST_TIMEOUT s"
exit $rc
EOF
	chmod 755 "$r/usr/local/sbin/iprof-vmtest"
	cat >"$r/etc/systemd/system/iprof-vmtest.service" <<'EOF'
[Unit]
Description=iprof's systemd test (tests/vm/systemd.sh)
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
# exec, not oneshot: the boot finishes as it starts (systemd-analyze time)
Type=exec
ExecStart=/usr/local/sbin/iprof-vmtest
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
EOF
	mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/iprof-vmtest.service "$r/etc/systemd/system/multi-user.target.wants/"
	# what no test reads
	rm -rf "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/* \
		"$r"/usr/share/locale/* "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/*
}

# image_build IMG LOG: mmdebstrap into a directory (in /dev/shm where it
# fits: dpkg is faster on tmpfs), then an ext4 image of it (mke2fs -d)
image_build() {
	local base=$cache mb
	if [ -w /dev/shm ] && [ "$(df -Pm /dev/shm | awk 'NR == 2 { print $4 }')" -gt 1024 ]; then
		base=/dev/shm
	fi
	imgtmp=$(mktemp -d "$base/iprof-vm-image.XXXXXX")
	# --variant=custom: the essential set and the packages in one dpkg
	# run, no apt in the image; force-unsafe-io: no fsync per file
	# (dpkg's path-exclude would make mmdebstrap extract file by file:
	# 100 s more here; image_setup deletes the docs instead)
	timeout 900 mmdebstrap --variant=custom --mode=root --format=directory \
		--include='?essential' --include="$image_pkgs" \
		--dpkgopt=force-unsafe-io --aptopt='Acquire::Retries "3"' \
		"$suite" "$imgtmp/root" "${sources[@]}" >"$2" 2>&1 || return 1
	image_setup "$imgtmp/root"
	mb=$(($(du -sm "$imgtmp/root" | cut -f1) * 5 / 4 + 128))
	mke2fs -q -t ext4 -m 0 -L iprof-vm -d "$imgtmp/root" "$1.tmp" "${mb}M" >>"$2" 2>&1 || return 1
	mv "$1.tmp" "$1"
	rm -rf --one-file-system "$imgtmp"
	imgtmp=""
}
key=$(printf '%s\n' "$suite" "${sources[@]}" "$image_pkgs" "$(declare -f image_setup image_build)" |
	sha256sum | cut -c1-16)
img=$cache/systemd-$key.img
mkdir -p "$cache"
t0=$(now)
image_state=cached
# one build at a time (tests/run.sh runs --prepare beside tests/vm/run.sh)
exec 9>"$cache/systemd-image.lock"
flock -w 1200 9 || die "$cache/systemd-image.lock: still locked after 1200 s"
if [ ! -f "$img" ] || [ "${IPROF_VM_IMAGE_REBUILD:-0}" = 1 ]; then
	say "building the system image $(basename "$img") with mmdebstrap ($image_pkgs)"
	rm -f "$img.tmp"
	if image_build "$img" "$cache/systemd-image.log"; then
		image_state=built
		for o in "$cache"/systemd-*.img; do
			[ "$o" = "$img" ] || rm -f "$o"
		done
	else
		rm -f "$img.tmp"
		tail -n 15 "$cache/systemd-image.log" >&2
		# offline: an image of another recipe, if one is cached
		# (dpkg -i says so if it lacks a dependency)
		old=$(ls -t "$cache"/systemd-*.img 2>/dev/null | head -1 || true)
		if [ -n "$old" ]; then
			say "cannot build the image ($cache/systemd-image.log); using the cached $(basename "$old")"
			img=$old image_state="cached, another recipe"
		elif grep -qiE 'Could not resolve|Failed to fetch|Temporary failure|Unable to connect|not reachable' \
			"$cache/systemd-image.log"; then
			skip "cannot build the system image: the mirror ($mirror) is not reachable ($cache/systemd-image.log)"
		else
			die "mmdebstrap or mke2fs failed: $cache/systemd-image.log"
		fi
	fi
fi
flock -u 9
t_image=$(elapsed "$t0" "$(now)")
if [ "$mode" = prepare ]; then
	say "prepared: $(basename "$deb") ($pkg_state, $t_pkg s), $(basename "$img") ($image_state, $t_image s)"
	exit 0
fi

# ---- the kernel: the VM tier's (tests/vm/run.sh caches it) -----------------
# Debian's stock cloud kernel, the -unsigned image that
# linux-image-cloud-amd64 depends on; run.sh's cache dir
# (cache/kernel-PKG-VER) when it has it, else its vmlinuz alone in
# cache/systemd-kernel-PKG-VER
kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
	sed -n 's/^ *|\?Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -1 || true)
kpkg=${kpkg:+$kpkg-unsigned}
kver=""
[ -z "$kpkg" ] || kver=$(apt-cache policy "$kpkg" 2>/dev/null | sed -n 's/^ *Candidate: //p' || true)
fetch_vmlinuz() { # PKG VER DIR
	local dl=$work/kdl
	rm -rf "$dl" "$3.tmp" && mkdir -p "$dl" "$3.tmp"
	(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root "$1=$2" >/dev/null 2>&1) &&
		dpkg-deb -x "$dl"/*.deb "$dl/x" && cp "$dl"/x/boot/vmlinuz-* "$3.tmp/vmlinuz" &&
		mv "$3.tmp" "$3" || { rm -rf "$3.tmp" "$dl"; return 1; }
	rm -rf "$dl"
}
kernel=""
if [ -n "$kver" ] && [ "$kver" != "(none)" ]; then
	for d in "$cache/kernel-$kpkg-$kver" "$cache/systemd-kernel-$kpkg-$kver"; do
		[ -f "$d/vmlinuz" ] && { kernel=$d/vmlinuz; break; }
	done
	if [ -z "$kernel" ]; then
		mkdir -p "$cache"
		say "fetching $kpkg $kver"
		d=$cache/systemd-kernel-$kpkg-$kver
		if fetch_vmlinuz "$kpkg" "$kver" "$d" ||
			{ apt-get update -qq && fetch_vmlinuz "$kpkg" "$kver" "$d"; }; then
			kernel=$d/vmlinuz
			for o in "$cache"/systemd-kernel-*/; do
				[ "${o%/}" = "$d" ] || rm -rf "${o%/}"
			done
		fi
	fi
fi
if [ -z "$kernel" ]; then
	kernel=$(ls "$cache"/kernel-linux-image-6.1.*/vmlinuz "$cache"/systemd-kernel-linux-image-6.1.*/vmlinuz 2>/dev/null |
		sort -V | tail -1 || true)
	[ -n "$kernel" ] || skip "cannot fetch the cloud kernel (${kpkg:-apt-cache depends linux-image-cloud-amd64: nothing}) and none is cached"
	say "cannot fetch ${kpkg:-the kernel package}; using the cached $(basename "$(dirname "$kernel")")"
fi

# ---- the payload -----------------------------------------------------------
pl=$work/payload
mkdir -p "$pl"
cp "$deb" "$pl/"
cc -O2 -Wall -static -o "$pl/svc-workload" "$vm/svc-workload.c" || die "cannot build svc-workload (static: libc6-dev)"
cp "$vm/systemd-guest.sh" "$pl/"
guest_timeout=$((vm_timeout - 60))
cat >"$pl/env" <<EOF
INTERVAL=1s INTERVAL_S=1
WL_READS=1000 WL_WRITES=500 WL_PPOLLS=25
WL2_READS=200 WL2_WRITES=100 WL2_PPOLLS=10
MYD_STARTUP_WRITES=50 MYD_READS=300
T_START=240 T_REPORT=30 T_STOP=60 T_RESTART=120 STOP_MAX=10
MAX_EXPOSURE=2.5
GUEST_TIMEOUT=$guest_timeout
VM_DEBUG=${VM_DEBUG:-0}
EOF
tar -C "$pl" -cf "$work/payload.tar" .

# ---- boot ------------------------------------------------------------------
log=$work/console.log
say "booting $(basename "$(dirname "$kernel")") with $(basename "$img") ($image_state)"
t_boot=$(now)
set +e
TMPDIR=$work timeout -k 10 "$vm_timeout" \
	qemu-system-x86_64 -accel "$accel" -cpu max -m 1G -smp 2 -nographic -no-reboot \
	-machine q35 -nic none \
	-drive file="$img",if=none,id=root,format=raw,snapshot=on \
	-drive file="$work/payload.tar",if=none,id=payload,format=raw,readonly=on \
	-device nvme,id=nvme0,serial=iprof-vm \
	-device nvme-ns,drive=root,bus=nvme0,nsid=1 \
	-device nvme-ns,drive=payload,bus=nvme0,nsid=2 \
	-kernel "$kernel" \
	-append "console=ttyS0 root=/dev/nvme0n1 rootfstype=ext4 rootwait rw init=/lib/systemd/systemd panic=-1 no_timer_check quiet loglevel=4 systemd.show_status=auto systemd.journald.forward_to_console=0 ${VM_APPEND:-}" \
	</dev/null 2>&1 |
	sed -u 's/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' |
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in "VMTEST: start"*) now >"$work/started" ;; "VMTEST: done"*) now >"$work/done" ;; esac
	done | tee "$log"
rc=${PIPESTATUS[0]}
set -e
t_end=$(now)
cp "$log" "$cache/systemd-console.log"
log=$cache/systemd-console.log

# ---- verdict ---------------------------------------------------------------
boot_s="?" test_s="?"
[ -f "$work/started" ] && boot_s=$(elapsed "$t_boot" "$(cat "$work/started")")
[ -f "$work/started" ] && [ -f "$work/done" ] && test_s=$(elapsed "$(cat "$work/started")" "$(cat "$work/done")")
say "times: package $t_pkg s ($pkg_state), image $t_image s ($image_state), boot to the test $boot_s s, test $test_s s, qemu $(elapsed "$t_boot" "$t_end") s (exit $rc); $(elapsed "$t_start" "$t_end") s in all"
grep '^VMTEST: time - ' "$log" | sed 's/^VMTEST: time - /vm-systemd:   /' >&2 || true
last=$(grep -E '^VMTEST: (ok|FAIL|time)' "$log" | tail -1 || true)
[ "$rc" = 124 ] || [ "$rc" = 137 ] &&
	fail "the VM timed out after ${vm_timeout}s; last: ${last:-nothing}: see $log"
grep -q '^VMTEST: start' "$log" ||
	fail "the VM did not get to the test (qemu exit $rc; kernel, systemd or iprof-vmtest.service): see $log"
summary=$(grep -E '^VMTEST: done: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
if [ -z "$summary" ]; then
	kp=$(grep -m1 -o 'Kernel panic - .*' "$log" || true)
	[ -z "$kp" ] || fail "the guest kernel panicked (${kp}); last: $last: see $log"
	fail "the VM stopped with no summary (qemu exit $rc); last: ${last:-nothing}: see $log"
fi
nfail=$(grep -c '^VMTEST: FAIL' "$log" || true)
[ "$nfail" = 0 ] || fail "$nfail check(s) failed: $(grep '^VMTEST: FAIL' "$log" | cut -c16- | tr '\n' ';') (see $log)"
say "ok: ${summary#VMTEST: done: }"
