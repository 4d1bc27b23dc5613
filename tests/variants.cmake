# Binaries built the ways the world builds them (static, static-pie, PIE and not, -z now, CET, LTO,
# split DWARF, compressed debug sections, DWARF 4 and 5, debuglink, no build-id, clang, C++, Rust
# with and without frame pointers, Go), built by the test itself from tests/variants/: replayed from
# perf record (fp and DWARF) against perf report and the program's own structure, and live. The
# zstd-compressed variant is a test of its own: a toolchain without zstd makes it a skip, alone.
foreach(mode replay live)
  add_test(NAME variants_${mode}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/variants/test_build_variants.py
            $<TARGET_FILE:perftop> ${CMAKE_CURRENT_SOURCE_DIR}/variants ${mode})
  add_test(NAME variants_${mode}_gz_zstd
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/variants/test_build_variants.py
            $<TARGET_FILE:perftop> ${CMAKE_CURRENT_SOURCE_DIR}/variants ${mode} c-gz-zstd)
  set_tests_properties(variants_${mode} variants_${mode}_gz_zstd PROPERTIES SKIP_RETURN_CODE 77
    TIMEOUT 300 RESOURCE_LOCK perf)
endforeach()
