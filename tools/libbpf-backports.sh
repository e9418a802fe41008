#!/usr/bin/env bash
# libbpf-backports.sh [PREFIX]: Debian 12's bookworm-backports libbpf
# (libbpf1, libbpf-dev: 1.4) and bpftool (7.5) unpacked into PREFIX
# (default build-libbpf/prefix), to build against them before the system
# has them (tools/install-deps.sh installs them).  The system's apt
# sources and packages stay as they are: the suite's package lists are
# kept in tests/vm/cache/apt-bookworm-backports, as tests/vm/run.sh keeps
# a kernel suite's.  Then:
#   eval "$(tools/libbpf-backports.sh)"     # PKG_CONFIG_PATH, IPROF_BPFTOOL
#   cmake -S . -B build-bp -DBPFTOOL=$IPROF_BPFTOOL
# Needs root only for apt's lists (apt-get update); prints the two
# variables on stdout.
set -euo pipefail
src=$(realpath "$(dirname "$0")/..")
prefix=$(realpath -m "${1:-$src/build-libbpf/prefix}")
suite=bookworm-backports
a=$src/tests/vm/cache/apt-$suite
mirror=${IPROF_VM_MIRROR:-http://deb.debian.org/debian}
say() { echo "libbpf-backports: $*" >&2; }

mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/dl"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
	>"$a/sources.list"
apt=(-o "Dir::Etc::sourcelist=$a/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
if ! ls "$a"/lists/*Packages* >/dev/null 2>&1 ||
   [ -n "$(find "$a/lists" -name '*Packages*' -mtime +1 | head -1)" ]; then
	apt-get "${apt[@]}" update -qq || say "apt-get update failed; using the lists as they are"
fi
pkgs=(libbpf1 libbpf-dev bpftool)
want=
for p in "${pkgs[@]}"; do
	v=$(apt-cache "${apt[@]}" policy "$p" 2>/dev/null |
		sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] || { say "no $p in $suite"; exit 1; }
	want+="$p=$v "
done
# unpacked already (a build may be using it): kept
if [ "$(cat "$prefix/.packages" 2>/dev/null)" != "$want" ]; then
	rm -rf "$a/dl" && mkdir -p "$a/dl"
	for p in $want; do
		(cd "$a/dl" && apt-get "${apt[@]}" download -q \
			-o APT::Sandbox::User=root "$p" >/dev/null)
		say "$p"
	done
	rm -rf "$prefix" && mkdir -p "$prefix"
	for d in "$a"/dl/*.deb; do
		dpkg-deb -x "$d" "$prefix"
	done
	# the .pc names /usr: point it at the prefix
	pc=$(find "$prefix" -name libbpf.pc | head -1)
	[ -n "$pc" ] || { say "no libbpf.pc in the packages"; exit 1; }
	sed -i "s#^prefix=.*#prefix=$prefix/usr#" "$pc"
	echo "$want" >"$prefix/.packages"
fi
pc=$(find "$prefix" -name libbpf.pc | head -1)
# the shared object's link (libbpf.so -> libbpf.so.1.4.x) is relative: kept
echo "export PKG_CONFIG_PATH=$(dirname "$pc")"
echo "export IPROF_BPFTOOL=$prefix/usr/sbin/bpftool"
