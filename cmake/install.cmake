# A normal C install: libraries, headers, pkg-config files and a CMake package
# (find_package(rtsched) gives rtsched::rtsched, rtsched::rtsched_static, rtsched::rtpi, rtsched::rtpi_static, rtsched::litmus).
include(CMakePackageConfigHelpers)

install(TARGETS rtsched rtsched_static rtpi rtpi_static litmus EXPORT rtschedTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(RTSCHED_TOOLS)
  install(TARGETS ${RTSCHED_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(DIRECTORY include/rtsched/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtsched
  FILES_MATCHING PATTERN "*.h" PATTERN "compat" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/rtsched/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtsched)
# Where librtpi installs its headers: <rtpi.h>, <rtpi/mutex.hpp>, <rtpi/condition_variable.hpp>.
install(FILES include/rtsched/compat/rtpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/rtsched/compat/rtpi/mutex.hpp include/rtsched/compat/rtpi/condition_variable.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtpi)
# Where liblitmus installs its header: <litmus.h>.
install(FILES include/rtsched/compat/litmus.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# liblitmus's tree headers (migration.h, internal.h, asm/cycles.h), for programs built
# inside a liblitmus tree: -I$(pkg-config --variable=treedir liblitmus).
install(DIRECTORY include/rtsched/compat/liblitmus/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtsched/liblitmus)

install(EXPORT rtschedTargets NAMESPACE rtsched::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rtsched)
configure_package_config_file(cmake/rtschedConfig.cmake.in
  ${PROJECT_BINARY_DIR}/rtschedConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rtsched)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rtschedConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rtschedConfig.cmake
  ${PROJECT_BINARY_DIR}/rtschedConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rtsched)

# The .pc files locate the prefix from their own folder, so an installed tree can be moved.
file(RELATIVE_PATH RTSCHED_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
foreach(pc rtsched librtpi liblitmus)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
