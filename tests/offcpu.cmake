# Off-CPU pairing (sampler/offcpu.c) on hand-made switch-out samples and switch records, and the
# sched_switch format file over a fake tracefs (plain and ASan+UBSan).
perftop_unit_test(test_offcpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/offcpu/test_offcpu.c
  LIBS perftop_sampler)
