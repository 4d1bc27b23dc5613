#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# each-alone.sh BUILD_DIR [REGEX]: runs every test of the suite (or those matching REGEX) alone, one
# ctest invocation each (its fixtures come with it), and prints one line per test: PASS, SKIP or
# FAIL with its time, then the failures' names. What it shows: no test depends on another having
# run before it (a cache filled, tracefs mounted, a fixture binary built by a test). Not part of
# make test: it takes as long as the whole suite run serially.
set -u
build=${1:?usage: each-alone.sh BUILD_DIR [REGEX]}
cd "$build" || exit 2
mapfile -t tests < <(ctest -N -R "${2:-.}" | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p' |
	grep -v -x -e tracefs_setup -e tracefs_cleanup)
failed=()
for t in "${tests[@]}"; do
	start=$(date +%s%N)
	out=$(ctest -R "^${t}\$" --output-on-failure --timeout 300 2>&1)
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	if [ $rc -ne 0 ]; then
		verdict=FAIL
		failed+=("$t")
		echo "$out" | tail -40 > "each-alone-$t.log"
	elif echo "$out" | grep -q 'tests passed, 0 tests failed' && echo "$out" | grep -qE '\*\*\*Skipped|Not Run'; then
		verdict=SKIP
	else
		verdict=PASS
	fi
	printf '%-4s %4d.%d s  %s\n' "$verdict" $((ms / 1000)) $((ms % 1000 / 100)) "$t"
done
echo "${#tests[@]} tests run alone, ${#failed[@]} failed: ${failed[*]:-none}"
[ ${#failed[@]} = 0 ]
