# Python functions in native profiles (issue 17): CPython 3.11-3.13 processes sampled live (a
# command, -p), their Python frames in the chains; the Pythons are found when the tests run and a
# missing one is skipped with a message. test_pysplice: the splice and the location-table decoder;
# test_pyread: the reader on a fake interpreter in its own memory, and the watcher thread (TSan).
perftop_unit_test(test_pysplice SOURCES python/test_pysplice.c LIBS perftop_python perftop_util)
perftop_unit_test(test_pyread SOURCES python/test_pyread.c LIBS perftop_python perftop_util TSAN)

foreach(t test_python_live test_python_pid test_python_replay test_python_xperf test_python_callback)
  add_test(NAME python_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/${t}.py $<TARGET_FILE:perftop>
            ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(python_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/python:${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()
