#!/usr/bin/env bash
# The Debian package (cmake --build BUILD --target package, CPack DEB): its
# name, dependencies and files; lintian reports no error; unpacked into a
# clean root (dpkg-deb -x), its iprof runs --version and iprof list.
. "$(dirname "$0")/lib.sh"
command -v dpkg-shlibdeps >/dev/null || skip "needs dpkg-dev (tools/install-deps.sh)"
command -v lintian >/dev/null || skip "needs lintian (tools/install-deps.sh)"

ver=$(sed -n 's/^project(iprof VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
arch=$(dpkg --print-architecture)
deb=$BUILD/iprof_${ver}_${arch}.deb
rm -f "$deb"
cmake --build "$BUILD" --target package >"$TMP/cpack.log" 2>&1
check "cmake --build --target package: exit" "$?" 0
[ -f "$deb" ] && ok "package built: $(basename "$deb")" || { bad "no $deb"; tail "$TMP/cpack.log"; finish; }

dep=$(dpkg-deb -f "$deb" Depends)
for d in libbpf1 libelf1 libjson-c5 libmicrohttpd12 libsystemd0 zlib1g libc6; do
	case ", $dep," in *", $d "* | *", $d,"*) ok "Depends has $d" ;; *) bad "Depends lacks $d: $dep" ;; esac
done
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$TMP/files"
for f in /usr/sbin/iprof /usr/share/man/man8/iprof.8.gz /usr/share/iprof/probes.d/kvm.conf \
	/usr/share/doc/iprof/README.md /usr/share/doc/iprof/openmetrics.md \
	/usr/share/doc/iprof/copyright /usr/share/doc/iprof/changelog.gz \
	/usr/lib/systemd/system/iprof@.service /etc/iprof/iprof.env \
	/etc/iprof/probes.d/syscalls.conf /usr/share/bash-completion/completions/iprof; do
	grep -qx "$f" "$TMP/files" && ok "package holds $f" || bad "package lacks $f"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles >"$TMP/conffiles"
check "conffiles" "$(tr '\n' ' ' <"$TMP/conffiles")" "/etc/iprof/iprof.env /etc/iprof/probes.d/syscalls.conf "

lintian "$deb" >"$TMP/lintian" 2>&1
cat "$TMP/lintian"
check "lintian: errors" "$(grep -c '^E:' "$TMP/lintian")" 0
check "lintian: warnings" "$(grep -c '^W:' "$TMP/lintian")" 0

root=$TMP/root
mkdir "$root"
dpkg-deb -x "$deb" "$root"
check "unit ExecStart follows the package's prefix" \
	"$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$root/usr/lib/systemd/system/iprof@.service")" /usr/sbin/iprof
check "iprof --version from the package" "$("$root/usr/sbin/iprof" --version)" \
	"$("$IPROF" --version)"
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
	check "iprof list tracepoints from the package" \
		"$("$root/usr/sbin/iprof" list tracepoints 'syscalls:sys_enter_getppid' 2>/dev/null)" \
		syscalls:sys_enter_getppid
fi
bash -n "$root/usr/share/bash-completion/completions/iprof"
check "bash completion: syntax" "$?" 0
# the packaged completion asks the packaged iprof (tests/lint/options.sh
# checks the source's against every option): -f's words
check "bash completion: formats, from iprof --list-values" \
	"$(bash -c '_init_completion() { words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; cur=${words[cword]}; prev=${words[cword - 1]}; }
		complete() { :; }; . "$1"; COMP_WORDS=("$2" --format ""); COMP_CWORD=2; _iprof; echo "${COMPREPLY[*]}"' \
		_ "$root/usr/share/bash-completion/completions/iprof" "$root/usr/sbin/iprof")" \
	"$("$root/usr/sbin/iprof" --list-values -f | tr '\n' ' ' | sed 's/ $//')"
finish
