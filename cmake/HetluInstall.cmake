# cmake --install: headers, libhetlu.so, libhetlu_lapack.so, the hetlu command, configs, and a
# hetluConfig.cmake so that find_package(hetlu) + target_link_libraries(app hetlu::hetlu) works.
include(CMakePackageConfigHelpers)

set_target_properties(hetlu_headers PROPERTIES EXPORT_NAME headers)
set_target_properties(hetlu PROPERTIES EXPORT_NAME hetlu)
set_target_properties(hetlu_lapack PROPERTIES EXPORT_NAME lapack)

install(TARGETS hetlu hetlu_headers hetlu_lapack EXPORT hetluTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hetlu_command RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The distributed layer (#18), where MPI and ScaLAPACK were found: the hetlu command links it.
# Its own export set, hetlu::distributed, which hetluConfig.cmake imports where MPI is found.
if(TARGET hetlu_distributed)
  set_target_properties(hetlu_distributed PROPERTIES EXPORT_NAME distributed)
  install(TARGETS hetlu_distributed EXPORT hetluDistributedTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES include/hetlu/distributed.hpp include/hetlu/distributed_plan.hpp include/hetlu/hetlu_distributed.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetlu)
  install(FILES include/hetlu/detail/c_guard.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetlu/detail)
endif()
install(FILES include/hetlu/types.hpp include/hetlu/hetlu.hpp include/hetlu/hetlu.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetlu)
install(FILES configs/calibration.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/hetlu/configs)
install(DIRECTORY configs/machines DESTINATION ${CMAKE_INSTALL_DATADIR}/hetlu/configs)
install(PROGRAMS report/hetlu_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/hetlu)

set(HETLU_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hetlu)
install(EXPORT hetluTargets NAMESPACE hetlu:: DESTINATION ${HETLU_CMAKE_DIR})
if(TARGET hetlu_distributed)
  install(EXPORT hetluDistributedTargets NAMESPACE hetlu:: DESTINATION ${HETLU_CMAKE_DIR})
endif()
configure_package_config_file(cmake/hetluConfig.cmake.in ${CMAKE_BINARY_DIR}/hetluConfig.cmake
  INSTALL_DESTINATION ${HETLU_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hetluConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hetluConfig.cmake ${CMAKE_BINARY_DIR}/hetluConfigVersion.cmake
  DESTINATION ${HETLU_CMAKE_DIR})
