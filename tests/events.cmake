# Events (-e): the parser over a fake sysfs and tracefs (and under ASan), then perftop on real
# tracepoints, uprobes, modifiers and periods against the workload's own counts and perf record.
set(EVENTS_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/events)

perftop_unit_test(test_events SOURCES ${EVENTS_TEST_DIR}/test_events.c LIBS perftop_events)

# The program the live tests probe: probed() called exactly CALLS times (2:1 from two callers),
# a file opened OPENS times, PAGES pages touched. -O0 with frame pointers in leaves too, so that
# an entry uprobe's call chain has the caller (the kernel adds it after a push %rbp).
add_executable(probe_target ${EVENTS_TEST_DIR}/probe_target.c)
target_compile_options(probe_target PRIVATE -O0 -g -fno-omit-frame-pointer
  -mno-omit-leaf-frame-pointer)
set_target_properties(probe_target PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

# The live tests (perftop on real events; references: the workload's own counts, perf record).
foreach(t test_probes test_tracepoints test_event_modes test_event_cli)
  add_test(NAME events_${t}
    COMMAND ${TEST_PYTHON} ${EVENTS_TEST_DIR}/${t}.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(events_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()
