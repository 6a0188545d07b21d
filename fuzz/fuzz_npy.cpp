// libFuzzer harness: read_npy.
#include "fastcd/io/npy.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.npy", "read_npy", {
  const fastcd::NpyArray a = fastcd::read_npy(path);
  std::size_t n = 1;
  for (std::size_t d : a.shape) n *= d;
  check(a.dtype == "<f8" || a.dtype == "<i4" || a.dtype == "<i8", "read_npy: dtype");
  check((a.dtype == "<f8" ? a.data_f64.size() : a.data_i64.size()) == n,
        "read_npy: element count differs from the shape");
})
