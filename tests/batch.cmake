# Batch mode's printers (src/batch/batch_print.c) on hand-made snapshots: samples mode's JSON and table
# byte for byte as they always were, and what --off-cpu and --wall add.
perftop_unit_test(test_batch_print
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/batch/test_batch_print.c ${CMAKE_SOURCE_DIR}/src/batch/batch_print.c
  LIBS perftop_model perftop_util m)
