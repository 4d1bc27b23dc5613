# Symbolizer tests: a fixture shared library with known symbols (dlopened by the test, never linked),
# and test_symbolize (+ its ASan/UBSan twin) which feeds hand-made records for its own process.
add_library(symfixture SHARED ${CMAKE_CURRENT_SOURCE_DIR}/symbolize/fixture.c)
target_compile_options(symfixture PRIVATE -O1 -g -fno-inline)

perftop_unit_test(test_symbolize
  SOURCES symbolize/test_symbolize.c
  LIBS perftop_symbolize perftop_util ${CMAKE_DL_LIBS})
foreach(t test_symbolize test_symbolize_asan)
  target_compile_definitions(${t} PRIVATE SYMFIXTURE_PATH="$<TARGET_FILE:symfixture>")
  add_dependencies(${t} symfixture)
endforeach()
