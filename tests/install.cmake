# Installing perftop: --version, the man page and shell completion generated from the option table,
# make install / uninstall into a DESTDIR, the Debian package, the settings file kept across runs.
add_test(NAME install_version
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/version.sh $<TARGET_FILE:perftop> ${PROJECT_VERSION}
          ${CMAKE_SOURCE_DIR})
add_test(NAME install_manpage
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/manpage.sh $<TARGET_FILE:perftop>
          ${CMAKE_BINARY_DIR}/doc/perftop.1)
set_tests_properties(install_manpage PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME install_bash_completion
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/bashcomp.sh ${CMAKE_BINARY_DIR}/doc/perftop.bash)
set_tests_properties(install_bash_completion PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME install_destdir
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/destdir.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
# Installs and removes a package on this machine: alone, and skipped (77) when not root.
add_test(NAME install_deb
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/deb.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(install_deb PROPERTIES RUN_SERIAL TRUE SKIP_RETURN_CODE 77 TIMEOUT 280)
# The view's settings kept in $XDG_CONFIG_HOME/perftop/perftoprc across runs (live, in tmux).
add_test(NAME install_settings_tmux
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/settings_tmux.sh $<TARGET_FILE:perftop>)
set_tests_properties(install_settings_tmux PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
add_test(NAME install_zsh_completion
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/zshcomp.sh ${CMAKE_BINARY_DIR}/doc/_perftop)
set_tests_properties(install_zsh_completion PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
