#!/bin/bash
# Acceptance: several events in the full-screen view, through tmux. perftop -e cpu-clock -e
# page-faults on a Python loop that maps and writes fresh pages: the header names the event shown and
# says which of the two it is, Tab switches to the other (its own rows: the table differs), Tab again
# comes back, the function view follows a switch, the help lists Tab, and q exits with status 0. The
# session's recording (-o) replayed in the view: both events, Tab between them.
set -u
pt=${1:?usage: test_events_tmux.sh PERFTOP}
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
. "$(dirname "$0")/../perfprobe.sh"
need_perf_events task
sock=perftop-events-$$
tmpd=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmpd"' EXIT
fail() { echo "FAIL: $*"; echo "--- screen:"; tm capture-pane -p -t t 2>/dev/null; exit 1; }
wait_for() {
	for _ in $(seq 80); do
		tm capture-pane -p -t t 2>/dev/null | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# The symbols of the table's first rows (the lines under the column titles).
rows() { tm capture-pane -p -t t | sed -n '/^ *Self%/,$p' | sed -n '2,7p' | awk '{print $4}'; }

work='import mmap, time
t = time.time()
while time.time() - t < 60:
    m = mmap.mmap(-1, 8 << 20)
    for i in range(0, 8 << 20, 4096): m[i] = 1
    m.close()
    sum(i * i for i in range(30000))'
tm new-session -d -s t -x 120 -y 30 "$pt -d 0.5 -o $tmpd/two.data -e cpu-clock -e page-faults -- python3 -c '$work'; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'event 1/2: cpu-clock' || fail "the header does not name the first event"
wait_for '^ *Self%' || fail "no table"
sleep 1.2
first=$(rows)
[ -n "$first" ] || fail "no rows for cpu-clock"
tm send-keys -t t Tab
wait_for 'event 2/2: page-faults' || fail "Tab did not switch to page-faults"
sleep 0.2
second=$(rows)
[ -n "$second" ] || fail "no rows for page-faults"
[ "$first" != "$second" ] || fail "the two events show the same rows: $first"
checks=4
tm send-keys -t t Tab
wait_for 'event 1/2: cpu-clock' || fail "Tab did not come back to cpu-clock"
checks=$((checks + 1))
# The function view of the first row follows a switch (its header names the other event).
tm send-keys -t t Enter
wait_for 'Callers of' || fail "Enter did not open the function view"
tm send-keys -t t Tab
wait_for 'event 2/2: page-faults' || fail "Tab in the function view did not switch"
wait_for 'Callers of' || fail "the function view is gone after Tab"
tm send-keys -t t Escape
checks=$((checks + 2))
tm send-keys -t t '?'
wait_for 'Tab  Shift-Tab +next / previous event' || fail "the help does not list Tab"
tm send-keys -t t Escape
checks=$((checks + 1))
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit with status 0"
checks=$((checks + 1))

tm kill-server 2>/dev/null
sock=perftop-events-$$-replay
tm new-session -d -s t -x 120 -y 30 "$pt -i $tmpd/two.data; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'event 1/2: cpu-clock' || fail "the replay does not show the first event"
tm send-keys -t t Tab
wait_for 'event 2/2: page-faults' || fail "Tab in the replay did not switch to page-faults"
wait_for 'mmap_ass_subscript|[0-9]+\.[0-9]+%' || fail "no rows for page-faults in the replay"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not end the replay with status 0"
checks=$((checks + 3))
printf 'cpu-clock rows: %s\npage-faults rows: %s\n' "$(echo $first)" "$(echo $second)"
echo "$checks passed, 0 failed"
