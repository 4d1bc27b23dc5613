# End-to-end tests: the real perftop binary on real workloads (perf_event_open for real; a test skips,
# exit 77, only when the kernel refuses the syscall, and says so).
add_executable(spinner e2e/spinner.c)
target_compile_options(spinner PRIVATE -O1 -g -fno-omit-frame-pointer -fno-inline)
target_link_libraries(spinner PRIVATE Threads::Threads)
set_target_properties(spinner PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

# test_sampling_options (-c, -F), test_targets (-t, -p A,B, -C, a command's children),
# test_callgraph_options (--call-graph none, dwarf,SIZE) and test_json_fields (counters, exited, dropped,
# total_period, the final snapshot) check options and fields against the session's own recording
# or the workload's own counts.
foreach(t test_python_command test_pid_late_thread test_system_wide test_errors test_sampling_options
          test_targets test_callgraph_options test_json_fields test_options_more)
  add_test(NAME e2e_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(e2e_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()
# The parts of test_errors and test_targets that only some machines can give (root to run perftop as
# nobody, perf_event_paranoid above 0, a kernel that refuses cycles, a second CPU): each its own test,
# which runs or skips (77) saying what the machine lacks.
foreach(part test_errors:unprivileged-system test_errors:unprivileged-pid
             test_errors:unsupported-cycles test_targets:cpu-leaves-out-other)
  string(REPLACE ":" ";" tp ${part})
  list(GET tp 0 t)
  list(GET tp 1 p)
  string(REPLACE "-" "_" pname ${p})
  add_test(NAME e2e_${t}_${pname}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.py $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures ${p})
  set_tests_properties(e2e_${t}_${pname} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/e2e")
endforeach()
add_test(NAME e2e_tui_tmux COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_tui_tmux.sh $<TARGET_FILE:perftop> ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(e2e_tui_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# An idle view (a -p target that sleeps, then has exited) wakes only for its refreshes: counted in
# context switches, not timed.
add_test(NAME e2e_idle_tmux COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_idle_tmux.sh $<TARGET_FILE:perftop>)
set_tests_properties(e2e_idle_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# Several events in the view: Tab switches between them, the header names the one shown.
add_test(NAME e2e_events_tmux COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_events_tmux.sh $<TARGET_FILE:perftop>)
set_tests_properties(e2e_events_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# --prefix (annotate of a fixture whose build directory moved) and --no-mouse, in tmux.
add_test(NAME e2e_options_tmux COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_options_tmux.sh
  $<TARGET_FILE:perftop> ${CMAKE_CURRENT_SOURCE_DIR}/drill/fixture.c)
set_tests_properties(e2e_options_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
