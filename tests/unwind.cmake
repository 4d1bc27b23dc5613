# DWARF unwinding: --call-graph dwarf live on a C chain built without frame pointers, and
# on a perf record --call-graph dwarf recording of a Python loop (Total% against perf report, the share
# unwound to the root against perf script's); the live path also under ASan+UBSan (perftop_asan).
add_executable(unwind_chain ${CMAKE_CURRENT_SOURCE_DIR}/unwind/chain.c)
target_compile_options(unwind_chain PRIVATE -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls)
set_target_properties(unwind_chain PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

perftop_unit_test(test_unwind SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unwind/test_unwind.c
  LIBS perftop_symbolize perftop_util)

foreach(t test_unwind_live test_unwind_replay)
  add_test(NAME unwind_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/${t}.py $<TARGET_FILE:perftop>
            $<TARGET_FILE:perftop_asan> $<TARGET_FILE:unwind_chain>)
  set_tests_properties(unwind_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/replay")
endforeach()

# .debug_frame instead of .eh_frame: the same chain built without unwind tables but with -g (its own
# functions have .debug_frame rows only), once with rows of the fast path's compact form and once with
# a DRAP-realigned main whose CFA is a DWARF expression. The test makes the split-debug-file copies.
foreach(v debugframe debugframe_drap)
  add_executable(unwind_${v} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/debugframe.c)
  target_compile_options(unwind_${v} PRIVATE -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls
                         -fno-asynchronous-unwind-tables -fno-unwind-tables)
  set_target_properties(unwind_${v} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
endforeach()
target_compile_definitions(unwind_debugframe_drap PRIVATE DRAP)
add_test(NAME unwind_test_unwind_debugframe
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/test_unwind_debugframe.py
          $<TARGET_FILE:perftop> $<TARGET_FILE:perftop_asan> $<TARGET_FILE:unwind_debugframe>
          $<TARGET_FILE:unwind_debugframe_drap>)
set_tests_properties(unwind_test_unwind_debugframe PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/replay")

# .eh_frame without .eh_frame_hdr: a C++ program linked with g++ -static (GCC links static executables
# without --eh-frame-hdr), replayed from perf record and live; the reference is its own call structure.
# The project is C only: g++ is run as the command it is (the fixture skips where there is none).
find_program(PERFTOP_GXX NAMES g++)
set(static_cxx ${CMAKE_BINARY_DIR}/fixtures/unwind_static_cxx)
if(PERFTOP_GXX)
  add_custom_command(OUTPUT ${static_cxx}
    COMMAND ${PERFTOP_GXX} -static -O2 -g -o ${static_cxx} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/static_cxx.cpp
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unwind/static_cxx.cpp VERBATIM)
endif()
add_custom_target(unwind_static_cxx ALL DEPENDS $<$<BOOL:${PERFTOP_GXX}>:${static_cxx}>)
add_test(NAME unwind_test_unwind_static
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/test_unwind_static.py
          $<TARGET_FILE:perftop> ${static_cxx})
set_tests_properties(unwind_test_unwind_static PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/replay")

# Frame-pointer chains with their first frames from CFI (the default call graph): CPU time in libc's
# string functions (no frame pointers) charged to their callers in the program's own shares, live
# and replayed from perftop's recording.
add_executable(libc_leaves ${CMAKE_CURRENT_SOURCE_DIR}/unwind/libc_leaves.c)
target_compile_options(libc_leaves PRIVATE -O2 -g -fno-omit-frame-pointer)
set_target_properties(libc_leaves PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
add_test(NAME unwind_test_unwind_fphead
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/unwind/test_unwind_fphead.py
          $<TARGET_FILE:perftop> $<TARGET_FILE:libc_leaves>)
set_tests_properties(unwind_test_unwind_fphead PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  RESOURCE_LOCK perf)
