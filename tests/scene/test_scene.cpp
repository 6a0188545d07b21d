#include <filesystem>
#include <fstream>
#include <tuple>

#include "fastcd/io/anim_io.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_scene {

namespace fs = std::filesystem;
const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";

struct SceneCase {
  const char* json;
  Index dim, vertices, elements, handles, frames;
  HandleKind kind;
};

class ShippedScene : public ::testing::TestWithParam<SceneCase> {};

TEST_P(ShippedScene, LoadsWithItsCountsAndARestPoseThatReproducesTheMesh) {
  const SceneCase c = GetParam();
  SceneOptions o;
  o.material = "arap";  // the frog asks for neo-Hookean
  const Scene s = load_scene(kData + c.json, o);
  EXPECT_EQ(s.dim, c.dim);
  EXPECT_EQ(s.X.rows(), c.vertices);
  EXPECT_EQ(s.T.rows(), c.elements);
  EXPECT_EQ(s.handles, c.handles);
  EXPECT_EQ(static_cast<Index>(s.poses.size()), c.frames);
  EXPECT_EQ(s.kind, c.kind);
  EXPECT_NEAR(s.X.cwiseAbs().maxCoeff(), 1.0, 1e-12);  // normalised like the releases
  // Weights are a partition of unity, so the identity pose reproduces the rest shape.
  const SparseMatrix J = lbs_jacobian(s.X, s.W);
  EXPECT_LT((J * s.rest_pose - flatten(s.X)).cwiseAbs().maxCoeff(), 1e-9);
  for (const VectorXd& p : s.poses) ASSERT_TRUE(p.allFinite());
  // Each frame's handle maps are rigid (rotation + translation) for these rigs.
  const Index d = s.dim;
  for (Index h = 0; h < s.handles; ++h) {
    const MatrixXd A = s.poses.back().segment(h * d * (d + 1), d * (d + 1)).reshaped(d, d + 1);
    EXPECT_LT((A.leftCols(d).transpose() * A.leftCols(d) - MatrixXd::Identity(d, d)).norm(), 1e-10);
  }
  // The rig reports each handle's frame: that handle's [A | t] in the pose, the maps the weights
  // blend (x_v = sum_h W(v, h) (A_h X_v + t_h)).
  ASSERT_EQ(s.rig->num_handles(), s.handles);
  const VectorXd& p = s.poses.back();
  MatrixXd blended = MatrixXd::Zero(s.X.rows(), d);
  for (Index h = 0; h < s.handles; ++h) {
    const MatrixXd F = s.rig->handle_frame(p, h);
    EXPECT_EQ(F, p.segment(h * d * (d + 1), d * (d + 1)).reshaped(d, d + 1)) << "handle " << h;
    blended += s.W.col(h).asDiagonal() * MatrixXd((s.X * F.leftCols(d).transpose()).rowwise() + F.col(d).transpose());
  }
  EXPECT_LT((blended - unflatten(s.rig->positions(p), d)).cwiseAbs().maxCoeff(), 1e-12);
  if (s.dim == 3) {
    EXPECT_EQ(s.surface.cols(), 3);
    EXPECT_GT(s.surface.rows(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Data, ShippedScene,
    ::testing::Values(
        SceneCase{"complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.json", 2, 639, 1099, 3, 140,
                  HandleKind::Bones},
        SceneCase{"complementary-dynamics-2d/daisy/daisy_data/daisy.json", 2, 702, 1158, 3, 200, HandleKind::Points},
        SceneCase{"complementary-dynamics-cpp/sphere/sphere.json", 3, 67, 181, 2, 30, HandleKind::Points},
        SceneCase{"complementary-dynamics-cpp/elephant/elephant.json", 3, 494, 1502, 24, 457, HandleKind::Bones},
        SceneCase{"complementary-dynamics-cpp/frog/frog.json", 3, 1749, 5389, 1, 40, HandleKind::Points}),
    [](const auto& info) { return fs::path(info.param.json).stem().string(); });

class SceneErrors : public test::TempDir {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    for (const char* f : {"sphere.mesh", "sphere.tgf", "sphere.dmat", "sphere_anim.txt"})
      fs::copy_file(kData + "complementary-dynamics-cpp/sphere/" + f, dir_ / f);
  }
  std::string write(const std::string& name, const std::string& text) { return put(name, text); }
  std::string scene(const std::string& extra, const std::string& weights = "sphere.dmat") {
    return write("s.json", R"({"mesh_file": "sphere.mesh", "handle_file": "sphere.tgf", "weight_file": ")" + weights +
                               R"(", "anim_file": "sphere_anim.txt", "dt": 0.01, "YM": 5e4, "pr": 0.4)" + extra + "}");
  }
};

TEST_F(SceneErrors, ClearMessages) {
  test::expect_throw_with<std::runtime_error>([&] { load_scene(write("bad.json", "{ not json")); }, "not valid JSON");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene(", \"dt\": -1")); }, "dt must be > 0");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene(", \"pr\": 0.5")); }, "pr must lie in");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("", "missing.dmat")); }, "names a missing file");
  write("short.dmat", "1 3\n1\n1\n1\n");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("", "short.dmat")); },
                                              "the weights have 3 rows but the mesh has 67");
  write("sphere_anim.txt", "2 30\n0 0.8 0\n");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("")); }, "truncated file");
  SceneOptions arap;
  arap.material = "arap";
  const Scene ok = [&] {
    fs::copy_file(kData + "complementary-dynamics-cpp/sphere/sphere_anim.txt", dir_ / "sphere_anim.txt",
                  fs::copy_options::overwrite_existing);
    return load_scene(scene(", \"model\": \"stvk\""), arap);
  }();
  ASSERT_EQ(ok.warnings.size(), 1u);
  EXPECT_NE(ok.warnings[0].find("stvk"), std::string::npos);
  // Without SceneOptions::material = "arap", another material is refused with the way out.
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene(", \"model\": \"stvk\"")); }, "--material arap");
  // A cage scene whose animation does not fit its cage.
  const std::string wdir = kData + "complementary-dynamics-2d/walrus/walrus_data/";
  const std::string bad_cage =
      write("cage.json",
            "{\"mesh_file\": \"" + wdir + "walrus.obj\", \"skeleton_file\": \"" + wdir +
                "walrus_cage.tgf\", \"anim_file\": \"" + kData +
                "complementary-dynamics-2d/daisy/daisy_data/daisy.dmat\", \"dt\": 0.01, \"YM\": 1e5, \"pr\": 0.3}");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(bad_cage); }, "the cage has 9 vertices");
}

// "material" is the key; the releases' "model" is read as its alias, and the two may not disagree.
TEST_F(SceneErrors, MaterialKeyAndTheReleasesModelAlias) {
  EXPECT_EQ(load_scene(scene(", \"material\": \"arap\"")).material, "arap");
  EXPECT_EQ(load_scene(scene(", \"model\": \"arap\"")).material, "arap");
  EXPECT_EQ(load_scene(scene(", \"material\": \"arap\", \"model\": \"arap\"")).material, "arap");
  SceneOptions arap;
  arap.material = "arap";
  const Scene stvk = load_scene(scene(", \"material\": \"stvk\""), arap);
  EXPECT_EQ(stvk.material, "stvk");
  ASSERT_EQ(stvk.warnings.size(), 1u);
  EXPECT_NE(stvk.warnings[0].find("'stvk' material; simulated as ARAP"), std::string::npos);
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene(", \"material\": \"stvk\"")); },
                                              "--material arap");
  // Both keys, saying different things: refused naming the file and both keys, even when asked to
  // run the scene as ARAP.
  const std::string both = scene(", \"material\": \"arap\", \"model\": \"neohookean\"");
  for (const SceneOptions& o : {SceneOptions{}, arap})
    test::expect_throw_with<std::runtime_error>(
        [&] { load_scene(both, o); },
        "'" + both +
            "': \"material\" is 'arap' but \"model\" (the releases' name for the same setting) is "
            "'neohookean'");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene(", \"material\": 1")); },
                                              "\"material\" must be a string");
}

// Poisson's ratio is used: it reaches the solvers, whose ARAP mu = ym / (2 (1 + pr)).
TEST_F(SceneErrors, PoissonsRatioReachesTheSolver) {
  const Scene s = load_scene(scene(""));
  EXPECT_EQ(s.pr, 0.4);
  const SimulationOptions o = scene_simulation_options(s);
  EXPECT_EQ(o.cd.pr, 0.4);
  EXPECT_EQ(o.cd.ym, 5e4);  // a release scene's YM acts on the normalised mesh as it is
  EXPECT_EQ(normalised_ym(s, s.ym), s.ym);
  // A different pr is a different stiffness (mu), so a different simulation.
  const Scene s0 = load_scene(write("pr0.json", R"({"mesh_file": "sphere.mesh", "handle_file": "sphere.tgf",
      "weight_file": "sphere.dmat", "anim_file": "sphere_anim.txt", "dt": 0.01, "YM": 5e4, "pr": 0.0})"));
  Simulation a = make_simulation(s, scene_simulation_options(s));
  Simulation b = make_simulation(s0, scene_simulation_options(s0));
  for (int f = 0; f < 3; ++f) {
    a.advance(s.poses[static_cast<std::size_t>(f)]);
    b.advance(s0.poses[static_cast<std::size_t>(f)]);
  }
  EXPECT_GT((a.positions() - b.positions()).cwiseAbs().maxCoeff(), 1e-9);
}

// Every option struct of a run starts from fastcd/common/defaults.hpp (which the CLI, Python's
// fastcd.defaults and the Blender add-on read too): a literal that drifts from it fails here.
TEST(Defaults, EveryRunOptionStartsFromTheOnePlace) {
  const SceneRunSettings run;
  EXPECT_EQ(to_string(run.solver), defaults::solver);
  EXPECT_STREQ(precision_name(run.precision), defaults::precision);
  EXPECT_EQ(run.iterations, defaults::iterations);
  EXPECT_EQ(run.modes, defaults::modes);
  EXPECT_EQ(run.clusters, defaults::clusters);
  EXPECT_EQ(run.leak, defaults::leak);
  EXPECT_EQ(run.gravity, defaults::gravity);
  const SurfaceSceneOptions surface;
  const GltfSceneOptions gltf;
  for (const auto& [dt, ym, pr, rho, mpu] :
       {std::tuple{surface.dt, surface.ym, surface.pr, surface.rho, surface.metres_per_unit},
        std::tuple{gltf.dt, gltf.ym, gltf.pr, gltf.rho, gltf.metres_per_unit}}) {
    EXPECT_EQ(dt, defaults::dt);
    EXPECT_EQ(ym, defaults::ym);
    EXPECT_EQ(pr, defaults::pr);
    EXPECT_EQ(rho, defaults::rho);
    EXPECT_EQ(mpu, defaults::metres_per_unit);
  }
  EXPECT_EQ(gltf.tets.mesher, defaults::mesher);
  EXPECT_EQ(gltf.voxel.resolution, defaults::voxel_resolution);
  EXPECT_EQ(GltfBakeOptions{}.encoding, defaults::glb_encoding);
  EXPECT_EQ(GltfBakeOptions{}.pca_tolerance, defaults::pca_tolerance);
  // The iterations the solvers' own options start from are the run's too (tutorial 23: 10).
  EXPECT_EQ(CDOptions{}.iterations, defaults::iterations);
}

// A scene without "rho" takes the releases' density (2D: 1, 3D: 1000) from the same place.
TEST_F(SceneErrors, DefaultDensityIsTheReleases) {
  EXPECT_EQ(load_scene(scene("")).rho, defaults::scene_rho_3d);
  const std::string bird = kData + "complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.json";
  EXPECT_EQ(load_scene(bird).rho, defaults::scene_rho_2d);
}

TEST_F(SceneErrors, HandlesWithoutWeightsGetBiharmonicWeights) {
  const std::string json = write("nw.json", R"({"mesh_file": "sphere.mesh", "handle_file": "sphere.tgf",
      "anim_file": "sphere_anim.txt", "dt": 0.01, "YM": 5e4, "pr": 0.4})");
  const Scene s = load_scene(json);
  ASSERT_EQ(s.W.cols(), 2);
  EXPECT_LT((s.W.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-9);
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.back().find("biharmonic"), std::string::npos);
  // and it simulates: the rest pose reproduces the mesh
  EXPECT_LT((lbs_jacobian(s.X, s.W) * s.rest_pose - flatten(s.X)).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(AnimIo, ShippedAnimationCounts) {
  const auto bird = read_animation_2d(kData + "complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth_anim.txt");
  EXPECT_EQ(bird.frames.size(), 140u);
  EXPECT_EQ(bird.rest.rows(), 3);
  const auto ele = read_bone_animation_3d(kData + "complementary-dynamics-cpp/elephant/elephant_anim.txt");
  EXPECT_EQ(ele.bone_euler.size(), 457u);
  EXPECT_EQ(ele.bone_rest_euler.rows(), 24);
  const auto sph = read_point_animation_3d(kData + "complementary-dynamics-cpp/sphere/sphere_anim.txt");
  EXPECT_EQ(sph.translation.size(), 30u);
  EXPECT_EQ(sph.rest_translation.rows(), 2);
}

TEST(AnimIo, MalformedFiles) {
  const fs::path p = fs::temp_directory_path() / "fastcd_bad_anim.txt";
  auto write = [&](const std::string& t) {
    std::ofstream(p) << t;
    return p.string();
  };
  test::expect_throw_with<std::runtime_error>([&] { read_animation_2d(write("")); }, "empty");
  test::expect_throw_with<std::runtime_error>([&] { read_animation_2d(write("1 1\n0 0 0\n1 nan 0\n")); }, "not finite");
  test::expect_throw_with<std::runtime_error>([&] { read_animation_2d(write("1 1\n0 0 0\n1 2 3 4\n")); },
                                              "extra value");
  test::expect_throw_with<std::runtime_error>([&] { read_animation_2d(write("99999999 3\n0 0 0\n")); }, "declares");
  test::expect_throw_with<std::runtime_error>(
      [&] { read_bone_animation_3d(write("1 1\n0 0 0\n0 0 0\n0 0 0\n0 0 0\nx 0 0\n0 0 0\n")); }, "line 6");
  fs::remove(p);
}

}  // namespace test_scene
}  // namespace fastcd
