// The README's first C++ example: tutorial 23's beam under its metronome rig, fast solver.
// Built and run by the test suite (examples_quickstart); the block between the [readme]
// markers is the README's snippet, word for word (tests/layout/check_readme.py).
#include <cstdio>
#include <memory>

#include "fastcd/fastcd.hpp"

int main() {
  // [readme]
  using namespace fastcd;
  const Mesh b = beam();  // tutorial 23's beam: 200 vertices, 312 triangles
  const SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  auto rig = std::make_shared<const LinearRig>(affine_handle_rig(b.X, Mv));  // one global affine handle
  SimulationOptions options;
  options.solver = SolverKind::Fast;  // 10 skinning eigenmodes, 20 rotation clusters
  Simulation sim(b.X, b.T, rig, options);
  for (int i = 0; i < 200; ++i) sim.advance(metronome_pose(rig->p0, 2, i));
  const MatrixXd x = sim.positions();  // #V x 2: the rig's pose plus the complementary motion
  std::printf("max residual %.1e, %.2f us per step\n", sim.stats().max_residual, 1e6 * sim.stats().mean_step_seconds());
  // [readme]
  const bool ok = x.allFinite() && sim.stats().max_residual < 1e-8 && sim.displacement().norm() > 1e-6;
  return ok ? 0 : 1;
}
