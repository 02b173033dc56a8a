# `cmake --install build --prefix PREFIX`: the program in bin/, the libraries in lib/, the headers in
# include/flexadj/ and the CMake package in lib/cmake/flexadj/ (find_package(flexadj) -> flexadj::flexadj).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(FLEXADJ_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/flexadj)

install(TARGETS flexadj flexadj_functions flexadj_hdf5io flexadj_trilinos flexadj_hdf5 EXPORT flexadj-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS flexadj_app EXPORT flexadj-targets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/flexadj DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT flexadj-targets NAMESPACE flexadj:: DESTINATION ${FLEXADJ_PACKAGE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/flexadj-config.cmake.in
                              ${PROJECT_BINARY_DIR}/flexadj-config.cmake INSTALL_DESTINATION ${FLEXADJ_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/flexadj-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/flexadj-config.cmake ${PROJECT_BINARY_DIR}/flexadj-config-version.cmake
        DESTINATION ${FLEXADJ_PACKAGE_DIR})
