# Off-CPU and wall-clock time (issue 14): perftop --off-cpu and --wall on blocker, a program whose
# named threads wait in known functions (nanosleep, write + fdatasync, a mutex held 30 ms at a time)
# and time those waits themselves (wall time minus the thread's CPU time), held against the
# program's own clocks, a perf record of it replayed, and perf sched timehist on the same run.
set(OFFCPU_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/offcpu)

add_executable(blocker ${OFFCPU_TEST_DIR}/blocker.c)
target_compile_options(blocker PRIVATE -O2 -g -fno-omit-frame-pointer)
target_link_libraries(blocker PRIVATE Threads::Threads)
set_target_properties(blocker PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

