# SPDX-License-Identifier: GPL-2.0-or-later
# perftop_soname(VAR PREFIX): the SONAME of a library perftop dlopens instead of linking (capstone and
# libdebuginfod in src/symbolize/lazylib.c, libcurl in src/push/lazycurl.c), so that the name asked of
# dlopen is the one of the very library whose headers the build compiled against.
# VAR = the SONAME (readelf -d) of the shared library that pkg-config module PREFIX names (-l<name> in
# <PREFIX>_LIBRARIES, looked up in its -L dirs first; the path is left in <PREFIX>_SHARED_LIB, which
# the tests that hide the library and the package's Recommends use), or empty: the C file then tries
# its own short list of names.
find_program(PERFTOP_READELF NAMES ${CMAKE_READELF} readelf)
function(perftop_soname var prefix)
  list(GET ${prefix}_LIBRARIES 0 name)
  find_library(${prefix}_SHARED_LIB
    NAMES ${CMAKE_SHARED_LIBRARY_PREFIX}${name}${CMAKE_SHARED_LIBRARY_SUFFIX} ${name}
    HINTS ${${prefix}_LIBRARY_DIRS})
  set(soname "")
  if(PERFTOP_READELF AND ${prefix}_SHARED_LIB)
    execute_process(COMMAND ${PERFTOP_READELF} -d ${${prefix}_SHARED_LIB}
                    OUTPUT_VARIABLE dyn ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND dyn MATCHES "Library soname: \\[([^]]+)\\]")
      set(soname ${CMAKE_MATCH_1})
    endif()
  endif()
  if(soname STREQUAL "")
    message(WARNING "no SONAME found for -l${name} (${${prefix}_SHARED_LIB}): "
                    "perftop will dlopen its default names")
  else()
    message(STATUS "-l${name}: dlopen'ed as ${soname}")
  endif()
  set(${var} ${soname} PARENT_SCOPE)
endfunction()
