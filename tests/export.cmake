# Exports: the stack collector and the encoders alone on samples made in the test, then
# replays and live sessions exported and read back by the real readers: go tool pprof and pprof's
# own Go package (Debian golang-go, golang-github-google-pprof-dev), speedscope's published schema
# (the speedscope npm package ships it), and a collapse of perf script's output made in the test.
set(EXPORT_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/export)
perftop_unit_test(test_export
  SOURCES ${EXPORT_TEST_DIR}/test_export.c
  LIBS perftop_export perftop_model perftop_util)
# Replays exported and read back (test_export_replay.py says what is compared).
add_test(NAME export_test_export_replay
  COMMAND ${TEST_PYTHON} ${EXPORT_TEST_DIR}/test_export_replay.py $<TARGET_FILE:perftop>
    $<TARGET_FILE:perftop_asan> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(export_test_export_replay PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${EXPORT_TEST_DIR}")
# Live batch sessions exported at their end, and an off-CPU replay in nanoseconds.
add_test(NAME export_test_export_live
  COMMAND ${TEST_PYTHON} ${EXPORT_TEST_DIR}/test_export_live.py $<TARGET_FILE:perftop>
    ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(export_test_export_live PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${EXPORT_TEST_DIR}")
# The view's w key through tmux: the prompt, a pprof window export, a filtered folded one.
add_test(NAME export_tmux
  COMMAND bash ${EXPORT_TEST_DIR}/test_export_tui.sh $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(export_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
