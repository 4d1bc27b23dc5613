# SPDX-License-Identifier: GPL-2.0-or-later
# Where `make install` puts perftop (the prefix is chosen at install time: cmake --install --prefix),
# and its Debian package (`make deb`: CPack's DEB generator).
#   bin/perftop, share/man/man1/perftop.1.gz, share/bash-completion/completions/perftop,
#   share/zsh/vendor-completions/_perftop (Debian's zsh looks there; elsewhere add it to fpath),
#   share/doc/perftop/README.md and share/doc/perftop/docs/*.md (the pages it links)
include(GNUInstallDirs)
# Installing (and cpack) does not build: make install and make deb build first, and the tests that
# install from a built tree must not relink what other tests are running.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
install(TARGETS perftop RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PERFTOP_DOC_DIR}/perftop.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PERFTOP_DOC_DIR}/perftop.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME perftop)
install(FILES ${PERFTOP_DOC_DIR}/_perftop DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB PERFTOP_DOC_PAGES ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${PERFTOP_DOC_PAGES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# The package's Depends are what dpkg-shlibdeps finds perftop linked against (libdw1, libelf1,
# libncursesw6, libunwind8, libzstd1, libc6 ...). capstone and libdebuginfod are not linked but
# dlopened on first use (src/symbolize/lazylib.c), and libcurl when --push is given
# (src/push/lazycurl.c), so they are Recommends: the packages of the very files the build compiled
# against (dpkg -S), and elfutils, whose eu-elfcompress the debug cache uses.
function(perftop_deb_package var lib)
  set(${var} "" PARENT_SCOPE)
  if(NOT lib)
    return()
  endif()
  file(REAL_PATH "${lib}" real)
  execute_process(COMMAND dpkg-query -S "${real}" OUTPUT_VARIABLE out ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND out MATCHES "^([a-z0-9.+-]+)(:[a-z0-9]+)?: ")
    set(${var} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endif()
endfunction()
set(recommends "")
foreach(lib ${CAPSTONE_SHARED_LIB} ${DEBUGINFOD_SHARED_LIB} ${CURL_SHARED_LIB})
  perftop_deb_package(pkg "${lib}")
  if(pkg)
    list(APPEND recommends ${pkg})
  endif()
endforeach()
list(APPEND recommends elfutils)
list(JOIN recommends ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perftop)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "perftop maintainers <perftop@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "top-like profiler on perf_event_open")
# The summary is the first line of the control file's Description, this its extended text.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "perftop samples a command, running processes or the whole machine and shows,
live, the functions where the time goes in a full-screen view, or as text or
JSON lines. It records and replays perf.data files.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
set(CPACK_OUTPUT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackConfig.cmake)
include(CPack)
