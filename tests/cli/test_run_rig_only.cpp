// Checks the output of `fastcd run --no-dynamics` (run by ctest first): the baked point cache is
// exactly the rig's LBS pose of every frame, mapped to the render surface and file units.
#include <cstdlib>

#include "fastcd/io/pc2_io.hpp"
#include "fastcd/scene/scene.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_run_rig_only {

TEST(RunRigOnly, BakedCacheIsTheRigPose) {
  const char* dir = std::getenv("FASTCD_RIG_ONLY_RUN");
  if (!dir) GTEST_SKIP() << "run by ctest after `fastcd run --no-dynamics` (FASTCD_RIG_ONLY_RUN)";
  const Scene s = load_scene(std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-cpp/sphere/sphere.json");
  const PointCache pc = read_pc2(std::string(dir) + "/animation.pc2");
  ASSERT_EQ(pc.frames.size(), s.poses.size());
  ASSERT_GT(s.render_E.rows(), 0);
  const SparseMatrix J = lbs_jacobian(s.X, s.W);
  double worst = 0.0;
  for (std::size_t f = 0; f < s.poses.size(); ++f) {
    const MatrixXd rig =
        (MatrixXd(s.render_E * unflatten(J * s.poses[f], 3)) * s.half_extent).rowwise() + s.center.transpose();
    worst = std::max(worst, (pc.frames[f] - rig).cwiseAbs().maxCoeff() / rig.cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-6);  // float32 storage
}

}  // namespace test_run_rig_only
}  // namespace fastcd
