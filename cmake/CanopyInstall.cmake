# Installs the public headers, the shared library, the tools, a CMake package and a pkg-config file.
include(CMakePackageConfigHelpers)
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS canopy EXPORT CanopyTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT CanopyTargets NAMESPACE Canopy:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Canopy)
file(WRITE ${PROJECT_BINARY_DIR}/CanopyConfig.cmake
     "include(\${CMAKE_CURRENT_LIST_DIR}/CanopyTargets.cmake)\n")
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CanopyConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CanopyConfig.cmake ${PROJECT_BINARY_DIR}/CanopyConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Canopy)
configure_file(cmake/canopy.pc.in ${PROJECT_BINARY_DIR}/canopy.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/canopy.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The drop-in libcanopy-mpi*.so libraries are installed by canopy_add_coll_runtime (src/).
