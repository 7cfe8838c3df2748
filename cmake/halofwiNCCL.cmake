# NCCL beside the CUDA toolkit as the imported target NCCL::nccl (when found).
# Used by the build and by halofwiConfig.cmake, so an installed halofwi::halo
# names NCCL by target, not by the build machine's path.  Needs CUDAToolkit.
find_library(HALOFWI_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
if(HALOFWI_NCCL_LIBRARY AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${HALOFWI_NCCL_LIBRARY}")
endif()
