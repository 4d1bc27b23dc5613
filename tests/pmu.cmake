# Hardware-PMU paths (-e cycles, cycles:pp, r01c2, cpu/event=0x3c/, {cycles,instructions}, the
# counters line's IPC): live, each path as two tests, "works" and "refused", of which the kernel's
# verdict (perf_probe) picks the one that runs: the other exits 77 saying what the kernel did. Then
# replays of group and hybrid recordings from machines with PMUs (the corpus) against perf report.
set(PMU_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pmu)
foreach(path cycles precise raw cpu_pmu group counters)
  foreach(mode works refused)
    add_test(NAME pmu_${path}_${mode}
      COMMAND ${TEST_PYTHON} ${PMU_TEST_DIR}/test_pmu_live.py $<TARGET_FILE:perftop>
              ${CMAKE_BINARY_DIR}/fixtures ${path} ${mode})
    set_tests_properties(pmu_${path}_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
      RESOURCE_LOCK perf ENVIRONMENT "PYTHONPATH=${PMU_TEST_DIR}")
  endforeach()
endforeach()

# Replays of recordings from machines with PMUs (perf_data_converter's test files: groups, a
# hybrid CPU) against perf report and perf evlist on the same file. The corpus is not in the
# repository: where PERFTOP_CORPUS_DIR has no such file the test skips and says so.
set(PERFTOP_CORPUS_DIR "${CMAKE_SOURCE_DIR}/../shared/corpus" CACHE PATH
    "foreign recordings (perf_data_converter/...) for the replay tests")
foreach(file group_desc-4.14.data piped.header_feautres_group_desc-6.8.data hybrid_topology.data)
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" tname "${file}")
  add_test(NAME pmu_replay_${tname}
    COMMAND ${TEST_PYTHON} ${PMU_TEST_DIR}/test_pmu_replay.py $<TARGET_FILE:perftop>
            ${PERFTOP_CORPUS_DIR} ${file})
  set_tests_properties(pmu_replay_${tname} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "PYTHONPATH=${PMU_TEST_DIR}")
endforeach()
