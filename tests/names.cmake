# Names: workloads recorded with perf record and replayed, compared with perf report
# (C++, sort, dd, srcline), and live checks (demangling, inline frames, debuginfod in the background).
# The fixtures inline_fixture(_other) are defined in symbolize.cmake; the C++ one is compiled by the
# test itself (the project is C only).
foreach(t test_names_report test_names_live)
  add_test(NAME names_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/names/${t}.py $<TARGET_FILE:perftop>
            ${CMAKE_BINARY_DIR}/fixtures ${CMAKE_CURRENT_SOURCE_DIR}/names)
  set_tests_properties(names_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/names:${CMAKE_CURRENT_SOURCE_DIR}/replay")
endforeach()

# PLT stubs named from what they jump to (GOT slot -> relocation), on a corpus of binaries the test
# builds (static, static-pie, PIE, no-pie, -z now/lazy, CET/.plt.sec, clang), against the test's own
# decode of each binary; perftop is asked through a perf.data file the test writes (no sampling).
add_test(NAME names_test_plt_stubs
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/names/test_plt_stubs.py $<TARGET_FILE:perftop>
          ${CMAKE_CURRENT_SOURCE_DIR}/names)
set_tests_properties(names_test_plt_stubs PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/names:${CMAKE_CURRENT_SOURCE_DIR}/replay")
# The same on a real perf record of the static binary (perf 6.1 names its stubs _init): samples.
add_test(NAME names_test_plt_stubs_record
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/names/test_plt_stubs_record.py
          $<TARGET_FILE:perftop> ${CMAKE_CURRENT_SOURCE_DIR}/names)
set_tests_properties(names_test_plt_stubs_record PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/names:${CMAKE_CURRENT_SOURCE_DIR}/replay")
