// libFuzzer harness: read_pc2 (point caches).
#include <cmath>

#include "fastcd/io/pc2_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.pc2", "read_pc2", {
  const fastcd::PointCache pc = fastcd::read_pc2(path);
  check(std::isfinite(pc.start_frame) && pc.sample_rate > 0 && std::isfinite(pc.sample_rate),
        "read_pc2: bad header values");
  for (const auto& F : pc.frames) {
    check(F.cols() == 3 && F.rows() == pc.frames[0].rows(), "read_pc2: bad frame shape");
    check_finite(F, "read_pc2: frame");
  }
})
