# Model tests: the profile (rows, self/total, decay) and its snapshots.
perftop_unit_test(test_profile
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_profile.c
  LIBS perftop_model perftop_util m)
# The call tree (callers, callees, flame graph, recursion, decay, the node cap).
perftop_unit_test(test_calltree
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/model/test_calltree.c
  LIBS perftop_model perftop_util)
