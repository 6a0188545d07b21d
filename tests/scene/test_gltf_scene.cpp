// glTF characters as scenes (load_gltf_scene) and the bake back into glTF (write_gltf_bake,
// write_gltf_outputs): weights, poses and units of the scene; the written .glb decoded here,
// independently of our reader's morph handling, and skinned at every frame to the intended
// positions; the rest-space PC2 / MDD.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "fastcd/cd/simulation.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/rest_space.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/gltf_write.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "io/gltf_builder.hpp"
#include "scene/scene_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_gltf_scene {

using nlohmann::json;
const std::string kKhronos = std::string(FASTCD_SHARED_DIR) + "/data/khronos-gltf/";

// Positions by glTF LBS of the render vertices at pose p (file units).
MatrixXd skinned(const GltfSkinnedMesh& m, const MatrixXd& V, const VectorXd& p) {
  const VectorXd x = lbs_jacobian(V, m.W) * p;
  MatrixXd X(V.rows(), 3);
  for (Index v = 0; v < X.rows(); ++v) X.row(v) = x.segment<3>(3 * v).transpose();
  return X;
}

double size_of(const MatrixXd& V) { return (V.colwise().maxCoeff() - V.colwise().minCoeff()).norm(); }

// A .glb decoded with nothing but the spec (float accessors, tightly packed or strided).
struct Glb {
  json j;
  std::string bin;
  explicit Glb(const std::string& path) {
    const std::string b = read_regular_file(path, "test");
    EXPECT_EQ(b.compare(0, 4, "glTF"), 0);
    std::uint32_t total = 0, jl = 0, bl = 0;
    std::memcpy(&total, b.data() + 8, 4);
    EXPECT_EQ(total, b.size());
    std::memcpy(&jl, b.data() + 12, 4);
    EXPECT_EQ(b.compare(16, 4, "JSON"), 0);
    j = json::parse(b.substr(20, jl));
    std::memcpy(&bl, b.data() + 20 + jl, 4);
    EXPECT_EQ(b.compare(24 + jl, 4, std::string("BIN\0", 4)), 0);
    bin = b.substr(28 + jl, bl);
    EXPECT_EQ(j["buffers"].size(), 1u);
    EXPECT_LE(j["buffers"][0]["byteLength"].get<std::size_t>(), bin.size());
  }
  // A float accessor as a count x components matrix.
  MatrixXd floats(int a) const {
    const json& acc = j["accessors"][static_cast<std::size_t>(a)];
    EXPECT_EQ(acc["componentType"], 5126);
    const std::string type = acc["type"];
    const int n = type == "SCALAR" ? 1 : type == "VEC3" ? 3 : type == "VEC4" ? 4 : 16;
    const auto count = acc["count"].get<Index>();
    MatrixXd out = MatrixXd::Zero(count, n);
    if (!acc.contains("bufferView")) return out;
    const json& v = j["bufferViews"][acc["bufferView"].get<std::size_t>()];
    const std::size_t base = v.value("byteOffset", std::size_t{0}) + acc.value("byteOffset", std::size_t{0});
    const std::size_t stride = v.value("byteStride", static_cast<std::size_t>(4 * n));
    for (Index e = 0; e < count; ++e)
      for (int c = 0; c < n; ++c) {
        float f;
        std::memcpy(&f, bin.data() + base + static_cast<std::size_t>(e) * stride + 4 * static_cast<std::size_t>(c), 4);
        out(e, c) = f;
      }
    if (acc.contains("min"))
      for (int c = 0; c < n; ++c) {
        EXPECT_EQ(acc["min"][static_cast<std::size_t>(c)].get<double>(), out.col(c).minCoeff());
        EXPECT_EQ(acc["max"][static_cast<std::size_t>(c)].get<double>(), out.col(c).maxCoeff());
      }
    return out;
  }
  // The morphed rest positions of skinned mesh m at the baked clip's key k.
  MatrixXd morphed(const GltfSkinnedMesh& m, int anim, Index key) const {
    const json& a = j["animations"][static_cast<std::size_t>(anim)];
    MatrixXd V = m.V;
    for (const GltfPrimitiveSpan& s : m.spans) {
      const json* weights = nullptr;
      for (const json& ch : a["channels"])
        if (ch["target"]["path"] == "weights" && ch["target"]["node"] == s.node)
          weights = &a["samplers"][ch["sampler"].get<std::size_t>()];
      EXPECT_NE(weights, nullptr) << "no weights channel for node " << s.node;
      if (weights == nullptr) return V;
      EXPECT_EQ((*weights)["interpolation"], "LINEAR");
      const json& prim =
          j["meshes"][static_cast<std::size_t>(s.mesh)]["primitives"][static_cast<std::size_t>(s.primitive)];
      const auto K = static_cast<Index>(prim["targets"].size());
      const MatrixXd w = floats((*weights)["output"].get<int>());
      EXPECT_EQ(w.rows() % K, 0);
      for (Index t = 0; t < K; ++t) {
        const double wt = w(key * K + t, 0);
        EXPECT_GE(wt, 0.0);
        EXPECT_LE(wt, 1.0);
        if (wt == 0) continue;
        V.middleRows(s.first_vertex, s.vertices) +=
            wt * floats(prim["targets"][static_cast<std::size_t>(t)]["POSITION"].get<int>());
      }
    }
    return V;
  }
};

class GltfScene : public test::TempDir {};

TEST_F(GltfScene, RiggedSimpleHasSkinWeightsAndTheFilesPosesInTheNormalisedFrame) {
  const std::string path = kKhronos + "RiggedSimple.glb";
  const Scene s = load_gltf_scene(path);
  const GltfCharacter c = read_gltf(path);
  const GltfSkinnedMesh& m = c.meshes[0];
  EXPECT_EQ(s.layout, "gltf");
  EXPECT_EQ(s.handles, 2);
  EXPECT_LT((s.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  EXPECT_GE(s.W.minCoeff(), 0.0);
  // Render vertices: each on one welded vertex, at its own position.
  ASSERT_EQ(s.render_E.rows(), m.V.rows());
  EXPECT_EQ(s.render_E.nonZeros(), m.V.rows());
  EXPECT_LT((MatrixXd(s.render_E) * VectorXd::Ones(s.X.rows()) - VectorXd::Ones(m.V.rows())).norm(), 1e-15);
  const OutputSurface surf = output_surface(s);
  EXPECT_LT((to_file_units(s, surf, s.X) - m.V).cwiseAbs().maxCoeff(), 1e-12 * size_of(m.V));
  // The skin's weights on the surface.
  EXPECT_LT((MatrixXd(s.render_E * s.W) - m.W).cwiseAbs().maxCoeff(), 1e-12);
  // Poses: the rig's positions are the file's LBS at k dt; it starts at the first frame.
  const std::vector<VectorXd> file_poses = gltf_sample_clip(c, 0, 0, s.dt);
  ASSERT_EQ(s.poses.size(), file_poses.size());
  EXPECT_EQ(s.rest_pose, s.poses.front());
  ASSERT_EQ(s.rig->num_handles(), 2);
  for (std::size_t k : {std::size_t{0}, file_poses.size() / 2, file_poses.size() - 1}) {
    const MatrixXd x = unflatten(s.rig->positions(s.poses[k]), 3);
    EXPECT_LT((to_file_units(s, surf, x) - skinned(m, m.V, file_poses[k])).cwiseAbs().maxCoeff(), 1e-9 * size_of(m.V))
        << "frame " << k;
    // Each joint's frame is its skinning transform, taken to the normalised frame (x_n = (x - c) / s).
    for (Index j = 0; j < 2; ++j) {
      const Eigen::Matrix<double, 3, 4> M = file_poses[k].segment<12>(12 * j).reshaped(3, 4);
      Eigen::Matrix<double, 3, 4> expected = M;
      expected.col(3) = (M.leftCols<3>() * s.center + M.col(3) - s.center) / s.half_extent;
      EXPECT_LT((s.rig->handle_frame(s.poses[k], j) - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.norm())
          << "frame " << k << ", joint " << j;
    }
  }
  // Units: the material is physical (Young's modulus kept in Pa, as given), the length of a
  // normalised unit L = half_extent * metres per unit, and the solvers take ym / L^2.
  EXPECT_DOUBLE_EQ(s.metres_per_normalised_unit, s.half_extent);
  EXPECT_EQ(s.ym, defaults::ym);
  EXPECT_DOUBLE_EQ(scene_simulation_options(s).cd.ym, 2e4 / (s.half_extent * s.half_extent));
  GltfSceneOptions cm;
  cm.metres_per_unit = 0.01;
  cm.ym = 5e4;
  const Scene t = load_gltf_scene(path, cm);
  EXPECT_DOUBLE_EQ(t.metres_per_normalised_unit, 0.01 * t.half_extent);
  EXPECT_EQ(t.ym, 5e4);
  EXPECT_NEAR(normalised_ym(t, t.ym), 5e4 / std::pow(0.01 * t.half_extent, 2), 1e-15 * normalised_ym(t, t.ym));
}

TEST_F(GltfScene, RefusesOpenSkinsAndBadSettingsNamingTheFile) {
  const std::string strip = put("strip.glb", test::two_joint_strip().glb());
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(strip); }, "does not bound a solid");
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(strip); }, "strip.glb");
  const std::string box = put("box.glb", test::two_joint_box().glb());
  GltfSceneOptions o;
  o.dt = 0;
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(box, o); }, "dt must be > 0");
  o = {};
  o.clip = "dance";
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(box, o); }, "no clip 'dance'");
  o = {};
  o.pr = 0.5;
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(box, o); }, "pr must lie in");
}

TEST_F(GltfScene, BoxLoadsWithoutWarningsAndSimulatesWithTheConstraintHeld) {
  const Scene s = load_gltf_scene(put("box.glb", test::two_joint_box().glb()));
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  test::expect_fast_simulation_holds(s, 4);
}

// Skins POSITION + morphs of the written file at every key with the written (resampled) clip,
// and compares with the input's LBS plus U, for skinned mesh `mesh` (U: its rows from `row`).
void expect_bake_lands_on(const GltfCharacter& in, const std::string& out, const std::vector<VectorXd>& poses,
                          const std::vector<MatrixXd>& U, double dt, double tol, int mesh = 0, Index row = 0) {
  const Glb g(out);
  const GltfCharacter o = read_gltf(out);
  ASSERT_EQ(o.meshes.size(), in.meshes.size());
  const GltfSkinnedMesh& m = o.meshes[static_cast<std::size_t>(mesh)];
  const GltfSkinnedMesh& mi = in.meshes[static_cast<std::size_t>(mesh)];
  for (std::size_t k = 0; k < U.size(); ++k) {
    const VectorXd p = gltf_pose(o, mesh, 0, static_cast<double>(k) * dt);
    const MatrixXd got = skinned(m, g.morphed(m, 0, static_cast<Index>(k)), p);
    const MatrixXd want = skinned(mi, mi.V, poses[k]) + U[k].middleRows(row, mi.V.rows());
    EXPECT_LT((got - want).cwiseAbs().maxCoeff(), tol) << "mesh " << mesh << ", frame " << k;
  }
}

std::vector<MatrixXd> smooth_displacements(const GltfSkinnedMesh& m, std::size_t frames, double amplitude) {
  std::vector<MatrixXd> U(frames);
  for (std::size_t k = 0; k < frames; ++k) {
    const double t = static_cast<double>(k) / 10.0;
    U[k].resize(m.V.rows(), 3);
    for (Index v = 0; v < m.V.rows(); ++v)
      U[k].row(v) << std::sin(t + m.V(v, 1)), std::cos(2 * t + m.V(v, 0)), std::sin(3 * t) * m.V(v, 2);
    U[k] *= amplitude;
  }
  return U;
}

TEST_F(GltfScene, FramesEncodingSkinsToTheSimulatedPositionsAtEveryFrame) {
  for (const char* name : {"RiggedSimple.glb", "RiggedFigure.glb", "Fox.glb"}) {
    SCOPED_TRACE(name);
    const GltfCharacter c = read_gltf(kKhronos + name);
    std::vector<VectorXd> poses = gltf_sample_clip(c, 0, 0, 1.0 / 60.0);
    poses.resize(std::min<std::size_t>(poses.size(), 40));
    const double size = size_of(c.meshes[0].V);
    const std::vector<MatrixXd> U = smooth_displacements(c.meshes[0], poses.size(), 0.02 * size);
    double cond = 0;
    const std::vector<MatrixXd> d = lbs_rest_space_displacements(c.meshes[0].W, poses, U, &cond);
    EXPECT_GE(cond, 1.0);
    // Exactness in doubles: LBS(V + delta) = LBS(V) + U.
    for (std::size_t k = 0; k < U.size(); ++k)
      EXPECT_LT(
          (skinned(c.meshes[0], c.meshes[0].V + d[k], poses[k]) - skinned(c.meshes[0], c.meshes[0].V, poses[k]) - U[k])
              .cwiseAbs()
              .maxCoeff(),
          1e-10 * size);
    const std::string out = path(std::string("baked_") + name);
    const GltfBakeReport r = write_gltf_bake(c, 0, 1.0 / 60.0, {d}, out);
    EXPECT_EQ(r.frames, static_cast<int>(U.size()));
    EXPECT_EQ(r.targets, static_cast<int>(U.size()));
    EXPECT_EQ(r.max_error, 0.0);
    expect_bake_lands_on(c, out, poses, U, 1.0 / 60.0, 2e-5 * size);  // float32 positions, targets and keys
  }
}

TEST_F(GltfScene, PcaEncodingStaysWithinItsToleranceWithWeightsInZeroOne) {
  const GltfCharacter c = read_gltf(kKhronos + "Fox.glb");
  std::vector<VectorXd> poses = gltf_sample_clip(c, 0, 0, 1.0 / 60.0);
  poses.resize(60);
  const double size = size_of(c.meshes[0].V);
  const std::vector<MatrixXd> U = smooth_displacements(c.meshes[0], poses.size(), 0.02 * size);
  const std::vector<MatrixXd> d = lbs_rest_space_displacements(c.meshes[0].W, poses, U);
  GltfBakeOptions o;
  o.encoding = "pca";
  o.pca_tolerance = 1e-4;
  const GltfBakeReport r = write_gltf_bake(c, 0, 1.0 / 60.0, {d}, path("pca.glb"), o);
  EXPECT_LT(r.targets, 20);  // a smooth motion: a few modes and the offset
  EXPECT_GT(r.targets, 1);
  EXPECT_LE(r.max_error_relative, 1e-4);
  const GltfBakeReport full = write_gltf_bake(c, 0, 1.0 / 60.0, {d}, path("frames.glb"));
  EXPECT_LT(r.bytes, full.bytes / 2);
  // the rest-space error bound becomes a skinned one through the blend (condition ~1)
  expect_bake_lands_on(c, path("pca.glb"), poses, U, 1.0 / 60.0, 3e-4 * size);
}

TEST_F(GltfScene, BakeKeepsTheFileAndResamplesTheClip) {
  const std::string in = kKhronos + "RiggedFigure.glb";
  const GltfCharacter c = read_gltf(in);
  const Glb src(in);
  std::vector<VectorXd> poses = gltf_sample_clip(c, 0, 0, 0.05);
  const std::vector<MatrixXd> U = smooth_displacements(c.meshes[0], poses.size(), 0.01);
  write_gltf_bake(c, 0, 0.05, {lbs_rest_space_displacements(c.meshes[0].W, poses, U)}, path("o.glb"));
  const Glb g(path("o.glb"));
  for (const char* key : {"nodes", "skins", "materials", "scenes"}) EXPECT_EQ(g.j[key], src.j[key]) << key;
  EXPECT_EQ(g.j["meshes"][0]["primitives"][0]["attributes"], src.j["meshes"][0]["primitives"][0]["attributes"]);
  EXPECT_EQ(g.j["meshes"][0]["weights"].size(), poses.size());
  EXPECT_EQ(g.j["meshes"][0]["extras"]["targetNames"].size(), poses.size());
  // Every node channel: one LINEAR key per frame, sign-continuous unit quaternions.
  const json& a = g.j["animations"][0];
  const GltfCharacter o = read_gltf(path("o.glb"));
  for (const GltfChannel& ch : o.clips[0].channels) {
    EXPECT_EQ(ch.interpolation, GltfInterpolation::Linear);
    ASSERT_EQ(ch.times.size(), static_cast<Index>(poses.size()));
    if (ch.path == GltfPath::Rotation)
      for (Index k = 0; k < ch.values.rows(); ++k) {
        EXPECT_NEAR(ch.values.row(k).norm(), 1.0, 1e-6);
        if (k > 0) {
          EXPECT_GE(ch.values.row(k).dot(ch.values.row(k - 1)), 0.0);
        }
      }
  }
  EXPECT_EQ(a["channels"].size(), src.j["animations"][0]["channels"].size() + 1);
  for (std::size_t k = 0; k < poses.size(); ++k)
    EXPECT_LT((gltf_pose(o, 0, 0, 0.05 * static_cast<double>(k)) - poses[k]).cwiseAbs().maxCoeff(), 1e-5);
}

TEST_F(GltfScene, BakeRefusesMeshesItCannotExtend) {
  test::Builder b = test::two_joint_box();
  b.j["nodes"].push_back({{"name", "twin"}, {"mesh", 0}, {"skin", 0}});
  b.j["scenes"][0]["nodes"].push_back(3);
  const std::string twin = put("twin.glb", b.glb());
  const GltfCharacter c = read_gltf(twin);
  const std::vector<VectorXd> poses = gltf_sample_clip(c, 0, 0, 0.5);
  std::vector<MatrixXd> d(poses.size(), MatrixXd::Zero(c.meshes[0].V.rows(), 3));
  test::expect_throw_with<std::invalid_argument>([&] { write_gltf_bake(c, 0, 0.5, {d}, path("o.glb")); },
                                                 "is used by 2 nodes");
  test::Builder t = test::two_joint_box();
  const int z = t.accessor({{"componentType", 5126}, {"type", "VEC3"}, {"count", 16}});
  t.j["meshes"][0]["primitives"][0]["targets"] = json::array({{{"POSITION", z}}});
  const GltfCharacter ct = read_gltf(put("targets.glb", t.glb()));
  std::vector<MatrixXd> dt(poses.size(), MatrixXd::Zero(ct.meshes[0].V.rows(), 3));
  test::expect_throw_with<std::invalid_argument>([&] { write_gltf_bake(ct, 0, 0.5, {dt}, path("o.glb")); },
                                                 "already has morph targets");
  EXPECT_FALSE(std::filesystem::exists(path("o.glb")));
  d[0](3, 1) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { write_gltf_bake(c, 0, 0.5, {d}, path("o.glb")); }, "non-finite");
}

TEST_F(GltfScene, RestSpaceCachesAreTheMorphedSkinInBlendersZUpFrame) {
  const Scene s = load_gltf_scene(put("box.glb", test::two_joint_box().glb()));
  const GltfCharacter c = read_gltf(path("box.glb"));
  const auto n = static_cast<std::size_t>(std::min<std::size_t>(s.poses.size(), 8));
  const std::vector<MatrixXd> U = smooth_displacements(c.meshes[0], n, 0.05);
  const GltfOutputs g = write_gltf_outputs(s, "", U, path(""));
  EXPECT_EQ(std::filesystem::path(g.glb).filename(), "box.glb");
  const PointCache pc = read_pc2(g.pc2);
  std::vector<double> times;
  const PointCache mdd = read_mdd(g.mdd, &times);
  ASSERT_EQ(pc.frames.size(), n);
  ASSERT_EQ(mdd.frames.size(), n);
  std::vector<VectorXd> poses = gltf_sample_clip(c, 0, 0, s.dt);
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_NEAR(times[k], static_cast<double>(k) * s.dt, 1e-6);
    EXPECT_EQ(pc.frames[k], mdd.frames[k]);
    MatrixXd rest(pc.frames[k].rows(), 3);  // Blender (x, y, z) = glTF (x, -z, y)
    rest.col(0) = pc.frames[k].col(0);
    rest.col(1) = pc.frames[k].col(2);
    rest.col(2) = -pc.frames[k].col(1);
    EXPECT_LT((skinned(c.meshes[0], rest, poses[k]) - skinned(c.meshes[0], c.meshes[0].V, poses[k]) - U[k])
                  .cwiseAbs()
                  .maxCoeff(),
              1e-5);
  }
}

// Two skins (separate skeletons) and a skin of two mesh nodes (two shells): one scene of two
// bodies whose joints follow one another, each body weighted only by its own skin's joints and
// moved by its own skeleton; the bake gives every mesh its targets and every mesh node a cache.
TEST_F(GltfScene, SeveralSkinsAreBodiesOfOneSceneAndEveryMeshNodeIsBaked) {
  const std::string file = put("two.glb", test::two_skins().glb());
  const GltfCharacter c = read_gltf(file);
  ASSERT_EQ(c.meshes.size(), 2u);
  ASSERT_EQ(c.meshes[0].V.rows(), 32);  // body + hat
  ASSERT_EQ(c.meshes[1].V.rows(), 16);
  const Scene s = load_gltf_scene(file);
  EXPECT_EQ(s.handles, 4);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  std::string notes;
  for (const std::string& n : s.notes) notes += n + "\n";
  EXPECT_NE(notes.find("2 skins, each its own body"), std::string::npos) << notes;
  EXPECT_NE(notes.find("2 shells, each filled on its own"), std::string::npos) << notes;
  EXPECT_NE(notes.find("'body' + 'hat'"), std::string::npos) << notes;
  // Weights: a partition of unity on each body's own joints; no tet spans two bodies.
  EXPECT_LT((s.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  VectorXi body(s.X.rows());
  for (Index v = 0; v < s.X.rows(); ++v) {
    const bool first = s.W.row(v).head(2).sum() > 0.5;
    EXPECT_EQ(first ? s.W.row(v).tail(2).cwiseAbs().maxCoeff() : s.W.row(v).head(2).cwiseAbs().maxCoeff(), 0.0)
        << "vertex " << v;
    body[v] = first ? 0 : 1;
  }
  for (Index t = 0; t < s.T.rows(); ++t)
    for (int k = 1; k < 4; ++k) EXPECT_EQ(body[s.T(t, k)], body[s.T(t, 0)]) << "tet " << t;
  EXPECT_EQ(MatrixXd(s.render_W.topRows(32).rightCols(2)).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(MatrixXd(s.render_W.bottomRows(16).leftCols(2)).cwiseAbs().maxCoeff(), 0.0);
  // The rig moves each mesh by its own skin, as the file's LBS does.
  const OutputSurface surf = output_surface(s);
  const std::vector<VectorXd> p0 = gltf_sample_clip(c, 0, 0, s.dt), p1 = gltf_sample_clip(c, 1, 0, s.dt);
  ASSERT_EQ(s.poses.size(), p0.size());
  for (std::size_t k : {std::size_t{0}, p0.size() / 2, p0.size() - 1}) {
    const MatrixXd x = to_file_units(s, surf, unflatten(s.rig->positions(s.poses[k]), 3));
    EXPECT_LT((x.topRows(32) - skinned(c.meshes[0], c.meshes[0].V, p0[k])).cwiseAbs().maxCoeff(), 1e-9) << k;
    EXPECT_LT((x.bottomRows(16) - skinned(c.meshes[1], c.meshes[1].V, p1[k])).cwiseAbs().maxCoeff(), 1e-9) << k;
  }
  EXPECT_GT((skinned(c.meshes[1], c.meshes[1].V, p1.back()) - c.meshes[1].V).cwiseAbs().maxCoeff(), 0.4);
  test::expect_fast_simulation_holds(s, 4);

  // The bake: targets on both meshes, one cache per mesh node at its rows.
  const auto n = std::min<std::size_t>(s.poses.size(), 8);
  std::vector<MatrixXd> U(n);
  for (std::size_t k = 0; k < n; ++k) U[k] = 0.01 * static_cast<double>(k) * MatrixXd::Ones(48, 3);
  const GltfOutputs g = write_gltf_outputs(s, "", U, path(""));
  EXPECT_EQ(g.report.mesh_targets, (std::vector<int>{static_cast<int>(n), static_cast<int>(n)}));
  ASSERT_EQ(g.caches.size(), 3u);
  const std::vector<std::string> names = {"body", "hat", "other"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g.caches[i].node_name, names[i]);
    EXPECT_EQ(std::filesystem::path(g.caches[i].pc2).filename(), "rest_space_" + names[i] + ".pc2");
    EXPECT_EQ(g.caches[i].first_vertex, static_cast<Index>(16 * i));
    EXPECT_EQ(g.caches[i].vertices, 16);
    EXPECT_EQ(g.caches[i].skinned_mesh, i < 2 ? 0 : 1);
    const PointCache pc = read_pc2(g.caches[i].pc2);
    ASSERT_EQ(pc.frames.size(), n);
    // Blender's (x, y, z) = glTF (x, -z, y); the armature frame is the identity here.
    const MatrixXd& V = c.meshes[i < 2 ? 0 : 1].V;
    const Index r0 = i == 1 ? 16 : 0;
    const VectorXd& pose = (i < 2 ? p0 : p1)[n - 1];
    MatrixXd rest(16, 3);
    rest.col(0) = pc.frames[n - 1].col(0);
    rest.col(1) = pc.frames[n - 1].col(2);
    rest.col(2) = -pc.frames[n - 1].col(1);
    const GltfSkinnedMesh& m = c.meshes[i < 2 ? 0 : 1];
    MatrixXd full = V;
    full.middleRows(r0, 16) = rest;
    const MatrixXd moved = (skinned(m, full, pose) - skinned(m, V, pose)).middleRows(r0, 16);
    EXPECT_LT((moved - U[n - 1].middleRows(g.caches[i].first_vertex, 16)).cwiseAbs().maxCoeff(), 1e-5) << names[i];
  }
  std::vector<VectorXd> q0(p0.begin(), p0.begin() + static_cast<long>(n)),
      q1(p1.begin(), p1.begin() + static_cast<long>(n));
  expect_bake_lands_on(c, g.glb, q0, U, s.dt, 1e-5, 0, 0);
  expect_bake_lands_on(c, g.glb, q1, U, s.dt, 1e-5, 1, 32);
}

// --mesher voxel: the open strip that Netgen refuses becomes a grid embedding it; the render
// vertices embed exactly, the weights keep partition of unity, and it simulates.
TEST_F(GltfScene, VoxelMesherTakesAnOpenSkin) {
  const std::string strip = put("strip.glb", test::two_joint_strip().glb());
  test::expect_throw_with<std::runtime_error>([&] { load_gltf_scene(strip); }, "--mesher voxel");
  GltfSceneOptions o;
  o.tets.mesher = "voxel";
  o.voxel.resolution = 8;
  const Scene s = load_gltf_scene(strip, o);
  const GltfCharacter c = read_gltf(strip);
  EXPECT_LT((s.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  EXPECT_GE(s.W.minCoeff(), 0.0);
  const OutputSurface surf = output_surface(s);
  EXPECT_LT((to_file_units(s, surf, s.X) - c.meshes[0].V).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(s.render_max_distance, 0.0);
  test::expect_fast_simulation_holds(s, 4);
}

}  // namespace test_gltf_scene
}  // namespace fastcd

namespace fastcd {
namespace test_gltf_scene {

// A character given as data (the Blender add-on's way in): the same scene as from the file, a
// painted leak field carried inside in [0, 1], and bad data refused naming the skin and vertex.
SkinnedCharacter rigged_simple_as_data(const GltfCharacter& c) {
  SkinnedCharacter sc;
  sc.name = "data";
  sc.skins.push_back({"object 'Cylinder'", c.meshes[0].V, c.meshes[0].F, c.meshes[0].W, {}});
  sc.poses = gltf_sample_clip(c, 0, 0, 1.0 / 60.0);
  return sc;
}

TEST(SkinnedScene, DataGivesTheSceneTheFileGives) {
  const std::string path = kKhronos + "RiggedSimple.glb";
  const Scene file = load_gltf_scene(path);
  const Scene data = skinned_scene(rigged_simple_as_data(read_gltf(path)), {}, "test");
  EXPECT_EQ(data.layout, "skinned");
  EXPECT_EQ(data.X, file.X);
  EXPECT_EQ(data.T, file.T);
  EXPECT_EQ(data.W, file.W);
  ASSERT_EQ(data.poses.size(), file.poses.size());
  for (std::size_t f = 0; f < data.poses.size(); ++f) EXPECT_EQ(data.poses[f], file.poses[f]);
  EXPECT_EQ(data.leak_values.size(), 0);
}

TEST(SkinnedScene, APaintedLeakFieldIsCarriedInsideAndUsedWhenAskedFor) {
  const GltfCharacter c = read_gltf(kKhronos + "RiggedSimple.glb");
  SkinnedCharacter sc = rigged_simple_as_data(c);
  const MatrixXd& V = sc.skins[0].V;
  const double lo = V.col(1).minCoeff(), hi = V.col(1).maxCoeff();
  sc.skins[0].leak = (V.col(1).array() - lo) / (hi - lo);  // 0 at one end, 1 at the other
  const Scene s = skinned_scene(sc, {}, "test");
  ASSERT_EQ(s.leak_values.size(), s.X.rows());
  EXPECT_GE(s.leak_values.minCoeff(), 0.0);
  EXPECT_LE(s.leak_values.maxCoeff(), 1.0);
  // On the surface the painted values exactly (each render vertex on its tet vertex).
  const VectorXd on_surface = s.render_E * s.leak_values;
  EXPECT_LT((on_surface - sc.skins[0].leak).cwiseAbs().maxCoeff(), 1e-12);
  SceneRunSettings run;
  run.leak = "painted";
  const SimulationOptions o = scene_simulation_options(s, run);
  EXPECT_EQ(o.cd.leak.kind, LeakFieldKind::Values);
  EXPECT_EQ(o.cd.leak.values, s.leak_values);
  Simulation sim = make_simulation(s, o);
  EXPECT_EQ(sim.D(), s.leak_values);
  const Scene plain = skinned_scene(rigged_simple_as_data(c), {}, "test");
  test::expect_throw_with<std::invalid_argument>([&] { scene_simulation_options(plain, run); },
                                                 "no painted leak field");
}

TEST(SkinnedScene, BadDataIsRefusedNamingTheSkinAndVertex) {
  const GltfCharacter c = read_gltf(kKhronos + "RiggedSimple.glb");
  auto expect = [&](auto change, const std::string& needle) {
    SkinnedCharacter sc = rigged_simple_as_data(c);
    change(sc);
    test::expect_throw_with<std::runtime_error>([&] { skinned_scene(sc, {}, "Blender object 'Cylinder'"); }, needle);
  };
  expect([](SkinnedCharacter& sc) { sc.skins[0].W.row(7).setZero(); },
         "Blender object 'Cylinder': object 'Cylinder': the skin weights of vertex 7 are not a partition of unity");
  expect([](SkinnedCharacter& sc) { sc.skins[0].W.conservativeResize(3, Eigen::NoChange); }, "skin weights are (3, 2)");
  expect([](SkinnedCharacter& sc) { sc.skins[0].V(2, 1) = std::nan(""); }, "NaN");
  expect([](SkinnedCharacter& sc) { sc.skins[0].F(0, 0) = 100000; }, "names vertex 100000");
  expect([](SkinnedCharacter& sc) { sc.poses[3].conservativeResize(5); }, "frame 3's pose has 5 entries");
  expect([](SkinnedCharacter& sc) { sc.poses.clear(); }, "no animation frames");
  expect([](SkinnedCharacter& sc) { sc.skins[0].leak = VectorXd::Constant(sc.skins[0].V.rows(), 1.5); },
         "outside [0, 1]");
  expect([](SkinnedCharacter& sc) { sc.skins.clear(); }, "no skinned surface");
  expect([](SkinnedCharacter& sc) { sc.skins[0].F.row(1) = sc.skins[0].F.row(0); }, "does not bound a solid");
}

}  // namespace test_gltf_scene
}  // namespace fastcd
