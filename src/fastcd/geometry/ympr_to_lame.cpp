#include "fastcd/geometry/ympr_to_lame.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd {

std::pair<double, double> ympr_to_lame(double ym, double pr) {
  FASTCD_CHECK(std::isfinite(ym) && ym > 0, "Young's modulus must be finite and > 0, got ", ym);
  FASTCD_CHECK(std::isfinite(pr) && pr > -1.0 && pr < 0.5, "Poisson ratio must lie in (-1, 0.5), got ", pr);
  return {ym / (2.0 * (1.0 + pr)), ym * pr / ((1.0 + pr) * (1.0 - 2.0 * pr))};
}

}  // namespace fastcd
