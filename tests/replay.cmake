# Replay tests: perftop -i on files made in the test by perf record (skipped, exit 77, only when perf
# is missing or perf record is refused): agreement with perf report, the replay options, and bad input
# through the ASan+UBSan build (perftop_asan) with timeouts and an address-space limit.
set(REPLAY_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/replay)


foreach(t test_replay_report test_replay_options test_replay_switch test_replay_swapped
         test_replay_period)
  add_test(NAME replay_${t}
    COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/${t}.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(replay_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
endforeach()
add_test(NAME replay_test_replay_robust
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_robust.py $<TARGET_FILE:perftop_asan>
    $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(replay_test_replay_robust PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# The replay in the full-screen view, through tmux, on a perf record -g of the spinner made in the test.
add_test(NAME replay_test_replay_tui
  COMMAND bash ${REPLAY_TEST_DIR}/test_replay_tui.sh $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(replay_test_replay_tui PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# --diff: two perf record runs of diff_work with different mixes, perftop -i NEW --diff OLD against
# the mix and against perf diff.
add_executable(diff_work ${REPLAY_TEST_DIR}/diff_work.c)
target_compile_options(diff_work PRIVATE -O1 -g -fno-omit-frame-pointer)
set_target_properties(diff_work PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
add_test(NAME replay_test_diff
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_diff.py $<TARGET_FILE:perftop> $<TARGET_FILE:diff_work>)
set_tests_properties(replay_test_diff PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# Two processes of one stripped binary: unresolved rows by address in the binary, as perf report's.
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/fixtures/diff_work_stripped
  COMMAND objcopy --strip-all $<TARGET_FILE:diff_work> ${CMAKE_BINARY_DIR}/fixtures/diff_work_stripped
  DEPENDS diff_work)
add_custom_target(diff_work_stripped ALL DEPENDS ${CMAKE_BINARY_DIR}/fixtures/diff_work_stripped)
add_test(NAME replay_test_replay_stripped
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_stripped.py $<TARGET_FILE:perftop>
    ${CMAKE_BINARY_DIR}/fixtures/diff_work_stripped)
set_tests_properties(replay_test_replay_stripped PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# The names' pool compacted at nearly every window, on the ASan build: the same output as without.
add_test(NAME replay_test_replay_names
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_names.py $<TARGET_FILE:perftop>
    $<TARGET_FILE:perftop_asan>)
set_tests_properties(replay_test_replay_names PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# The reader alone on small files built in memory (both byte orders, rounds, pipe mode, cut files).
perftop_unit_test(test_perfdata SOURCES ${REPLAY_TEST_DIR}/test_perfdata.c
  LIBS perftop_perfdata perftop_sampler perftop_util)
# The reader on its own thread (perfdata_ahead) against the reader alone, on a file of many chunks.
perftop_unit_test(test_perfdata_ahead SOURCES ${REPLAY_TEST_DIR}/test_perfdata_ahead.c
  LIBS perftop_perfdata perftop_sampler perftop_util TSAN)
# The replay's memo of whole samples' names: what brings a sample's frames back, and what forgets them.
perftop_unit_test(test_sample_memo SOURCES ${REPLAY_TEST_DIR}/test_sample_memo.c ${CMAKE_SOURCE_DIR}/src/session/sample_memo.c
  LIBS perftop_util)
# Files of several events made here by perf record: a perf probe event (on probe_work, which calls
# its function exactly N times) beside cpu-clock, and sched:sched_switch beside cpu-clock -a: each
# event against perf report and perf script.
add_executable(probe_work ${REPLAY_TEST_DIR}/probe_work.c)
target_compile_options(probe_work PRIVATE -O1 -g -fno-omit-frame-pointer)
set_target_properties(probe_work PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
# One test per part (the probe, the tracepoint), so that a part this machine lacks shows as skipped.
foreach(part probe sched)
  add_test(NAME replay_test_replay_events_${part}
    COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_events.py $<TARGET_FILE:perftop> $<TARGET_FILE:probe_work> ${part})
  set_tests_properties(replay_test_replay_events_${part} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
endforeach()
# A replay from another machine: the recording's build-ids (perftop -o, perf record -g, a stream
# through a file and through a pipe) find diff_work's own files (--symfs, the debug root by
# build-id, perf's build-id cache, a local debuginfod) after probe_work replaced it at its path,
# whose names must never be used.
add_test(NAME replay_test_replay_buildid
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_buildid.py $<TARGET_FILE:perftop>
    $<TARGET_FILE:diff_work> $<TARGET_FILE:probe_work>)
set_tests_properties(replay_test_replay_buildid PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# Its debuginfod part, a test of its own: skipped (not passed) where debuginfod cannot serve.
add_test(NAME replay_test_replay_buildid_debuginfod
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_buildid.py $<TARGET_FILE:perftop>
    $<TARGET_FILE:diff_work> $<TARGET_FILE:probe_work> debuginfod)
set_tests_properties(replay_test_replay_buildid_debuginfod PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# Recordings made elsewhere by perf 3.2 to 6.12 (perf_data_converter's test files: pipe and file,
# armv7, i686, branch stacks, Intel PT, groups, hybrid) against perf report --sort comm,dso, and
# their kernel rows by symbol. The corpus is not in the repository: the environment's
# PERFTOP_CORPUS_DIR when the test runs, else the cache variable of that name (tests/pmu.cmake's),
# else ../shared/corpus beside the source; where it has no perf_data_converter/ the test skips.
if(DEFINED PERFTOP_CORPUS_DIR)
  set(REPLAY_CORPUS_DIR "${PERFTOP_CORPUS_DIR}")
else()
  set(REPLAY_CORPUS_DIR "${CMAKE_SOURCE_DIR}/../shared/corpus")
endif()
add_test(NAME replay_test_corpus
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_corpus.py $<TARGET_FILE:perftop> ${REPLAY_CORPUS_DIR})
set_tests_properties(replay_test_corpus PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# A recording from elsewhere written here byte by byte: relative and absolute MMAP names, [vdso],
# [anon:NAME], //anon and [heap], kernel-mode samples without a kernel map, short MMAP2 records.
add_test(NAME replay_test_replay_mapnames
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_mapnames.py $<TARGET_FILE:perftop>)
set_tests_properties(replay_test_replay_mapnames PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
# LBR call stacks (--call-graph lbr): recordings written by the test (attrs, mappings and samples
# whose branch entries are lbr_work's real call sites, with and without HW_INDEX) against perf
# report --children on the same files; and live --call-graph lbr where the PMU offers it, its
# one-line error where it does not (the kernel's verdict picks the part that runs).
add_executable(lbr_work ${REPLAY_TEST_DIR}/lbr_work.c)
target_compile_options(lbr_work PRIVATE -O1 -g -fno-omit-frame-pointer -fno-inline
  -fno-optimize-sibling-calls)
set_target_properties(lbr_work PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
add_test(NAME replay_test_replay_lbr
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_lbr.py $<TARGET_FILE:perftop>
    $<TARGET_FILE:lbr_work> replay)
set_tests_properties(replay_test_replay_lbr PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
foreach(mode works refused)
  add_test(NAME replay_test_live_lbr_${mode}
    COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_lbr.py $<TARGET_FILE:perftop>
      $<TARGET_FILE:lbr_work> live-${mode})
  set_tests_properties(replay_test_live_lbr_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
    RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
endforeach()
# One perf record -g rewritten into the layouts of other perf versions and machines (attr sizes 64
# to 136, sample_id_all off, IDENTIFIER in samples, hybrid event names, another kernel's build-id,
# pipe forms): each replays to the original's profile and agrees with perf report; --kallsyms FILE.
add_test(NAME replay_test_replay_layouts
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_layouts.py $<TARGET_FILE:perftop>
    ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(replay_test_replay_layouts PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
# A recording's BPF program (PERF_RECORD_KSYMBOL): dd's recording with a program's KSYMBOL record
# added and a third of its kernel samples moved into it; perftop names them as perf report does.
add_test(NAME replay_test_replay_ksymbol
  COMMAND ${TEST_PYTHON} ${REPLAY_TEST_DIR}/test_replay_ksymbol.py $<TARGET_FILE:perftop>)
set_tests_properties(replay_test_replay_ksymbol PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  ENVIRONMENT "PYTHONPATH=${REPLAY_TEST_DIR}")
