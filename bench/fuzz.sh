#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every fuzz target of fuzz/ (fuzz/targets.cmake lists them) for MINUTES minutes each under libFuzzer
# (clang's, ASan and UBSan), two at a time, niced: bench/fuzz.sh MINUTES [TARGET...]
# It configures and builds build-fuzz when needed (cmake -DPERFTOP_FUZZ=ON -DCMAKE_C_COMPILER=clang),
# seeds the corpora from real files made now (fuzz/make-corpus.sh, with build/ for test_gopclntab's
# tables when it is built), keeps what each target finds in OUT/corpus/TARGET across runs, and prints
# per target: the minutes it ran, its runs and runs a second, its coverage (libFuzzer's final cov:
# and ft:), its corpus, and its crashes, hangs (inputs over 10 s), leaks and out-of-memory inputs,
# with where their inputs are (OUT/artifacts/TARGET/). OUT is build-fuzz/fuzz-run (FUZZ_OUT=...).
# A target stops at its first finding (libFuzzer does); the inputs replay with ./fuzz_TARGET FILE.
set -u
minutes=${1:?usage: bench/fuzz.sh MINUTES [TARGET...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
fb=${FUZZ_BUILD_DIR:-$root/build-fuzz}
nb=${BUILD_DIR:-$root/build}
out=${FUZZ_OUT:-$fb/fuzz-run}
jobs=${FUZZ_JOBS:-2}
if [ $# -gt 0 ]; then
	targets=("$@")
else
	read -r -a targets <<<"$(sed -n '/^set(PERFTOP_FUZZ_TARGETS/,/)/p' "$root/fuzz/targets.cmake" |
		tr -d '()' | sed 's/setPERFTOP_FUZZ_TARGETS//' | tr '\n' ' ')"
fi

[ -f "$fb/CMakeCache.txt" ] ||
	cmake -S "$root" -B "$fb" -DPERFTOP_FUZZ=ON -DCMAKE_C_COMPILER=clang >/dev/null || exit 1
nice cmake --build "$fb" -j"$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}") pysnap >"$out.build.log" 2>&1 ||
	{ echo "fuzz.sh: the fuzz build failed (see $out.build.log)"; exit 1; }
mkdir -p "$out/seeds" "$out/corpus" "$out/logs"
if [ ! -f "$out/seeds/.made" ]; then
	gob=""
	[ -x "$nb/tests/symbolize/test_gopclntab" ] && gob=$nb
	"$root/fuzz/make-corpus.sh" "$out/seeds" "$gob" "$fb" >"$out/seeds.log" 2>&1 ||
		echo "fuzz.sh: some seeds could not be made (see $out/seeds.log)"
	touch "$out/seeds/.made"
fi

run_one() {
	local t=$1 log=$out/logs/$1.log
	mkdir -p "$out/corpus/$t" "$out/artifacts/$t" "$out/seeds/$t"
	local start=$(date +%s)
	(cd "$out/artifacts/$t" && nice -n "${FUZZ_NICE:-10}" "$fb/fuzz/fuzz_$t" -max_total_time=$((minutes * 60)) \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" \
		"$out/corpus/$t" "$out/seeds/$t" >"$log" 2>&1)
	echo "rc=$? seconds=$(($(date +%s) - start))" >>"$log"
}
echo "fuzz.sh: ${#targets[@]} targets, $minutes min each, $jobs at a time, from $(date -u +%H:%M) UTC"
running=0
for t in "${targets[@]}"; do
	rm -f "$out/artifacts/$t"/* 2>/dev/null
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

printf '%-10s %5s %11s %8s %6s %7s %7s %7s %5s %5s %4s  %s\n' target min runs exec/s cov ft corpus crashes hangs leaks oom findings
total_find=0
for t in "${targets[@]}"; do
	log=$out/logs/$t.log
	secs=$(sed -n 's/^rc=.* seconds=//p' "$log")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
	a=$out/artifacts/$t
	c=$(ls "$a" | grep -c '^crash-'); h=$(ls "$a" | grep -c '^timeout-')
	l=$(ls "$a" | grep -c '^leak-'); o=$(ls "$a" | grep -c '^oom-')
	n=$((c + h + l + o)); total_find=$((total_find + n))
	where=-; [ "$n" -gt 0 ] && where=$a
	printf '%-10s %5s %11s %8s %6s %7s %7s %7s %5s %5s %4s  %s\n' "$t" "$(awk -v s="${secs:-0}" 'BEGIN{printf "%.1f", s/60}')" \
		"${runs:--}" "${eps:--}" "${cov:--}" "${ft:--}" "${corp:--}" "$c" "$h" "$l" "$o" "$where"
done
echo "fuzz.sh: $total_find findings; logs in $out/logs, corpora in $out/corpus; $(nproc) CPUs, $(uname -r), $(clang --version | head -1)"
[ "$total_find" -eq 0 ]
