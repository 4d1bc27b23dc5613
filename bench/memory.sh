#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory model: the coefficients of perftop's resident memory, measured here.
#  - per CPU: the full-screen view (under tmux) on -C 0 and on -C 0-1 with a busy loop on each CPU,
#    frame pointers alone (--call-graph fp), the default (-g: fp+cfi, with 256-byte stack copies)
#    and --call-graph dwarf, ROUNDS rounds (MODES="fp cfi dwarf" picks them); the difference of RSS (and of peak
#    RSS) is what one more CPU costs (its ring, its share of the queue, its counters and staging);
#  - per process: -a -g with NPROC extra processes sleeping (described from /proc at start) and
#    without them;
#  - per binary: -a -g while NBIN distinct small binaries (the same program built NBIN times, so
#    NBIN build-ids) run one after the other, and while one of them runs NBIN times;
#  - per row: bench/memrows (the model's and the snapshots' heap bytes per row).
# Prints medians and the per-unit figures. Not a test: the figures depend on the machine.
#
# usage: [PARTS="cpu proc bin row"] [MODES="fp cfi dwarf"] [NPROC=2000] [NBIN=30] bench/memory.sh [PERFTOP] [ROUNDS] [SECONDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
rounds=${2:-3}
secs=${3:-15}
build=$(dirname "$pt")
[ -x "$pt" ] || { echo "no perftop at $pt (make build)"; exit 2; }
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 2; }
command -v taskset >/dev/null || { echo "taskset (util-linux) is not installed"; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs"; exit 2; }
sock=perftop-mem-$$
tmpd=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
bg=()
cleanup() { tm kill-server 2>/dev/null; for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmpd"; }
trap cleanup EXIT
stop_bg() { for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; bg=(); }

# The busy loop: a C program with a few frames, so that chains are real.
cat > "$tmpd/busy.c" <<'C'
#include <stdlib.h>
#include <time.h>
#ifndef ID
#define ID 0
#endif
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(void) { for (int i = 0; i < 100000; i++) sink += i * (ID + 1); }
__attribute__((noinline)) static void mid(void) { for (int i = 0; i < 10; i++) leaf(); }
int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 1e9;
	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
	do { mid(); clock_gettime(CLOCK_MONOTONIC, &b); } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer -o "$tmpd/busy" "$tmpd/busy.c" || exit 2

# measure ARGS...: the view for $secs seconds; prints "rss_kib hwm_kib"
measure() {
	tm kill-server 2>/dev/null
	tm new-session -d -s m -x 160 -y 50 "exec $*"
	local pid; pid=$(tm display -p -t m '#{pane_pid}')
	sleep "$secs"
	local r h
	r=$(awk '/^VmRSS/ {print $2}' /proc/"$pid"/status 2>/dev/null)
	h=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status 2>/dev/null)
	tm send-keys -t m q
	sleep 0.5
	tm kill-server 2>/dev/null
	echo "${r:-0} ${h:-0}"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

parts=${PARTS:-cpu proc bin row}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

if want cpu; then
echo "== per CPU (busy loop on each CPU; $rounds rounds of ${secs}s) =="
taskset -c 0 "$tmpd/busy" & bg+=($!)
taskset -c 1 "$tmpd/busy" & bg+=($!)
declare -A rss hwm
for mode in ${MODES:-fp cfi dwarf}; do
	case $mode in fp) cg=(--call-graph fp) ;; cfi) cg=(-g) ;; *) cg=(--call-graph dwarf) ;; esac
	for cpus in 0 0-1; do
		rs=(); hs=()
		for r in $(seq "$rounds"); do
			read -r a b < <(measure "$pt" -C $cpus "${cg[@]}")
			rs+=("$a"); hs+=("$b")
		done
		rss[$mode,$cpus]=$(printf '%s\n' "${rs[@]}" | median)
		hwm[$mode,$cpus]=$(printf '%s\n' "${hs[@]}" | median)
		printf '%-5s -C %-3s  RSS %6s KiB  peak %6s KiB\n' $mode $cpus "${rss[$mode,$cpus]}" "${hwm[$mode,$cpus]}"
	done
	printf '%-5s one more CPU: RSS %+d KiB, peak %+d KiB\n' $mode \
		$(( ${rss[$mode,0-1]%.*} - ${rss[$mode,0]%.*} )) $(( ${hwm[$mode,0-1]%.*} - ${hwm[$mode,0]%.*} ))
done
stop_bg
fi

if want proc; then
nproc_extra=${NPROC:-2000}
echo "== per process ($nproc_extra sleeping processes, -a -g) =="
taskset -c 0 "$tmpd/busy" & bg+=($!)
read -r base _ < <(measure "$pt" -a -g)
sleepers=()
for i in $(seq "$nproc_extra"); do sleep 600 & sleepers+=($!); done
read -r with _ < <(measure "$pt" -a -g)
kill "${sleepers[@]}" 2>/dev/null; wait "${sleepers[@]}" 2>/dev/null
stop_bg
echo "without: $base KiB, with: $with KiB: $(( (with - base) * 1024 / nproc_extra )) bytes per process"
fi

if want bin; then
nbin=${NBIN:-30}
echo "== per binary ($nbin distinct small binaries, -a -g) =="
for i in $(seq "$nbin"); do gcc -O1 -fno-omit-frame-pointer -DID="$i" -o "$tmpd/b$i" "$tmpd/busy.c"; done
( for i in $(seq "$nbin"); do "$tmpd/b1" 0.3; done; sleep 600 ) & bg+=($!)
read -r one _ < <(measure "$pt" -a -g)
stop_bg
( for i in $(seq "$nbin"); do "$tmpd/b$i" 0.3; done; sleep 600 ) & bg+=($!)
read -r many _ < <(measure "$pt" -a -g)
stop_bg
echo "one binary: $one KiB, $nbin binaries: $many KiB: $(( (many - one) / (nbin - 1) )) KiB per binary"
fi

if want row; then
echo "== per row =="
if [ -x "$build/bench/memrows" ]; then "$build/bench/memrows" 100000; else echo "no $build/bench/memrows (make build)"; fi
fi
