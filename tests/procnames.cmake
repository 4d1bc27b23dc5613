# Process-side names, live: JIT code named from perf map files (node --perf-basic-prof),
# [vdso] rows, deleted and replaced binaries under -p, a chrooted process in its own namespaces; and
# replays of perf record files of node and of a clock_gettime loop checked against perf report.
# Real perf_event_open; a test skips (77) only when the kernel refuses it.
add_executable(cgloop ${CMAKE_CURRENT_SOURCE_DIR}/procnames/cgloop.c)
target_compile_options(cgloop PRIVATE -O1 -g -fno-omit-frame-pointer)
# Static: they run chrooted into a directory that holds nothing else.
add_executable(jitspin ${CMAKE_CURRENT_SOURCE_DIR}/procnames/jitspin.c)
target_link_options(jitspin PRIVATE -static -pthread)
add_executable(spinner_static ${CMAKE_CURRENT_SOURCE_DIR}/e2e/spinner.c)
target_compile_options(spinner_static PRIVATE -O1 -g -fno-omit-frame-pointer -fno-inline)
target_link_options(spinner_static PRIVATE -static -pthread)
set_target_properties(cgloop jitspin spinner_static PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

foreach(t test_jit_node test_vdso_live test_deleted_live test_container test_replay_jit_vdso)
  add_test(NAME procnames_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/procnames/${t}.py $<TARGET_FILE:perftop>
            ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(procnames_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/procnames:${CMAKE_CURRENT_SOURCE_DIR}/e2e:${CMAKE_CURRENT_SOURCE_DIR}/replay")
endforeach()
