# Installs halofwi_halo as the package halofwi, component halo: the library,
# its header, the exported target halofwi::halo with halofwiConfig.cmake
# (which finds the dependencies the target names), and halofwi-halo.pc.
include(CMakePackageConfigHelpers)

set(HALOFWI_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/halofwi)
set_target_properties(halofwi_halo PROPERTIES EXPORT_NAME halo)
install(TARGETS halofwi_halo EXPORT halofwiHaloTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/halofwi/halo.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/halofwi)
install(EXPORT halofwiHaloTargets NAMESPACE halofwi:: FILE halofwi-halo-targets.cmake DESTINATION ${HALOFWI_CMAKE_DIR})

# The packing kernel's object needs the host runtime that nvcc links by
# itself (libstdc++); a C program linking the installed library gets it here.
if(HALOFWI_CUDA)
  set(HALOFWI_CUDA_HOST_LIBS ${CMAKE_CUDA_IMPLICIT_LINK_LIBRARIES})
  list(REMOVE_ITEM HALOFWI_CUDA_HOST_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
  list(REMOVE_DUPLICATES HALOFWI_CUDA_HOST_LIBS)
  target_link_libraries(halofwi_halo PUBLIC "$<INSTALL_INTERFACE:${HALOFWI_CUDA_HOST_LIBS}>")
endif()

# The folder of the PETSc.pc this build used: the config file looks there
# first, as Debian's lies outside pkg-config's default path.
pkg_get_variable(HALOFWI_PETSC_PCDIR PETSc pcfiledir)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/halofwiConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/halofwiConfig.cmake
                              INSTALL_DESTINATION ${HALOFWI_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/halofwiConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/halofwiConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/halofwiConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/halofwiNCCL.cmake
        DESTINATION ${HALOFWI_CMAKE_DIR})

# pkg-config: PETSc by name; MPI and CUDA as this build found them, so that
# `cc $(pkg-config --cflags --libs halofwi-halo)` needs no MPI wrapper.  The
# prefix is found from the .pc file's own folder (cmake --install --prefix).
file(RELATIVE_PATH HALOFWI_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" HALOFWI_PC_TO_PREFIX "${HALOFWI_PC_TO_PREFIX}")
list(TRANSFORM MPI_C_INCLUDE_DIRS PREPEND -I OUTPUT_VARIABLE HALOFWI_PC_CFLAGS)
set(HALOFWI_PC_LIBS ${MPI_C_LIBRARIES})
if(HALOFWI_CUDA)
  list(APPEND HALOFWI_PC_LIBS $<TARGET_FILE:CUDA::cudart>)
  if(HALOFWI_HAVE_NCCL)
    list(APPEND HALOFWI_PC_LIBS $<TARGET_FILE:NCCL::nccl>)
  endif()
  list(TRANSFORM HALOFWI_CUDA_HOST_LIBS PREPEND -l OUTPUT_VARIABLE HALOFWI_PC_HOST_LIBS)
  list(APPEND HALOFWI_PC_LIBS ${HALOFWI_PC_HOST_LIBS})
endif()
list(JOIN HALOFWI_PC_CFLAGS " " HALOFWI_PC_CFLAGS)
list(JOIN HALOFWI_PC_LIBS " " HALOFWI_PC_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/halofwi-halo.pc.in ${CMAKE_CURRENT_BINARY_DIR}/halofwi-halo.pc.gen @ONLY)
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/halofwi-halo.pc INPUT ${CMAKE_CURRENT_BINARY_DIR}/halofwi-halo.pc.gen)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/halofwi-halo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
