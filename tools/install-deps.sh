#!/usr/bin/env bash
# Install iprof's build and test dependencies from Debian (12 or later), as root.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential cmake pkg-config clang llvm bpftool
      libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libcmocka-dev
      jq  # jq: the end-to-end tests read iprof's JSON
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
