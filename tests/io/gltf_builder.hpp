#pragma once
// Hand-built glTF documents for tests: a Builder that writes .glb files, and small characters.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fastcd::test {

using nlohmann::json;

constexpr int kByte = 5120, kUByte = 5121, kUShort = 5123, kUInt = 5125, kFloat = 5126;

// Builds a glTF document (JSON + one binary buffer) and writes it as .glb.
struct Builder {
  json j = json::object();
  std::string bin;

  Builder() { j["asset"] = {{"version", "2.0"}}; }

  template <class T>
  static std::string bytes(const std::vector<T>& v) {
    std::string s(v.size() * sizeof(T), '\0');
    if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
    return s;
  }
  // A buffer view over `data` (4-byte aligned in the buffer).
  int view(const std::string& data, int stride = 0) {
    while (bin.size() % 4) bin.push_back('\0');
    json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", data.size()}};
    if (stride) v["byteStride"] = stride;
    bin += data;
    j["bufferViews"].push_back(v);
    return static_cast<int>(j["bufferViews"].size()) - 1;
  }
  int accessor(json a) {
    j["accessors"].push_back(std::move(a));
    return static_cast<int>(j["accessors"].size()) - 1;
  }
  template <class T>
  int add(const std::vector<T>& v, int component, const std::string& type, std::size_t count, bool normalized = false) {
    json a = {{"bufferView", view(bytes(v))}, {"componentType", component}, {"type", type}, {"count", count}};
    if (normalized) a["normalized"] = true;
    return accessor(a);
  }
  int floats(const std::vector<float>& v, const std::string& type, int per) {
    return add(v, kFloat, type, v.size() / static_cast<std::size_t>(per));
  }
  std::string glb() const {
    json doc = j;
    doc["buffers"] = json::array({{{"byteLength", bin.size()}}});
    std::string js = doc.dump();
    while (js.size() % 4) js.push_back(' ');
    std::string b = bin;
    while (b.size() % 4) b.push_back('\0');
    auto u32 = [](std::uint32_t x) {
      std::string s(4, '\0');
      std::memcpy(s.data(), &x, 4);
      return s;
    };
    const auto total = static_cast<std::uint32_t>(12 + 8 + js.size() + 8 + b.size());
    return "glTF" + u32(2) + u32(total) + u32(static_cast<std::uint32_t>(js.size())) + "JSON" + js +
           u32(static_cast<std::uint32_t>(b.size())) + std::string("BIN\0", 4) + b;
  }
};

// A two-joint character: a strip of 3 quads (8 vertices, 6 triangles) along y, joint 0 at the
// origin, joint 1 (child) at y = 1, the mesh node skinned by both; one clip that bends joint 1
// by 90 degrees about z (LINEAR) and moves the root (STEP).
inline Builder two_joint_strip() {
  Builder b;
  std::vector<float> pos;
  for (int k = 0; k < 4; ++k)
    for (int s = 0; s < 2; ++s) pos.insert(pos.end(), {static_cast<float>(s) * 0.5f, static_cast<float>(k) * 0.75f, 0});
  std::vector<std::uint16_t> tri;
  for (std::uint16_t k = 0; k < 3; ++k)
    tri.insert(tri.end(), {std::uint16_t(2 * k), std::uint16_t(2 * k + 1), std::uint16_t(2 * k + 3),
                           std::uint16_t(2 * k), std::uint16_t(2 * k + 3), std::uint16_t(2 * k + 2)});
  std::vector<std::uint8_t> joints(32, 0);
  std::vector<float> weights;
  for (int v = 0; v < 8; ++v) {
    const float w1 = static_cast<float>(v / 2) / 3.0f;
    joints[static_cast<std::size_t>(4 * v)] = 0;
    joints[static_cast<std::size_t>(4 * v + 1)] = 1;
    weights.insert(weights.end(), {1 - w1, w1, 0, 0});
  }
  const int P = b.floats(pos, "VEC3", 3);
  b.j["accessors"][P]["min"] = {0, 0, 0};
  b.j["accessors"][P]["max"] = {0.5, 2.25, 0};
  const int I = b.add(tri, kUShort, "SCALAR", tri.size());
  const int J = b.add(joints, kUByte, "VEC4", 8);
  const int Wt = b.floats(weights, "VEC4", 4);
  b.j["meshes"] = json::array(
      {{{"name", "strip"},
        {"primitives",
         json::array({{{"attributes", {{"POSITION", P}, {"JOINTS_0", J}, {"WEIGHTS_0", Wt}}}, {"indices", I}}})}}});
  // Inverse bind matrices: joint 0 at the origin, joint 1 at y = 1 (column-major).
  std::vector<float> ibm = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                            1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
  const int IBM = b.floats(ibm, "MAT4", 16);
  b.j["nodes"] = json::array({{{"name", "root"}, {"children", {1}}},
                              {{"name", "tip"}, {"translation", {0, 1, 0}}},
                              {{"name", "body"}, {"mesh", 0}, {"skin", 0}, {"translation", {5, 5, 5}}}});
  b.j["skins"] = json::array({{{"name", "rig"}, {"joints", {0, 1}}, {"inverseBindMatrices", IBM}}});
  b.j["scenes"] = json::array({{{"nodes", {0, 2}}}});
  const double s = std::sqrt(0.5);
  const int T = b.floats({0, 1}, "SCALAR", 1);
  const int R = b.floats({0, 0, 0, 1, 0, 0, static_cast<float>(s), static_cast<float>(s)}, "VEC4", 4);
  const int Tr = b.floats({0, 0, 0, 2, 0, 0}, "VEC3", 3);
  b.j["animations"] = json::array(
      {{{"name", "bend"},
        {"samplers", json::array({{{"input", T}, {"output", R}, {"interpolation", "LINEAR"}},
                                  {{"input", T}, {"output", Tr}, {"interpolation", "STEP"}}})},
        {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}},
                                  {{"sampler", 1}, {"target", {{"node", 0}, {"path", "translation"}}}}})}}});
  return b;
}

// A closed box 0.5 x 2.25 x 0.5 from `(x0, y0, z0)` (4 vertices on each of 4 levels along y, 28
// triangles), skinned like two_joint_strip: weights blend from joint 0 at the bottom to joint 1
// at the top. Returns its primitive (accessors added to b).
inline json box_primitive(Builder& b, float x0 = 0, float y0 = 0, float z0 = 0) {
  std::vector<float> pos;
  std::vector<float> weights;
  std::vector<std::uint8_t> joints;
  const int levels = 4;
  for (int k = 0; k < levels; ++k)
    for (int c = 0; c < 4; ++c) {
      const float x = (c == 1 || c == 2) ? 0.5f : 0.0f, z = (c >= 2) ? 0.5f : 0.0f;
      pos.insert(pos.end(), {x0 + x, y0 + static_cast<float>(k) * 0.75f, z0 + z});
      const float w1 = static_cast<float>(k) / 3.0f;
      weights.insert(weights.end(), {1 - w1, w1, 0, 0});
      joints.insert(joints.end(), {0, 1, 0, 0});
    }
  std::vector<std::uint16_t> tri;
  auto id = [](int k, int c) { return static_cast<std::uint16_t>(4 * k + (c % 4)); };
  for (int k = 0; k + 1 < levels; ++k)
    for (int c = 0; c < 4; ++c)  // side quads, outward for the ring order (0,0) (.5,0) (.5,.5) (0,.5)
      tri.insert(tri.end(), {id(k, c), id(k + 1, c), id(k + 1, c + 1), id(k, c), id(k + 1, c + 1), id(k, c + 1)});
  tri.insert(tri.end(), {id(0, 0), id(0, 2), id(0, 3), id(0, 0), id(0, 1), id(0, 2)});  // bottom (-y)
  const int t = levels - 1;
  tri.insert(tri.end(), {id(t, 0), id(t, 3), id(t, 2), id(t, 0), id(t, 2), id(t, 1)});  // top (+y)
  const auto nv = static_cast<std::size_t>(4 * levels);
  const int P = b.floats(pos, "VEC3", 3);
  b.j["accessors"][P]["min"] = {x0, y0, z0};
  b.j["accessors"][P]["max"] = {x0 + 0.5, y0 + 2.25, z0 + 0.5};
  const int I = b.add(tri, kUShort, "SCALAR", tri.size());
  const int J = b.add(joints, kUByte, "VEC4", nv);
  const int W = b.floats(weights, "VEC4", 4);
  return {{"attributes", {{"POSITION", P}, {"JOINTS_0", J}, {"WEIGHTS_0", W}}}, {"indices", I}};
}

// two_joint_strip's character with the box as its skin; it bounds a solid, so it can be
// tetrahedralised and simulated.
inline Builder two_joint_box() {
  Builder b = two_joint_strip();
  b.j["meshes"][0]["name"] = "box";
  b.j["meshes"][0]["primitives"][0] = box_primitive(b);
  return b;
}

// Two characters in one file: two_joint_box (skin 0) with a second mesh node, a "hat" box
// (a shell of its own) above the first, and a second skeleton ("root2" at x = 3, "tip2" above
// it; skin 1, the same inverse bind matrices) skinning a third box; the clip also bends tip2
// about x and lifts root2 (LINEAR).
inline Builder two_skins() {
  Builder b = two_joint_box();
  b.j["meshes"].push_back({{"name", "hat"}, {"primitives", json::array({box_primitive(b, 0, 2.5f, 0)})}});
  b.j["meshes"].push_back({{"name", "other"}, {"primitives", json::array({box_primitive(b, 3, 0, 0)})}});
  b.j["nodes"].push_back({{"name", "hat"}, {"mesh", 1}, {"skin", 0}});                         // 3
  b.j["nodes"].push_back({{"name", "root2"}, {"translation", {3, 0, 0}}, {"children", {5}}});  // 4
  b.j["nodes"].push_back({{"name", "tip2"}, {"translation", {0, 1, 0}}});                      // 5
  b.j["nodes"].push_back({{"name", "other"}, {"mesh", 2}, {"skin", 1}});                       // 6
  // Joint matrices are G * IBM: skin 1's IBMs take its rest joints back to x = 3's frame.
  std::vector<float> ibm = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -3, 0,  0, 1,
                            1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -3, -1, 0, 1};
  b.j["skins"].push_back({{"name", "rig2"}, {"joints", {4, 5}}, {"inverseBindMatrices", b.floats(ibm, "MAT4", 16)}});
  b.j["scenes"][0]["nodes"] = {0, 2, 3, 4, 6};
  const double s = std::sqrt(0.5);
  const int T = b.floats({0, 1}, "SCALAR", 1);
  const int R = b.floats({0, 0, 0, 1, static_cast<float>(s), 0, 0, static_cast<float>(s)}, "VEC4", 4);
  const int Tr = b.floats({3, 0, 0, 3, 0.5f, 0}, "VEC3", 3);
  json& a = b.j["animations"][0];
  const auto n = a["samplers"].size();
  a["samplers"].push_back({{"input", T}, {"output", R}, {"interpolation", "LINEAR"}});
  a["samplers"].push_back({{"input", T}, {"output", Tr}, {"interpolation", "LINEAR"}});
  a["channels"].push_back({{"sampler", n}, {"target", {{"node", 5}, {"path", "rotation"}}}});
  a["channels"].push_back({{"sampler", n + 1}, {"target", {{"node", 4}, {"path", "translation"}}}});
  return b;
}

}  // namespace fastcd::test
