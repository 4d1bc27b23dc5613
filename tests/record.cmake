# Recording (-o FILE): perftop writes perf.data and perf itself (report, script, buildid-list) is the
# judge. Each test skips (77) only when the kernel refuses perf_event_open, perf is missing, or (the
# full-disk test) a small tmpfs cannot be mounted.
foreach(t test_record_command test_record_system test_record_sigkill test_record_enospc test_record_tui
    test_record_stream)
  add_test(NAME record_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/record/${t}.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(record_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/record:${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()

# Several events in one session (-e a -e b): per event live, in the recording and in its replay,
# against perf report and perf script on the file.
add_test(NAME record_test_record_events
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/record/test_record_events.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(record_test_record_events PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/record:${CMAKE_CURRENT_SOURCE_DIR}/e2e:${CMAKE_CURRENT_SOURCE_DIR}/replay")

# Tracepoint events (-e sched:sched_switch, --off-cpu) recorded with their formats (TRACING_DATA):
# perf report and perf script read the file, per event as many samples as our replay.
add_test(NAME record_test_record_tracepoint
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/record/test_record_tracepoint.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(record_test_record_tracepoint PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
  ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/record:${CMAKE_CURRENT_SOURCE_DIR}/e2e:${CMAKE_CURRENT_SOURCE_DIR}/replay")

# The writer alone: encoding round trips through parse, file layout, and our reader on the result.
perftop_unit_test(test_perfdata_write SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/record/test_perfdata_write.c
  LIBS perftop_perfdata perftop_sampler perftop_util)

# The sampler thread recording a real command and a -p target (plain, ASan+UBSan, TSan).
perftop_unit_test(test_record_live SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/record/test_record_live.c
  LIBS perftop_perfdata perftop_sampler perftop_util Threads::Threads TSAN)
foreach(t test_record_live test_record_live_asan test_record_live_tsan)
  if(TARGET ${t})
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60 RESOURCE_LOCK perf)
  endif()
endforeach()

# A live stream (perftop -o -) piped into the view (perftop -i -), in tmux.
add_test(NAME record_test_stream_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/record/test_stream_tmux.sh $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(record_test_stream_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)

# --buildid-mmap: build-ids in perftop's mmap records when given, none by default (perftop's own
# recording, and perf record's beside perftop -a). Serial: with the flag the kernel marks other
# tools' MMAP2 records of the same mappings too, and perf aborts on those.
foreach(part given default default-all)
  add_test(NAME record_test_buildid_mmap_${part}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/record/test_buildid_mmap.py $<TARGET_FILE:perftop>
      ${CMAKE_BINARY_DIR}/fixtures ${part})
  set_tests_properties(record_test_buildid_mmap_${part} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
    RUN_SERIAL TRUE ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/record:${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()
