# Drill-down on the real binary: tmux drives perftop on a fixture with a known call graph
# (main -> top -> mid -> leaf_a / leaf_b): the function view's callers and callees, re-roots, the
# flame graph, and the ways back out.
add_executable(drill_fixture ${CMAKE_CURRENT_SOURCE_DIR}/drill/fixture.c)
target_compile_options(drill_fixture PRIVATE -O2 -g -fno-omit-frame-pointer)
set_target_properties(drill_fixture PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)

add_test(NAME drill_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_drill_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture>)
set_tests_properties(drill_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)

# Find, filter, zoom, setup, the mouse and the function-key bar on the same fixture: /leaf_b puts the cursor on leaf_b, \leaf leaves only the leaves, q and Esc
# get back out.
add_test(NAME find_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_find_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture>)
set_tests_properties(find_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# Annotate on the real binary: a on leaf_a shows fixture.c's lines with percentages, s its
# assembly, H the hottest line, Esc / q back out.
add_test(NAME annotate_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_annotate_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture>)
set_tests_properties(annotate_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# The same without libcapstone and libdebuginfod (dlopen'ed on first use, src/symbolize/lazylib.c),
# hidden in a private mount namespace: the assembly mode says "disassembly unavailable: <why>" on one
# line, and the debuginfod fetch child fails with its reason.
add_test(NAME annotate_nolib_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_annotate_nolib_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture> ${CAPSTONE_SHARED_LIB} ${DEBUGINFOD_SHARED_LIB})
set_tests_properties(annotate_nolib_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
# The names' pool compacted at nearly every refresh while the views that keep names are open
# (function view, flame graph, zoom, a paused screen), on the ASan+UBSan build.
add_test(NAME names_compaction_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_names_tmux.sh $<TARGET_FILE:perftop_asan>
          $<TARGET_FILE:drill_fixture>)
set_tests_properties(names_compaction_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 RESOURCE_LOCK perf)

# The flame graph's bars as the terminal shows them (tests/drill/cells.py reads the colours of the
# capture): each within its parent's, the root across the width, wherever the cursor is.
add_test(NAME flame_bars_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/drill/test_flame_bars_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture>)
set_tests_properties(flame_bars_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
