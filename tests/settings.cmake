# The settings file perftoprc (src/settings): its text and its reading and writing.
perftop_unit_test(test_settings
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/settings/test_settings.c
  LIBS perftop_settings perftop_model perftop_util)
