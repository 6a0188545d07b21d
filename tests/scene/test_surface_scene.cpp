// Scenes whose mesh is a closed surface (OBJ / OFF / PLY) filled with tets, load_surface_scene,
// and scenes naming a glTF character ("character_file"): the surface is the baked output exactly,
// vertex-indexed files count the surface's vertices, weights carry inside as a partition of
// unity, and the units are physical where the issue says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fastcd/cd/simulation.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "scene/scene_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_surface_scene {

namespace fs = std::filesystem;
const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";

class SurfaceScene : public test::TempDir {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    for (const char* f : {"sphere.obj", "sphere.tgf", "sphere_anim.txt"})
      fs::copy_file(kData + "complementary-dynamics-cpp/sphere/" + f, dir_ / f);
    surface_ = read_obj(path("sphere.obj"));
  }
  std::string scene(const std::string& mesh, const std::string& extra = "") {
    return put("s.json", R"({"mesh_file": ")" + mesh +
                             R"(", "handle_file": "sphere.tgf", "anim_file": "sphere_anim.txt", "dt": 0.01,
                                "YM": 5e4, "pr": 0.4)" +
                             extra + "}");
  }
  SurfaceMesh surface_;
};

// The baked surface is the file's surface, each vertex on a tet vertex, exactly.
void expect_surface_is_output(const Scene& s, const SurfaceMesh& m) {
  EXPECT_EQ(s.layout, "surface");
  EXPECT_EQ(s.dim, 3);
  ASSERT_EQ(s.render_V.rows(), m.V.rows());
  EXPECT_EQ(s.render_F, m.F);
  EXPECT_EQ(s.render_E.nonZeros(), m.V.rows());
  const OutputSurface out = output_surface(s);
  EXPECT_EQ((to_file_units(s, out, s.X) - m.V).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_LT((s.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  EXPECT_GE(s.W.minCoeff(), 0.0);
  // The rig at rest reproduces the tets.
  EXPECT_LT((lbs_jacobian(s.X, s.W) * s.rest_pose - flatten(s.X)).cwiseAbs().maxCoeff(), 1e-9);
}

TEST_F(SurfaceScene, AnObjSurfaceIsFilledAndBakedItself) {
  const Scene s = load_scene(scene("sphere.obj"));
  expect_surface_is_output(s, surface_);
  EXPECT_GT(s.X.rows(), surface_.V.rows());  // Netgen added interior points
  EXPECT_EQ(fs::path(s.output_obj).filename(), "sphere.obj");
  EXPECT_EQ(s.poses.size(), 30u);
  test::expect_fast_simulation_holds(s, 8);
}

TEST_F(SurfaceScene, WeightsCountTheSurfaceVerticesAndCarryInside) {
  // Inverse-distance weights for the two handles, one row per surface vertex.
  const TgfGraph g = read_tgf(path("sphere.tgf"));
  MatrixXd W(surface_.V.rows(), 2);
  for (Index v = 0; v < W.rows(); ++v) {
    for (Index h = 0; h < 2; ++h) W(v, h) = 1.0 / (1e-3 + (surface_.V.row(v) - g.C.row(g.P(h))).squaredNorm());
    W.row(v) /= W.row(v).sum();
  }
  write_ply(path("sphere.ply"), surface_.V, surface_.F);
  write_dmat(path("w.dmat"), W);
  const Scene s = load_scene(scene("sphere.ply", R"(, "weight_file": "w.dmat")"));
  expect_surface_is_output(s, surface_);
  EXPECT_LT((MatrixXd(s.render_E * s.W) - W).cwiseAbs().maxCoeff(), 1e-12);
  test::expect_fast_simulation_holds(s, 8);
  // Rows are surface vertices, not tet vertices.
  write_dmat(path("tets.dmat"), MatrixXd::Constant(s.X.rows(), 2, 0.5));
  test::expect_throw_with<std::runtime_error>(
      [&] { load_scene(scene("sphere.ply", R"(, "weight_file": "tets.dmat")")); }, "one row per surface vertex");
}

TEST_F(SurfaceScene, VertexFilesCountTheSurfaceVertices) {
  // Handles at surface vertices 3 and 40 (1-based 4 and 41), fixed region around vertex 10.
  write_dmat(path("c.dmat"), (MatrixXd(2, 1) << 4, 41).finished());
  write_dmat(path("fixed.dmat"), (MatrixXd(1, 1) << 11).finished());
  MatrixXd A(5, 24);  // per frame, two affine 3 x 4 transforms (gptoolbox lbs_matrix_column)
  for (Index f = 0; f < 5; ++f) {
    A.row(f).setZero();
    for (Index h = 0; h < 2; ++h)
      for (int k = 0; k < 3; ++k) A(f, h * 12 + k * 4 + k) = 1.0;
  }
  write_dmat(path("a.dmat"), A);
  const std::string json = put("v.json", R"({"mesh_file": "sphere.off", "constraint_file": "c.dmat",
      "anim_file": "a.dmat", "fixed_region_file": "fixed.dmat", "dt": 0.01, "YM": 5e4, "pr": 0.4})");
  write_off(path("sphere.off"), surface_.V, surface_.F);
  const Scene s = load_scene(json);
  expect_surface_is_output(s, surface_);
  ASSERT_EQ(s.handle_points.rows(), 2);
  const OutputSurface out = output_surface(s);
  const MatrixXd file = to_file_units(s, out, s.X);
  // Each handle sits on its surface vertex; the fixed vertex is that surface vertex's tet vertex.
  for (Index h = 0; h < 2; ++h)
    EXPECT_LT(
        ((s.handle_points.row(h) * s.half_extent + s.center.transpose()) - surface_.V.row(h == 0 ? 3 : 40)).norm(),
        1e-12);
  ASSERT_EQ(s.fixed.size(), 1);
  EXPECT_EQ((s.X.row(s.fixed[0]) * s.half_extent + s.center.transpose() - surface_.V.row(10)).norm(), 0.0);
  EXPECT_EQ(file.rows(), surface_.V.rows());
}

TEST_F(SurfaceScene, OpenSurfacesAreRefusedWithTheWayOut) {
  write_obj(path("open.obj"), surface_.V, surface_.F.topRows(surface_.F.rows() - 1));
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("open.obj")); }, "does not bound a solid");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("open.obj")); }, "\"mesher\": \"voxel\"");
  // ... which takes it.
  const Scene s = load_scene(scene("open.obj", R"(, "mesher": "voxel", "voxel_resolution": 8)"));
  EXPECT_EQ(s.render_V.rows(), surface_.V.rows());
  EXPECT_LT((s.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("sphere.obj", R"(, "mesher": "gmsh")")); },
                                              "unknown mesher 'gmsh'");
  test::expect_throw_with<std::runtime_error>([&] { load_scene(scene("sphere.obj", R"(, "clip": 1)")); },
                                              "is for a \"character_file\" scene");
}

TEST_F(SurfaceScene, SurfaceWithoutJsonHasPhysicalUnits) {
  SurfaceSceneOptions o;
  o.handles = path("sphere.tgf");
  o.animation = path("sphere_anim.txt");
  o.ym = 3e4;
  o.metres_per_unit = 0.01;
  const Scene s = load_surface_scene(path("sphere.obj"), o);
  expect_surface_is_output(s, surface_);
  EXPECT_EQ(s.name, "sphere");
  EXPECT_DOUBLE_EQ(s.metres_per_normalised_unit, 0.01 * s.half_extent);
  // Young's modulus stays as given (Pa); the solvers take it over L^2 (L metres per normalised unit).
  EXPECT_EQ(s.ym, 3e4);
  EXPECT_DOUBLE_EQ(scene_simulation_options(s).cd.ym, 3e4 / std::pow(0.01 * s.half_extent, 2));
  EXPECT_EQ(s.pr, o.pr);
  EXPECT_EQ(scene_simulation_options(s).cd.pr, o.pr);
  EXPECT_EQ(s.rho, 1000);
  o.animation.clear();
  test::expect_throw_with<std::runtime_error>([&] { load_surface_scene(path("sphere.obj"), o); }, "--anim");
}

TEST_F(SurfaceScene, ACharacterFileIsAScene) {
  const std::string glb = kData + "khronos-gltf/RiggedSimple.glb";
  const std::string json =
      put("c.json", R"({"character_file": ")" + glb + R"(", "clip": 0, "YM": 3e4, "dt": 0.02, "frame_num": 10})");
  const Scene s = load_scene(json);
  EXPECT_EQ(s.layout, "gltf");
  EXPECT_EQ(s.name, "c");
  EXPECT_EQ(s.poses.size(), 10u);
  EXPECT_EQ(s.dt, 0.02);
  EXPECT_EQ(s.ym, 3e4);
  EXPECT_DOUBLE_EQ(normalised_ym(s, s.ym), 3e4 / std::pow(s.metres_per_normalised_unit, 2));
  EXPECT_EQ(fs::path(s.input_files[0]).filename(), "c.json");
  // The .glb itself is a scene too (the defaults).
  const Scene d = load_scene(glb);
  EXPECT_EQ(d.layout, "gltf");
  EXPECT_EQ(d.handles, s.handles);
  test::expect_throw_with<std::runtime_error>(
      [&] { load_scene(put("m.json", R"({"character_file": ")" + glb + R"(", "mesh_file": "sphere.obj"})")); },
      "\"mesh_file\" does not apply to a \"character_file\" scene");
  test::expect_throw_with<std::runtime_error>(
      [&] { load_scene(put("k.json", R"({"character_file": ")" + glb + R"(", "clip": "dance"})")); },
      "no clip 'dance'");
}

}  // namespace test_surface_scene
}  // namespace fastcd
