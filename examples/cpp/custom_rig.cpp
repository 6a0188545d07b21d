// The README's "any rig" example: a rig written by the user (only its positions; the Jacobian
// comes from finite differences), driving full-order complementary dynamics. Built and run by
// the test suite (examples_custom_rig); the [readme] block is the README's snippet.
#include <cmath>
#include <cstdio>
#include <memory>

#include "fastcd/fastcd.hpp"

// [readme]
using namespace fastcd;

/// Bends a 2D mesh about its left end: the angle p(0) grows quadratically along x.
class BendRig : public Rig {
 public:
  explicit BendRig(MatrixXd X) : X_(std::move(X)) {}
  Index dim() const override { return 2; }
  Index num_vertices() const override { return X_.rows(); }
  Index num_params() const override { return 1; }
  bool is_linear() const override { return false; }
  VectorXd rest_params() const override { return VectorXd::Zero(1); }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override {
    const double x0 = X_.col(0).minCoeff(), len = X_.col(0).maxCoeff() - x0;
    for (Index v = 0; v < X_.rows(); ++v) {
      const double s = (X_(v, 0) - x0) / len, a = p(0) * s * s;
      x(2 * v) = std::cos(a) * X_(v, 0) - std::sin(a) * X_(v, 1);
      x(2 * v + 1) = std::sin(a) * X_(v, 0) + std::cos(a) * X_(v, 1);
    }
  }
  using Rig::positions;

 private:
  MatrixXd X_;
};

int main() {
  const Mesh b = beam(20, 4);
  SimulationOptions options;  // full order: J(p)^T M D u_c = 0 is rebuilt for every pose
  options.cd.ym = 1e4;
  Simulation sim(b.X, b.T, std::make_shared<const BendRig>(b.X), options);
  for (int i = 1; i <= 60; ++i) sim.advance(VectorXd::Constant(1, 0.4 * std::sin(0.1 * i)));
  std::printf("max residual %.1e, kinetic energy %.3g\n", sim.stats().max_residual, sim.kinetic_energy());
  // [readme]
  return sim.stats().max_residual < 1e-8 && sim.displacement().norm() > 1e-6 ? 0 : 1;
}
