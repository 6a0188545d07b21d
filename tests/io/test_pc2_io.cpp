// PC2 point caches: layout, bit-exact round trips, malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_pc2_io {

using test::expect_throw_with;
using test::same_matrix;

class Pc2Io : public test::IoTempDir {
 protected:
  static std::string i32(std::int32_t v) {
    std::string s(4, '\0');
    std::memcpy(s.data(), &v, 4);
    return s;
  }
  static std::string f32(float v) {
    std::string s(4, '\0');
    std::memcpy(s.data(), &v, 4);
    return s;
  }
  static std::string header(std::int32_t np, std::int32_t ns, float start = 0, float rate = 1,
                            std::int32_t version = 1) {
    return std::string("POINTCACHE2\0", 12) + i32(version) + i32(np) + f32(start) + f32(rate) + i32(ns);
  }
  // Frames whose values are exactly representable as float32.
  static std::vector<MatrixXd> float_frames(int samples, int points, int dim, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-100.f, 100.f);
    std::vector<MatrixXd> f(static_cast<std::size_t>(samples), MatrixXd(points, dim));
    for (auto& F : f)
      for (Index j = 0; j < F.cols(); ++j)
        for (Index i = 0; i < F.rows(); ++i) F(i, j) = static_cast<double>(u(rng));
    return f;
  }
};

TEST_F(Pc2Io, WritesTheDocumentedLayout) {
  std::vector<MatrixXd> frames = float_frames(3, 5, 3, 1);
  frames[1](2, 1) = 0.5;
  write_pc2(path("a.pc2"), frames, 10.0, 0.5);
  const std::string b = slurp(path("a.pc2"));
  ASSERT_EQ(b.size(), 32u + 12u * 5u * 3u);
  EXPECT_EQ(b.substr(0, 12), std::string("POINTCACHE2\0", 12));
  EXPECT_EQ(b.substr(12, 4), i32(1));
  EXPECT_EQ(b.substr(16, 4), i32(5));
  EXPECT_EQ(b.substr(20, 4), f32(10.0f));
  EXPECT_EQ(b.substr(24, 4), f32(0.5f));
  EXPECT_EQ(b.substr(28, 4), i32(3));
  // sample 1, point 2, y: offset 32 + 12 * (1 * 5 + 2) + 4.
  EXPECT_EQ(b.substr(32 + 12 * 7 + 4, 4), f32(0.5f));
}

TEST_F(Pc2Io, RoundTripIsBitExact) {
  const std::vector<MatrixXd> frames = float_frames(4, 7, 3, 2);
  write_pc2(path("a.pc2"), frames, -3.0, 2.0);
  const PointCache pc = read_pc2(path("a.pc2"));
  EXPECT_EQ(pc.start_frame, -3.0);
  EXPECT_EQ(pc.sample_rate, 2.0);
  ASSERT_EQ(pc.frames.size(), frames.size());
  for (std::size_t s = 0; s < frames.size(); ++s) EXPECT_TRUE(same_matrix(pc.frames[s], frames[s]));
  // Writing what was read reproduces the file byte for byte.
  write_pc2(path("b.pc2"), pc.frames, pc.start_frame, pc.sample_rate);
  EXPECT_EQ(slurp(path("b.pc2")), slurp(path("a.pc2")));

  // 2D frames get z = 0; doubles are rounded to float32.
  std::vector<MatrixXd> f2 = float_frames(2, 3, 2, 3);
  f2[0](0, 0) = 0.1;
  write_pc2(path("c.pc2"), f2);
  const PointCache p2 = read_pc2(path("c.pc2"));
  ASSERT_EQ(p2.frames[1].cols(), 3);
  EXPECT_TRUE(same_matrix(p2.frames[1].leftCols(2), f2[1]));
  EXPECT_EQ(p2.frames[1].col(2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(p2.frames[0](0, 0), static_cast<double>(0.1f));

  // Real data: the sphere's tet vertices as a two-frame cache.
  const MeditMesh s = read_mesh(test::shared_data("complementary-dynamics-cpp/sphere/sphere.mesh"));
  const MatrixXd Xf = s.X.cast<float>().cast<double>();
  write_pc2(path("s.pc2"), {Xf, MatrixXd(2.0 * Xf)});
  const PointCache ps = read_pc2(path("s.pc2"));
  EXPECT_EQ(ps.frames[0].rows(), 67);
  EXPECT_TRUE(same_matrix(ps.frames[1], 2.0 * Xf));

  // Empty cache.
  write_pc2(path("e.pc2"), {});
  EXPECT_EQ(read_pc2(path("e.pc2")).frames.size(), 0u);
  EXPECT_EQ(listing(), (std::set<std::string>{"a.pc2", "b.pc2", "c.pc2", "e.pc2", "s.pc2"}));
}

TEST_F(Pc2Io, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string pt = f32(0) + f32(1) + f32(2);
  expect_throw_with<E>([&] { read_pc2(path("none.pc2")); }, "read_pc2: cannot open");
  expect_throw_with<E>([&] { read_pc2(put("e.pc2", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_pc2(put("m.pc2", "POINTCACHE3" + std::string(30, '\0'))); },
                       "bad magic 'POINTCACHE3?'");
  expect_throw_with<E>([&] { read_pc2(put("s.pc2", header(1, 1).substr(0, 20))); },
                       "truncated header: 20 bytes, a PC2 header has 32");
  expect_throw_with<E>([&] { read_pc2(put("v.pc2", header(1, 1, 0, 1, 2) + pt)); },
                       "byte 12: version 2 is not supported");
  expect_throw_with<E>([&] { read_pc2(put("np.pc2", header(-1, 1))); }, "byte 16: negative point count -1");
  expect_throw_with<E>([&] { read_pc2(put("ns.pc2", header(1, -5))); }, "byte 28: negative sample count -5");
  expect_throw_with<E>([&] { read_pc2(put("r.pc2", header(1, 1, 0, 0) + pt)); },
                       "byte 24: sample rate 0.000000 is not a positive number");
  expect_throw_with<E>([&] { read_pc2(put("sf.pc2", header(1, 1, NAN) + pt)); }, "byte 20: start frame is not finite");
  expect_throw_with<E>([&] { read_pc2(put("t.pc2", header(2, 1) + pt)); },
                       "file has 44 bytes but its header (2 points x 1 samples) needs exactly 56 "
                       "(truncated file or corrupt counts)");
  expect_throw_with<E>([&] { read_pc2(put("x.pc2", header(1, 1) + pt + "junk")); },
                       "(trailing data or corrupt counts)");
  // Huge declared counts: rejected by the size check, nothing allocated.
  expect_throw_with<E>([&] { read_pc2(put("h.pc2", header(2147483647, 2147483647) + pt)); },
                       "needs exactly 55340232169589047340");
  expect_throw_with<E>([&] { read_pc2(put("nan.pc2", header(2, 1) + pt + f32(0) + f32(INFINITY) + f32(0))); },
                       "byte 48: sample 0, point 1, coordinate 1 is not finite");
}

TEST_F(Pc2Io, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  std::vector<MatrixXd> f = float_frames(2, 3, 3, 4);
  expect_throw_with<E>([&] { write_pc2(path("a.pc2"), {MatrixXd::Zero(3, 4)}); },
                       "write_pc2: frames must be #V x 2 or #V x 3, got 3 x 4");
  expect_throw_with<E>(
      [&] {
        write_pc2(path("a.pc2"), {f[0], MatrixXd::Zero(2, 3)});
      },
      "frames[1] is 2 x 3 but frames[0] is 3 x 3");
  expect_throw_with<E>([&] { write_pc2(path("a.pc2"), f, 0, 0); }, "sample_rate must be > 0");
  expect_throw_with<E>([&] { write_pc2(path("a.pc2"), f, NAN); }, "start_frame");
  f[1](2, 0) = 1e300;
  expect_throw_with<E>([&] { write_pc2(path("a.pc2"), f); }, "frames[1](2, 0)");
  f[1](2, 0) = NAN;
  expect_throw_with<E>([&] { write_pc2(path("a.pc2"), f); }, "is not a finite float32 value");
  EXPECT_TRUE(listing().empty());
}

}  // namespace test_pc2_io
}  // namespace fastcd
