#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PMU check: every hardware-PMU path of perftop, live, on this machine, for a machine that has a
# PMU (the suite runs on VMs without one, where tests/pmu's "works" tests skip). One line per
# path, saying whether it worked, was refused by the kernel (and why: perf_probe opens the very
# events the path needs, tests/lib/perfprobe.h) or failed in perftop (with perftop's output):
#
#   counters+IPC   the header's counters line (the view, under tmux) and the JSON counters
#   cycles         -e cycles (and the default event: cycles where the kernel opens it)
#   cycles:pp      precise sampling (PEBS, IBS)
#   lbr            LBR call stacks: -e cycles --call-graph lbr
#   cache          -e L1-dcache-load-misses
#   raw            -e r01c2
#   cpu/event=     -e cpu/event=0x3c/ (the cpu PMU of sysfs)
#   group          -e '{cycles,instructions}'
#
# A sampling path worked when perftop exits 0 and samples the spinner fixture (its busiest row is
# spinner_work), or, for a raw or sysfs code this CPU does not count, opened and took no sample
# (said so). Each path runs a few seconds; the whole check well under a minute. Not a test: it
# prints, and exits 0 unless perftop failed on a path the kernel allows (then 1).
#
# usage: bench/pmu-check.sh [PERFTOP]   (needs build/fixtures/spinner and perf_probe:
#        cmake --build build --target perftop perf_probe spinner)
set -u
here=$(cd "$(dirname "$0")" && pwd)
pt=${1:-$here/../build/perftop}
fixtures=$(dirname "$pt")/fixtures
probe=${PERFTOP_PERF_PROBE:-$fixtures/perf_probe}
spinner=$fixtures/spinner
for f in "$pt" "$probe" "$spinner"; do
	[ -x "$f" ] || { echo "no $f (cmake --build build --target perftop perf_probe spinner)"; exit 2; }
done
tmp=$(mktemp -d /tmp/perftop-pmu-check.XXXXXX)
sock=perftop-pmu-check-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
start=$(date +%s)

sysfs=/sys/bus/event_source/devices
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), kernel $(uname -r)," \
     "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
echo "PMUs in sysfs: $(ls "$sysfs" | tr '\n' ' ')"
for p in "$sysfs"/cpu "$sysfs"/cpu_core "$sysfs"/cpu_atom; do
	[ -d "$p/caps" ] && echo "$(basename "$p") caps: $(cd "$p/caps" && grep -H . * 2>/dev/null | tr '\n' ' ')"
done
echo

# line NAME STATUS DETAIL: one line per path
line() { printf '%-14s %s%s\n' "$1" "$2" "${3:+: $3}"; }
oneline() { tr '\n' ' ' | sed 's/  */ /g; s/ $//' | cut -c1-300; }

# verdict KIND: sets opens (0/1) and why from perf_probe
verdict() {
	why=$("$probe" "$1" 2>&1)
	case $? in
	0) opens=1 ;;
	77) opens=0; why=${why#SKIP: } ;;
	*) opens=0; why="perf_probe $1 failed: $why" ;;
	esac
}

# sampling NAME KIND EVENT [VIEW...]: perftop -b --json -e EVENT $extra on the spinner; each VIEW
# (the event's name by default; a group's members) must sample it
sampling() {
	local name=$1 kind=$2 event=$3; shift 3
	[ $# = 0 ] && set -- "$event"
	verdict "$kind"
	# shellcheck disable=SC2086  # extra: options as words
	"$pt" -b --json -n 0 -d 0.5 -e "$event" ${extra:-} -- "$spinner" 2 >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$opens" = 0 ]; then
		if [ $rc = 0 ]; then
			line "$name" "perftop failed" "it ran though the kernel refuses it ($why): $(oneline <"$tmp/err")"
			failed=1
		else
			line "$name" "refused by the kernel" "$why; perftop (exit $rc): $(oneline <"$tmp/err")"
		fi
		return
	fi
	if [ $rc != 0 ]; then
		line "$name" "perftop failed" "exit $rc though the kernel opens it: $(oneline <"$tmp/err")"
		failed=1
		return
	fi
	local summary
	summary=$(python3 - "$tmp/out" "$@" <<'EOF'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
out, bad = [], False
for ev in sys.argv[2:]:
    mine = [s for s in snaps if s["event"] == ev]
    if not mine:
        out.append(f"{ev}: no view named so ({sorted({s['event'] for s in snaps})})"); bad = True
        continue
    n = sum(s["samples"] for s in mine)
    rows = mine[-1]["rows"]
    if not n or not rows:
        out.append(f"{ev}: opened, no sample (a code this CPU does not count?)")
        continue
    top = max(rows, key=lambda r: r["self"])
    ok = top["sym"] == "spinner_work"
    bad |= not ok
    out.append(f"{ev}: {n} samples, busiest {top['sym']} {top['self']:.0f}%")
print(("BAD " if bad else "OK ") + "; ".join(out))
EOF
)
	case $summary in
	OK*) line "$name" "worked" "${summary#OK }" ;;
	*) line "$name" "perftop failed" "${summary#BAD }"; failed=1 ;;
	esac
}

# counters and IPC: the JSON counters, then the view's counters line under tmux
counters() {
	verdict counters
	"$pt" -b --json -n 3 -d 0.5 -- "$spinner" 3 >"$tmp/out" 2>"$tmp/err"
	local rc=$? json view=""
	json=$(python3 -c '
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
c = snaps[-1]["counters"] if snaps else {}
print(snaps[-1]["event"] if snaps else "-", " ".join(f"{k}={c[k]}" for k in ("cycles", "instructions", "ipc") if k in c) or "none")
' "$tmp/out" 2>&1)
	if command -v tmux >/dev/null; then
		# the spinner's "ready" kept off the view's terminal (it would scroll the view)
		tmux -L "$sock" new-session -d -s c -x 200 -y 30 \
			"$pt -d 0.5 -- sh -c 'exec \"\$@\" >/dev/null' sh $spinner 20; sleep 30"
		for _ in $(seq 50); do
			view=$(tmux -L "$sock" capture-pane -p -t c | grep -m1 'ctx-sw [0-9].*perftop CPU')
			[ -n "$view" ] && break
			sleep 0.2
		done
		sleep 1.2   # a full window of counts
		view=$(tmux -L "$sock" capture-pane -p -t c | grep -m1 'ctx-sw' | sed 's/^ *//')
		tmux -L "$sock" kill-server 2>/dev/null
	else
		view="(tmux is not installed: the view not checked)"
	fi
	if [ $rc != 0 ]; then
		line "counters+IPC" "perftop failed" "exit $rc: $(oneline <"$tmp/err")"
		failed=1
	elif [ "$opens" = 1 ]; then
		case "$json|$view" in
		*ipc=*"|"*IPC*) line "counters+IPC" "worked" "event ${json% *}; JSON ${json#* }; header: $view" ;;
		*) line "counters+IPC" "perftop failed" "the kernel opens the group ($why) but JSON has: ${json#* }; header: $view"
		   failed=1 ;;
		esac
	else
		line "counters+IPC" "refused by the kernel" "$why; perftop: default event ${json%% *}, JSON hardware counters: ${json#* }; header: ${view:-none}"
	fi
}

counters
sampling cycles cycles cycles
sampling cycles:pp precise cycles:pp
extra="--call-graph lbr" sampling lbr lbr cycles
sampling cache cache L1-dcache-load-misses
sampling raw raw r01c2
sampling cpu/event= cpu-pmu cpu/event=0x3c/
sampling group group '{cycles,instructions}' cycles instructions
echo
echo "took $(( $(date +%s) - start )) s"
exit $failed
