#!/usr/bin/env bash
# Install iprof's build and test dependencies from Debian (12 or later), as root.
# libbpf must be 1.4 or later (CMakeLists.txt) and bpftool as new: Debian 12
# has them in bookworm-backports (libbpf-dev 1.4.6, bpftool 7.5), added here
# as /etc/apt/sources.list.d/bookworm-backports.sources and used for those
# two packages only; a newer Debian has them in its own suite.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config clang llvm
      libelf-dev zlib1g-dev libjson-c-dev libcmocka-dev
      libcapstone-dev  # return sites of user functions (src/probe/retsite.c)
      libiberty-dev  # C++ and Rust demangling (src/probe/sym.c)
      libdw-dev  # their bounds from .eh_frame (src/probe/retsite.c)
      systemtap-sdt-dev  # sys/sdt.h: the USDT probes of tools/usdt-workload.c
      protobuf-c-compiler libprotobuf-c-dev  # -f pprof (src/report/profile.proto)
      golang-go  # e2e: go tool pprof reads -f pprof (test_pprof)
      g++  # e2e: the C++ exception workload
      libmicrohttpd-dev libsystemd-dev  # --listen, Type=notify
      jq curl python3-prometheus-client  # e2e: JSON, /metrics, the OpenMetrics parser
      chromium  # e2e: lays -f svg out headless (test_svg)
      # e2e: a cluster's own USDT probes and pg_stat_statements, in
      # postgresql-15 (test_postgres: its own cluster, socket and port; on
      # a systemd host the package starts a main cluster on :5432 too)
      postgresql
      # e2e: a real Prometheus scrapes --listen, promtool lints the names
      # (test_prometheus); ss finds its port.  On a systemd host the
      # package enables prometheus.service (:9090, /var/lib/prometheus):
      # the test runs its own instance on free ports and needs none of it
      prometheus iproute2
      systemd  # systemd-analyze verify/security of the unit (test_service)
      # the VM tier (tests/vm/run.sh: qemu and the initramfs; systemd.sh:
      # the booted system's image), installed here so that the two, run
      # at once by tests/run.sh, never wait on each other's apt-get
      qemu-system-x86 busybox-static bash-static cpio mmdebstrap e2fsprogs
      dpkg-dev lintian  # CPack DEB (dpkg-shlibdeps) and its check (test_package)
      libclang-rt-dev)  # libFuzzer and the sanitizers' runtimes for clang
bpf_pkgs=(libbpf-dev bpftool)  # libbpf >= 1.4
bpf_suite=()
. /etc/os-release
if [ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ]; then
	src=/etc/apt/sources.list.d/bookworm-backports.sources
	if [ ! -e "$src" ] && ! grep -rqs '^[^#]*bookworm-backports' \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
		cat >"$src" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
		echo "added $src" >&2
		apt_stale=1
	fi
	bpf_suite=(-t bookworm-backports)
fi
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
# libbpf-dev below 1.4 and bpftool below 7.5 (Debian 12's own) count as
# missing
bpf_missing=()
for p in "${bpf_pkgs[@]}"; do
	installed "$p" || { bpf_missing+=("$p"); continue; }
	v=$(dpkg-query -W -f='${Version}' "$p")
	if { [ "$p" = libbpf-dev ] && ! dpkg --compare-versions "$v" ge 1:1.4; } ||
	   { [ "$p" = bpftool ] && ! dpkg --compare-versions "$v" ge 7.5; }; then
		bpf_missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ] || [ ${#bpf_missing[@]} -gt 0 ] ||
   [ -n "${apt_stale:-}" ]; then
	apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}" >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#bpf_missing[@]} -gt 0 ]; then
	echo "installing${bpf_suite[*]:+ from ${bpf_suite[1]}}: ${bpf_missing[*]}" >&2
	apt-get install -y -qq --no-install-recommends "${bpf_suite[@]}" \
		"${bpf_missing[@]}" >/dev/null
fi
