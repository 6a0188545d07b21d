# Compile settings of fastcd's own targets.
#
# fastcd_warnings: an INTERFACE target with the warning flags every fastcd target compiles with
# (linked PRIVATE, so consumers never inherit them).
#
# fastcd_target_defaults(<target> [PRECOMPILE_FIRST <header>...] [PRECOMPILE <header>...]
#                        [PRECOMPILE_FROM <other target>]):
# links fastcd_warnings, with FASTCD_NATIVE compiles the target with -march=native - PRIVATE to
# our targets, never leaked to a consumer - and with FASTCD_PCH gives it a precompiled header
# (see below): FASTCD_PCH_HEADERS plus the target's own PRECOMPILE headers (after them) and
# PRECOMPILE_FIRST headers (before them: pybind11, whose Python.h must come first), or the one
# of PRECOMPILE_FROM, a target compiled with exactly the same flags. Every target of fastcd's
# own calls it, so a new source file of a target, or a new target, gets all three without
# listing anything.
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
  # simd.hpp's Vec8 is a 64-byte vector; on a CPU without AVX-512 (-march=native on Zen) GCC notes
  # that passing one by value has a different ABI than with AVX-512. Those functions are inline or
  # file-local and never cross a library boundary, so there is no ABI to keep: the note is noise.
  target_compile_options(fastcd_warnings INTERFACE -Wno-psabi)
endif()

# Precompiled headers. Every translation unit of fastcd includes Eigen (common/types.hpp:
# Eigen/Core and Eigen/SparseCore, ~140,000 lines after preprocessing) and the tests GoogleTest
# (~100,000 more): parsing them was about half of the build's compile time. With FASTCD_PCH each
# target parses them once, into a precompiled header compiled with exactly the target's flags
# (the core's -fno-math-errno, PIC libraries and non-PIC programs differ, so only targets with the
# same flags share one: PRECOMPILE_FROM), and every source file of the target starts from it (GCC's
# `-include cmake_pch.hxx`). Only headers from outside fastcd go in (the standard library, Eigen
# and per target GoogleTest, pybind11, CLI11, nlohmann-json, Google Benchmark), so editing a
# fastcd header recompiles exactly the files that include it, as without. Nothing about the code
# generated changes: the headers are the same text, only parsed once.
option(FASTCD_PCH "Precompile the standard library, Eigen and the test/binding frameworks once per target" ON)
set(FASTCD_PCH_HEADERS
    <algorithm> <array> <cmath> <cstddef> <cstdint> <cstdio> <cstring> <functional> <limits> <map> <memory>
    <mutex> <optional> <set> <stdexcept> <string> <string_view> <utility> <vector>
    <Eigen/Core> <Eigen/SparseCore> <Eigen/Dense>)

function(fastcd_target_defaults target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PRECOMPILE_FROM" "PRECOMPILE_FIRST;PRECOMPILE")
  target_link_libraries(${target} PRIVATE fastcd_warnings)
  if(FASTCD_NATIVE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
  if(FASTCD_PCH)
    if(arg_PRECOMPILE_FROM)
      target_precompile_headers(${target} REUSE_FROM ${arg_PRECOMPILE_FROM})
    else()
      target_precompile_headers(${target} PRIVATE ${arg_PRECOMPILE_FIRST} ${FASTCD_PCH_HEADERS} ${arg_PRECOMPILE})
    endif()
  endif()
endfunction()
