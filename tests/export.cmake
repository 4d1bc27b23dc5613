# Exports (issue 15): the stack collector and the encoders alone on samples made in the test, then
# replays and live sessions exported and read back by the real readers: go tool pprof and pprof's
# own Go package (Debian golang-go, golang-github-google-pprof-dev), speedscope's published schema
# (the speedscope npm package ships it), and a collapse of perf script's output made in the test.
set(EXPORT_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/export)
perftop_unit_test(test_export
  SOURCES ${EXPORT_TEST_DIR}/test_export.c
  LIBS perftop_export perftop_model perftop_util)
