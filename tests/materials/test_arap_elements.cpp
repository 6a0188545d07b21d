#include <tuple>

#include "test_util.hpp"

namespace fastcd {
namespace test_arap_elements {

// The element tables reproduce the assembled operators: F = G x and b0 + G^T AMue R.
TEST(ArapElements, MatchesAssembledOperators) {
  for (int dim : {2, 3}) {
    const Mesh m = test::mesh_for(dim);
    const ElasticOperators op = elastic_operators(m.X, m.T, 1e5, 0.0, 1e3);
    const ArapElements el = arap_elements(m.X, m.T, op.mu_vol);
    ASSERT_EQ(el.num_entries(), op.G.rows());
    EXPECT_EQ(el.incidence_elem.size(), static_cast<std::size_t>(m.T.size()));
    const VectorXd x = VectorXd::Random(op.G.cols()), R = VectorXd::Random(op.G.rows()),
                   b0 = VectorXd::Random(op.G.cols());
    VectorXd F(op.G.rows()), b(op.G.cols());
    arap_deformation(el, x.data(), F.data());
    const VectorXd F_ref = op.G * x;
    EXPECT_LT((F - F_ref).norm(), 1e-13 * F_ref.norm()) << "dim " << dim;
    arap_elastic_rhs(el, R.data(), b0.data(), b.data());
    const VectorXd b_ref = b0 + op.G.transpose() * (op.AMue * R);
    EXPECT_LT((b - b_ref).norm(), 1e-13 * b_ref.norm()) << "dim " << dim;
    b = b0;  // in place (b aliasing b0) is allowed
    arap_elastic_rhs(el, R.data(), b.data(), b.data());
    EXPECT_LT((b - b_ref).norm(), 1e-13 * b_ref.norm()) << "dim " << dim;
  }
}

// The fused 3D local step equals deformation, closest rotations and right-hand side run apart,
// on a mesh whose element count leaves the last SIMD batch partly empty.
TEST(ArapElements, FusedRotatedRhsMatchesTheSeparateSteps) {
  Mesh m = test::mesh3d();
  m.T.conservativeResize(m.T.rows() - 3, 4);  // (vertices left without elements keep b0)
  ASSERT_NE(m.T.rows() % 8, 0);
  const VectorXd mu_vol = VectorXd::LinSpaced(m.T.rows(), 1.0, 3.0);
  const ArapElements el = arap_elements(m.X, m.T, mu_vol);
  EXPECT_EQ(el.num_batches(), (m.T.rows() + 7) / 8);
  MatrixXd Xd = m.X;
  Xd.col(0) *= 1.3;  // stretched, sheared and noisy: rotations far from the identity
  Xd.col(1) += 0.4 * m.X.col(2);
  Xd += 0.05 * MatrixXd::Random(m.X.rows(), 3);
  const MatrixXd Xt = Xd.transpose();
  const VectorXd x = Eigen::Map<const VectorXd>(Xt.data(), Xt.size()), b0 = VectorXd::Random(x.size());
  VectorXd F(el.num_entries()), R, b_ref(x.size()), b(x.size()), work(el.rotated_rhs_buffer());
  arap_deformation(el, x.data(), F.data());
  polar_rotations(F, 3, R);
  arap_elastic_rhs(el, R.data(), b0.data(), b_ref.data());
  arap_rotated_rhs(el, x.data(), b0.data(), b.data(), work.data());
  EXPECT_LT((b - b_ref).norm(), 1e-13 * b_ref.norm());
  EXPECT_GT((b - b0).norm(), 1e-3 * b0.norm());  // the elastic part is there
  b = b0;                                        // b may alias b0
  arap_rotated_rhs(el, x.data(), b.data(), b.data(), work.data());
  EXPECT_LT((b - b_ref).norm(), 1e-13 * b_ref.norm());
  const Mesh m2 = test::mesh2d();
  const ArapElements el2 = arap_elements(m2.X, m2.T, VectorXd::Ones(m2.T.rows()));
  test::expect_throw_with<std::invalid_argument>(
      [&] { arap_rotated_rhs(el2, x.data(), b0.data(), b.data(), work.data()); }, "3D lane tables");
}

// Large meshes run the loops on several threads; every entry is summed in a fixed order, so the
// results are bitwise identical for any thread count.
TEST(ArapElements, IndependentOfThreadCount) {
  const Mesh m = tetrahedralized_grid(14, 12, 10);  // 7,722 tets: above the threading threshold
  const VectorXd mu_vol = VectorXd::LinSpaced(m.T.rows(), 1.0, 2.0);
  const ArapElements el = arap_elements(m.X, m.T, mu_vol);
  ASSERT_GE(el.num_elements, 4096);
  const VectorXd x = VectorXd::Random(m.X.size()), R = VectorXd::Random(el.num_entries()),
                 b0 = VectorXd::Random(m.X.size());
  auto run = [&](int threads) {
    const test::ThreadCount scope(threads);
    VectorXd F(el.num_entries()), b(m.X.size());
    arap_deformation(el, x.data(), F.data());
    arap_elastic_rhs(el, R.data(), b0.data(), b.data());
    VectorXd bf(m.X.size()), work(el.rotated_rhs_buffer());
    arap_rotated_rhs(el, (x + m.X.reshaped<Eigen::RowMajor>()).eval().data(), b0.data(), bf.data(), work.data());
    return std::tuple{F, b, bf};
  };
  const auto one = run(1), two = run(2), three = run(3);
  EXPECT_TRUE(std::get<0>(one) == std::get<0>(two) && std::get<0>(one) == std::get<0>(three));
  EXPECT_TRUE(std::get<1>(one) == std::get<1>(two) && std::get<1>(one) == std::get<1>(three));
  EXPECT_TRUE(std::get<2>(one) == std::get<2>(two) && std::get<2>(one) == std::get<2>(three));
}

TEST(ArapElements, RejectsBadInput) {
  const Mesh m = test::mesh2d();
  test::expect_throw_with<std::invalid_argument>([&] { arap_elements(m.X, m.T, VectorXd::Ones(3)); }, "mu_vol has 3");
  VectorXd bad = VectorXd::Ones(m.T.rows());
  bad(4) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { arap_elements(m.X, m.T, bad); }, "non-finite");
  MatrixXd X = m.X;
  X.row(m.T(2, 1)) = X.row(m.T(2, 0));  // collapse element 2
  test::expect_throw_with<std::invalid_argument>([&] { arap_elements(X, m.T, VectorXd::Ones(m.T.rows())); },
                                                 "degenerate");
}

}  // namespace test_arap_elements
}  // namespace fastcd
