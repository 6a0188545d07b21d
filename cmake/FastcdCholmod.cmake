# SuiteSparse/CHOLMOD. Debian 12 ships SuiteSparse 5.12 without a CMake config or a .pc file,
# so fall back to a plain header + library search. SuiteSparse >= 7 installs a config
# (target SuiteSparse::CHOLMOD), which is preferred when present.
find_package(CHOLMOD CONFIG QUIET)
if(TARGET SuiteSparse::CHOLMOD)
  set(FASTCD_CHOLMOD_TARGET SuiteSparse::CHOLMOD)
else()
  find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse REQUIRED)
  find_library(CHOLMOD_LIBRARY NAMES cholmod REQUIRED)
  if(NOT TARGET fastcd::cholmod)
    # libcholmod.so already links amd/colamd/metis/blas/lapack.
    add_library(fastcd::cholmod UNKNOWN IMPORTED)
    set_target_properties(fastcd::cholmod PROPERTIES
      IMPORTED_LOCATION "${CHOLMOD_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}")
  endif()
  set(FASTCD_CHOLMOD_TARGET fastcd::cholmod)
endif()
message(STATUS "fastcd: CHOLMOD via ${FASTCD_CHOLMOD_TARGET}")
