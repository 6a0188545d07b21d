#include "fastcd/io/gltf_io.hpp"

#include <tiny_gltf.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/input_reference.hpp"
#include "fastcd/io/parse_util.hpp"

namespace fastcd {

static_assert(std::endian::native == std::endian::little, "glTF buffers are little-endian");

namespace {

constexpr const char* kFn = "read_gltf";
// Accessors without a buffer view are zeros; never allocate more than this many numbers for one.
constexpr std::size_t kMaxImplicitNumbers = std::size_t{1} << 27;

std::string num(double v) {
  std::string s;
  detail::append_double(s, v);
  return s;
}

std::string quoted_name(const std::string& name) { return name.empty() ? "" : " ('" + name + "')"; }

// The model being read and the file name for messages.
struct Reader {
  const tinygltf::Model& m;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const { detail::fail_file(kFn, path, what); }

  std::string node_name(int n) const {
    return "node " + std::to_string(n) + quoted_name(m.nodes[static_cast<std::size_t>(n)].name);
  }

  // Size in bytes of one component, or 0 for an unknown type.
  static std::size_t component_size(int type) {
    switch (type) {
      case TINYGLTF_COMPONENT_TYPE_BYTE:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return 1;
      case TINYGLTF_COMPONENT_TYPE_SHORT:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
        return 2;
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      case TINYGLTF_COMPONENT_TYPE_FLOAT:
        return 4;
      default:
        return 0;
    }
  }

  // One component at p as a double; normalised integers mapped as the spec's table says.
  static double component(const unsigned char* p, int type, bool normalized) {
    switch (type) {
      case TINYGLTF_COMPONENT_TYPE_BYTE: {
        const auto v = static_cast<std::int8_t>(*p);
        return normalized ? std::max(v / 127.0, -1.0) : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return normalized ? *p / 255.0 : *p;
      case TINYGLTF_COMPONENT_TYPE_SHORT: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? std::max(v / 32767.0, -1.0) : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
      }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
      }
      default: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
    }
  }

  // The bytes of buffer view `bv` (checked against its buffer), for `who`.
  std::pair<const unsigned char*, std::size_t> view_bytes(int bv, const std::string& who) const {
    if (bv < 0 || static_cast<std::size_t>(bv) >= m.bufferViews.size())
      fail(who + ": buffer view " + std::to_string(bv) + " does not exist (the file has " +
           std::to_string(m.bufferViews.size()) + ")");
    const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(bv)];
    if (v.buffer < 0 || static_cast<std::size_t>(v.buffer) >= m.buffers.size())
      fail(who + ": buffer view " + std::to_string(bv) + " names buffer " + std::to_string(v.buffer) +
           ", which does not exist");
    const std::vector<unsigned char>& data = m.buffers[static_cast<std::size_t>(v.buffer)].data;
    if (v.byteOffset > data.size() || v.byteLength > data.size() - v.byteOffset)
      fail(who + ": buffer view " + std::to_string(bv) + " (bytes " + std::to_string(v.byteOffset) + " + " +
           std::to_string(v.byteLength) + ") runs past the end of buffer " + std::to_string(v.buffer) + " (" +
           std::to_string(data.size()) + " bytes): truncated file?");
    return {data.data() + v.byteOffset, v.byteLength};
  }

  /// Accessor `index` as a count x components matrix of doubles, for `who`. `types` are the
  /// allowed accessor types (TINYGLTF_TYPE_*), `components` the allowed component types.
  MatrixXd accessor(int index, const std::string& who, std::initializer_list<int> types,
                    std::initializer_list<int> components) const {
    if (index < 0 || static_cast<std::size_t>(index) >= m.accessors.size())
      fail(who + ": accessor " + std::to_string(index) + " does not exist (the file has " +
           std::to_string(m.accessors.size()) + ")");
    const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(index)];
    const std::string aw = who + ": accessor " + std::to_string(index);
    if (std::find(types.begin(), types.end(), a.type) == types.end())
      fail(aw + " has the wrong type (" + std::to_string(a.type) + ")");
    if (std::find(components.begin(), components.end(), a.componentType) == components.end())
      fail(aw + " has an unsupported component type (" + std::to_string(a.componentType) + ")");
    const int nc = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
    const std::size_t cs = component_size(a.componentType);
    if (nc <= 0 || cs == 0) fail(aw + ": bad type or component type");
    if (nc >= 4 && a.type != TINYGLTF_TYPE_VEC4 && cs < 4)
      fail(aw + ": matrices of 1- or 2-byte components (padded columns) are not supported");
    const std::size_t elem = cs * static_cast<std::size_t>(nc);
    const std::size_t count = a.count;
    MatrixXd out;
    if (a.bufferView >= 0) {
      const auto [bytes, length] = view_bytes(a.bufferView, aw);
      const int stride_i = a.ByteStride(m.bufferViews[static_cast<std::size_t>(a.bufferView)]);
      if (stride_i <= 0) fail(aw + ": its buffer view's byteStride does not fit the element size");
      const auto stride = static_cast<std::size_t>(stride_i);
      if (stride < elem) fail(aw + ": byteStride " + std::to_string(stride) + " is smaller than an element");
      if (count > 0) {
        // offset + (count - 1) * stride + elem <= length, without overflow.
        if (a.byteOffset > length || elem > length - a.byteOffset ||
            (count - 1) > (length - a.byteOffset - elem) / stride)
          fail(aw + " (" + std::to_string(count) + " elements from byte " + std::to_string(a.byteOffset) +
               ") reads past the end of its buffer view (" + std::to_string(length) + " bytes)");
      }
      out.resize(static_cast<Index>(count), nc);
      for (std::size_t i = 0; i < count; ++i) {
        const unsigned char* p = bytes + a.byteOffset + i * stride;
        for (int c = 0; c < nc; ++c)
          out(static_cast<Index>(i), c) =
              component(p + static_cast<std::size_t>(c) * cs, a.componentType, a.normalized);
      }
    } else {
      if (count > kMaxImplicitNumbers / static_cast<std::size_t>(nc))
        fail(aw + ": " + std::to_string(count) + " elements without a buffer view is too many");
      out = MatrixXd::Zero(static_cast<Index>(count), nc);
    }
    if (a.sparse.isSparse) apply_sparse(a, aw, out, elem, cs);
    if (!out.allFinite()) {
      Index r = 0, c = 0;
      (!out.array().isFinite()).cast<int>().maxCoeff(&r, &c);
      fail(aw + " holds a non-finite value at element " + std::to_string(r) + ", component " + std::to_string(c));
    }
    return out;
  }

  void apply_sparse(const tinygltf::Accessor& a, const std::string& aw, MatrixXd& out, std::size_t elem,
                    std::size_t cs) const {
    const auto& sp = a.sparse;
    if (sp.count <= 0 || static_cast<std::size_t>(sp.count) > a.count)
      fail(aw + ": sparse count " + std::to_string(sp.count) + " is not in [1, " + std::to_string(a.count) + "]");
    const auto n = static_cast<std::size_t>(sp.count);
    const std::size_t ics = component_size(sp.indices.componentType);
    if (ics == 0 || sp.indices.componentType == TINYGLTF_COMPONENT_TYPE_BYTE ||
        sp.indices.componentType == TINYGLTF_COMPONENT_TYPE_SHORT ||
        sp.indices.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT)
      fail(aw + ": sparse indices must be unsigned integers");
    const auto [ib, il] = view_bytes(sp.indices.bufferView, aw + " sparse indices");
    const auto [vb, vl] = view_bytes(sp.values.bufferView, aw + " sparse values");
    if (sp.indices.byteOffset < 0 || sp.values.byteOffset < 0) fail(aw + ": negative sparse byteOffset");
    const auto io = static_cast<std::size_t>(sp.indices.byteOffset),
               vo = static_cast<std::size_t>(sp.values.byteOffset);
    if (io > il || n > (il - io) / ics) fail(aw + ": sparse indices read past the end of their buffer view");
    if (vo > vl || n > (vl - vo) / elem) fail(aw + ": sparse values read past the end of their buffer view");
    double previous = -1;
    for (std::size_t k = 0; k < n; ++k) {
      const double idx = component(ib + io + k * ics, sp.indices.componentType, false);
      if (idx <= previous) fail(aw + ": sparse indices are not strictly increasing at entry " + std::to_string(k));
      if (idx >= static_cast<double>(a.count))
        fail(aw + ": sparse index " + num(idx) + " is beyond the accessor's " + std::to_string(a.count) + " elements");
      previous = idx;
      for (Index c = 0; c < out.cols(); ++c)
        out(static_cast<Index>(idx), c) =
            component(vb + vo + k * elem + static_cast<std::size_t>(c) * cs, a.componentType, a.normalized);
    }
  }
};

constexpr std::initializer_list<int> kFloat = {TINYGLTF_COMPONENT_TYPE_FLOAT};
constexpr std::initializer_list<int> kAnyComponent = {
    TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_SHORT,
    TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_COMPONENT_TYPE_FLOAT};

// tinygltf's file access, held to fastcd's rule for references (input_reference.hpp): it joins
// each external URI (percent-decoded) to the folder given as "<folder>/<uri>", and tries
// "./<uri>" after; only the first is ever looked at, and only a regular file inside the folder
// is read. What each refused URI came to is kept for the warnings and the error.
struct ReferenceGate {
  std::string folder;                                        // the input's folder, real and absolute
  std::vector<std::pair<std::string, std::string>> refused;  // (decoded URI, why), in order

  // The URI of a path tinygltf joined to the folder; false for the "./<uri>" fallback.
  bool uri_of(const std::string& joined, std::string& uri) const {
    if (joined.size() <= folder.size() + 1 || joined.compare(0, folder.size(), folder) != 0 ||
        joined[folder.size()] != '/')
      return false;
    uri = joined.substr(folder.size() + 1);
    return true;
  }
  InputReference resolve(const std::string& uri) {
    InputReference r = resolve_input_reference(folder, uri);
    if (!r.ok() && std::none_of(refused.begin(), refused.end(), [&](const auto& e) { return e.first == uri; }))
      refused.emplace_back(uri, r.problem);
    return r;
  }
  const std::string* why(const std::string& uri) const {
    for (const auto& [u, w] : refused)
      if (u == uri) return &w;
    return nullptr;
  }

  static bool exists(const std::string& joined, void* user) {
    auto& gate = *static_cast<ReferenceGate*>(user);
    std::string uri;
    if (!gate.uri_of(joined, uri)) return false;
    const InputReference r = gate.resolve(uri);
    return r.ok() || !r.missing;  // a refused file is "read" so that the reason reaches the error
  }
  static std::string expand(const std::string& path, void*) { return path; }  // no ~ or $VAR expansion
  static bool read(std::vector<unsigned char>* out, std::string* err, const std::string& joined, void* user) {
    auto& gate = *static_cast<ReferenceGate*>(user);
    std::string uri;
    if (!gate.uri_of(joined, uri)) return false;
    const InputReference r = gate.resolve(uri);
    try {
      if (r.ok()) {
        const std::string bytes = read_regular_file(r.path.string(), kFn);
        if (bytes.empty()) {
          gate.refused.emplace_back(uri, "is empty");
        } else {
          out->assign(bytes.begin(), bytes.end());
          return true;
        }
      }
    } catch (const std::exception& e) {
      gate.refused.emplace_back(uri, std::string("cannot be read: ") + e.what());
    }
    if (err != nullptr) *err = *gate.why(uri);
    return false;
  }
  static bool write(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
    if (err != nullptr) *err = "fastcd never writes through tinygltf";
    return false;
  }
};

// Loads the file with tinygltf (binary or text by the magic), without decoding images; with
// `images`, each image's encoded bytes (as tinygltf found them: buffer view, data URI or file).
// External buffers and images are read by ReferenceGate's rule: a buffer it refuses is an
// error; an image it refuses (or that is missing) is left out with a line in `warnings`.
tinygltf::Model load_model(const std::string& path, std::string* json_text = nullptr,
                           std::vector<std::string>* images = nullptr, std::vector<std::string>* warnings = nullptr) {
  const std::string bytes = detail::read_file_bytes(path, kFn);
  if (bytes.empty()) detail::fail_file(kFn, path, "file is empty");
  ReferenceGate gate;
  {
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::absolute(path, ec).parent_path();
    gate.folder = std::filesystem::canonical(parent, ec).string();
    if (ec) detail::fail_file(kFn, path, "its folder cannot be resolved: " + ec.message());
  }
  tinygltf::TinyGLTF loader;
  loader.SetFsCallbacks(tinygltf::FsCallbacks{&ReferenceGate::exists, &ReferenceGate::expand, &ReferenceGate::read,
                                              &ReferenceGate::write, &gate});
  loader.SetImageLoader(
      [](tinygltf::Image*, const int index, std::string*, std::string*, int, int, const unsigned char* data, int size,
         void* user) {
        // images are carried through, never decoded
        if (user != nullptr && index >= 0) {
          auto& out = *static_cast<std::vector<std::string>*>(user);
          if (out.size() <= static_cast<std::size_t>(index)) out.resize(static_cast<std::size_t>(index) + 1);
          out[static_cast<std::size_t>(index)].assign(reinterpret_cast<const char*>(data),
                                                      static_cast<std::size_t>(std::max(size, 0)));
        }
        return true;
      },
      images);
  tinygltf::Model model;
  std::string err, warn;
  const std::string& base = gate.folder;
  bool ok = false;
  try {
    if (bytes.size() >= 4 && bytes.compare(0, 4, "glTF") == 0) {
      // A clearer message than tinygltf's "Invalid glTF binary." for the commonest damage.
      std::uint32_t declared = 0;
      if (bytes.size() >= 12) std::memcpy(&declared, bytes.data() + 8, 4);
      if (bytes.size() < 12 || declared > bytes.size())
        detail::fail_file(
            kFn, path,
            "truncated .glb: " + (bytes.size() < 12 ? std::string("shorter than the 12-byte header")
                                                    : "the header declares " + std::to_string(declared) +
                                                          " bytes, the file has " + std::to_string(bytes.size())));
      ok = loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                       static_cast<unsigned int>(bytes.size()), base);
      if (ok && json_text != nullptr) {  // tinygltf checked the header and the JSON chunk's bounds
        std::uint32_t length = 0;
        std::memcpy(&length, bytes.data() + 12, 4);
        *json_text = bytes.substr(20, length);
      }
    } else {
      const std::size_t first = bytes.find_first_not_of(" \t\r\n");
      if (first == std::string::npos || bytes[first] != '{')
        detail::fail_file(kFn, path, "not a glTF file (neither the binary 'glTF' magic nor a JSON object)");
      ok = loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), static_cast<unsigned int>(bytes.size()), base);
      if (ok && json_text != nullptr) *json_text = bytes;
    }
  } catch (const std::runtime_error&) {
    throw;
  } catch (const std::exception& e) {
    detail::fail_file(kFn, path, std::string("not valid glTF: ") + e.what());
  }
  if (!ok) {
    // A refused buffer fails the load; say which and why rather than tinygltf's "File read error".
    for (const auto& [uri, why] : gate.refused)
      if (err.find(why) != std::string::npos)
        detail::fail_file(
            kFn, path,
            "its buffer '" + uri + "' " + why + " (fastcd reads only regular files inside the glTF file's own folder)");
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    std::replace(err.begin(), err.end(), '\n', ' ');
    detail::fail_file(kFn, path, "not valid glTF: " + (err.empty() ? std::string("tinygltf refused it") : err));
  }
  if (warnings != nullptr)
    for (std::size_t i = 0; i < model.images.size(); ++i) {
      const tinygltf::Image& im = model.images[i];
      if (im.uri.empty() || im.uri.rfind("data:", 0) == 0) continue;
      const std::string* why = gate.why(percent_decode(im.uri));
      if (why == nullptr) continue;
      warnings->push_back("image " + std::to_string(i) + quoted_name(im.name) + ": '" + im.uri + "' " + *why +
                          "; it is left out of the bake (fastcd reads only regular files inside the glTF file's "
                          "own folder)");
    }
  return model;
}

void read_nodes(const Reader& r, GltfCharacter& c) {
  const auto& m = r.m;
  const auto n = static_cast<int>(m.nodes.size());
  c.nodes.resize(m.nodes.size());
  for (int i = 0; i < n; ++i) {
    const tinygltf::Node& src = m.nodes[static_cast<std::size_t>(i)];
    GltfNode& dst = c.nodes[static_cast<std::size_t>(i)];
    dst.name = src.name;
    const std::string who = r.node_name(i);
    if (!src.matrix.empty()) {
      if (src.matrix.size() != 16) r.fail(who + ": matrix must have 16 numbers");
      dst.has_matrix = true;
      dst.matrix = Eigen::Map<const Eigen::Matrix4d>(src.matrix.data());
      if (!dst.matrix.allFinite()) r.fail(who + ": matrix has a non-finite entry");
      if (dst.matrix.row(3).transpose().cwiseAbs().maxCoeff() > 0 &&
          (dst.matrix.row(3) - Eigen::RowVector4d(0, 0, 0, 1)).cwiseAbs().maxCoeff() > 1e-6)
        r.fail(who + ": matrix is not affine (last row must be 0 0 0 1)");
    }
    if (!src.translation.empty()) {
      if (src.translation.size() != 3) r.fail(who + ": translation must have 3 numbers");
      dst.translation = Eigen::Vector3d(src.translation[0], src.translation[1], src.translation[2]);
    }
    if (!src.rotation.empty()) {
      if (src.rotation.size() != 4) r.fail(who + ": rotation must have 4 numbers");
      const Eigen::Vector4d q(src.rotation[0], src.rotation[1], src.rotation[2], src.rotation[3]);
      if (!q.allFinite() || !(q.norm() > 1e-6)) r.fail(who + ": rotation is not a unit quaternion");
      dst.rotation = Eigen::Quaterniond(q[3], q[0], q[1], q[2]).normalized();
    }
    if (!src.scale.empty()) {
      if (src.scale.size() != 3) r.fail(who + ": scale must have 3 numbers");
      dst.scale = Eigen::Vector3d(src.scale[0], src.scale[1], src.scale[2]);
    }
    if (!dst.translation.allFinite() || !dst.scale.allFinite()) r.fail(who + ": a non-finite translation or scale");
    for (int child : src.children) {
      if (child < 0 || child >= n) r.fail(who + ": child " + std::to_string(child) + " does not exist");
      int& parent = c.nodes[static_cast<std::size_t>(child)].parent;
      if (parent >= 0 && parent != i)
        r.fail(r.node_name(child) + " is a child of both " + r.node_name(parent) + " and " + who);
      parent = i;
    }
  }
  for (int i = 0; i < n; ++i) {  // no cycles: every chain of parents ends within n steps
    int p = c.nodes[static_cast<std::size_t>(i)].parent;
    for (int steps = 0; p >= 0; ++steps) {
      if (steps > n || p == i) r.fail(r.node_name(i) + " is its own ancestor (a cycle in the node hierarchy)");
      p = c.nodes[static_cast<std::size_t>(p)].parent;
    }
  }
}

// Refuses mirrored joints: a negative scale component, or a matrix with a negative
// determinant, on a joint or any of its ancestors.
void check_not_mirrored(const Reader& r, const GltfCharacter& c, int node, const std::string& skin) {
  for (int p = node; p >= 0; p = c.nodes[static_cast<std::size_t>(p)].parent) {
    const GltfNode& g = c.nodes[static_cast<std::size_t>(p)];
    const bool mirrored = g.has_matrix ? g.matrix.topLeftCorner<3, 3>().determinant() < 0 : g.scale.minCoeff() < 0;
    if (mirrored)
      r.fail(r.node_name(p) + " (" + (p == node ? "a joint" : "an ancestor of joint " + r.node_name(node)) + " of " +
             skin + ") has a negative scale" +
             (g.has_matrix ? std::string(" (matrix determinant < 0)")
                           : " (" + num(g.scale.x()) + ", " + num(g.scale.y()) + ", " + num(g.scale.z()) + ")") +
             ": mirrored joints are not supported; apply the mirror to the mesh in the modelling tool");
  }
}

void read_skins(const Reader& r, GltfCharacter& c) {
  const auto& m = r.m;
  for (std::size_t s = 0; s < m.skins.size(); ++s) {
    const tinygltf::Skin& src = m.skins[s];
    GltfSkin dst;
    dst.name = src.name;
    const std::string who = "skin " + std::to_string(s) + quoted_name(src.name);
    if (src.joints.empty()) r.fail(who + " has no joints");
    std::vector<char> seen(m.nodes.size(), 0);
    for (int j : src.joints) {
      if (j < 0 || static_cast<std::size_t>(j) >= m.nodes.size())
        r.fail(who + ": joint node " + std::to_string(j) + " does not exist");
      if (seen[static_cast<std::size_t>(j)]) r.fail(who + ": " + r.node_name(j) + " is listed twice as a joint");
      seen[static_cast<std::size_t>(j)] = 1;
      check_not_mirrored(r, c, j, who);
    }
    dst.joints = src.joints;
    if (src.skeleton >= static_cast<int>(m.nodes.size()))
      r.fail(who + ": skeleton node " + std::to_string(src.skeleton) + " does not exist");
    dst.skeleton = src.skeleton;
    dst.inverse_bind.assign(src.joints.size(), Eigen::Matrix4d::Identity());
    if (src.inverseBindMatrices >= 0) {
      const MatrixXd ibm =
          r.accessor(src.inverseBindMatrices, who + " inverseBindMatrices", {TINYGLTF_TYPE_MAT4}, kFloat);
      if (static_cast<std::size_t>(ibm.rows()) < src.joints.size())
        r.fail(who + ": " + std::to_string(ibm.rows()) + " inverse bind matrices for " +
               std::to_string(src.joints.size()) + " joints");
      for (std::size_t j = 0; j < src.joints.size(); ++j) {
        Eigen::Matrix4d M;
        for (int k = 0; k < 16; ++k) M(k % 4, k / 4) = ibm(static_cast<Index>(j), k);
        if ((M.row(3) - Eigen::RowVector4d(0, 0, 0, 1)).cwiseAbs().maxCoeff() > 1e-5)
          r.fail(who + ": inverse bind matrix " + std::to_string(j) + " is not affine (last row must be 0 0 0 1)");
        M.row(3) << 0, 0, 0, 1;
        if (!(std::abs(M.topLeftCorner<3, 3>().determinant()) > 0))
          r.fail(who + ": inverse bind matrix " + std::to_string(j) + " is singular");
        dst.inverse_bind[j] = M;
      }
    }
    c.skins.push_back(std::move(dst));
  }
}

// Triangles of one primitive from its index list (0-based into the primitive's vertices).
std::vector<std::array<Index, 3>> primitive_triangles(const Reader& r, const std::string& who, int mode,
                                                      const std::vector<Index>& idx, Index& degenerate) {
  std::vector<std::array<Index, 3>> tris;
  const auto n = static_cast<Index>(idx.size());
  auto add = [&](Index a, Index b, Index c) {
    if (a == b || b == c || a == c) {
      ++degenerate;
      return;
    }
    tris.push_back({a, b, c});
  };
  if (mode == TINYGLTF_MODE_TRIANGLES) {
    if (n % 3 != 0) r.fail(who + ": " + std::to_string(n) + " indices is not a whole number of triangles");
    for (Index i = 0; i + 2 < n; i += 3) add(idx[i], idx[i + 1], idx[i + 2]);
  } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
    for (Index i = 0; i + 2 < n; ++i) {
      if (i % 2 == 0)
        add(idx[i], idx[i + 1], idx[i + 2]);
      else
        add(idx[i + 1], idx[i], idx[i + 2]);
    }
  } else {  // fan
    for (Index i = 1; i + 1 < n; ++i) add(idx[i], idx[i + 1], idx[0]);
  }
  return tris;
}

struct WeightRepairs {
  Index negatives = 0, duplicates = 0, renormalised = 0, ignored_padding = 0;
  double largest_deviation = 0, most_negative = 0;
};

// Adds one primitive of a skinned node to `out`.
void read_primitive(const Reader& r, int node, int mesh, int prim, const GltfSkin& skin, GltfSkinnedMesh& out,
                    WeightRepairs& rep, Index& degenerate, Index& skipped) {
  const tinygltf::Primitive& p = r.m.meshes[static_cast<std::size_t>(mesh)].primitives[static_cast<std::size_t>(prim)];
  const std::string who = "mesh " + std::to_string(mesh) +
                          quoted_name(r.m.meshes[static_cast<std::size_t>(mesh)].name) + " primitive " +
                          std::to_string(prim);
  const int mode = p.mode < 0 ? TINYGLTF_MODE_TRIANGLES : p.mode;
  if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP && mode != TINYGLTF_MODE_TRIANGLE_FAN) {
    ++skipped;  // points and lines have no volume to simulate
    return;
  }
  const auto pos_it = p.attributes.find("POSITION");
  if (pos_it == p.attributes.end()) r.fail(who + " has no POSITION attribute");
  const MatrixXd V = r.accessor(pos_it->second, who + " POSITION", {TINYGLTF_TYPE_VEC3}, kAnyComponent);
  const Index nv = V.rows();
  std::vector<Index> idx;
  if (p.indices >= 0) {
    const MatrixXd I = r.accessor(p.indices, who + " indices", {TINYGLTF_TYPE_SCALAR},
                                  {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                   TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
    idx.resize(static_cast<std::size_t>(I.rows()));
    for (Index i = 0; i < I.rows(); ++i) {
      if (I(i, 0) >= static_cast<double>(nv))
        r.fail(who + ": index " + num(I(i, 0)) + " (entry " + std::to_string(i) + ") is beyond its " +
               std::to_string(nv) + " vertices");
      idx[static_cast<std::size_t>(i)] = static_cast<Index>(I(i, 0));
    }
  } else {
    idx.resize(static_cast<std::size_t>(nv));
    for (Index i = 0; i < nv; ++i) idx[static_cast<std::size_t>(i)] = i;
  }
  const auto tris = primitive_triangles(r, who, mode, idx, degenerate);

  // Skin weights: every JOINTS_n with its WEIGHTS_n.
  const auto nj = static_cast<Index>(skin.joints.size());
  MatrixXd W = MatrixXd::Zero(nv, nj);
  std::vector<char> used(static_cast<std::size_t>(nj));
  int sets = 0;
  for (;; ++sets) {
    const auto j_it = p.attributes.find("JOINTS_" + std::to_string(sets));
    const auto w_it = p.attributes.find("WEIGHTS_" + std::to_string(sets));
    if (j_it == p.attributes.end() && w_it == p.attributes.end()) break;
    if (j_it == p.attributes.end() || w_it == p.attributes.end())
      r.fail(who + " has " + (j_it == p.attributes.end() ? "WEIGHTS_" : "JOINTS_") + std::to_string(sets) +
             " without its " + (j_it == p.attributes.end() ? "JOINTS_" : "WEIGHTS_") + std::to_string(sets));
  }
  if (sets == 0) r.fail(who + " has no JOINTS_0 / WEIGHTS_0, but its node is skinned");
  std::vector<MatrixXd> js, ws;
  for (int s = 0; s < sets; ++s) {
    const std::string n = std::to_string(s);
    js.push_back(r.accessor(p.attributes.at("JOINTS_" + n), who + " JOINTS_" + n, {TINYGLTF_TYPE_VEC4},
                            {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}));
    ws.push_back(r.accessor(p.attributes.at("WEIGHTS_" + n), who + " WEIGHTS_" + n, {TINYGLTF_TYPE_VEC4},
                            {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                             TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}));
    if (js.back().rows() != nv || ws.back().rows() != nv)
      r.fail(who + ": JOINTS_" + n + " / WEIGHTS_" + n + " have " + std::to_string(js.back().rows()) + " / " +
             std::to_string(ws.back().rows()) + " entries for " + std::to_string(nv) + " vertices");
  }
  for (Index v = 0; v < nv; ++v) {
    std::fill(used.begin(), used.end(), 0);
    bool duplicate = false;
    for (int s = 0; s < sets; ++s)
      for (int k = 0; k < 4; ++k) {
        const double w = ws[static_cast<std::size_t>(s)](v, k);
        const double j = js[static_cast<std::size_t>(s)](v, k);
        if (w == 0) continue;  // padding: its joint index means nothing
        if (j >= static_cast<double>(nj))
          r.fail(who + ": vertex " + std::to_string(v) + " names joint " + num(j) + " (JOINTS_" + std::to_string(s) +
                 "), but the skin has " + std::to_string(nj) + " joints");
        if (w < 0) {
          ++rep.negatives;
          rep.most_negative = std::min(rep.most_negative, w);
          continue;
        }
        const auto jj = static_cast<std::size_t>(j);
        duplicate = duplicate || used[jj];
        used[jj] = 1;
        W(v, static_cast<Index>(jj)) += w;
      }
    rep.duplicates += duplicate;
    const double sum = W.row(v).sum();
    if (!(sum > 0))
      r.fail(who + ": vertex " + std::to_string(v) +
             " has joint weights summing to 0: no joint moves it (paint its weights in the modelling tool)");
    const double dev = std::abs(sum - 1);
    if (dev > 1e-6) ++rep.renormalised;
    rep.largest_deviation = std::max(rep.largest_deviation, dev);
    W.row(v) /= sum;
  }

  const Index v0 = out.V.rows(), f0 = out.F.rows();
  out.V.conservativeResize(v0 + nv, 3);
  out.V.bottomRows(nv) = V;
  out.W.conservativeResize(v0 + nv, nj);
  out.W.bottomRows(nv) = W;
  out.F.conservativeResize(f0 + static_cast<Index>(tris.size()), 3);
  for (std::size_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k)
      out.F(f0 + static_cast<Index>(t), k) = static_cast<int>(v0 + tris[t][static_cast<std::size_t>(k)]);
  out.spans.push_back({node, mesh, prim, v0, nv, f0, static_cast<Index>(tris.size())});
}

void read_meshes(const Reader& r, GltfCharacter& c) {
  const auto& m = r.m;
  std::map<int, std::size_t> of_skin;
  WeightRepairs rep;
  Index degenerate = 0, skipped = 0;
  for (std::size_t s = 0; s < m.skins.size(); ++s)
    for (std::size_t n = 0; n < m.nodes.size(); ++n) {
      const tinygltf::Node& node = m.nodes[n];
      if (node.skin != static_cast<int>(s) || node.mesh < 0) continue;
      if (static_cast<std::size_t>(node.mesh) >= m.meshes.size())
        r.fail(r.node_name(static_cast<int>(n)) + ": mesh " + std::to_string(node.mesh) + " does not exist");
      if (!of_skin.count(static_cast<int>(s))) {
        of_skin[static_cast<int>(s)] = c.meshes.size();
        GltfSkinnedMesh sm;
        sm.skin = static_cast<int>(s);
        sm.name = !node.name.empty() ? node.name
                  : !m.meshes[static_cast<std::size_t>(node.mesh)].name.empty()
                      ? m.meshes[static_cast<std::size_t>(node.mesh)].name
                      : "skin " + std::to_string(s);
        sm.V.resize(0, 3);
        sm.F.resize(0, 3);
        sm.W.resize(0, static_cast<Index>(c.skins[s].joints.size()));
        c.meshes.push_back(std::move(sm));
      }
      GltfSkinnedMesh& sm = c.meshes[of_skin[static_cast<int>(s)]];
      const auto& prims = m.meshes[static_cast<std::size_t>(node.mesh)].primitives;
      for (std::size_t p = 0; p < prims.size(); ++p)
        read_primitive(r, static_cast<int>(n), node.mesh, static_cast<int>(p), c.skins[s], sm, rep, degenerate,
                       skipped);
    }
  for (std::size_t n = 0; n < m.nodes.size(); ++n)
    if (m.nodes[n].skin >= 0 && static_cast<std::size_t>(m.nodes[n].skin) >= m.skins.size())
      r.fail(r.node_name(static_cast<int>(n)) + ": skin " + std::to_string(m.nodes[n].skin) + " does not exist");
  if (c.meshes.empty())
    r.fail(m.meshes.empty() ? "the file has no meshes"
                            : "no skinned mesh (no node has both a mesh and a skin): fastcd needs a rigged character; "
                              "for a plain surface, give an OBJ / OFF / PLY with handles");
  for (const GltfSkinnedMesh& sm : c.meshes)
    if (sm.F.rows() == 0) r.fail("skinned mesh '" + sm.name + "' has no triangles");
  if (rep.negatives > 0)
    c.warnings.push_back(std::to_string(rep.negatives) + " negative skin weights set to 0 (most negative " +
                         num(rep.most_negative) + ")");
  if (rep.duplicates > 0)
    c.warnings.push_back(std::to_string(rep.duplicates) +
                         " vertices list a joint more than once; their weights for it were added");
  if (rep.renormalised > 0)
    c.warnings.push_back("skin weights of " + std::to_string(rep.renormalised) +
                         " vertices renormalised to sum to 1 (largest deviation " + num(rep.largest_deviation) + ")");
  if (degenerate > 0)
    c.warnings.push_back(std::to_string(degenerate) + " degenerate triangles (a repeated vertex) dropped");
  if (skipped > 0)
    c.warnings.push_back(std::to_string(skipped) + " point or line primitives of skinned meshes ignored (no surface)");
}

// Negative scale keys on a node that moves joints mirror them over time: refused like a
// negative rest scale.
void check_scale_keys(const Reader& r, const std::string& who, const GltfChannel& ch) {
  const bool cubic = ch.interpolation == GltfInterpolation::CubicSpline;
  for (Index k = 0; k < ch.times.size(); ++k) {
    const Eigen::RowVectorXd v = ch.values.row(cubic ? 3 * k + 1 : k);
    if (v.minCoeff() < 0)
      r.fail(who + ": scale key " + std::to_string(k) + " of " + r.node_name(ch.node) + " is negative (" + num(v[0]) +
             ", " + num(v[1]) + ", " + num(v[2]) + "): mirrored joints are not supported");
  }
}

void read_clips(const Reader& r, GltfCharacter& c) {
  const auto& m = r.m;
  Index ignored = 0;
  for (std::size_t a = 0; a < m.animations.size(); ++a) {
    const tinygltf::Animation& src = m.animations[a];
    GltfClip clip;
    clip.name = src.name.empty() ? "animation " + std::to_string(a) : src.name;
    for (std::size_t k = 0; k < src.channels.size(); ++k) {
      const tinygltf::AnimationChannel& ch = src.channels[k];
      const std::string who = "animation '" + clip.name + "' channel " + std::to_string(k);
      GltfChannel out;
      if (ch.target_path == "translation")
        out.path = GltfPath::Translation;
      else if (ch.target_path == "rotation")
        out.path = GltfPath::Rotation;
      else if (ch.target_path == "scale")
        out.path = GltfPath::Scale;
      else {
        ++ignored;  // morph weights (or an extension's path): they do not move the skeleton
        continue;
      }
      if (ch.target_node < 0 || static_cast<std::size_t>(ch.target_node) >= m.nodes.size())
        r.fail(who + ": target node " + std::to_string(ch.target_node) + " does not exist");
      if (c.nodes[static_cast<std::size_t>(ch.target_node)].has_matrix)
        r.fail(who + ": targets " + r.node_name(ch.target_node) + ", whose transform is a matrix (not animatable)");
      out.node = ch.target_node;
      if (ch.sampler < 0 || static_cast<std::size_t>(ch.sampler) >= src.samplers.size())
        r.fail(who + ": sampler " + std::to_string(ch.sampler) + " does not exist");
      const tinygltf::AnimationSampler& s = src.samplers[static_cast<std::size_t>(ch.sampler)];
      if (s.interpolation == "STEP")
        out.interpolation = GltfInterpolation::Step;
      else if (s.interpolation == "LINEAR" || s.interpolation.empty())
        out.interpolation = GltfInterpolation::Linear;
      else if (s.interpolation == "CUBICSPLINE")
        out.interpolation = GltfInterpolation::CubicSpline;
      else
        r.fail(who + ": unknown interpolation '" + s.interpolation + "'");
      out.times = r.accessor(s.input, who + " input", {TINYGLTF_TYPE_SCALAR}, kFloat).col(0);
      const Index keys = out.times.size();
      if (keys == 0) r.fail(who + ": no keyframes");
      for (Index i = 0; i < keys; ++i) {
        if (out.times[i] < 0) r.fail(who + ": key time " + num(out.times[i]) + " is negative");
        if (i > 0 && !(out.times[i] > out.times[i - 1]))
          r.fail(who + ": key times are not strictly increasing at key " + std::to_string(i) + " (" +
                 num(out.times[i - 1]) + ", " + num(out.times[i]) + ")");
      }
      const bool rot = out.path == GltfPath::Rotation;
      out.values = r.accessor(s.output, who + " output", {rot ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3},
                              rot ? kAnyComponent : kFloat);
      const bool cubic = out.interpolation == GltfInterpolation::CubicSpline;
      if (cubic && keys < 2) r.fail(who + ": CUBICSPLINE needs at least 2 keys, has 1");
      if (out.values.rows() != (cubic ? 3 : 1) * keys)
        r.fail(who + ": " + std::to_string(out.values.rows()) + " output values for " + std::to_string(keys) + " keys" +
               (cubic ? " (CUBICSPLINE needs 3 per key)" : ""));
      if (out.path == GltfPath::Scale) check_scale_keys(r, who, out);
      clip.duration = std::max(clip.duration, out.times[keys - 1]);
      clip.channels.push_back(std::move(out));
    }
    c.clips.push_back(std::move(clip));
  }
  if (ignored > 0)
    c.warnings.push_back(std::to_string(ignored) +
                         " animation channels of morph weights ignored (they do not move joints)");
}

}  // namespace

Eigen::Matrix4d GltfNode::local() const {
  if (has_matrix) return matrix;
  Eigen::Matrix4d M = Eigen::Matrix4d::Identity();
  M.topLeftCorner<3, 3>() = rotation.toRotationMatrix() * scale.asDiagonal();
  M.topRightCorner<3, 1>() = translation;
  return M;
}

GltfCharacter read_gltf(const std::string& path) {
  std::vector<std::string> reference_warnings;
  const tinygltf::Model model = load_model(path, nullptr, nullptr, &reference_warnings);
  const Reader r{model, path};
  for (const std::string& ext : model.extensionsRequired)
    if (ext == "KHR_draco_mesh_compression" || ext == "EXT_meshopt_compression")
      r.fail("requires the extension " + ext + ", which fastcd cannot decode (export without mesh compression)");
  GltfCharacter c;
  c.path = path;
  read_nodes(r, c);
  read_skins(r, c);
  read_meshes(r, c);
  read_clips(r, c);
  c.warnings.insert(c.warnings.begin(), reference_warnings.begin(), reference_warnings.end());
  return c;
}

namespace detail {

GltfFileContents read_gltf_contents(const std::string& path) {
  GltfFileContents out;
  const tinygltf::Model model = load_model(path, &out.json, &out.images, &out.warnings);
  out.buffers.reserve(model.buffers.size());
  for (const tinygltf::Buffer& b : model.buffers)
    out.buffers.emplace_back(reinterpret_cast<const char*>(b.data.data()), b.data.size());
  out.images.resize(model.images.size());
  return out;
}

}  // namespace detail

int gltf_clip_index(const GltfCharacter& c, const std::string& name) {
  std::string names;
  for (std::size_t i = 0; i < c.clips.size(); ++i) {
    if (c.clips[i].name == name) return static_cast<int>(i);
    names += (i ? ", " : "") + std::to_string(i) + " '" + c.clips[i].name + "'";
  }
  long long i = -1;
  if (detail::parse_int(name, i) && i >= 0 && static_cast<std::size_t>(i) < c.clips.size()) return static_cast<int>(i);
  if (c.clips.empty())
    throw std::invalid_argument("'" + c.path + "' has no animation: fastcd simulates the motion of an animated rig");
  throw std::invalid_argument("'" + c.path + "' has no clip '" + name + "' (clips: " + names + ")");
}

Eigen::VectorXd gltf_sample(const GltfChannel& ch, double t) {
  const Index n = ch.times.size();
  if (n == 0) throw std::invalid_argument("gltf_sample: a channel without keys");
  const bool cubic = ch.interpolation == GltfInterpolation::CubicSpline;
  const bool rot = ch.path == GltfPath::Rotation;
  auto value = [&](Index k) -> Eigen::VectorXd { return ch.values.row(cubic ? 3 * k + 1 : k).transpose(); };
  auto unit = [&](Eigen::VectorXd v) {
    if (rot) {
      const double len = v.norm();
      if (len > 0) v /= len;
    }
    return v;
  };
  if (!(t > ch.times[0])) return unit(value(0));
  if (!(t < ch.times[n - 1])) return unit(value(n - 1));
  const Index k = static_cast<Index>(std::upper_bound(ch.times.data(), ch.times.data() + n, t) - ch.times.data()) - 1;
  if (t == ch.times[k]) return unit(value(k));
  const double td = ch.times[k + 1] - ch.times[k], s = (t - ch.times[k]) / td;
  const Eigen::VectorXd a = value(k), b = value(k + 1);
  switch (ch.interpolation) {
    case GltfInterpolation::Step:
      return unit(a);
    case GltfInterpolation::Linear: {
      if (!rot) return (1 - s) * a + s * b;
      const Eigen::VectorXd qa = a.normalized(), qb = b.normalized();
      const double d = qa.dot(qb), sign = d < 0 ? -1.0 : 1.0;
      const double angle = std::acos(std::min(std::abs(d), 1.0));
      if (angle < 1e-9) return unit((1 - s) * qa + sign * s * qb);
      const double sa = std::sin(angle);
      return unit(std::sin(angle * (1 - s)) / sa * qa + sign * std::sin(angle * s) / sa * qb);
    }
    case GltfInterpolation::CubicSpline: {
      const Eigen::VectorXd out_k = ch.values.row(3 * k + 2).transpose(),
                            in_k1 = ch.values.row(3 * (k + 1)).transpose();
      const double s2 = s * s, s3 = s2 * s;
      return unit((2 * s3 - 3 * s2 + 1) * a + td * (s3 - 2 * s2 + s) * out_k + (-2 * s3 + 3 * s2) * b +
                  td * (s3 - s2) * in_k1);
    }
  }
  return unit(a);
}

std::vector<Eigen::Matrix4d> gltf_node_globals(const GltfCharacter& c, int clip, double t) {
  if (clip < -1 || clip >= static_cast<int>(c.clips.size()))
    throw std::invalid_argument("gltf_node_globals: clip " + std::to_string(clip) + " does not exist (" +
                                std::to_string(c.clips.size()) + " clips)");
  std::vector<GltfNode> pose = c.nodes;
  if (clip >= 0)
    for (const GltfChannel& ch : c.clips[static_cast<std::size_t>(clip)].channels) {
      GltfNode& n = pose[static_cast<std::size_t>(ch.node)];
      const Eigen::VectorXd v = gltf_sample(ch, t);
      if (ch.path == GltfPath::Translation)
        n.translation = v;
      else if (ch.path == GltfPath::Scale)
        n.scale = v;
      else
        n.rotation = Eigen::Quaterniond(v[3], v[0], v[1], v[2]);
    }
  const std::size_t n = pose.size();
  std::vector<Eigen::Matrix4d> global(n);
  std::vector<char> done(n, 0);
  std::vector<std::size_t> chain;
  for (std::size_t i = 0; i < n; ++i) {
    // Walk up to the first finished ancestor (read_gltf refused cycles), then down again.
    chain.clear();
    for (int p = static_cast<int>(i); p >= 0 && !done[static_cast<std::size_t>(p)];
         p = pose[static_cast<std::size_t>(p)].parent)
      chain.push_back(static_cast<std::size_t>(p));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int parent = pose[*it].parent;
      global[*it] = parent >= 0 ? Eigen::Matrix4d(global[static_cast<std::size_t>(parent)] * pose[*it].local())
                                : pose[*it].local();
      done[*it] = 1;
    }
  }
  return global;
}

VectorXd gltf_pose(const GltfCharacter& c, int mesh, int clip, double t) {
  if (mesh < 0 || mesh >= static_cast<int>(c.meshes.size()))
    throw std::invalid_argument("gltf_pose: mesh " + std::to_string(mesh) + " does not exist (" +
                                std::to_string(c.meshes.size()) + " skinned meshes)");
  const GltfSkin& skin = c.skins[static_cast<std::size_t>(c.meshes[static_cast<std::size_t>(mesh)].skin)];
  const std::vector<Eigen::Matrix4d> G = gltf_node_globals(c, clip, t);
  VectorXd p(12 * static_cast<Index>(skin.joints.size()));
  for (std::size_t j = 0; j < skin.joints.size(); ++j) {
    const Eigen::Matrix4d Jm = G[static_cast<std::size_t>(skin.joints[j])] * skin.inverse_bind[j];
    for (int col = 0; col < 4; ++col)
      for (int row = 0; row < 3; ++row) p(12 * static_cast<Index>(j) + 3 * col + row) = Jm(row, col);
  }
  return p;
}

namespace {

// T R of an affine matrix, its scale dropped (Blender's Matrix.decompose, then location and
// rotation only): columns normalised, the nearest unit quaternion.
Eigen::Matrix4d location_rotation(const Eigen::Matrix4d& M) {
  Eigen::Matrix3d L = M.topLeftCorner<3, 3>();
  for (int k = 0; k < 3; ++k) {
    const double n = L.col(k).norm();
    if (n > 0) L.col(k) /= n;
  }
  Eigen::Matrix4d out = Eigen::Matrix4d::Identity();
  out.topLeftCorner<3, 3>() = Eigen::Quaterniond(L).normalized().toRotationMatrix();
  out.topRightCorner<3, 1>() = M.topRightCorner<3, 1>();
  return out;
}

}  // namespace

std::vector<Eigen::Matrix<double, 3, 4>> gltf_blender_joint_binds(const GltfCharacter& c, int skin) {
  if (skin < 0 || static_cast<std::size_t>(skin) >= c.skins.size())
    throw std::invalid_argument("gltf_blender_joint_binds: skin " + std::to_string(skin) + " does not exist (" +
                                std::to_string(c.skins.size()) + " skins)");
  const auto parent = [&](int n) { return c.nodes[static_cast<std::size_t>(n)].parent; };
  const auto path = [&](int node) {  // root .. node
    std::vector<int> p;
    for (int n = node; n >= 0; n = parent(n)) p.push_back(n);
    std::reverse(p.begin(), p.end());
    return p;
  };
  // mark_bones_and_armas: every skin's joints, and the nodes between them and the deepest
  // common ancestor of the joints (and skeleton root) that is not a joint, are bones.
  std::vector<char> bone(c.nodes.size(), 0);
  for (const GltfSkin& s : c.skins) {
    std::vector<int> nodes = s.joints;
    if (s.skeleton >= 0) nodes.push_back(s.skeleton);
    std::vector<int> common = path(nodes.front());
    for (int n : nodes) {
      const std::vector<int> p = path(n);
      std::size_t k = 0;
      while (k < common.size() && k < p.size() && common[k] == p[k]) ++k;
      common.resize(k);
    }
    int arma = common.empty() ? -1 : common.back();
    if (arma >= 0 && std::find(s.joints.begin(), s.joints.end(), arma) != s.joints.end()) arma = parent(arma);
    for (int j : s.joints)
      for (int n = j; n >= 0 && n != arma; n = parent(n)) bone[static_cast<std::size_t>(n)] = 1;
  }
  // pick_bind_pose: the bind pose guessed from the inverse bind matrices where a bone and its
  // parent have one (the scene root and each skin's skeleton root count as the identity), else
  // the node's rest transform; scale dropped either way.
  std::map<int, Eigen::Matrix4d> inv_binds{{-1, Eigen::Matrix4d::Identity()}};
  for (const GltfSkin& s : c.skins) {
    int skel = s.skeleton;
    if (skel >= 0) {
      if (std::find(s.joints.begin(), s.joints.end(), skel) != s.joints.end()) skel = parent(skel);
      inv_binds.emplace(skel, Eigen::Matrix4d::Identity());
    }
    for (std::size_t j = 0; j < s.joints.size(); ++j) inv_binds[s.joints[j]] = s.inverse_bind[j];
  }
  // calc_bone_matrices: a bone's bind pose in its armature's frame, down the chain of bones.
  std::map<int, Eigen::Matrix4d> arma_mat;
  std::function<Eigen::Matrix4d(int)> bind_arma = [&](int b) -> Eigen::Matrix4d {
    if (const auto it = arma_mat.find(b); it != arma_mat.end()) return it->second;
    const int p = parent(b);
    const auto ib = inv_binds.find(b), ip = inv_binds.find(p);
    const Eigen::Matrix4d local = ib != inv_binds.end() && ip != inv_binds.end()
                                      ? location_rotation(ip->second * ib->second.inverse())
                                      : location_rotation(c.nodes[static_cast<std::size_t>(b)].local());
    const Eigen::Matrix4d m =
        (p >= 0 && bone[static_cast<std::size_t>(p)] ? bind_arma(p) : Eigen::Matrix4d::Identity()) * local;
    arma_mat[b] = m;
    return m;
  };
  // skin_into_bind_pose: each joint's matrix is its bind pose times its inverse bind matrix.
  const GltfSkin& s = c.skins[static_cast<std::size_t>(skin)];
  std::vector<Eigen::Matrix<double, 3, 4>> out(s.joints.size());
  for (std::size_t j = 0; j < s.joints.size(); ++j) out[j] = (bind_arma(s.joints[j]) * s.inverse_bind[j]).topRows<3>();
  return out;
}

std::vector<VectorXd> gltf_sample_clip(const GltfCharacter& c, int mesh, int clip, double dt) {
  if (!(dt > 0) || !std::isfinite(dt))
    throw std::invalid_argument("gltf_sample_clip: dt must be positive and finite, got " + num(dt));
  if (mesh < 0 || mesh >= static_cast<int>(c.meshes.size()))
    throw std::invalid_argument("gltf_sample_clip: mesh " + std::to_string(mesh) + " does not exist (" +
                                std::to_string(c.meshes.size()) + " skinned meshes)");
  if (clip < 0 || clip >= static_cast<int>(c.clips.size()))
    throw std::invalid_argument("gltf_sample_clip: clip " + std::to_string(clip) + " does not exist (" +
                                std::to_string(c.clips.size()) + " clips)");
  const GltfClip& cl = c.clips[static_cast<std::size_t>(clip)];
  const double steps = std::floor(cl.duration / dt + 1e-9);
  if (steps > 1e7)
    throw std::invalid_argument("gltf_sample_clip: clip '" + cl.name + "' (" + num(cl.duration) + " s) at dt " +
                                num(dt) + " is more than 10^7 frames");
  std::vector<VectorXd> poses;
  const GltfSkin& skin = c.skins[static_cast<std::size_t>(c.meshes[static_cast<std::size_t>(mesh)].skin)];
  for (Index k = 0; k <= static_cast<Index>(steps); ++k) {
    const double t = static_cast<double>(k) * dt;
    poses.push_back(gltf_pose(c, mesh, clip, t));
    const VectorXd& p = poses.back();
    for (std::size_t j = 0; j < skin.joints.size(); ++j) {
      const Eigen::Map<const Eigen::Matrix<double, 3, 4>> A(p.data() + 12 * static_cast<Index>(j));
      const double det = A.leftCols<3>().determinant();
      if (!(det > 0) || !A.allFinite())
        throw std::runtime_error("gltf_sample_clip: '" + c.path + "': clip '" + cl.name + "' at t = " + num(t) +
                                 " s: joint " + std::to_string(j) + " (" +
                                 c.nodes[static_cast<std::size_t>(skin.joints[j])].name + ") " +
                                 (det < 0 ? "is mirrored" : "collapses") + " (determinant " + num(det) + ")");
    }
  }
  return poses;
}

}  // namespace fastcd
