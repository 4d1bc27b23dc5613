# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benches that need a machine switching as fast as it can: `perf bench sched pipe`
# on the two CPUs (start_load), and its stop (stop_load). perf bench forks its pipe partner: both
# are stopped, since the partner alone would wait on its pipe for ever, an orphan. The caller's
# EXIT trap calls stop_load.
load=
start_load() {
	perf bench sched pipe -l 1000000000 >/dev/null 2>&1 &
	load=$!
}
stop_load() {
	[ -n "$load" ] || return 0
	pkill -P "$load" 2>/dev/null
	kill "$load" 2>/dev/null
	wait "$load" 2>/dev/null
	load=
}
