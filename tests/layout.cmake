# Tests of the project's layout rather than of what perftop does: the README's option table against
# perftop's own (src/cli.c), the include graph of src/ (no circles), the length of functions.
add_test(NAME layout_readme_options
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/readme_options.py $<TARGET_FILE:perftop>
          ${CMAKE_SOURCE_DIR}/README.md)
# No include circle among the modules of src/ (a .c and its .h are one module).
add_test(NAME layout_includes
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/check_includes.py ${CMAKE_SOURCE_DIR}/src)
# No function over 150 lines in src/.
add_test(NAME layout_long_functions
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/long_functions.py ${CMAKE_SOURCE_DIR}/src
          --max 150)
