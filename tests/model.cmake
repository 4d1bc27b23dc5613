# Model tests: the profile (rows, self/total, decay) and its snapshots.
perftop_unit_test(test_profile
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_profile.c
  LIBS perftop_model perftop_util m)
# profile_add_again (a replay's repeated samples) against profile_add, over windows and sort keys.
perftop_unit_test(test_profile_again
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_profile_again.c
  LIBS perftop_model perftop_util)
# The call tree (callers, callees, flame graph, recursion, decay, the node cap).
perftop_unit_test(test_calltree
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_calltree.c
  LIBS perftop_model perftop_util)
# The annotate histogram (per-address Self/Total, decay, the bound) and the annotated document.
perftop_unit_test(test_annotate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_annotate.c
  LIBS perftop_model perftop_util)

# Off-CPU and wall time in the model: the state key, blocks and the longest block over windows, the
# run-queue view of rows and call trees (snapshot_runq), the held seconds of the per-second figures.
perftop_unit_test(test_offcpu_model
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_offcpu_model.c
  LIBS perftop_model perftop_util m)

# bench/memrows.c: the heap bytes per row of the view (bench/memory.sh, the memory model of docs/performance.md).
add_executable(memrows ${CMAKE_SOURCE_DIR}/bench/memrows.c)
target_include_directories(memrows PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(memrows PRIVATE perftop_model perftop_util)
set_target_properties(memrows PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
