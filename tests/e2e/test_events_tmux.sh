#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Acceptance: several events in the full-screen view, through tmux. perftop -e cpu-clock -e
# page-faults on a Python loop that maps and writes fresh pages: the header names the event shown and
# says which of the two it is, Tab switches to the other (its own rows: the table differs), Tab again
# comes back, the function view follows a switch, the help lists Tab, and q exits with status 0. The
# session's recording (-o) replayed in the view to its end with the range over all of it: both
# events, Tab between them, each event's rows of 10% or more with the samples perf report counts on
# the same recording.
set -u
pt=${1:?usage: test_events_tmux.sh PERFTOP}
# tm, fail, wait_for: tests/lib/tmuxlib.sh (a skip without tmux or the perf events)
. "$(dirname "$0")/../lib/tmuxlib.sh" events
tmpd=$(mktemp -d)
trap 'tm kill-server 2>/dev/null; rm -rf "$tmpd"' EXIT
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
# The reference: perf report on the same recording, each event's rows as "symbol samples percent".
perf_rows() {
	perf report -i "$tmpd/two.data" --stdio --no-children -g none --sort sym -n 2>/dev/null |
		awk -v ev="$1" '
			/^# Samples: .* of event / { on = index($0, "'\''" ev "'\''") > 0; next }
			on && /^ +[0-9.]+% +[0-9]+ +\[.\] / { p = $1; sub(/%/, "", p); print $4, $2, p }'
}
# The table's rows on screen in the same form.
table_rows() {
	tm capture-pane -p -t t | sed -n '/^ *Self%/,$p' | awk 'NR > 1 && $1 ~ /%$/ {
		p = $1; sub(/%/, "", p); print $4, $3, p }'
}
# Both ways, on the rows of 10% Self or more (the bar keeps out the rows perftop names differently
# from perf on purpose, such as its Python frames): every such reference row is on screen with the
# same number of samples, and every such row on screen is in the reference with the same number.
# The percentages are not compared: perf weighs cpu-clock samples by their period, perftop counts.
same_rows() {
	local ev=$1 ref got
	ref=$(perf_rows "$ev")
	got=$(table_rows)
	[ -n "$ref" ] || fail "perf report shows no row for $ev in $tmpd/two.data"
	awk -v ref="$ref" -v got="$got" -v ev="$ev" 'BEGIN {
		n = split(ref, r, "\n"); m = split(got, g, "\n")
		for (i = 1; i <= n; i++) { split(r[i], f, " "); want[f[1]] = f[2]; wantp[f[1]] = f[3] }
		for (i = 1; i <= m; i++) { split(g[i], f, " "); have[f[1]] = f[2]; havep[f[1]] = f[3] }
		bad = 0; compared = 0
		for (s in want)
			if (wantp[s] >= 10) {
				compared++
				if (!(s in have) || have[s] != want[s]) {
					printf "%s: %s has %s samples in perf report, %s in the table\n", ev, s,
					       want[s], (s in have) ? have[s] : "no row"; bad = 1 }
			}
		for (s in have)
			if (havep[s] >= 10 && !(s in want)) {
				printf "%s: %s is %s%% in the table, absent from perf report\n", ev, s, havep[s]
				bad = 1 }
		if (!compared) { printf "%s: perf report has no row of 10%% or more\n", ev; bad = 1 }
		exit bad }' || fail "the replay's $ev table differs from perf report on the same recording"
	echo "$ev, replayed over the whole recording: as perf report, rows of 10% or more:" \
		$(echo "$ref" | awk '$3 >= 10 { printf "%s %s samples; ", $1, $2 }')
}
sock=perftop-events-$$-replay
tm new-session -d -s t -x 120 -y 30 "$pt -i $tmpd/two.data; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'event 1/2: cpu-clock' || fail "the replay does not show the first event"
# Played to its end, then ] there: the range is the whole recording and the table its totals, what
# perf report counts (the decayed window of a plain replay is not).
for _ in $(seq 1200); do
	tm capture-pane -p -t t 2>/dev/null | grep -Eq '^ END ' && break
	sleep 0.1
done
wait_for '^ END ' || fail "the replay did not reach its end in 2 minutes"
tm send-keys -t t ']'
wait_for 'range 0\.0s' || fail "] at the end did not set the range"
sleep 0.5
same_rows cpu-clock
tm send-keys -t t Tab
wait_for 'event 2/2: page-faults' || fail "Tab in the replay did not switch to page-faults"
sleep 0.5
same_rows page-faults
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "q did not end the replay with status 0"
checks=$((checks + 4))
printf 'cpu-clock rows: %s\npage-faults rows: %s\n' "$(echo $first)" "$(echo $second)"
echo "$checks passed, 0 failed"
