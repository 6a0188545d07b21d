// The README's scene example: a Complementary Dynamics release scene loaded, simulated with
// the fast solver and baked to a PC2 point cache in the file's units (what `fastcd run` does,
// without the OBJ sequence, preview and report). Built and run on the daisy by the test suite
// (examples_bake_scene); the [readme] block is the README's snippet.
//   bake_scene SCENE.json OUT.pc2
#include <cstdio>
#include <exception>
#include <vector>

#include "fastcd/fastcd.hpp"

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bake_scene SCENE.json OUT.pc2\n");
    return 2;
  }
  // [readme]
  using namespace fastcd;
  const Scene scene = load_scene(argv[1]);  // mesh, rig, weights, animation, material
  SceneRunSettings run;
  run.solver = SolverKind::Fast;  // 16 modes, 100 clusters, as `fastcd run --solver fast`
  Simulation sim = make_simulation(scene, scene_simulation_options(scene, run));
  const OutputSurface surface = output_surface(scene);
  std::vector<MatrixXd> frames;
  for (const VectorXd& p : scene.poses) {
    sim.advance(p);
    frames.push_back(to_file_units(scene, surface, sim.positions()));
  }
  write_pc2(argv[2], frames);
  // [readme]
  std::printf("%s: %zu frames, max residual %.1e -> %s\n", scene.name.c_str(), frames.size(), sim.stats().max_residual,
              argv[2]);
  return sim.stats().max_residual < 1e-8 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bake_scene: error: %s\n", e.what());
  return 1;
}
