# Symbolizer tests: a fixture shared library with known symbols (dlopened by the test, never linked),
# and test_symbolize (+ its ASan/UBSan twin) which feeds hand-made records for its own process.
add_library(symfixture SHARED ${CMAKE_CURRENT_SOURCE_DIR}/symbolize/fixture.c)
target_compile_options(symfixture PRIVATE -O1 -g -fno-inline -fcf-protection=none)
# The same with IBT: the linker then splits the PLT into .plt and .plt.sec (entries called in .plt.sec).
add_library(symfixture_ibt SHARED ${CMAKE_CURRENT_SOURCE_DIR}/symbolize/fixture.c)
target_compile_options(symfixture_ibt PRIVATE -O1 -g -fno-inline -fcf-protection=full)
target_link_options(symfixture_ibt PRIVATE -Wl,-z,ibtplt)

perftop_unit_test(test_symbolize
  SOURCES symbolize/test_symbolize.c
  LIBS perftop_symbolize perftop_util ${CMAKE_DL_LIBS})
foreach(t test_symbolize test_symbolize_asan)
  target_compile_definitions(${t} PRIVATE SYMFIXTURE_PATH="$<TARGET_FILE:symfixture>"
                                          SYMFIXTURE_IBT_PATH="$<TARGET_FILE:symfixture_ibt>")
  add_dependencies(${t} symfixture symfixture_ibt)
endforeach()

# Process-side names: perf map files (JIT), the vdso, deleted and replaced binaries.
perftop_unit_test(test_procsyms
  SOURCES symbolize/test_procsyms.c
  LIBS perftop_symbolize perftop_util PkgConfig::ELF ${CMAKE_DL_LIBS})
foreach(t test_procsyms test_procsyms_asan)
  target_compile_definitions(${t} PRIVATE SYMFIXTURE_PATH="$<TARGET_FILE:symfixture>")
  add_dependencies(${t} symfixture)
endforeach()

# Inline frames and source lines: the -g -O2 fixture with always_inline helpers, checked
# against eu-addr2line, and the same program built differently (another build-id) for the debuginfo
# tests. The fixtures also serve the names workload tests (tests/names.cmake).
foreach(fx inline_fixture inline_fixture_other)
  add_executable(${fx} ${CMAKE_CURRENT_SOURCE_DIR}/names/inline_fixture.c)
  target_compile_options(${fx} PRIVATE -O2 -g -fno-omit-frame-pointer)
  set_target_properties(${fx} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
endforeach()
target_compile_definitions(inline_fixture_other PRIVATE OTHER_BUILD)

perftop_unit_test(test_srcinfo
  SOURCES symbolize/test_srcinfo.c
  LIBS perftop_symbolize perftop_util)
perftop_unit_test(test_debuginfo
  SOURCES symbolize/test_debuginfo.c
  LIBS perftop_symbolize perftop_util)
foreach(t test_srcinfo test_srcinfo_asan test_debuginfo test_debuginfo_asan)
  target_compile_definitions(${t} PRIVATE INLINE_FIXTURE_PATH="$<TARGET_FILE:inline_fixture>"
                                          OTHER_FIXTURE_PATH="$<TARGET_FILE:inline_fixture_other>")
  add_dependencies(${t} inline_fixture inline_fixture_other)
endforeach()

# The boot-scoped cache of /proc/kallsyms.
perftop_unit_test(test_kernel_cache SOURCES symbolize/test_kernel_cache.c LIBS perftop_symbolize perftop_util)
set_tests_properties(test_kernel_cache test_kernel_cache_asan PROPERTIES SKIP_RETURN_CODE 77)

# linetab.c's line table decoder against libdw (every CU of the fixtures, of libc's debug file and of
# libpython3.11 when there is one): the fixture source again with DWARF 2, 3 and 4 line tables.
foreach(v 2 3 4)
  add_executable(inline_fixture_dw${v} ${CMAKE_CURRENT_SOURCE_DIR}/names/inline_fixture.c)
  target_compile_options(inline_fixture_dw${v} PRIVATE -O2 -gdwarf-${v} -fno-omit-frame-pointer)
  if(v EQUAL 2 AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
    # gas writes a version 3 line table for -gdwarf-2: gcc writes its own, of version 2 (clang, in
    # the fuzz build, has no such option; its table is what it is there).
    target_compile_options(inline_fixture_dw${v} PRIVATE -gno-as-loc-support)
  endif()
  set_target_properties(inline_fixture_dw${v} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fixtures)
endforeach()
perftop_unit_test(test_linetab
  SOURCES symbolize/test_linetab.c
  LIBS perftop_symbolize perftop_util PkgConfig::DW)
foreach(t test_linetab test_linetab_asan)
  target_compile_definitions(${t} PRIVATE INLINE_FIXTURE_PATH="$<TARGET_FILE:inline_fixture>"
                                          OTHER_FIXTURE_PATH="$<TARGET_FILE:inline_fixture_other>"
                                          DW2_FIXTURE_PATH="$<TARGET_FILE:inline_fixture_dw2>"
                                          DW3_FIXTURE_PATH="$<TARGET_FILE:inline_fixture_dw3>"
                                          DW4_FIXTURE_PATH="$<TARGET_FILE:inline_fixture_dw4>")
  add_dependencies(${t} inline_fixture inline_fixture_other inline_fixture_dw2 inline_fixture_dw3
                   inline_fixture_dw4)
endforeach()

# The parts that read what only some machines have, each its own test (plain and ASan+UBSan) that
# skips (77) saying what is missing: libc6-dbg's debug file for this libc (at its build-id path under
# /usr/lib/debug/.build-id), a libpython3 with DWARF.
foreach(t test_debuginfo:libc test_linetab:libc test_linetab:libpython)
  string(REPLACE ":" ";" tp ${t})
  list(GET tp 0 exe)
  list(GET tp 1 part)
  add_test(NAME ${exe}_${part} COMMAND ${exe} ${part})
  add_test(NAME ${exe}_${part}_asan COMMAND ${exe}_asan ${part})
  set_tests_properties(${exe}_${part} ${exe}_${part}_asan PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
