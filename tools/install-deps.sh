#!/usr/bin/env bash
# Install iprof's build and test dependencies from Debian (12 or later), as root.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config clang llvm bpftool
      libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libcmocka-dev
      libcapstone-dev  # return sites of user functions (src/retsite.c)
      libiberty-dev  # C++ and Rust demangling (src/sym.c)
      libdw-dev  # their bounds from .eh_frame (src/retsite.c)
      g++  # e2e: the C++ exception workload
      libmicrohttpd-dev libsystemd-dev  # --listen, Type=notify
      jq curl python3-prometheus-client  # e2e: JSON, /metrics, the OpenMetrics parser
      systemd  # systemd-analyze verify/security of the unit (test_service)
      dpkg-dev lintian  # CPack DEB (dpkg-shlibdeps) and its check (test_package)
      libclang-rt-dev)  # libFuzzer and the sanitizers' runtimes for clang
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}" >&2
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
