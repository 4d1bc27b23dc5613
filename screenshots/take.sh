#!/bin/bash
# Takes the README's screenshots of the real perftop. Workloads are recorded first (perftop -o), then
# replayed in tmux, so the pictures come out the same from run to run: the main table, the function
# view (Enter), annotate (a), the flame graph (f), a replay with its timeline and a range, a diff
# against a baseline (--diff), several events (Tab), off-CPU time by state and its flame graph,
# Python functions and their flame graph, a machine's containers, and one live view for the counters line (a recording
# holds none).
# Each pane is captured with its colours (capture-pane -e) and drawn as PNG by ansilove.
#
# ansilove reads CP437 and knows neither UTF-8, the "default colour" codes nor reversed cells, so a
# capture goes through a converter first (screenshots/to_ans.py).
#
# usage: screenshots/take.sh [PERFTOP]   (as root; needs tmux, ansilove and the build's fixtures:
#        PERFTOP's directory holds fixtures/drill_fixture, diff_work and blocker)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pt=$(realpath "${1:-$here/../build/perftop}")
fx=$(dirname "$pt")/fixtures
COLS=120
ROWS=32
sock=perftop-shot-$$
tmp=$(mktemp -d /tmp/perftop-shots.XXXXXX)
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
export LANG=C.UTF-8
unset LC_ALL NO_COLOR
# The view saves what is changed in it (order, orientation...) and starts from it the next time: a
# fresh settings directory, so that every run starts from the defaults the pictures assume.
export XDG_CONFIG_HOME=$tmp/config
for f in drill_fixture diff_work blocker; do
	[ -x "$fx/$f" ] || { echo "take.sh: $fx/$f is missing (build the tests first)" >&2; exit 1; }
done

to_ans() { # a capture on stdin -> CP437 ANSI on stdout (screenshots/to_ans.py says how)
	python3 "$here/to_ans.py" "$COLS"
}

shot() { # NAME: the pane as screenshots/NAME.png
	tm capture-pane -e -N -p -t s | to_ans > "$tmp/$1.ans"
	ansilove -q -c "$COLS" -o "$here/$1.png" "$tmp/$1.ans" >/dev/null
	echo "wrote screenshots/$1.png"
}

wait_for() { # REGEX: polls the pane for up to 20 s
	local i
	for ((i = 0; i < 200; i++)); do
		tm capture-pane -p -t s | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	echo "take.sh: '$1' did not show" >&2
	tm capture-pane -p -t s >&2
	return 1
}

shots=0
start() { # ARGS...: perftop in a fresh session, on a fresh server (a new session right after the old
	# server's last one ended can race with its exit: "server exited unexpectedly")
	tm kill-server 2>/dev/null || true
	shots=$((shots + 1))
	sock=perftop-shot-$$-$shots
	tm new-session -d -s s -x "$COLS" -y "$ROWS" "TERM=xterm-256color $pt $*; sleep 30"
}

# Plays a replay to its end as fast as it goes: the last table stays on screen.
to_end() {
	wait_for 'speed 1x'
	for _ in 1 2 3 4 5 6; do tm send-keys -t s +; done
	wait_for '^ *END'
	sleep 0.5
}

# The cursor onto the row of NAME: / searches, Enter ends the search on the match.
cursor_to() {
	tm send-keys -t s / "$1" Enter
	sleep 0.4
}

# --- recordings ---
# The drill fixture (main -> top -> mid -> leaf_a / leaf_b) in two bursts with a pause between,
# so that the timeline has a shape.
"$pt" -o "$tmp/drill.data" -b -d 60 -- sh -c "$fx/drill_fixture 4; sleep 1.5; $fx/drill_fixture 3" >/dev/null
# A baseline and a changed run for --diff: work_a:b:d = 2:1:1, then work_a:b:c = 1:1:2.
"$pt" -o "$tmp/old.data" -b -d 60 -- "$fx/diff_work" 3 2 1 0 1 >/dev/null
"$pt" -o "$tmp/new.data" -b -d 60 -- "$fx/diff_work" 3 1 1 2 0 >/dev/null

# --- the main table, the function view, the flame graph, annotate (replayed to the end) ---
start -i "$tmp/drill.data" -d 0.5
to_end
cursor_to leaf_a
shot table
cursor_to mid
tm send-keys -t s Enter
wait_for 'Callers of'
sleep 0.3
shot function
tm send-keys -t s q
sleep 0.3
tm send-keys -t s f
wait_for 'leaf_b'
sleep 0.3
shot flame
tm send-keys -t s q
sleep 0.3
# annotate (another part of issue 6): taken when this build has it
cursor_to leaf_a
tm send-keys -t s a
sleep 1
if tm capture-pane -p -t s | grep -qE 'fixture\.c|Source|annotate'; then
	wait_for 'leaf_a'
	# s twice: source and assembly interleaved
	tm send-keys -t s s
	sleep 0.3
	tm send-keys -t s s
	sleep 0.5
	shot annotate
else
	echo "take.sh: this build has no annotate view yet: annotate.png not taken" >&2
fi

# --- a replay with its timeline: a range over the first burst, played at 2x, paused ---
start -i "$tmp/drill.data" -d 0.5
wait_for 'speed 1x'
sleep 1
tm send-keys -t s '['
sleep 2.2
tm send-keys -t s ']'
tm send-keys -t s +
sleep 1.6
tm send-keys -t s Space
wait_for 'PAUSED'
sleep 0.5
shot replay

# --- a diff against the baseline: rows ordered by the change, new and gone marked ---
start -i "$tmp/new.data" --diff "$tmp/old.data" -d 0.5
to_end
shot diff

# --- several events: cpu-clock and a uprobe on leaf_b (every call), Tab shows the second ---
"$pt" -o "$tmp/events.data" -b -d 60 -e cpu-clock -e "uprobe:$fx/drill_fixture:leaf_b" \
	-- "$fx/drill_fixture" 4 >/dev/null
start -i "$tmp/events.data" -d 0.5
to_end
tm send-keys -t s Tab
wait_for 'event 2/2'
sleep 0.5
shot events

# --- off-CPU time: blocker's threads waiting (sleep, fdatasync, a mutex) by state, and their flame
# graph; recorded live with --off-cpu, replayed with it (the switches are paired again) ---
io=$(mktemp -d /var/tmp/perftop-shot-io.XXXXXX)
"$pt" --off-cpu -o "$tmp/offcpu.data" -b -d 60 -- "$fx/blocker" 3 --dir "$io" --out "$tmp/blocker.json" >/dev/null
rm -rf "$io"
start -i "$tmp/offcpu.data" --off-cpu -s state,sym -d 0.5
to_end
cursor_to sync_wait
shot offcpu
tm send-keys -t s f
wait_for 'lock_wait'
sleep 0.5
shot offcpu-flame

# --- Python frames: tests/python/pysplit.py (alpha and beta call inner 7:3) under a CPython with
# --call-graph dwarf (whole native chains through the interpreter), replayed: Python functions among
# the native and kernel frames, and their flame graph ---
py=$(command -v python3)
"$pt" --call-graph dwarf -o "$tmp/py.data" -b -d 60 -- "$py" "$here/../tests/python/pysplit.py" 3 >/dev/null
start -i "$tmp/py.data" -d 0.5
to_end
tm send-keys -t s '>'
wait_for 'order: Total'
cursor_to "beta"
shot python
tm send-keys -t s f
wait_for 'beta'
sleep 0.5
shot python-flame

# --- containers: three cgroups in the layouts the runtimes write (a Docker container, a Kubernetes
# pod's container, a systemd service) under the perf_event hierarchy, each running a fixture; the
# machine recorded with -s container (the samples carry their cgroups), replayed by container and
# function, the header's shares above ---
cgmount=$(python3 -c "import sys; sys.path.insert(0, '$here/../tests/lib'); import cgrouplib; print(cgrouplib.perf_event_mount()[0] or '')")
if [ -n "$cgmount" ]; then
	id=3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b
	kid=9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f
	pod=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0b4f5a1e_1c2d_4e3f_8a9b_0c1d2e3f4a5b.slice
	cgs=("system.slice/docker-$id.scope" "$pod/cri-containerd-$kid.scope" "system.slice/nginx.service")
	cmds=("$fx/diff_work 4 3 0 0 1" "$fx/drill_fixture 4" "$fx/diff_work 4 0 1 1 0")
	pids=()
	for i in 0 1 2; do
		mkdir -p "$cgmount/${cgs[$i]}"
		sh -c "echo \$\$ > '$cgmount/${cgs[$i]}/cgroup.procs' && exec ${cmds[$i]}" >/dev/null &
		pids+=($!)
	done
	sleep 0.3
	"$pt" -a -s container,sym -o "$tmp/cg.data" -b -d 3 -n 1 >/dev/null
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	for i in 0 1 2; do rmdir "$cgmount/${cgs[$i]}" 2>/dev/null || true; done
	rmdir "$cgmount/$pod" "$cgmount/kubepods.slice/kubepods-burstable.slice" \
		"$cgmount/kubepods.slice" "$cgmount/system.slice" 2>/dev/null || true
	start -i "$tmp/cg.data" -s container,sym -d 0.5
	to_end
	shot containers
else
	echo "take.sh: no perf_event cgroup hierarchy here: containers.png not taken" >&2
fi

# --- live: the counters line under the mode line (context switches, migrations, page faults,
# perftop's own CPU; cycles, instructions and IPC where the machine has a PMU) ---
start -d 1 -- "$fx/drill_fixture" 30
wait_for 'ctx-sw'
sleep 2.5
shot live-counters
tm kill-session -t s 2>/dev/null || true
