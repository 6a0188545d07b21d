// simd::Vec8: lane-wise selects and masks, and a square root that is exactly std::sqrt.
#include <gtest/gtest.h>

#include <limits>

#include "fastcd/common/simd.hpp"

namespace fastcd {
namespace test_simd {

TEST(Simd, MasksSelectsAndExactLaneFunctions) {
  using namespace simd;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const double in[8] = {-2.0, 0.0, 3.0, 1e-300, nan, inf, -inf, 7.0};
  const Vec8 v = load8(in);
  double out[8];
  store8(out, abs8(v));
  EXPECT_EQ(out[0], 2.0);
  EXPECT_EQ(out[6], inf);
  const Mask8 fin = finite8(v);
  for (int l = 0; l < 8; ++l) EXPECT_EQ(fin[l] != 0, std::isfinite(in[l])) << l;
  const Mask8 pos = v > splat8(0.0);
  EXPECT_TRUE(any(pos));
  EXPECT_FALSE(all(pos));
  EXPECT_TRUE(all(pos | ~pos));
  EXPECT_FALSE(any(pos & ~pos));
  store8(out, select(pos, v, splat8(-1.0)));
  for (int l = 0; l < 8; ++l) {
    if (in[l] > 0.0) {
      EXPECT_EQ(out[l], in[l]) << l;
    } else {
      EXPECT_EQ(out[l], -1.0) << l;
    }
  }
  const double sq[8] = {2.0, 3.0, 1e-300, 0.0, 5.5, 1e300, 0.1, 12345.678};
  store8(out, sqrt8(load8(sq)));
  for (int l = 0; l < 8; ++l) EXPECT_EQ(out[l], std::sqrt(sq[l])) << l;  // bit for bit
  Vec8 p = splat8(4.0);
  pin(p);
  store8(out, p * p);
  EXPECT_EQ(out[3], 16.0);
}

}  // namespace test_simd
}  // namespace fastcd
