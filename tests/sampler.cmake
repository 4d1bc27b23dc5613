# Sampler tests: pure parsing and ring/queue mechanics on hand-made data, then a live sampler on
# real perf events (skipped with code 77 where perf_event_open is refused).
set(SAMPLER_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/sampler)

perftop_unit_test(test_parse SOURCES ${SAMPLER_TEST_DIR}/test_parse.c LIBS perftop_record)
perftop_unit_test(test_ring SOURCES ${SAMPLER_TEST_DIR}/test_ring.c LIBS perftop_sampler)
# Ring and queue sizes by rate and sample size (the memory model's per-CPU part).
perftop_unit_test(test_sizes SOURCES ${SAMPLER_TEST_DIR}/test_sizes.c LIBS perftop_sampler)
# util/radix.c: the reorder window's sort (and the symbol tables').
perftop_unit_test(test_radix SOURCES ${SAMPLER_TEST_DIR}/test_radix.c LIBS perftop_util)
# util/hashtab.c: the shared open-addressing index, against a linear list over random operations.
perftop_unit_test(test_hashtab SOURCES ${SAMPLER_TEST_DIR}/test_hashtab.c LIBS perftop_util)
perftop_unit_test(test_queue SOURCES ${SAMPLER_TEST_DIR}/test_queue.c LIBS perftop_sampler
  Threads::Threads TSAN)

# A program that busy-loops and starts a second busy thread ~300 ms in (the -p test attaches first).
add_executable(sampler_fixture_thread ${SAMPLER_TEST_DIR}/fixture_thread.c)
target_link_libraries(sampler_fixture_thread PRIVATE Threads::Threads)
target_compile_options(sampler_fixture_thread PRIVATE -O0 -fno-omit-frame-pointer)

perftop_unit_test(test_sampler_live SOURCES ${SAMPLER_TEST_DIR}/test_sampler_live.c
  LIBS perftop_sampler Threads::Threads
  ARGS $<TARGET_FILE:sampler_fixture_thread>
  TSAN)
add_dependencies(test_sampler_live sampler_fixture_thread)
set_tests_properties(test_sampler_live PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
foreach(san asan tsan)
  if(TARGET test_sampler_live_${san})
    add_dependencies(test_sampler_live_${san} sampler_fixture_thread)
    set_tests_properties(test_sampler_live_${san} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
  endif()
endforeach()
# Its parts that need more of the machine, each a test of its own so that ctest reports the one
# this machine cannot run as skipped: a tracepoint's filter (tracefs: the tracefs fixture of
# CMakeLists.txt) and a moment on every CPU (-a).
foreach(san "" _asan _tsan)
  if(TARGET test_sampler_live${san})
    foreach(part filter system)
      add_test(NAME test_sampler_live_${part}${san}
        COMMAND test_sampler_live${san} $<TARGET_FILE:sampler_fixture_thread> ${part})
      set_tests_properties(test_sampler_live_${part}${san} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
    endforeach()
  endif()
endforeach()

# Counter groups: the scaling arithmetic on made-up reads, then real groups on a busy child.
perftop_unit_test(test_counters SOURCES ${SAMPLER_TEST_DIR}/test_counters.c
  LIBS perftop_sampler Threads::Threads)
set_tests_properties(test_counters PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
if(TARGET test_counters_asan)
  set_tests_properties(test_counters_asan PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
