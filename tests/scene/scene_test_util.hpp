// Checks shared by the scene tests.
#pragma once

#include <gtest/gtest.h>

#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd::test {

/// Every frame of the scene with the fast solver (4 modes, `clusters` clusters): the constraint
/// holds and nothing blows up.
inline void expect_fast_simulation_holds(const Scene& s, int clusters) {
  SceneRunSettings run;
  run.solver = SolverKind::Fast;
  run.modes = 4;
  run.clusters = clusters;
  Simulation sim = make_simulation(s, scene_simulation_options(s, run));
  for (const VectorXd& p : s.poses) sim.advance(p);
  EXPECT_LT(sim.stats().max_residual, 1e-10);
  EXPECT_TRUE(sim.positions().allFinite());
}

}  // namespace fastcd::test
