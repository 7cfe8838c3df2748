/* The exit status of a GPU test where there is no GPU, ctest's
   SKIP_RETURN_CODE for it (tests/unit/CMakeLists.txt's GPU_SKIPPED, the
   same number): outside PETSc's error codes (55 to 99), which a failed
   check returns from main; with 77 (PETSC_ERR_PLIB) a failure read as a
   skip. */
#pragma once
#define GPU_SKIPPED 125
