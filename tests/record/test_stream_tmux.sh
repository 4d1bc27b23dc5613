#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A live stream piped into the view: perftop -o - (6 refreshes of the spinner) | perftop -i -. The
# view takes the terminal from /dev/tty (its stdin is the stream), says it plays a stream, shows the
# spinner's rows while the producer still runs (no END yet), and END once the stream has ended; q
# quits with status 0. Then an idle stream: q quits at once. Exit 77 only when tmux is missing or
# the kernel refuses the events.
set -u
pt=${1:?usage: test_stream_tmux.sh PERFTOP FIXTURES}
fixtures=${2:?}
. "$(dirname "$0")/../lib/tmuxlib.sh" stream
tm new-session -d -s t -x 160 -y 30 \
	"$pt -b -n 6 -d 1 -o - -- $fixtures/spinner 60 2>/dev/null | $pt -i -; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'stream on stdin' || fail "the view does not say it plays a stream"
wait_for 'spinner_work +spinner' || fail "no spinner rows from the stream"
screen | grep -q 'END ' && fail "END while the producer still runs"
pgrep -f -- "-o - -- $fixtures/spinner" >/dev/null || fail "the producer had already ended: not a live stream"
wait_for 'END ' 150 || fail "no END after the stream ended"
tm send-keys -t t q
wait_for 'PERFTOP-EXITED:0' || fail "the view did not quit with status 0"

# An idle stream (-p of a process that sleeps: nothing after the start): the view stays live, q
# quits it at once (it does not wait for the producer's next record).
sleep 600 & idle=$!
trap 'tm kill-server 2>/dev/null; kill $idle 2>/dev/null' EXIT
tm kill-session -t t
tm new-session -d -s t -x 160 -y 30 \
	"$pt -b -d 1 -o - -p $idle 2>/dev/null | $pt -i - -n 1000; sleep 60"
wait_for 'stream on stdin' || fail "the view of an idle stream does not start"
viewers() { ps -o args= -C perftop | grep -c -- '-i - -n 1000'; }
[ "$(viewers)" = 1 ] || fail "no viewer process"
sleep 1
tm send-keys -t t q
for _ in $(seq 30); do [ "$(viewers)" = 0 ] && break; sleep 0.1; done
[ "$(viewers)" = 0 ] || fail "q did not end the view of an idle stream within 3 s"
echo ok
