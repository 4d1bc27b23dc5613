# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzz targets and what each links, for both builds of them: libFuzzer's (fuzz/CMakeLists.txt,
# clang) and the normal suite's replay of their seeds without libFuzzer (tests/fuzz, fuzz/driver.c).
# PERFTOP_FUZZ_TARGETS lists them; FUZZ_<t>_SOURCES and FUZZ_<t>_LIBS say what fuzz_<t> is made of.
set(FS ${CMAKE_SOURCE_DIR}/src)
set(FD ${CMAKE_SOURCE_DIR}/fuzz)
set(PERFTOP_FUZZ_TARGETS parse perfdata gopclntab jitdump jitmap unwind cfi plt vdso buildid settings
  pushurl pyread container)
# The perf.data reader's files (src/perfdata/perfdata_int.h lists them), and what they call of the
# writer's.
set(FUZZ_PERFDATA_SOURCES ${FS}/record/parse.c ${FS}/util/util.c ${FS}/util/safefile.c ${FS}/util/radix.c)
foreach(f perfdata perfdata_notes perfdata_events perfdata_input perfdata_compressed perfdata_order
        perfdata_features perfdata_records perfdata_dir perfdata_tracing perfdata_buildids)
  list(APPEND FUZZ_PERFDATA_SOURCES ${FS}/perfdata/${f}.c)
endforeach()
set(FUZZ_parse_SOURCES ${FD}/fuzz_parse.c ${FUZZ_PERFDATA_SOURCES})
set(FUZZ_parse_LIBS PkgConfig::ZSTD Threads::Threads)
set(FUZZ_perfdata_SOURCES ${FD}/fuzz_perfdata.c ${FUZZ_PERFDATA_SOURCES})
set(FUZZ_perfdata_LIBS PkgConfig::ZSTD Threads::Threads)
set(FUZZ_buildid_SOURCES ${FD}/fuzz_buildid.c ${FUZZ_PERFDATA_SOURCES})
set(FUZZ_buildid_LIBS PkgConfig::ZSTD Threads::Threads)
set(FUZZ_gopclntab_SOURCES ${FD}/fuzz_gopclntab.c ${FS}/symbolize/gopclntab.c ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_gopclntab_LIBS Threads::Threads)
set(FUZZ_jitdump_SOURCES ${FD}/fuzz_jitdump.c ${FS}/symbolize/jitdump.c ${FS}/symbolize/intern.c
  ${FS}/util/util.c ${FS}/util/safefile.c ${FS}/util/hashtab.c)
set(FUZZ_jitdump_LIBS Threads::Threads)
set(FUZZ_jitmap_SOURCES ${FD}/fuzz_jitmap.c ${FS}/symbolize/jitmap.c ${FS}/symbolize/intern.c
  ${FS}/util/util.c ${FS}/util/safefile.c ${FS}/util/hashtab.c)
set(FUZZ_jitmap_LIBS Threads::Threads)
set(FUZZ_UNWIND_SOURCES ${FD}/unwind_common.c ${FS}/symbolize/unwind_image.c
  ${FS}/symbolize/unwind_ehframe.c ${FS}/symbolize/unwind_cfi.c ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_unwind_SOURCES ${FD}/fuzz_unwind.c ${FUZZ_UNWIND_SOURCES})
set(FUZZ_unwind_LIBS PkgConfig::DW Threads::Threads)
set(FUZZ_cfi_SOURCES ${FD}/fuzz_cfi.c ${FUZZ_UNWIND_SOURCES})
set(FUZZ_cfi_LIBS PkgConfig::DW Threads::Threads)
set(FUZZ_plt_SOURCES ${FD}/fuzz_plt.c ${FS}/symbolize/dso_plt.c ${FS}/symbolize/intern.c
  ${FS}/util/util.c ${FS}/util/safefile.c ${FS}/util/hashtab.c)
set(FUZZ_plt_LIBS PkgConfig::ELF Threads::Threads)
set(FUZZ_vdso_SOURCES ${FD}/fuzz_vdso.c ${FS}/symbolize/vdso.c ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_vdso_LIBS Threads::Threads)
set(FUZZ_settings_SOURCES ${FD}/fuzz_settings.c ${FS}/settings/settings.c)
set(FUZZ_settings_LIBS perftop_model perftop_util Threads::Threads)
set(FUZZ_pushurl_SOURCES ${FD}/fuzz_pushurl.c ${FS}/push/ingest.c ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_pushurl_LIBS Threads::Threads)
# The frame reader without pymem.c: the target's own py_read is the process.
set(FUZZ_pyread_SOURCES ${FD}/fuzz_pyread.c ${FD}/pywalk.c ${FS}/python/pyread.c ${FS}/python/pyproc.c
  ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_pyread_LIBS PkgConfig::ELF Threads::Threads)
# Container names from cgroup paths and the runtimes' state files (src/container/, no file read).
set(FUZZ_container_SOURCES ${FD}/fuzz_container.c ${FS}/container/container_path.c
  ${FS}/container/container_state.c ${FS}/container/jscan.c ${FS}/util/util.c ${FS}/util/safefile.c)
set(FUZZ_container_LIBS Threads::Threads)
