# `cmake --install build --prefix P` puts libktune.so, the public headers, the ktune
# binary, a CMake package (find_package(ktune CONFIG) -> ktune::runtime) and ktune.pc
# under P.
include(CMakePackageConfigHelpers)
set(KTUNE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
install(EXPORT ktune_targets NAMESPACE ktune:: FILE ktune-targets.cmake DESTINATION ${KTUNE_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ktune-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ktune-config.cmake INSTALL_DESTINATION ${KTUNE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ktune-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ktune-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/ktune-config-version.cmake
  DESTINATION ${KTUNE_CMAKE_DIR})
# Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix).
string(REGEX REPLACE "[^/]+" ".." KTUNE_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ktune.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ktune.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ktune.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
