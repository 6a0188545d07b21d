// glTF 2.0 characters: accessor decoding, node hierarchy, skin weights, clip sampling, errors,
// and the three Khronos samples in ../shared/data/khronos-gltf/.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "io/gltf_builder.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_gltf_io {

using nlohmann::json;
using test::Builder;
using test::expect_throw_with;
using test::kByte, test::kUByte, test::kUShort, test::kUInt, test::kFloat;
using test::two_joint_strip;

class GltfIo : public test::IoTempDir {
 protected:
  GltfCharacter read(const Builder& b, const std::string& name = "c.glb") { return read_gltf(put(name, b.glb())); }
  // Runs read_gltf on the builder's file and expects a runtime_error naming the file and `needle`.
  void expect_error(const Builder& b, const std::string& needle) {
    const std::string p = put("bad.glb", b.glb());
    try {
      read_gltf(p);
      ADD_FAILURE() << "expected an error mentioning '" << needle << "'";
    } catch (const std::runtime_error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find(needle), std::string::npos) << "message was: " << w;
      EXPECT_NE(w.find("bad.glb"), std::string::npos) << "message does not name the file: " << w;
      EXPECT_EQ(w.find('\n'), std::string::npos) << "one line: " << w;
    }
  }
};

// Positions by direct LBS: x_v = sum_j w_vj (G_j IBM_j) [v; 1].
MatrixXd direct_lbs(const GltfCharacter& c, int mesh, int clip, double t) {
  const GltfSkinnedMesh& m = c.meshes[static_cast<std::size_t>(mesh)];
  const GltfSkin& s = c.skins[static_cast<std::size_t>(m.skin)];
  const auto G = gltf_node_globals(c, clip, t);
  MatrixXd X = MatrixXd::Zero(m.V.rows(), 3);
  for (Index v = 0; v < m.V.rows(); ++v)
    for (std::size_t j = 0; j < s.joints.size(); ++j) {
      const Eigen::Vector4d h(m.V(v, 0), m.V(v, 1), m.V(v, 2), 1);
      X.row(v) += m.W(v, static_cast<Index>(j)) *
                  (G[static_cast<std::size_t>(s.joints[j])] * s.inverse_bind[j] * h).head<3>().transpose();
    }
  return X;
}

MatrixXd lbs_positions(const GltfCharacter& c, int mesh, const VectorXd& p) {
  const GltfSkinnedMesh& m = c.meshes[static_cast<std::size_t>(mesh)];
  const VectorXd x = lbs_jacobian(m.V, m.W) * p;
  MatrixXd X(m.V.rows(), 3);
  for (Index v = 0; v < X.rows(); ++v) X.row(v) = x.segment<3>(3 * v).transpose();
  return X;
}

TEST_F(GltfIo, ReadsATwoJointCharacter) {
  const GltfCharacter c = read(two_joint_strip());
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes[0].parent, -1);
  EXPECT_EQ(c.nodes[1].parent, 0);
  EXPECT_EQ(c.nodes[1].name, "tip");
  ASSERT_EQ(c.skins.size(), 1u);
  EXPECT_EQ(c.skins[0].joints, (std::vector<int>{0, 1}));
  ASSERT_EQ(c.meshes.size(), 1u);
  const GltfSkinnedMesh& m = c.meshes[0];
  EXPECT_EQ(m.name, "body");
  EXPECT_EQ(m.V.rows(), 8);
  EXPECT_EQ(m.F.rows(), 6);
  EXPECT_EQ(m.V(7, 1), 2.25);
  EXPECT_EQ(m.F(1, 2), 2);
  ASSERT_EQ(m.W.cols(), 2);
  EXPECT_NEAR(m.W(4, 1), 2.0 / 3.0, 1e-7);
  EXPECT_LT((m.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  ASSERT_EQ(m.spans.size(), 1u);
  EXPECT_EQ(m.spans[0].node, 2);
  EXPECT_EQ(m.spans[0].vertices, 8);
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_EQ(c.clips[0].name, "bend");
  EXPECT_EQ(c.clips[0].duration, 1.0);
  EXPECT_TRUE(c.warnings.empty());
}

TEST_F(GltfIo, RestPoseIsTheIdentityAndIgnoresTheMeshNodeTransform) {
  const GltfCharacter c = read(two_joint_strip());
  const VectorXd p = gltf_pose(c, 0, -1, 0);
  ASSERT_EQ(p.size(), 24);
  for (int j = 0; j < 2; ++j) {
    VectorXd id(12);
    id << 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0;
    EXPECT_LT((p.segment<12>(12 * j) - id).cwiseAbs().maxCoeff(), 1e-15) << "joint " << j;
  }
  // The mesh node's translation (5, 5, 5) must not move the skinned mesh.
  EXPECT_LT((lbs_positions(c, 0, p) - c.meshes[0].V).cwiseAbs().maxCoeff(), 1e-15);
}

TEST_F(GltfIo, PoseMatchesDirectSkinningAndTheKeyedMotion) {
  const GltfCharacter c = read(two_joint_strip());
  for (double t : {0.0, 0.3, 0.5, 1.0, 1.7}) {
    const VectorXd p = gltf_pose(c, 0, 0, t);
    EXPECT_LT((lbs_positions(c, 0, p) - direct_lbs(c, 0, 0, t)).cwiseAbs().maxCoeff(), 1e-13) << "t = " << t;
  }
  // At t = 1: the root is moved to x = 2 (STEP holds 0 before), the tip turned 90 degrees about z.
  const auto G = gltf_node_globals(c, 0, 1.0);
  EXPECT_LT((G[0].topRightCorner<3, 1>() - Eigen::Vector3d(2, 0, 0)).norm(), 1e-15);
  const Eigen::Matrix3d Rz = Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  EXPECT_LT((G[1].topLeftCorner<3, 3>() - Rz).norm(), 1e-7);
  const auto G0 = gltf_node_globals(c, 0, 0.999);
  EXPECT_EQ(G0[0](0, 3), 0.0) << "STEP holds the first key until the second";
  // A vertex fully on joint 1 at rest position (0, 2.25): 1.25 above the joint, turned to -x.
  const MatrixXd X = direct_lbs(c, 0, 0, 1.0);
  EXPECT_LT((X.row(6) - Eigen::RowVector3d(2 - 1.25, 1, 0)).norm(), 1e-6);
  // Halfway, slerp gives 45 degrees.
  const Eigen::Matrix3d R45 = Eigen::AngleAxisd(M_PI / 4, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  EXPECT_LT((gltf_node_globals(c, 0, 0.5)[1].topLeftCorner<3, 3>() - R45).norm(), 1e-7);
}

TEST_F(GltfIo, SamplesAClipAtTheSimulationRate) {
  const GltfCharacter c = read(two_joint_strip());
  const auto poses = gltf_sample_clip(c, 0, 0, 0.1);
  ASSERT_EQ(poses.size(), 11u);
  EXPECT_EQ(poses[3], gltf_pose(c, 0, 0, 3 * 0.1));
  EXPECT_EQ(gltf_sample_clip(c, 0, 0, 0.3).size(), 4u);
  expect_throw_with<std::invalid_argument>([&] { gltf_sample_clip(c, 0, 0, 0); }, "dt");
  expect_throw_with<std::invalid_argument>([&] { gltf_sample_clip(c, 0, 1, 0.1); }, "clip 1");
  expect_throw_with<std::invalid_argument>([&] { gltf_pose(c, 1, 0, 0); }, "mesh 1");
}

TEST_F(GltfIo, FindsClipsByNameOrIndex) {
  const GltfCharacter c = read(two_joint_strip());
  EXPECT_EQ(gltf_clip_index(c, "bend"), 0);
  EXPECT_EQ(gltf_clip_index(c, "0"), 0);
  expect_throw_with<std::invalid_argument>([&] { gltf_clip_index(c, "walk"); }, "clips: 0 'bend'");
  expect_throw_with<std::invalid_argument>([&] { gltf_clip_index(c, "1"); }, "no clip '1'");
  Builder b = two_joint_strip();
  b.j.erase("animations");
  const GltfCharacter still = read(b, "still.glb");
  EXPECT_TRUE(still.clips.empty());
  expect_throw_with<std::invalid_argument>([&] { gltf_clip_index(still, "0"); }, "has no animation");
}

TEST_F(GltfIo, ReadsTheTextFormWithAnExternalBuffer) {
  const Builder b = two_joint_strip();
  json doc = b.j;
  doc["buffers"] = json::array({{{"byteLength", b.bin.size()}, {"uri", "strip.bin"}}});
  put("strip.bin", b.bin);
  const GltfCharacter c = read_gltf(put("strip.gltf", "\n  " + doc.dump(2)));
  const GltfCharacter g = read(b);
  EXPECT_TRUE(test::same_matrix(c.meshes[0].V, g.meshes[0].V));
  EXPECT_TRUE(test::same_matrix(c.meshes[0].W, g.meshes[0].W));
  EXPECT_EQ(c.clips[0].channels.size(), 2u);
}

// Issue 39: URIs are read only inside the file's own folder; an image outside (or a FIFO, a
// folder, a missing file) is left out with a warning naming it, a buffer outside is an error.
TEST_F(GltfIo, ReadsReferencesOnlyInsideTheFilesFolder) {
  const Builder b = two_joint_strip();
  std::filesystem::create_directories(path("in/folder.png"));
  put("secret.bin", b.bin);
  put("in/strip.bin", b.bin);
  put("in/good.png", "\x89PNG");
  ASSERT_EQ(::mkfifo(path("in/pipe.png").c_str(), 0600), 0);
  json doc = b.j;
  doc["buffers"] = json::array({{{"byteLength", b.bin.size()}, {"uri", "strip.bin"}}});
  doc["images"] = json::array({{{"uri", "%2e%2e/secret.bin"}},
                               {{"uri", path("secret.bin")}},
                               {{"uri", "pipe.png"}},
                               {{"uri", "folder.png"}},
                               {{"uri", "missing.png"}},
                               {{"uri", "good.png"}}});
  const GltfCharacter c = read_gltf(put("in/strip.gltf", doc.dump()));
  ASSERT_GE(c.warnings.size(), 5u);
  for (const std::string what : {"'%2e%2e/secret.bin' points outside", "absolute path", "'pipe.png' is a FIFO",
                                 "'folder.png' is a folder", "'missing.png' does not exist"})
    EXPECT_TRUE(std::any_of(c.warnings.begin(), c.warnings.end(), [&](const std::string& w) {
      return w.find(what) != std::string::npos;
    })) << what;
  const detail::GltfFileContents in = detail::read_gltf_contents(path("in/strip.gltf"));
  ASSERT_EQ(in.images.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(in.images[static_cast<std::size_t>(i)].empty()) << i;
  EXPECT_EQ(in.images[5], "\x89PNG");

  doc["buffers"][0]["uri"] = "../secret.bin";
  doc.erase("images");
  expect_throw_with<std::runtime_error>([&] { read_gltf(put("in/outside.gltf", doc.dump())); },
                                        "its buffer '../secret.bin' points outside");
}

TEST_F(GltfIo, DecodesStridesNormalisedIntegersAndSparseAccessors) {
  Builder b = two_joint_strip();
  // POSITION interleaved with a padding float (stride 16).
  std::vector<float> inter;
  for (int v = 0; v < 8; ++v) inter.insert(inter.end(), {float(v), float(2 * v), float(-v), 99.f});
  const int view = b.view(Builder::bytes(inter), 16);
  const int P =
      b.accessor({{"bufferView", view}, {"byteOffset", 0}, {"componentType", kFloat}, {"type", "VEC3"}, {"count", 8}});
  // WEIGHTS as normalised uint16: 65535 * (1, 0) and (32768, 32767) sums to 1 within 1/65535.
  std::vector<std::uint16_t> w16;
  for (int v = 0; v < 8; ++v)
    if (v % 2)
      w16.insert(w16.end(), {32768, 32767, 0, 0});
    else
      w16.insert(w16.end(), {65535, 0, 0, 0});
  const int Wn = b.add(w16, kUShort, "VEC4", 8, true);
  auto& attrs = b.j["meshes"][0]["primitives"][0]["attributes"];
  attrs["POSITION"] = P;
  attrs["WEIGHTS_0"] = Wn;
  const GltfCharacter c = read(b);
  const GltfSkinnedMesh& m = c.meshes[0];
  EXPECT_EQ(m.V.row(5), Eigen::RowVector3d(5, 10, -5));
  EXPECT_EQ(m.W(0, 0), 1.0);
  EXPECT_NEAR(m.W(1, 0), 32768.0 / 65535.0, 1e-12);
  EXPECT_LT((m.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-15);

  // Sparse: substitute vertices 2 and 6 of the base POSITION; and a sparse accessor without a
  // buffer view (zeros elsewhere) for the morph-free case.
  Builder s = two_joint_strip();
  const int base = s.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"];
  const int iv = s.view(Builder::bytes(std::vector<std::uint8_t>{2, 6}));
  const int vv = s.view(Builder::bytes(std::vector<float>{7, 8, 9, -1, -2, -3}));
  json sparse = {
      {"count", 2}, {"indices", {{"bufferView", iv}, {"componentType", kUByte}}}, {"values", {{"bufferView", vv}}}};
  json a = s.j["accessors"][base];
  a["sparse"] = sparse;
  s.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = s.accessor(a);
  const GltfCharacter cs = read(s, "sparse.glb");
  EXPECT_EQ(cs.meshes[0].V.row(2), Eigen::RowVector3d(7, 8, 9));
  EXPECT_EQ(cs.meshes[0].V.row(6), Eigen::RowVector3d(-1, -2, -3));
  EXPECT_EQ(cs.meshes[0].V.row(3), Eigen::RowVector3d(0.5, 0.75, 0));

  json z = a;
  z.erase("bufferView");
  s.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = s.accessor(z);
  const GltfCharacter cz = read(s, "zeros.glb");
  EXPECT_EQ(cz.meshes[0].V.row(2), Eigen::RowVector3d(7, 8, 9));
  EXPECT_EQ(cz.meshes[0].V.row(3), Eigen::RowVector3d(0, 0, 0));
}

TEST_F(GltfIo, SignedNormalisedComponentsFollowTheSpec) {
  // Rotation keys as normalised int8: -128 and -127 both map to -1.
  Builder b = two_joint_strip();
  const int R = b.add(std::vector<std::int8_t>{0, 0, 0, 127, 0, 0, -128, -127}, kByte, "VEC4", 2, true);
  b.j["animations"][0]["samplers"][0]["output"] = R;
  const GltfCharacter c = read(b);
  const Eigen::VectorXd q = gltf_sample(c.clips[0].channels[0], 1.0);
  EXPECT_LT((q - Eigen::Vector4d(0, 0, -std::sqrt(0.5), -std::sqrt(0.5))).norm(), 1e-15);
}

TEST_F(GltfIo, SanitisesWeightsWithOneWarningPerRepair) {
  Builder b = two_joint_strip();
  // Vertex 0: a negative weight; vertex 1: joint 1 listed twice; vertex 2: sum 0.5; a second
  // influence set JOINTS_1/WEIGHTS_1 adds weight to joint 0 of vertex 3.
  std::vector<std::uint8_t> joints(32, 0);
  std::vector<float> w(32, 0);
  for (int v = 0; v < 8; ++v) {
    joints[static_cast<std::size_t>(4 * v + 1)] = 1;
    w[static_cast<std::size_t>(4 * v)] = 1;
  }
  w[1] = -0.25f;                                               // vertex 0
  joints[4 + 2] = 1, w[4] = 0.5f, w[5] = 0.25f, w[6] = 0.25f;  // vertex 1: 0 -> .5, 1 -> .25 + .25
  w[8] = 0.5f;                                                 // vertex 2
  w[12] = 0.5f;                                                // vertex 3 (+0.5 on joint 1 from set 1)
  std::vector<std::uint8_t> j1(32, 1);
  std::vector<float> w1(32, 0);
  w1[12] = 0.5f;
  auto& attrs = b.j["meshes"][0]["primitives"][0]["attributes"];
  attrs["JOINTS_0"] = b.add(joints, kUByte, "VEC4", 8);
  attrs["WEIGHTS_0"] = b.floats(w, "VEC4", 4);
  attrs["JOINTS_1"] = b.add(j1, kUByte, "VEC4", 8);
  attrs["WEIGHTS_1"] = b.floats(w1, "VEC4", 4);
  const GltfCharacter c = read(b);
  const MatrixXd& W = c.meshes[0].W;
  EXPECT_EQ(W.row(0), Eigen::RowVector2d(1, 0));
  EXPECT_EQ(W.row(1), Eigen::RowVector2d(0.5, 0.5));
  EXPECT_EQ(W.row(2), Eigen::RowVector2d(1, 0));
  EXPECT_EQ(W.row(3), Eigen::RowVector2d(0.5, 0.5));
  EXPECT_LT((W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-15);
  ASSERT_EQ(c.warnings.size(), 3u);
  EXPECT_NE(c.warnings[0].find("1 negative skin weights"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[1].find("1 vertices list a joint more than once"), std::string::npos) << c.warnings[1];
  EXPECT_NE(c.warnings[2].find("renormalised"), std::string::npos) << c.warnings[2];
}

TEST_F(GltfIo, ConvertsStripsAndFansAndDropsDegenerateTriangles) {
  Builder b = two_joint_strip();
  auto& prim = b.j["meshes"][0]["primitives"][0];
  prim["indices"] = b.add(std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 5, 7}, kUByte, "SCALAR", 8);
  prim["mode"] = 5;  // strip: (0 1 2) (2 1 3) (2 3 4) (4 3 5) (4 5 5)x (5 5 7)x
  GltfCharacter c = read(b, "strip.glb");
  ASSERT_EQ(c.meshes[0].F.rows(), 4);
  EXPECT_EQ(c.meshes[0].F.row(1), Eigen::RowVector3i(2, 1, 3));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("2 degenerate triangles"), std::string::npos);
  prim["mode"] = 6;  // fan around 0: (1 2 0) (2 3 0) ... (5 7 0) with (5 5 0) dropped
  c = read(b, "fan.glb");
  ASSERT_EQ(c.meshes[0].F.rows(), 5);
  EXPECT_EQ(c.meshes[0].F.row(0), Eigen::RowVector3i(1, 2, 0));
}

TEST_F(GltfIo, GroupsEveryMeshNodeOfASkinAndSkipsLines) {
  Builder b = two_joint_strip();
  json prim = b.j["meshes"][0]["primitives"][0];
  json lines = prim;
  lines["mode"] = 1;
  b.j["meshes"][0]["primitives"].push_back(lines);
  b.j["meshes"].push_back({{"primitives", json::array({prim})}});
  b.j["nodes"].push_back({{"mesh", 1}, {"skin", 0}});
  const GltfCharacter c = read(b);
  ASSERT_EQ(c.meshes.size(), 1u);
  EXPECT_EQ(c.meshes[0].V.rows(), 16);
  EXPECT_EQ(c.meshes[0].F.rows(), 12);
  EXPECT_EQ(c.meshes[0].F.maxCoeff(), 15);
  ASSERT_EQ(c.meshes[0].spans.size(), 2u);
  EXPECT_EQ(c.meshes[0].spans[1].node, 3);
  EXPECT_EQ(c.meshes[0].spans[1].first_vertex, 8);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("line primitives"), std::string::npos);
}

TEST(GltfSample, StepLinearAndClamping) {
  GltfChannel ch;
  ch.times = Eigen::Vector3d(1, 2, 4);
  ch.values.resize(3, 3);
  ch.values << 0, 0, 0, 1, 2, 3, 3, 2, 1;
  ch.interpolation = GltfInterpolation::Linear;
  EXPECT_EQ(gltf_sample(ch, 0.5), Eigen::Vector3d(0, 0, 0));
  EXPECT_EQ(gltf_sample(ch, 9), Eigen::Vector3d(3, 2, 1));
  EXPECT_LT((gltf_sample(ch, 3) - Eigen::Vector3d(2, 2, 2)).norm(), 1e-15);
  EXPECT_EQ(gltf_sample(ch, 2), Eigen::Vector3d(1, 2, 3));
  ch.interpolation = GltfInterpolation::Step;
  EXPECT_EQ(gltf_sample(ch, 3.99), Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(gltf_sample(ch, 4), Eigen::Vector3d(3, 2, 1));
  ch.times = Eigen::VectorXd::Constant(1, 2.0);
  ch.values = ch.values.topRows(1).eval();
  EXPECT_EQ(gltf_sample(ch, 0), Eigen::Vector3d(0, 0, 0));
  EXPECT_EQ(gltf_sample(ch, 5), Eigen::Vector3d(0, 0, 0));
}

TEST(GltfSample, SlerpTakesTheShortWay) {
  GltfChannel ch;
  ch.path = GltfPath::Rotation;
  ch.times = Eigen::Vector2d(0, 1);
  const Eigen::Quaterniond a(Eigen::AngleAxisd(0.2, Eigen::Vector3d(1, 2, 3).normalized()));
  const Eigen::Quaterniond b(Eigen::AngleAxisd(1.4, Eigen::Vector3d(-1, 0, 2).normalized()));
  ch.values.resize(2, 4);
  ch.values.row(0) << a.x(), a.y(), a.z(), a.w();
  ch.values.row(1) << b.x(), b.y(), b.z(), b.w();
  const Eigen::VectorXd q1 = gltf_sample(ch, 0.3);
  ch.values.row(1) *= -1;  // the same rotation
  const Eigen::VectorXd q2 = gltf_sample(ch, 0.3);
  const Eigen::Quaterniond want = a.slerp(0.3, b);
  for (const Eigen::VectorXd& q : {q1, q2}) {
    EXPECT_NEAR(q.norm(), 1, 1e-15);
    const Eigen::Quaterniond got(q[3], q[0], q[1], q[2]);
    EXPECT_LT((got.toRotationMatrix() - want.toRotationMatrix()).norm(), 1e-14);
  }
  // The short way: the angle from a grows linearly with s (0.3 of the whole angle).
  const Eigen::Quaterniond got(q2[3], q2[0], q2[1], q2[2]);
  EXPECT_NEAR(a.angularDistance(got), 0.3 * a.angularDistance(b), 1e-13);
}

TEST(GltfSample, CubicSplineIsTheSpecsHermite) {
  GltfChannel ch;
  ch.interpolation = GltfInterpolation::CubicSpline;
  ch.times = Eigen::Vector2d(1, 3);
  ch.values.resize(6, 3);
  // in-tangent, value, out-tangent per key.
  ch.values << 9, 9, 9, 0, 1, 2, 1, -1, 0.5,  //
      2, 0, 1, 4, 3, 2, 9, 9, 9;
  const double td = 2, s = 0.25;
  const Eigen::Vector3d p0(0, 1, 2), m0 = td * Eigen::Vector3d(1, -1, 0.5), p1(4, 3, 2),
                                     m1 = td * Eigen::Vector3d(2, 0, 1);
  const Eigen::Vector3d want = (2 * s * s * s - 3 * s * s + 1) * p0 + (s * s * s - 2 * s * s + s) * m0 +
                               (-2 * s * s * s + 3 * s * s) * p1 + (s * s * s - s * s) * m1;
  EXPECT_LT((gltf_sample(ch, 1.5) - want).norm(), 1e-15);
  EXPECT_EQ(gltf_sample(ch, 1), p0);
  EXPECT_EQ(gltf_sample(ch, 3), p1);
  EXPECT_EQ(gltf_sample(ch, 0), p0);
}

TEST_F(GltfIo, RefusesMalformedFilesWithOneLineNamingTheObject) {
  {
    Builder b = two_joint_strip();
    b.j["accessors"][0]["count"] = 9;  // POSITION reads past its view
    expect_error(b, "mesh 0 ('strip') primitive 0 POSITION: accessor 0 (9 elements from byte 0) reads past the end");
  }
  {
    Builder b = two_joint_strip();
    b.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 42;
    expect_error(b, "accessor 42 does not exist");
  }
  {
    Builder b = two_joint_strip();
    const int I = b.add(std::vector<std::uint16_t>{0, 1, 8}, kUShort, "SCALAR", 3);
    b.j["meshes"][0]["primitives"][0]["indices"] = I;
    expect_error(b, "index 8 (entry 2) is beyond its 8 vertices");
  }
  {
    Builder b = two_joint_strip();
    std::vector<float> w(32, 0);
    for (int v = 1; v < 8; ++v) w[static_cast<std::size_t>(4 * v)] = 1;
    b.j["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = b.floats(w, "VEC4", 4);
    expect_error(b, "vertex 0 has joint weights summing to 0");
  }
  {
    Builder b = two_joint_strip();
    std::vector<std::uint8_t> j(32, 0);
    j[9] = 7;  // vertex 2, a nonzero weight (1/3) on joint 7
    b.j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = b.add(j, kUByte, "VEC4", 8);
    expect_error(b, "vertex 2 names joint 7 (JOINTS_0), but the skin has 2 joints");
  }
  {
    Builder b = two_joint_strip();
    b.j["nodes"][1]["scale"] = {1, -1, 1};
    expect_error(b, "node 1 ('tip') (a joint of skin 0 ('rig')) has a negative scale (1, -1, 1)");
  }
  {
    Builder b = two_joint_strip();
    b.j["nodes"][2].erase("skin");
    expect_error(b, "no skinned mesh");
  }
  {
    Builder b = two_joint_strip();
    b.j["skins"][0]["joints"] = {0, 1, 0};
    expect_error(b, "node 0 ('root') is listed twice as a joint");
  }
  {
    Builder b = two_joint_strip();
    b.j["nodes"][1]["children"] = {0};
    expect_error(b, "is its own ancestor");
  }
  {
    Builder b = two_joint_strip();
    b.j["animations"][0]["samplers"][0]["input"] = b.floats({0.5, 0.5}, "SCALAR", 1);
    expect_error(b, "animation 'bend' channel 0: key times are not strictly increasing at key 1");
  }
  {
    Builder b = two_joint_strip();
    b.j["animations"][0]["samplers"][1]["interpolation"] = "CUBICSPLINE";
    expect_error(b, "animation 'bend' channel 1: 2 output values for 2 keys (CUBICSPLINE needs 3 per key)");
  }
  {
    Builder b = two_joint_strip();
    b.j["animations"][0]["samplers"][1]["output"] = b.floats({1, 1, 1, 1, -1, 1}, "VEC3", 3);
    b.j["animations"][0]["channels"][1]["target"]["path"] = "scale";
    expect_error(b, "scale key 1 of node 0 ('root') is negative");
  }
  {
    Builder b = two_joint_strip();
    b.j["meshes"][0]["primitives"][0]["attributes"].erase("WEIGHTS_0");
    expect_error(b, "has JOINTS_0 without its WEIGHTS_0");
  }
  {
    Builder b = two_joint_strip();
    b.j["skins"][0]["inverseBindMatrices"] = b.floats(std::vector<float>(16, 0), "MAT4", 16);
    expect_error(b, "skin 0 ('rig'): 1 inverse bind matrices for 2 joints");
  }
  {
    Builder b = two_joint_strip();
    std::vector<float> nan(24, 0);
    nan[4] = std::nanf("");
    b.j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = b.floats(nan, "VEC3", 3);
    expect_error(b, "holds a non-finite value at element 1, component 1");
  }
  {
    Builder b = two_joint_strip();
    b.j["extensionsRequired"] = {"KHR_draco_mesh_compression"};
    b.j["extensionsUsed"] = {"KHR_draco_mesh_compression"};
    expect_error(b, "KHR_draco_mesh_compression");
  }
}

TEST_F(GltfIo, RefusesTruncatedAndForeignFiles) {
  const std::string glb = two_joint_strip().glb();
  const std::string p = put("cut.glb", glb.substr(0, glb.size() - 40));
  expect_throw_with<std::runtime_error>([&] { read_gltf(p); }, "cut.glb");
  expect_throw_with<std::runtime_error>([&] { read_gltf(put("e.glb", "")); }, "empty");
  expect_throw_with<std::runtime_error>([&] { read_gltf(put("g.glb", "g 0 0 0\n")); }, "not a glTF file");
  expect_throw_with<std::runtime_error>([&] { read_gltf(put("j.gltf", "{\"asset\": ")); }, "not valid glTF");
  expect_throw_with<std::runtime_error>([&] { read_gltf(path("missing.glb")); }, "missing.glb");
  // Every prefix of the file is refused with an error, never a crash or a silent success.
  for (std::size_t n = 0; n < glb.size(); n += 7) {
    const std::string q = put("prefix.glb", glb.substr(0, n));
    EXPECT_THROW(read_gltf(q), std::runtime_error) << n << " bytes";
  }
}

// The Khronos samples: counts, rest pose, and partition of unity.
struct KhronosCase {
  const char* file;
  Index vertices, triangles;
  std::size_t joints, clips;
};

class GltfKhronos : public ::testing::TestWithParam<KhronosCase> {};

TEST_P(GltfKhronos, ReadsTheSample) {
  const KhronosCase k = GetParam();
  const GltfCharacter c = read_gltf(test::shared_data(std::string("khronos-gltf/") + k.file));
  ASSERT_EQ(c.meshes.size(), 1u);
  const GltfSkinnedMesh& m = c.meshes[0];
  EXPECT_EQ(m.V.rows(), k.vertices);
  EXPECT_EQ(m.F.rows(), k.triangles);
  EXPECT_EQ(c.skins[static_cast<std::size_t>(m.skin)].joints.size(), k.joints);
  EXPECT_EQ(c.clips.size(), k.clips);
  EXPECT_LT((m.W.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  EXPECT_GE(m.W.minCoeff(), 0);
  const double extent = (m.V.colwise().maxCoeff() - m.V.colwise().minCoeff()).maxCoeff();
  // At the rest transforms every joint matrix is one common rigid map R0 (identity for Fox; the
  // COLLADA2GLTF samples' Z-up root rotation for the other two), so the skinned rest mesh is
  // R0 POSITION: the bind pose, rigidly placed in the world.
  const VectorXd rest = gltf_pose(c, 0, -1, 0);
  const Eigen::Map<const Eigen::Matrix<double, 3, 4>> A0(rest.data());
  for (Index j = 1; j < rest.size() / 12; ++j)
    EXPECT_LT((Eigen::Map<const Eigen::Matrix<double, 3, 4>>(rest.data() + 12 * j) - A0).cwiseAbs().maxCoeff(), 1e-5)
        << "joint " << j;
  const Eigen::Matrix3d L0 = A0.leftCols<3>();
  EXPECT_LT((L0.transpose() * L0 - Eigen::Matrix3d::Identity()).norm(), 1e-5);
  const MatrixXd placed = (m.V * L0.transpose()).rowwise() + A0.col(3).transpose();
  EXPECT_LT((lbs_positions(c, 0, rest) - placed).cwiseAbs().maxCoeff(), 2e-6 * extent);
  for (std::size_t clip = 0; clip < c.clips.size(); ++clip) {
    const double t = 0.37 * c.clips[clip].duration;
    const MatrixXd X = lbs_positions(c, 0, gltf_pose(c, 0, static_cast<int>(clip), t));
    EXPECT_LT((X - direct_lbs(c, 0, static_cast<int>(clip), t)).cwiseAbs().maxCoeff(), 1e-12 * extent);
    EXPECT_GT((X - m.V).cwiseAbs().maxCoeff(), 1e-3 * extent) << "clip " << clip << " moves the mesh";
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, GltfKhronos,
                         ::testing::Values(KhronosCase{"RiggedSimple.glb", 160, 188, 2, 1},
                                           KhronosCase{"RiggedFigure.glb", 370, 256, 19, 1},
                                           KhronosCase{"Fox.glb", 1728, 576, 24, 3}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

TEST(GltfKhronosFox, ClipsHaveTheirNamesAndDurations) {
  const GltfCharacter c = read_gltf(test::shared_data("khronos-gltf/Fox.glb"));
  ASSERT_EQ(c.clips.size(), 3u);
  EXPECT_EQ(c.clips[0].name, "Survey");
  EXPECT_EQ(c.clips[1].name, "Walk");
  EXPECT_EQ(c.clips[2].name, "Run");
  EXPECT_NEAR(c.clips[0].duration, 3.42, 0.01);
  EXPECT_NEAR(c.clips[1].duration, 0.71, 0.01);
  EXPECT_NEAR(c.clips[2].duration, 1.16, 0.01);
  EXPECT_EQ(gltf_clip_index(c, "Run"), 2);
}

}  // namespace test_gltf_io
}  // namespace fastcd
