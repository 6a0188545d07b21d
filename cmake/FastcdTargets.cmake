# Compile settings of fastcd's own targets.
#
# fastcd_warnings: an INTERFACE target with the warning flags every fastcd target compiles with
# (linked PRIVATE, so consumers never inherit them).
#
# fastcd_target_defaults(<target>): links fastcd_warnings, and with FASTCD_NATIVE compiles the
# target with -march=native - PRIVATE to our targets, never leaked to a consumer.
#
# Eigen's alignment is pinned for everyone (a PUBLIC definition of fastcd::core):
# EIGEN_MAX_ALIGN_BYTES=64 and EIGEN_MAX_STATIC_ALIGN_BYTES=64 are what an AVX-512 build picks
# by itself, and pinning them makes a consumer compiled without -march=native agree with the
# library on fixed-size Eigen member layouts and on Eigen's heap allocator (with different
# values, a matrix allocated in the library and freed in the consumer would corrupt the heap).
add_library(fastcd_warnings INTERFACE)
target_compile_options(fastcd_warnings INTERFACE -Wall -Wextra)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 warns about its own AVX-512 intrinsics (`__m512d __Y = __Y;` in avx512fintrin.h)
  # wherever Eigen's vectorised reductions are inlined: a known false positive, not ours.
  target_compile_options(fastcd_warnings INTERFACE -Wno-maybe-uninitialized)
endif()

function(fastcd_target_defaults target)
  target_link_libraries(${target} PRIVATE fastcd_warnings)
  if(FASTCD_NATIVE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
endfunction()
