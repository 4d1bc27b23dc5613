#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sampler_cgroup: the kernel's cgroup side of the sampler, both ways. Two cgroups made under the
# perf_event hierarchy's mount, a busy loop in each and a third outside them:
#  - perftop -a -G A -o FILE samples only A's loop: every sample of the file (perf script) is of
#    A's pid, as in perf record -a -G A's on the same setup (the kernel filters); a missing cgroup
#    and -G without -a or -C are one-line errors;
#  - a system-wide recording with opts.sample_cgroup (cgroup_record, the sampler through perfdata's
#    tee: the command line leaves it to the session) names both cgroups by path in perf report
#    --sort cgroup,comm, and the queue's samples of each loop carry its cgroup's inode (the kernfs
#    id) with the cgroup records naming them.
# The cgroups are removed after the loops exit, even on failure. Skips when no hierarchy has the
# perf_event controller (asked of /proc/cgroups and /proc/self/mountinfo), perf is missing or the
# kernel refuses per-CPU events.
# Part offcpu (its own ctest test: it needs tracefs and the sched_switch tracepoint): A's loop
# sleeps instead, and perftop -a -G A --off-cpu -o FILE must hold switch-outs of A's tasks only
# (its loop, its forks and the sleeps they become), none of the spinning loops' (which the scheduler
# preempts) nor any other task's.
#   test_sampler_cgroup.sh PERFTOP CGROUP_RECORD [offcpu]
set -u
pt=$1
rec=$2
part=${3:-}
. "$(dirname "$0")/../lib/perfprobe.sh"
need_perf_events cpu
[ "$part" = offcpu ] && need_perf_events tracepoint:sched:sched_switch
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }

# The hierarchy: v1's mount with the perf_event option when /proc/cgroups gives it a hierarchy,
# else cgroup2's.
hier=$(awk '$1 == "perf_event" { print $2 }' /proc/cgroups)
if [ -n "$hier" ] && [ "$hier" != 0 ]; then
	mnt=$(awk '{ split($0, a, " - "); split(a[2], b, " "); if (b[1] == "cgroup" && b[3] ~ /(^|,)perf_event(,|$)/) { print $5; exit } }' /proc/self/mountinfo)
else
	mnt=$(awk '{ split($0, a, " - "); split(a[2], b, " "); if (b[1] == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
fi
[ -n "$mnt" ] || { echo "skip: no cgroup hierarchy with the perf_event controller is mounted"; exit 77; }

tmp=$(mktemp -d)
relA=/pt_sc_$$_A
relB=/pt_sc_$$_B
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rmdir "$mnt$relA" "$mnt$relB" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$mnt$relA" "$mnt$relB" || fail "cannot make cgroups under $mnt"
# Each loop moves itself into its cgroup before it spins; the third stays where the test is.
spin() { bash -c "${1:+echo \$\$ > '$1/cgroup.procs' || exit 1;} while :; do :; done" & pids+=($!); }
if [ "$part" = offcpu ]; then
	# every task it starts is logged, so that the samples can be held to A's tasks exactly
	bash -c "echo \$\$ > '$mnt$relA/cgroup.procs' || exit 1
		while :; do sleep 0.01 & echo \$! >>'$tmp/a.tasks'; wait; done" & pids+=($!)
else
	spin "$mnt$relA"
fi
pidA=$!
spin "$mnt$relB"; pidB=$!
spin ""; pidO=$!
for i in $(seq 50); do
	grep -qx "$pidA" "$mnt$relA/cgroup.procs" && grep -qx "$pidB" "$mnt$relB/cgroup.procs" && break
	sleep 0.02
done
grep -qx "$pidA" "$mnt$relA/cgroup.procs" || fail "loop A is not in $relA"
grep -qx "$pidB" "$mnt$relB/cgroup.procs" || fail "loop B is not in $relB"
echo "mount $mnt: A $relA pid $pidA, B $relB pid $pidB, outside pid $pidO"

if [ "$part" = offcpu ]; then
	"$pt" -a -G "$relA" --off-cpu -b -q -n 2 -d 0.3 -o "$tmp/o.data" >"$tmp/o.out" 2>&1 ||
		{ cat "$tmp/o.out"; fail "perftop -a -G $relA --off-cpu failed"; }
	sleep 0.1   # the loop logs its last task after its fork
	kill -STOP "${pids[@]}"
	perf script -i "$tmp/o.data" -F pid,comm >"$tmp/o.txt" 2>"$tmp/o.err" || { cat "$tmp/o.err"; fail "perf script"; }
	n=$(awk -v a="$pidA" '$NF == a' "$tmp/o.txt" | wc -l)
	# A's loop and the tasks it started (bash until they exec sleep), and no other
	echo "$pidA" >>"$tmp/a.tasks"
	others=$(awk 'NR == FNR { a[$1] = 1; next } !($NF in a)' "$tmp/a.tasks" "$tmp/o.txt" |
		sort | uniq -c | head -5)
	echo "off-CPU: $n switch-outs of A's loop, others: ${others:-none}"
	[ "$n" -gt 5 ] || fail "only $n switch-outs of A's loop (it sleeps 100 times a second)"
	[ -z "$others" ] || fail "switch-outs of tasks outside $relA: $others"
	echo "ok"
	exit 0
fi

# The three recordings while the loops spin (-G: perftop's and perf's; sample_cgroup: the
# sampler's with the tee), then the loops stopped so that the readers do not wait behind them.
"$pt" -a -G "$relA" -e cpu-clock -F 499 -b -q -n 2 -d 0.3 -o "$tmp/g.data" >"$tmp/g.out" 2>&1 ||
	{ cat "$tmp/g.out"; fail "perftop -a -G $relA failed"; }
perf record -q -B -a -e cpu-clock -F 499 -G "$relA" -o "$tmp/p.data" -- sleep 0.6 >/dev/null 2>"$tmp/p.err" ||
	{ cat "$tmp/p.err"; fail "perf record -a -G $relA"; }
"$rec" "$tmp/c.data" 600 >"$tmp/c.out" 2>"$tmp/c.err" || { cat "$tmp/c.err"; fail "cgroup_record"; }
kill -STOP "${pids[@]}"

# --- -G: only A's samples, as perf record -G gives ---
perf script -i "$tmp/g.data" -F pid >"$tmp/g.pids" 2>"$tmp/g.err" || { cat "$tmp/g.err"; fail "perf script on perftop's file"; }
perf script -i "$tmp/p.data" -F pid >"$tmp/p.pids" 2>/dev/null || fail "perf script on perf's file"
for f in g p; do
	n=$(grep -c . "$tmp/$f.pids")
	others=$(awk -v a="$pidA" '$1 != a' "$tmp/$f.pids" | sort | uniq -c | head -5)
	echo "$f: $n samples, others: ${others:-none}"
	[ "$n" -gt 10 ] || fail "$f: only $n samples of A's busy loop in 0.6 s"
	[ -z "$others" ] || fail "$f: samples of tasks outside $relA: $others"
done
out=$("$pt" -a -e cpu-clock -G "$relA/no-such" -b -n 1 -d 0.1 2>&1) && fail "-G of a missing cgroup succeeded"
[ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] && [[ $out == *no-such* ]] ||
	fail "-G of a missing cgroup: not one line naming it: $out"
out=$("$pt" -e cpu-clock -G "$relA" -b -n 1 -d 0.1 -- true 2>&1) && fail "-G with a command succeeded"
[[ $out == *"-G needs -a or -C"* ]] || fail "-G with a command: $out"

# --- sample_cgroup: the cgroups named in the queue and in the recording ---
grep -qx "has_cgroup 1" "$tmp/c.out" || fail "the sampler did not keep PERF_SAMPLE_CGROUP"
inoA=$(stat -c %i "$mnt$relA")
inoB=$(stat -c %i "$mnt$relB")
for x in "A $pidA $inoA $relA" "B $pidB $inoB $relB"; do
	set -- $x
	grep -qx "cgroup $3 $4" "$tmp/c.out" || fail "no cgroup record names $4 with id $3 (its inode)"
	n=$(awk -v p="$2" -v i="$3" '$1 == "sample" && $2 == p && $3 == i { n += $4 } END { print n + 0 }' "$tmp/c.out")
	bad=$(awk -v p="$2" -v i="$3" '$1 == "sample" && $2 == p && $3 != i' "$tmp/c.out")
	echo "$1: $n samples of pid $2 in cgroup $3"
	[ "$n" -gt 10 ] || fail "$1: $n samples of pid $2 with cgroup id $3"
	[ -z "$bad" ] || fail "$1: samples of pid $2 with another cgroup id: $bad"
done
perf report -i "$tmp/c.data" --sort cgroup,comm --stdio -g none >"$tmp/c.rep" 2>"$tmp/c.rerr" ||
	{ cat "$tmp/c.rerr"; fail "perf report --sort cgroup on the recording"; }
for r in "$relA" "$relB"; do
	grep -q -- " $r  *bash" "$tmp/c.rep" || { grep -v '^#' "$tmp/c.rep" | head -20; fail "perf report names no $r with bash"; }
done
echo "ok"
