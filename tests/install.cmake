# Installing perftop: --version, the man page and shell completion generated from the option table,
# make install / uninstall into a DESTDIR, the Debian package, the settings file kept across runs.
add_test(NAME install_version
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/version.sh $<TARGET_FILE:perftop> ${PROJECT_VERSION}
          ${CMAKE_SOURCE_DIR})
