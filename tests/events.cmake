# Events (-e): the parser over a fake sysfs and tracefs (and under ASan), then perftop on real
# tracepoints, uprobes, modifiers and periods against the workload's own counts and perf record.
set(EVENTS_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/events)

perftop_unit_test(test_events SOURCES ${EVENTS_TEST_DIR}/test_events.c LIBS perftop_events)

