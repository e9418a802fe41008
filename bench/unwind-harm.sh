#!/usr/bin/env bash
# What kills a program under a uretprobe (issue 43 item 7): a C program
# (host) whose timed() calls a callback, in shapes where an unwinder meets
# timed()'s uretprobe trampoline or not, each run untraced, under
# --returns auto (the default), uretprobe and sites; prints the exit status,
# the program's own line and timed()'s count from iprof's JSON.
#   cross   a dlopen'ed C++ plugin calls timed() with a callback that
#           throws; the plugin catches above timed(): the exception
#           crosses timed()'s frame
#   own     the same plugin's callback throws and catches inside itself
#   exit    a thread's timed() calls pthread_exit (a forced unwind); a
#           pthread_cleanup_push handler in the thread's function above
#   cancel  a thread's timed() waits in pause() and is pthread_cancel'ed
#   exit-x, cancel-x: the same built with -fexceptions (the cleanup
#           handler is an unwinder's landing pad: imports _Unwind_Resume)
#
#   sudo bench/unwind-harm.sh        (IPROF=path, default build/iprof)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
IPROF=${IPROF:-$src/build/iprof}
[ "$(id -u)" = 0 ] || { echo "bench/unwind-harm.sh: needs root" >&2; exit 2; }
T=$(mktemp -d /tmp/iprof-harm.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/host.c" <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile int sink, cleaned;
__attribute__((noinline)) void timed(void (*cb)(int), int i)
{
	cb(i);
	sink++;
}
static void quit(int i) { (void)i; pthread_exit(NULL); }
static void waitc(int i) { (void)i; for (;;) pause(); }
static void clean(void *p) { (void)p; cleaned++; }
static void *thr(void *a)
{
	pthread_cleanup_push(clean, NULL);
	timed((void (*)(int))a, 1);
	pthread_cleanup_pop(0);
	return NULL;
}
int main(int argc, char **argv)
{
	const char *m = argv[1];
	int n = argc > 3 ? atoi(argv[3]) : 5;
	if (!strcmp(m, "exit") || !strcmp(m, "cancel")) {
		for (int i = 0; i < n; i++) {
			pthread_t t;
			pthread_create(&t, NULL, thr, !strcmp(m, "exit") ? (void *)quit : (void *)waitc);
			if (!strcmp(m, "cancel")) {
				usleep(20000);
				pthread_cancel(t);
			}
			pthread_join(t, NULL);
		}
		printf("threads=%d cleanups=%d\n", n, cleaned);
		return 0;
	}
	void *h = dlopen(argv[2], RTLD_NOW);
	if (!h)
		return 2;
	int (*run)(void (*)(void (*)(int), int), int) = (int (*)(void (*)(void (*)(int), int), int))dlsym(h, !strcmp(m, "cross") ? "run_cross" : "run_own");
	printf("caught=%d\n", run(timed, n));
	return 0;
}
C
cat >"$T/plug.cc" <<'C'
#include <stdexcept>
typedef void (*timed_t)(void (*)(int), int);
static void thrower(int) { throw std::runtime_error("x"); }
static void own(int) { try { throw std::runtime_error("x"); } catch (const std::exception &) { } }
extern "C" int run_cross(timed_t t, int n)
{ int c = 0; for (int i = 0; i < n; i++) try { t(thrower, i); } catch (const std::exception &) { c++; } return c; }
extern "C" int run_own(timed_t t, int n)
{ for (int i = 0; i < n; i++) t(own, i); return n; }
C
gcc -O2 "$T/host.c" -o "$T/host" -ldl -lpthread &&
	gcc -O2 -fexceptions "$T/host.c" -o "$T/host-x" -ldl -lpthread &&
	g++ -O2 -fPIC -shared "$T/plug.cc" -o "$T/plug.so" || exit 2
printf '%-9s %-10s %4s  %-26s %s\n' shape returns rc output 'timed count'
for shape in cross own exit cancel exit-x cancel-x; do
	bin=$T/host m=${shape%-x}
	[ "$m" = "$shape" ] || bin=$T/host-x
	out=$("$bin" "$m" "$T/plug.so" 5 2>/dev/null)
	printf '%-9s %-10s %4s  %-26s %s\n' "$shape" untraced "$?" "$out" -
	for r in auto uretprobe sites; do
		out=$("$IPROF" -q --returns "$r" -f json -o "$T/j" -e "uprobe:$bin:timed" \
			-- "$bin" "$m" "$T/plug.so" 5 2>/dev/null)
		rc=$?
		cnt=$(jq -r '[.. | objects | select(.path? == ["timed"]) | .count][0] // "-"' "$T/j" 2>/dev/null)
		printf '%-9s %-10s %4s  %-26s %s\n' "$shape" "$r" "$rc" "${out:-(none)}" "${cnt:--}"
		rm -f "$T/j"
	done
done
