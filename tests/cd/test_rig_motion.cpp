// RigMotion: the rig's positions over a roll-out's step, evaluated when read. A LinearRig of the
// form J_s (x) I is evaluated through J_s: the same products in the same order as J p.
#include "cd_fixtures.hpp"

namespace fastcd {
namespace test_rig_motion {

/// A rig seen only through the Rig interface: RigMotion evaluates it through positions().
class Opaque : public Rig {
 public:
  explicit Opaque(LinearRig r) : r_(std::move(r)) {}
  Index dim() const override { return r_.dim(); }
  Index num_vertices() const override { return r_.num_vertices(); }
  Index num_params() const override { return r_.num_params(); }
  bool is_linear() const override { return true; }
  VectorXd rest_params() const override { return r_.p0; }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override {
    ++calls;
    r_.positions(p, x);
  }
  using Rig::positions;
  mutable int calls = 0;

 private:
  LinearRig r_;
};

TEST(RigMotion, ScalarBlocksGiveJpToRounding) {
  for (int dim : {2, 3}) {
    const Mesh m = test::mesh_for(dim);
    const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T, 1e3), dim);
    MatrixXd W(m.X.rows(), 3);
    W.col(0) = m.X.col(0);
    W.col(1) = m.X.col(1);
    W.col(2) = 1.0 - W.col(0).array() - W.col(1).array();
    const auto rig = std::make_shared<const LinearRig>(lbs_rig(m.X, W, Mv));
    const RigMotion motion(rig, 0.01);
    EXPECT_TRUE(motion.linear_rig());
    const VectorXd p = rig->p0 + 0.3 * VectorXd::Random(rig->num_params());
    VectorXd x(rig->J.rows());
    motion.evaluate(p, x);
    const VectorXd Jp = rig->J * p;
    EXPECT_LE((x - Jp).cwiseAbs().maxCoeff(), 1e-15 * Jp.cwiseAbs().maxCoeff()) << dim << "D";
  }
}

TEST(RigMotion, PositionsAreEvaluatedWhenReadAndCarriedToTheNextStep) {
  const test::Small3D s;
  const auto rig = std::make_shared<const Opaque>(s.rig);
  RigMotion motion(rig, 0.5);
  EXPECT_FALSE(motion.linear_rig());
  const VectorXd p0 = rig->rest_params(), p1 = metronome_pose(p0, 3, 10, 0.3), p2 = metronome_pose(p0, 3, 20, 0.3);
  motion.reset(p0);
  EXPECT_EQ(rig->calls, 0);
  EXPECT_EQ(motion.x(), rig->positions(p0));
  EXPECT_EQ(motion.x_dot().cwiseAbs().maxCoeff(), 0.0);  // at rest
  const int after_rest = rig->calls;
  motion.move_to(p1);  // x(p0) becomes x(p_prev): no evaluation
  EXPECT_EQ(rig->calls, after_rest);
  EXPECT_EQ(motion.x_prev(), rig->positions(p0));
  EXPECT_EQ(motion.x(), rig->positions(p1));
  const VectorXd v = (rig->positions(p1) - rig->positions(p0)) / 0.5;
  EXPECT_EQ(motion.x_dot(), v);
  // A step that read the next positions: they become the current ones without evaluation.
  motion.next(p2);
  const int before = rig->calls;
  motion.move_to(p2);
  EXPECT_EQ(motion.x(), rig->positions(p2));
  EXPECT_EQ(motion.x_prev(), rig->positions(p1));
  EXPECT_EQ(rig->calls, before + 2);  // (the two references above, not the motion)
  // Nothing read in a step: x(p_prev) is evaluated when asked for.
  motion.move_to(p0);
  motion.move_to(p1);
  EXPECT_EQ(motion.x_prev(), rig->positions(p0));
  EXPECT_EQ(motion.p_prev(), p0);
  EXPECT_EQ(motion.p(), p1);
}

}  // namespace test_rig_motion
}  // namespace fastcd
