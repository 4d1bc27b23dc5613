# Tests of the project's layout rather than of what perftop does: the README's option table against
# perftop's own (src/cli/cli.c), the include and call graphs of src/ (no circles), the length of functions, and
# docs/test-coverage.md against the options and keys perftop has.
add_test(NAME layout_readme_options
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/readme_options.py $<TARGET_FILE:perftop>
          ${CMAKE_SOURCE_DIR}/README.md)
# No include circle among the modules of src/ (a .c and its .h are one module).
add_test(NAME layout_includes
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/check_includes.py ${CMAKE_SOURCE_DIR}/src)
# No circle of calls between src/'s files (what each object file defines and uses, by nm): the
# include check cannot see a call through a shared header.
add_test(NAME layout_calls
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/check_calls.py ${CMAKE_BINARY_DIR})
# No function over 120 lines and no source file over 1,200 in src/.
add_test(NAME layout_long_functions
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/long_functions.py ${CMAKE_SOURCE_DIR}/src
          --max 120 --max-file 1200)
# docs/test-coverage.md names a test for every option of --help and every key of the key tables
# (perftop_docgen keys), and only tests ctest has.
add_test(NAME layout_coverage_table
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/layout/coverage_table.py $<TARGET_FILE:perftop>
          $<TARGET_FILE:perftop_docgen> ${CMAKE_SOURCE_DIR}/docs/test-coverage.md ${CMAKE_BINARY_DIR}
          ${CMAKE_SOURCE_DIR})
