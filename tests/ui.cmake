# Tests of src/ui: golden frames and key actions without a terminal, and one run of the real
# terminal loop inside tmux (tui_demo with a fake source).
perftop_unit_test(test_render SOURCES ui/test_render.c LIBS perftop_ui perftop_model perftop_util)
perftop_unit_test(test_keys SOURCES ui/test_keys.c LIBS perftop_ui perftop_model perftop_util)

# Not a test by itself: the terminal tests drive it.
add_executable(tui_demo ui/tui_demo.c)
target_include_directories(tui_demo PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(tui_demo PRIVATE perftop_ui perftop_model perftop_util)

add_test(NAME test_tui_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ui/test_tui_tmux.sh $<TARGET_FILE:tui_demo>)
set_tests_properties(test_tui_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# The drill-down views (function view, flame graph) and the table against golden files in
# ui/golden/ (80x24 and 200x60), and their keys. PERFTOP_UPDATE_GOLDEN=1 rewrites the files.
perftop_unit_test(test_views SOURCES ui/test_views.c LIBS perftop_ui perftop_model perftop_util
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/ui/golden)
# Find (/ n N), filter (\ with a|b), zoom (t d K U), invert, the F2 setup, the mouse and the
# function-key bar; golden table_filter_80x24.txt and table_search_80x24.txt.
perftop_unit_test(test_find SOURCES ui/test_find.c LIBS perftop_ui perftop_model perftop_util
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/ui/golden)
# The header lines with the counters line (golden header_*.txt).
perftop_unit_test(test_header SOURCES ui/test_header.c LIBS perftop_ui perftop_model perftop_util
  ARGS ${CMAKE_CURRENT_SOURCE_DIR}/ui/golden)

# Not a test: bench/render.sh runs it (a full redraw of a 10,000-row table, headless).
add_executable(render_bench ${CMAKE_SOURCE_DIR}/bench/render_bench.c)
target_include_directories(render_bench PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(render_bench PRIVATE perftop_ui perftop_model perftop_util)
set_target_properties(render_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
# The annotate view (source, assembly, both) against golden files in ui/golden/annotate_*, and its
# keys (s, H, Tab, moves, a from the table and the function view), on a fake document.
perftop_unit_test(test_annotate_view SOURCES ui/test_annotate_view.c
  LIBS perftop_ui perftop_model perftop_util ARGS ${CMAKE_CURRENT_SOURCE_DIR}/ui/golden)
# The views in the time modes (--off-cpu, --wall): the table's Time, Blocks/s, Longest and State
# columns, the r key's run-queue view, the flame graph and function view in time (golden
# table_offcpu_80x24.txt, table_wall_*_100x30.txt, flame_offcpu_80x24.txt).
perftop_unit_test(test_offcpu_view SOURCES ui/test_offcpu_view.c
  LIBS perftop_ui perftop_model perftop_util ARGS ${CMAKE_CURRENT_SOURCE_DIR}/ui/golden)
# Every key the other terminal tests leave out (aliases, upper-case keys, F1 F3 F4 F5 F10, the moves
# of the flame graph, function, annotate, setup and i views, the mouse's wheel, double click and
# bar, m), each checked by its effect on the real perftop replaying perf record's files of the drill
# and C++ fixtures in tmux.
add_test(NAME ui_keys_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ui/test_keys_tmux.sh $<TARGET_FILE:perftop>
          $<TARGET_FILE:drill_fixture> ${CMAKE_CURRENT_SOURCE_DIR}/names/cxx_fixture.cc)
set_tests_properties(ui_keys_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK perf)
