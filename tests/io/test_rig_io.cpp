// TGF handle graphs and DMAT matrices: the shipped rigs, round trips, malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_rig_io {

using test::expect_throw_with;
using test::same_matrix;
using test::shared_data;

class TgfIo : public test::IoTempDir {};
class DmatIo : public test::IoTempDir {};

MatrixXi edges(std::initializer_list<std::pair<int, int>> e) {
  MatrixXi E(static_cast<Index>(e.size()), 2);
  Index i = 0;
  for (auto [a, b] : e) {
    E(i, 0) = a;
    E(i, 1) = b;
    ++i;
  }
  return E;
}

VectorXi range(int n) {
  VectorXi r(n);
  for (int i = 0; i < n; ++i) r(i) = i;
  return r;
}

// ====================================================================================== TGF

TEST_F(TgfIo, ReadsTheComplementaryDynamicsRigs) {
  // bird: 4 joints, bones 1-2, 1-3, 1-4 (flags "1 0 0 0"), no point handle.
  const TgfGraph bird = read_tgf(shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.tgf"));
  EXPECT_EQ(bird.C.rows(), 4);
  EXPECT_EQ(bird.C.cols(), 3);
  EXPECT_EQ(bird.C(0, 0), 238.01512786);
  EXPECT_TRUE(same_matrix(bird.E, edges({{0, 1}, {0, 2}, {0, 3}})));
  EXPECT_TRUE(same_matrix(bird.BE, bird.E));
  EXPECT_EQ(bird.P.size(), 0);
  EXPECT_EQ(bird.CE.rows(), 0);

  // daisy / sphere / frog: point handles only (the files end with "#\n#\n").
  struct Points {
    const char* file;
    int n;
  };
  for (const Points& c : {Points{"complementary-dynamics-2d/daisy/daisy_data/daisy.tgf", 3},
                          Points{"complementary-dynamics-cpp/sphere/sphere.tgf", 2},
                          Points{"complementary-dynamics-cpp/frog/frog.tgf", 1}}) {
    SCOPED_TRACE(c.file);
    const TgfGraph g = read_tgf(shared_data(c.file));
    EXPECT_EQ(g.C.rows(), c.n);
    EXPECT_EQ(g.E.rows(), 0);
    EXPECT_EQ(g.BE.rows(), 0);
    EXPECT_TRUE(same_matrix(g.P, range(c.n)));
  }

  // elephant: 25 joints, 24 bones forming one tree rooted at joint 1.
  const TgfGraph el = read_tgf(shared_data("complementary-dynamics-cpp/elephant/elephant.tgf"));
  EXPECT_EQ(el.C.rows(), 25);
  EXPECT_EQ(el.BE.rows(), 24);
  EXPECT_TRUE(same_matrix(el.BE, el.E));
  EXPECT_EQ(el.P.size(), 0);
  std::vector<int> parents(25, 0);
  for (Index b = 0; b < el.BE.rows(); ++b) ++parents[static_cast<std::size_t>(el.BE(b, 1))];
  EXPECT_EQ(parents[0], 0) << "root";
  for (int j = 1; j < 25; ++j) EXPECT_EQ(parents[static_cast<std::size_t>(j)], 1) << "joint " << j;

  // walrus cage: 9 vertices, 9 unflagged edges closing a polygon. As in libigl, unflagged
  // edges are not bones, so all 9 vertices are point handles.
  const TgfGraph cage = read_tgf(shared_data("complementary-dynamics-2d/walrus/walrus_data/walrus_cage.tgf"));
  EXPECT_EQ(cage.C.rows(), 9);
  ASSERT_EQ(cage.E.rows(), 9);
  for (Index e = 0; e < 9; ++e) {
    EXPECT_EQ(cage.E(e, 0), e);
    EXPECT_EQ(cage.E(e, 1), (e + 1) % 9);
  }
  EXPECT_EQ(cage.BE.rows(), 0);
  EXPECT_TRUE(same_matrix(cage.P, range(9)));
}

TEST_F(TgfIo, RoundTripIsExact) {
  const TgfGraph el = read_tgf(shared_data("complementary-dynamics-cpp/elephant/elephant.tgf"));
  write_tgf(path("e.tgf"), el.C, el.BE);
  const TgfGraph r = read_tgf(path("e.tgf"));
  EXPECT_TRUE(same_matrix(r.C, el.C));
  EXPECT_TRUE(same_matrix(r.E, el.E));
  EXPECT_TRUE(same_matrix(r.BE, el.BE));
  EXPECT_TRUE(same_matrix(r.P, el.P));

  const TgfGraph cage = read_tgf(shared_data("complementary-dynamics-2d/walrus/walrus_data/walrus_cage.tgf"));
  write_tgf(path("c.tgf"), cage.C, cage.E, TgfEdges::Plain);
  const TgfGraph rc = read_tgf(path("c.tgf"));
  EXPECT_TRUE(same_matrix(rc.E, cage.E));
  EXPECT_EQ(rc.BE.rows(), 0);
  EXPECT_TRUE(same_matrix(rc.P, cage.P));

  // 2D positions (z = 0), awkward values, point handles only.
  const MatrixXd C = test::awkward_values(4, 2, 9);
  write_tgf(path("p.tgf"), C, MatrixXi(0, 2));
  const TgfGraph rp = read_tgf(path("p.tgf"));
  EXPECT_TRUE(same_matrix(rp.C.leftCols(2), C));
  EXPECT_EQ(rp.C.col(2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_TRUE(same_matrix(rp.P, range(4)));
  EXPECT_EQ(listing(), (std::set<std::string>{"c.tgf", "e.tgf", "p.tgf"}));
}

TEST_F(TgfIo, ReadsPseudoAndCageFlags) {
  const TgfGraph g = read_tgf(put("f.tgf", "1 0 0 0\n2 1 0 0\n3 2 0 0\n#\n1 2 0 1 0\n2 3 0 0 1\n\n#\nignored\n"));
  EXPECT_TRUE(same_matrix(g.PE, edges({{0, 1}})));
  EXPECT_TRUE(same_matrix(g.CE, edges({{1, 2}})));
  EXPECT_EQ(g.BE.rows(), 0);
  EXPECT_TRUE(same_matrix(g.P, range(3)));
}

TEST_F(TgfIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string v2 = "1 0 0 0\n2 1 0 0\n#\n";
  expect_throw_with<E>([&] { read_tgf(path("none.tgf")); }, "read_tgf: cannot open");
  expect_throw_with<E>([&] { read_tgf(put("e.tgf", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_tgf(put("h.tgf", "#\n#\n")); }, "no vertices");
  expect_throw_with<E>([&] { read_tgf(put("nul.tgf", std::string("1 0 0 0\n\0\0", 10))); },
                       "line 2: contains a NUL byte");
  expect_throw_with<E>([&] { read_tgf(put("o.tgf", "1 0 0 0\n3 1 0 0\n")); }, "line 2: vertex index is 3, expected 2");
  expect_throw_with<E>([&] { read_tgf(put("m.tgf", "1 0 0\n")); }, "line 1: missing z coordinate");
  expect_throw_with<E>([&] { read_tgf(put("n.tgf", "1 0 nan 0\n")); }, "line 1: y coordinate is not finite ('nan')");
  expect_throw_with<E>([&] { read_tgf(put("x.tgf", "1 0 0 0 9\n")); },
                       "unexpected extra text '9' after the vertex position");
  expect_throw_with<E>([&] { read_tgf(put("r.tgf", v2 + "1 3\n")); },
                       "line 4: edge end (a vertex index) 3 is out of range [1, 2]");
  expect_throw_with<E>([&] { read_tgf(put("z.tgf", v2 + "0 1\n")); },
                       "edge end (a vertex index) 0 is out of range [1, 2]");
  expect_throw_with<E>([&] { read_tgf(put("s.tgf", v2 + "2 2\n")); }, "edge joins vertex 2 to itself");
  expect_throw_with<E>([&] { read_tgf(put("f.tgf", v2 + "1 2 2\n")); }, "edge flag must be 0 or 1, got '2'");
  expect_throw_with<E>([&] { read_tgf(put("b.tgf", v2 + "1 x\n")); },
                       "expected edge end (a vertex index) (an integer), got 'x'");
}

TEST_F(TgfIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  const MatrixXd C = MatrixXd::Zero(2, 3);
  expect_throw_with<E>([&] { write_tgf(path("a.tgf"), MatrixXd(0, 3), MatrixXi(0, 2)); }, "C is empty");
  expect_throw_with<E>([&] { write_tgf(path("a.tgf"), C, edges({{0, 2}})); }, "E(0, 1) = 2 is out of range");
  expect_throw_with<E>([&] { write_tgf(path("a.tgf"), C, edges({{1, 1}})); }, "joins vertex 1 to itself");
  expect_throw_with<E>([&] { write_tgf(path("a.tgf"), MatrixXd::Constant(1, 3, INFINITY), MatrixXi(0, 2)); },
                       "C(0, 0) is not finite");
  EXPECT_TRUE(listing().empty());
}

// ===================================================================================== DMAT

struct Weights {
  const char* file;
  Index rows, cols;
};

TEST_F(DmatIo, ReadsTheShippedWeightsAndTheyArePartitionsOfUnity) {
  for (const Weights& w : {Weights{"complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.dmat", 639, 3},
                           Weights{"complementary-dynamics-2d/daisy/daisy_data/daisy.dmat", 702, 3},
                           Weights{"complementary-dynamics-cpp/sphere/sphere.dmat", 67, 2},
                           Weights{"complementary-dynamics-cpp/elephant/elephant.dmat", 494, 24},
                           Weights{"complementary-dynamics-cpp/frog/frog_weight.dmat", 1749, 1}}) {
    SCOPED_TRACE(w.file);
    const MatrixXd W = read_dmat(shared_data(w.file));
    EXPECT_EQ(W.rows(), w.rows);
    EXPECT_EQ(W.cols(), w.cols);
    EXPECT_LT((W.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12) << "rows sum to 1";
    EXPECT_GE(W.minCoeff(), -1e-8);  // elephant: tiny negatives down to -6.1e-9
    EXPECT_LE(W.maxCoeff(), 1.0 + 1e-10);
  }
  const MatrixXd bird = read_dmat(shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.dmat"));
  EXPECT_GE(bird.minCoeff(), 0.0);
  EXPECT_LE(bird.maxCoeff(), 1.0);
  const MatrixXd el = read_dmat(shared_data("complementary-dynamics-cpp/elephant/elephant.dmat"));
  EXPECT_LT(el.minCoeff(), -6e-9);
  EXPECT_GT(el.minCoeff(), -6.2e-9);
  // The weights' rows are the tet-mesh vertices (not the rendering surface's).
  EXPECT_EQ(el.rows(), read_mesh(shared_data("complementary-dynamics-cpp/elephant/elephant.mesh")).X.rows());
  EXPECT_EQ(bird.rows(),
            read_obj_2d(shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.obj")).X.rows());
}

TEST_F(DmatIo, ReadsMasksIndexListsAndTheWalrusCageAnimation) {
  const MatrixXd mask = read_dmat(shared_data("complementary-dynamics-cpp/frog/frog_mask.dmat"));
  ASSERT_EQ(mask.rows(), 1749);
  ASSERT_EQ(mask.cols(), 1);
  EXPECT_EQ((mask.array() == 1.0).count(), 1315);
  EXPECT_EQ((mask.array() == 0.0).count(), 434);

  const MatrixXd fixed =
      read_dmat(shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth_fixed_region.dmat"));
  ASSERT_EQ(fixed.rows(), 42);
  ASSERT_EQ(fixed.cols(), 1);
  EXPECT_TRUE((fixed.array() == fixed.array().round()).all()) << "vertex indices";
  EXPECT_EQ(fixed.minCoeff(), 24.0);
  EXPECT_EQ(fixed.maxCoeff(), 111.0);

  // 222 frames x 18 values. Each frame is the 9 x 2 cage matrix flattened column-major,
  // [x0..x8, y0..y8] (not interleaved): frame 0 is the TGF cage under one uniform scale.
  const MatrixXd Cu = read_dmat(shared_data("complementary-dynamics-2d/walrus/walrus_data/walrus_user_C.dmat"));
  ASSERT_EQ(Cu.rows(), 222);
  ASSERT_EQ(Cu.cols(), 18);
  const TgfGraph cage = read_tgf(shared_data("complementary-dynamics-2d/walrus/walrus_data/walrus_cage.tgf"));
  const Eigen::VectorXd x = Cu.row(0).head(9).transpose(), y = Cu.row(0).tail(9).transpose();
  const Eigen::VectorXd cx = cage.C.col(0), cy = cage.C.col(1);
  const double sx = (x(6) - x(0)) / (cx(6) - cx(0)), sy = (y(0) - y(5)) / (cy(0) - cy(5));
  EXPECT_NEAR(sx, sy, 1e-6 * sx) << "same scale in x and y";
  EXPECT_LT(((x.array() - x(0)) - sx * (cx.array() - cx(0))).abs().maxCoeff(), 1e-5);
  EXPECT_LT(((y.array() - y(0)) - sx * (cy.array() - cy(0))).abs().maxCoeff(), 1e-5);
  // The interleaved reading would not be a similarity of the cage.
  Eigen::VectorXd xi(9), yi(9);
  for (int k = 0; k < 9; ++k) {
    xi(k) = Cu(0, 2 * k);
    yi(k) = Cu(0, 2 * k + 1);
  }
  const double si = (xi(6) - xi(0)) / (cx(6) - cx(0));
  EXPECT_GT(((xi.array() - xi(0)) - si * (cx.array() - cx(0))).abs().maxCoeff(), 0.1);
}

TEST_F(DmatIo, RoundTripAsciiIsExactAndBinaryIsBitExact) {
  MatrixXd W = test::awkward_values(13, 4, 21);
  W(2, 1) = std::numeric_limits<double>::denorm_min();
  W(3, 1) = std::numeric_limits<double>::max();
  W(4, 1) = -std::numeric_limits<double>::min();
  for (DmatEncoding enc : {DmatEncoding::Ascii, DmatEncoding::Binary}) {
    SCOPED_TRACE(static_cast<int>(enc));
    write_dmat(path("w.dmat"), W, enc);
    const MatrixXd R = read_dmat(path("w.dmat"));
    ASSERT_EQ(R.rows(), W.rows());
    ASSERT_EQ(R.cols(), W.cols());
    EXPECT_EQ(std::memcmp(R.data(), W.data(), sizeof(double) * static_cast<std::size_t>(W.size())), 0)
        << "bit for bit, -0.0 and denormals included";
  }
  // libigl's binary layout: "0 0\n", "cols rows\n", column-major float64.
  write_dmat(path("b.dmat"), W, DmatEncoding::Binary);
  const std::string bytes = slurp(path("b.dmat"));
  EXPECT_EQ(bytes.substr(0, 9), "0 0\n4 13\n");
  ASSERT_EQ(bytes.size(), 9 + 8 * 52u);
  double w10 = 0;
  std::memcpy(&w10, bytes.data() + 9 + 8, 8);
  EXPECT_EQ(w10, W(1, 0));
  // ASCII layout: "cols rows" then column-major values.
  write_dmat(path("a.dmat"), W.topLeftCorner(2, 2));
  EXPECT_EQ(slurp(path("a.dmat")).substr(0, 4), "2 2\n");
  // Empty shapes.
  for (auto shape : {std::pair<int, int>{0, 0}, {5, 0}, {0, 3}})
    for (DmatEncoding enc : {DmatEncoding::Ascii, DmatEncoding::Binary}) {
      write_dmat(path("z.dmat"), MatrixXd(shape.first, shape.second), enc);
      const MatrixXd Z = read_dmat(path("z.dmat"));
      EXPECT_EQ(Z.rows(), shape.first);
      EXPECT_EQ(Z.cols(), shape.second);
    }
  // Real weights: ASCII file -> binary -> same values.
  const MatrixXd el = read_dmat(shared_data("complementary-dynamics-cpp/elephant/elephant.dmat"));
  write_dmat(path("el.dmat"), el, DmatEncoding::Binary);
  EXPECT_TRUE(same_matrix(read_dmat(path("el.dmat")), el));
  EXPECT_EQ(listing(), (std::set<std::string>{"a.dmat", "b.dmat", "el.dmat", "w.dmat", "z.dmat"}));
}

TEST_F(DmatIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  auto le = [](double v) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &v, 8);
    return s;
  };
  expect_throw_with<E>([&] { read_dmat(path("none.dmat")); }, "read_dmat: cannot open");
  expect_throw_with<E>([&] { read_dmat(put("e.dmat", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_dmat(put("h.dmat", "3\n1\n2\n3\n")); },
                       "line 1: expected the header '<cols> <rows>', got '3'");
  expect_throw_with<E>([&] { read_dmat(put("g.dmat", "\x89PNG\r\n\x1a\n")); }, "expected the header");
  expect_throw_with<E>([&] { read_dmat(put("n.dmat", "-1 3\n")); }, "bad size -1 columns x 3 rows");
  expect_throw_with<E>([&] { read_dmat(put("huge.dmat", "100000 100000\n1\n2\n")); },
                       "line 1: header declares 100000 x 100000 = 10000000000 values but only 4 bytes follow");
  expect_throw_with<E>([&] { read_dmat(put("few.dmat", "2 2\n1\n2\n3\n")); },
                       "unexpected end of file: expected 4 values (2 rows x 2 columns), found 3");
  expect_throw_with<E>([&] { read_dmat(put("more.dmat", "1 2\n1\n2\n3\n")); },
                       "line 4: more than the 2 values declared by the header '1 2' (extra '3')");
  expect_throw_with<E>([&] { read_dmat(put("nan.dmat", "1 2\n1\nnan\n")); }, "line 3: value 'nan' is not finite");
  expect_throw_with<E>([&] { read_dmat(put("inf.dmat", "1 2\n1\n-inf\n")); }, "value '-inf' is not finite");
  expect_throw_with<E>([&] { read_dmat(put("x.dmat", "1 2\n1\n2,5\n")); }, "line 3: expected a number, got '2,5'");
  expect_throw_with<E>([&] { read_dmat(put("nul.dmat", std::string("1 2\n1\n\0\0\n", 10))); },
                       "line 3: contains a NUL byte");
  // Binary variant.
  expect_throw_with<E>([&] { read_dmat(put("bt.dmat", "0 0\n1 2\n" + le(1.0))); },
                       "binary block has 8 bytes but 2 x 1 doubles need 16 (truncated file)");
  expect_throw_with<E>([&] { read_dmat(put("bx.dmat", "0 0\n1 1\n" + le(1.0) + le(2.0))); },
                       "binary block has 16 bytes but 1 x 1 doubles need 8 (trailing data)");
  expect_throw_with<E>([&] { read_dmat(put("bn.dmat", "0 0\n1 2\n" + le(1.0) + le(NAN))); },
                       "byte 16: value (1, 0) is not finite");
  expect_throw_with<E>([&] { read_dmat(put("bh.dmat", "0 0\nxx\n")); },
                       "line 2: expected the header '<cols> <rows>', got 'xx'");
}

TEST_F(DmatIo, WriterRejectsNonFiniteValues) {
  MatrixXd W = MatrixXd::Ones(2, 2);
  W(1, 0) = NAN;
  expect_throw_with<std::invalid_argument>([&] { write_dmat(path("w.dmat"), W); }, "write_dmat: W(1, 0) is not finite");
  EXPECT_TRUE(listing().empty());
}

}  // namespace test_rig_io
}  // namespace fastcd
