
#include "test_util.hpp"

namespace fastcd {
namespace {

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
    return std::pair{F, b};
  };
  const auto one = run(1), two = run(2), three = run(3);
  EXPECT_TRUE(one.first == two.first && one.first == three.first);
  EXPECT_TRUE(one.second == two.second && one.second == three.second);
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

}  // namespace
}  // namespace fastcd
