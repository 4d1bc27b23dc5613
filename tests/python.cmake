# Python functions in native profiles: CPython 3.11-3.13 processes sampled live (a
# command, -p), their Python frames in the chains. test_pysplice: the splice and the location-table
# decoder; test_pyread: the reader on a fake interpreter in its own memory, and the watcher thread
# (TSan).
perftop_unit_test(test_pysplice SOURCES python/test_pysplice.c LIBS perftop_python perftop_util)
perftop_unit_test(test_pyread SOURCES python/test_pyread.c LIBS perftop_python perftop_util TSAN)

# The tests of real interpreters: one ctest test per script and CPython version, each running every
# interpreter of that version the machine has, wherever it is (PATH, pyenv, /usr/bin: pylib.py), and
# exiting 77 (a skip ctest reports) when it has none. 3.10: perftop must refuse it and keep its
# native frames (test_python_pid); -X perf exists from 3.12 on.
function(perftop_python_test t version)
  add_test(NAME python_${t}_${version}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/${t}.py $<TARGET_FILE:perftop>
            ${CMAKE_BINARY_DIR}/fixtures ${version})
  set_tests_properties(python_${t}_${version} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
    RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/python:${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endfunction()
foreach(v 3.11 3.12 3.13)
  foreach(t test_python_live test_python_pid test_python_replay test_python_callback)
    perftop_python_test(${t} ${v})
  endforeach()
endforeach()
foreach(v 3.12 3.13)
  perftop_python_test(test_python_xperf ${v})
endforeach()
perftop_python_test(test_python_pid 3.10)
# -a: the whole machine (tests/CMakeLists.txt: it holds both locks), one version
add_test(NAME python_test_python_system_3.11
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_python_pid.py $<TARGET_FILE:perftop>
          ${CMAKE_BINARY_DIR}/fixtures 3.11 -a)
set_tests_properties(python_test_python_system_3.11 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
  ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/python:${CMAKE_CURRENT_SOURCE_DIR}/e2e")
