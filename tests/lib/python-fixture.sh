#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The python3 the tests run, found once per ctest run, as a ctest fixture (tests/CMakeLists.txt:
# FIXTURES_SETUP python; every test requires it and has DIR early in its PATH).
#
#   python-fixture.sh DIR
#
# DIR/python3 is made a link to the interpreter that the python3 first on PATH (without DIR) runs,
# as that interpreter names itself (sys.executable), and DIR/python3.Y to its python3.Y beside it
# (pyenv's shim runs the interpreter with its version's bin directory first in PATH, where the
# Python tests, tests/python/pylib.py, found python3.Y first). The tests still run under the
# python3 first on PATH when they run (`PATH=/usr/bin:$PATH ctest` runs them all under Debian's),
# but a pyenv shim (a bash script that runs pyenv, which looks up the version and runs the
# interpreter) is asked once per run instead of at each start: 0.4 s to 0.9 s of CPU a start on
# this VM against 0.2 s, and the suite starts python3 some 170 times (138 tests, workloads, the
# tmux tests' helpers).
# No python3 on PATH: no link, and a test that needs one says so itself. Never fails the run.
set -u
dir=${1:?usage: python-fixture.sh DIR}
mkdir -p "$dir"
rm -f "$dir/python3" "$dir"/python3.*
path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$dir" | paste -sd: -)
ask='import sys; print(sys.executable, "python%d.%d" % sys.version_info[:2])'
set -- $(PATH=$path python3 -c "$ask" 2>/dev/null)
exe=${1:-} versioned=${2:-}
case $exe in
/*)
	ln -s "$exe" "$dir/python3"
	beside=$(dirname "$exe")/$versioned
	[ -n "$versioned" ] && [ -x "$beside" ] && ln -s "$beside" "$dir/$versioned"
	echo "python3 for the tests: $exe ($(PATH=$path command -v python3) on PATH)"
	;;
*)
	echo "no python3 on PATH: the tests that need one say so"
	;;
esac
exit 0
