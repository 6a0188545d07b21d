#include "fastcd/io/gltf_write.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/io/atomic_file.hpp"

namespace fastcd {

namespace {

using nlohmann::json;

constexpr const char* kFn = "write_gltf_bake";
constexpr int kFloat = 5126;
constexpr int kArrayBuffer = 34962;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw std::invalid_argument(std::string(kFn) + ": '" + path + "': " + what);
}

// The output document: the input's JSON and one binary buffer that grows as data is added.
struct Document {
  json j;
  std::string bin;

  void align(std::size_t to) {
    while (bin.size() % to) bin.push_back('\0');
  }
  // A buffer view over `data`, 4-byte aligned.
  int view(const std::string& data, int stride = 0, int target = 0) {
    align(4);
    json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", data.size()}};
    if (stride > 0) v["byteStride"] = stride;
    if (target > 0) v["target"] = target;
    bin += data;
    if (!j.contains("bufferViews")) j["bufferViews"] = json::array();
    j["bufferViews"].push_back(std::move(v));
    return static_cast<int>(j["bufferViews"].size()) - 1;
  }
  int accessor(json a) {
    if (!j.contains("accessors")) j["accessors"] = json::array();
    j["accessors"].push_back(std::move(a));
    return static_cast<int>(j["accessors"].size()) - 1;
  }
  // A float accessor over `values` (rows = elements), with min and max of the stored floats.
  int floats(const std::vector<float>& values, int per, const std::string& type, bool bounds, int view_index = -1,
             std::size_t byte_offset = 0) {
    const std::size_t count = values.size() / static_cast<std::size_t>(per);
    if (view_index < 0) {
      std::string data(values.size() * sizeof(float), '\0');
      if (!values.empty()) std::memcpy(data.data(), values.data(), data.size());
      view_index = view(data);
    }
    json a = {{"bufferView", view_index}, {"componentType", kFloat}, {"type", type}, {"count", count}};
    if (byte_offset > 0) a["byteOffset"] = byte_offset;
    if (bounds) {
      std::vector<float> lo(static_cast<std::size_t>(per), std::numeric_limits<float>::infinity()),
          hi(static_cast<std::size_t>(per), -std::numeric_limits<float>::infinity());
      for (std::size_t e = 0; e < count; ++e)
        for (std::size_t c = 0; c < static_cast<std::size_t>(per); ++c) {
          lo[c] = std::min(lo[c], values[e * static_cast<std::size_t>(per) + c]);
          hi[c] = std::max(hi[c], values[e * static_cast<std::size_t>(per) + c]);
        }
      a["min"] = json::array();
      a["max"] = json::array();
      for (std::size_t c = 0; c < static_cast<std::size_t>(per); ++c) {
        a["min"].push_back(static_cast<double>(lo[c]));
        a["max"].push_back(static_cast<double>(hi[c]));
      }
    }
    return accessor(std::move(a));
  }
};

std::string mime_of(const std::string& uri, const std::string& given) {
  if (!given.empty()) return given;
  if (uri.rfind("data:", 0) == 0) {
    const std::size_t semi = uri.find(';'), comma = uri.find(',');
    const std::size_t end = std::min(semi, comma);
    if (end != std::string::npos && end > 5) return uri.substr(5, end - 5);
  }
  std::string ext = std::filesystem::path(uri).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == ".png") return "image/png";
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  if (ext == ".webp") return "image/webp";
  if (ext == ".ktx2") return "image/ktx2";
  return "application/octet-stream";
}

// Renumbers the texture references under `node` (a material, recursively: every object that
// is the value of a key ending in "Texture" and holds an "index" is a textureInfo); a reference
// to a removed texture (-1 in `texture_map`) is erased.
void renumber_texture_infos(json& node, const std::vector<long long>& texture_map) {
  if (!node.is_object()) {
    if (node.is_array())
      for (json& e : node) renumber_texture_infos(e, texture_map);
    return;
  }
  for (auto it = node.begin(); it != node.end();) {
    const std::string& key = it.key();
    json& v = it.value();
    const bool info = key.size() >= 7 && key.compare(key.size() - 7, 7, "Texture") == 0 && v.is_object() &&
                      v.contains("index") && v["index"].is_number_integer();
    if (info) {
      const auto t = v["index"].get<long long>();
      if (t < 0 || t >= static_cast<long long>(texture_map.size()) || texture_map[static_cast<std::size_t>(t)] < 0) {
        it = node.erase(it);
        continue;
      }
      v["index"] = texture_map[static_cast<std::size_t>(t)];
    }
    renumber_texture_infos(v, texture_map);
    ++it;
  }
}

// Removes the images the reader left out (a URI image whose bytes it did not read: outside
// the file's folder, missing, not a regular file), the textures that show only them, and every
// material's reference to those textures, renumbering the rest, so the baked .glb refers to no
// file beside it and to no image it does not hold. `images` (the reader's bytes per image) is
// renumbered alike.
void drop_unread_images(json& j, std::vector<std::string>& images) {
  if (!j.contains("images") || !j["images"].is_array()) return;
  json& ims = j["images"];
  std::vector<long long> image_map(ims.size(), -1);
  long long kept = 0;
  for (std::size_t i = 0; i < ims.size(); ++i) {
    const bool unread = ims[i].contains("uri") && (i >= images.size() || images[i].empty());
    if (!unread) image_map[i] = kept++;
  }
  if (kept == static_cast<long long>(ims.size())) return;
  json kept_images = json::array();
  std::vector<std::string> kept_bytes;
  for (std::size_t i = 0; i < ims.size(); ++i) {
    if (image_map[i] < 0) continue;
    kept_images.push_back(ims[i]);
    kept_bytes.push_back(i < images.size() ? std::move(images[i]) : std::string());
  }
  images = std::move(kept_bytes);
  auto source_of = [&](json& holder) -> long long {  // the new index, -1 if removed, -2 if none
    if (!holder.is_object() || !holder.contains("source") || !holder["source"].is_number_integer()) return -2;
    const auto k = holder["source"].get<long long>();
    return k >= 0 && k < static_cast<long long>(image_map.size()) ? image_map[static_cast<std::size_t>(k)] : -1;
  };
  std::vector<long long> texture_map;
  json kept_textures = json::array();
  if (j.contains("textures") && j["textures"].is_array())
    for (json& t : j["textures"]) {
      bool any_source = false;
      const long long own = source_of(t);
      if (own == -1) t.erase("source");
      if (own >= 0) t["source"] = own, any_source = true;
      if (t.contains("extensions") && t["extensions"].is_object())
        for (auto it = t["extensions"].begin(); it != t["extensions"].end();) {
          const long long k = source_of(it.value());
          if (k == -1) {
            it = t["extensions"].erase(it);
            continue;
          }
          if (k >= 0) it.value()["source"] = k, any_source = true;
          ++it;
        }
      texture_map.push_back(any_source ? static_cast<long long>(kept_textures.size()) : -1);
      if (any_source) kept_textures.push_back(t);
    }
  j["images"] = std::move(kept_images);
  if (j.contains("textures")) j["textures"] = std::move(kept_textures);
  if (j.contains("materials")) renumber_texture_infos(j["materials"], texture_map);
}

// The input's buffers merged into one (each starting 16-byte aligned, so every view keeps its
// alignment), and its URI images embedded as buffer views.
Document merged_document(const GltfCharacter& c) {
  const detail::GltfFileContents in = detail::read_gltf_contents(c.path);
  Document d;
  d.j = json::parse(in.json);
  std::vector<std::size_t> offset;
  for (const std::string& b : in.buffers) {
    d.align(16);
    offset.push_back(d.bin.size());
    d.bin += b;
  }
  if (d.j.contains("bufferViews"))
    for (json& v : d.j["bufferViews"]) {
      const auto b = v.value("buffer", 0);
      if (b < 0 || static_cast<std::size_t>(b) >= offset.size()) refuse(c.path, "a buffer view names no buffer");
      v["buffer"] = 0;
      v["byteOffset"] = v.value("byteOffset", std::size_t{0}) + offset[static_cast<std::size_t>(b)];
    }
  // Images the reader left out go first (their warnings were given when the file was read),
  // so every image left has bytes to embed.
  std::vector<std::string> images = in.images;
  drop_unread_images(d.j, images);
  if (d.j.contains("images"))
    for (std::size_t i = 0; i < d.j["images"].size(); ++i) {
      json& im = d.j["images"][i];
      if (!im.contains("uri") || i >= images.size() || images[i].empty()) continue;
      const std::string uri = im["uri"].get<std::string>();
      im["mimeType"] = mime_of(uri, im.value("mimeType", std::string()));
      im["bufferView"] = d.view(images[i]);
      im.erase("uri");
    }
  d.j["buffers"] = json::array({json::object()});
  return d;
}

// The GLB container: 12-byte header, JSON chunk (space-padded), BIN chunk (zero-padded).
std::string glb_bytes(const Document& d, const std::string& path) {
  std::string js = d.j.dump();
  while (js.size() % 4) js.push_back(' ');
  std::string bin = d.bin;
  while (bin.size() % 4) bin.push_back('\0');
  const std::uint64_t total = 12 + 8 + js.size() + (bin.empty() ? 0 : 8 + bin.size());
  if (total > std::numeric_limits<std::uint32_t>::max())
    refuse(path, "the baked file would be " + std::to_string(total >> 20) +
                     " MiB, over the 4 GiB a .glb can hold (use --glb-encoding pca, or fewer frames)");
  auto u32 = [](std::uint64_t x) {
    const auto v = static_cast<std::uint32_t>(x);
    std::string s(4, '\0');
    std::memcpy(s.data(), &v, 4);
    return s;
  };
  std::string out = "glTF" + u32(2) + u32(total) + u32(js.size()) + "JSON" + js;
  if (!bin.empty()) out += u32(bin.size()) + std::string("BIN\0", 4) + bin;
  return out;
}

// The deltas as K targets (each #V x 3) and F x K weights in [0, 1].
struct Encoding {
  std::vector<MatrixXd> targets;
  MatrixXd weights;
  double max_error = 0;
};

Encoding encode_frames(const std::vector<MatrixXd>& deltas) {
  Encoding e;
  e.targets = deltas;
  const auto F = static_cast<Index>(deltas.size());
  e.weights = MatrixXd::Identity(F, F);
  return e;
}

double max_vertex_error(const MatrixXd& R) {  // R: 3V x F, interleaved
  double worst = 0;
  for (Index f = 0; f < R.cols(); ++f)
    for (Index v = 0; v < R.rows() / 3; ++v) worst = std::max(worst, R.col(f).segment<3>(3 * v).norm());
  return worst;
}

Encoding encode_pca(const std::vector<MatrixXd>& deltas, double tolerance, int max_targets) {
  const auto F = static_cast<Index>(deltas.size());
  const Index V = deltas[0].rows();
  MatrixXd D(3 * V, F);
  for (Index f = 0; f < F; ++f)
    for (Index v = 0; v < V; ++v) D.col(f).segment<3>(3 * v) = deltas[static_cast<std::size_t>(f)].row(v).transpose();
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(D.transpose() * D);
  const VectorXd lambda = eig.eigenvalues().reverse();
  const MatrixXd Q = eig.eigenvectors().rowwise().reverse();
  MatrixXd R = D;
  Encoding e;
  double err = max_vertex_error(R);
  std::vector<VectorXd> basis, coef;
  const double top = std::max(lambda.size() > 0 ? lambda[0] : 0.0, 0.0);
  for (Index k = 0; k < F && err > tolerance && static_cast<int>(basis.size()) < max_targets; ++k) {
    if (!(lambda[k] > 1e-24 * top) || lambda[k] <= 0) break;
    const double sigma = std::sqrt(lambda[k]);
    VectorXd u = D * Q.col(k) / sigma;
    const VectorXd c = sigma * Q.col(k);
    R.noalias() -= u * c.transpose();
    basis.push_back(std::move(u));
    coef.push_back(c);
    err = max_vertex_error(R);
  }
  e.max_error = err;
  // [0, 1] weights: w' = (c - lo) / (hi - lo), target scaled by (hi - lo), and the offset
  // sum lo_k u_k as a constant target at weight 1.
  VectorXd offset = VectorXd::Zero(3 * V);
  std::vector<VectorXd> scaled;
  std::vector<VectorXd> wts;
  for (std::size_t k = 0; k < basis.size(); ++k) {
    const double lo = coef[k].minCoeff(), hi = coef[k].maxCoeff();
    offset += lo * basis[k];
    if (!(hi - lo > 0)) continue;  // constant: all of it in the offset
    scaled.push_back((hi - lo) * basis[k]);
    wts.push_back((coef[k].array() - lo) / (hi - lo));
  }
  auto unflat = [&](const VectorXd& x) {
    MatrixXd T(V, 3);
    for (Index v = 0; v < V; ++v) T.row(v) = x.segment<3>(3 * v).transpose();
    return T;
  };
  e.targets.push_back(unflat(offset));
  for (const VectorXd& s : scaled) e.targets.push_back(unflat(s));
  e.weights.resize(F, static_cast<Index>(e.targets.size()));
  e.weights.col(0).setOnes();
  for (std::size_t k = 0; k < wts.size(); ++k)
    e.weights.col(static_cast<Index>(k) + 1) = wts[k].cwiseMax(0).cwiseMin(1);
  return e;
}

}  // namespace

GltfBakeReport write_gltf_bake(const GltfCharacter& c, int clip, double dt,
                               const std::vector<std::vector<MatrixXd>>& deltas, const std::string& out_path,
                               const GltfBakeOptions& o) {
  FASTCD_CHECK(deltas.size() == c.meshes.size(), "deltas for ", deltas.size(), " skinned meshes, the character has ",
               c.meshes.size());
  FASTCD_CHECK(clip >= 0 && static_cast<std::size_t>(clip) < c.clips.size(), "clip ", clip, " of ", c.clips.size());
  FASTCD_CHECK(dt > 0 && std::isfinite(dt), "dt must be > 0, got ", dt);
  FASTCD_CHECK(o.encoding == "frames" || o.encoding == "pca", "encoding must be 'frames' or 'pca', got '", o.encoding,
               "'");
  FASTCD_CHECK(o.pca_tolerance >= 0 && std::isfinite(o.pca_tolerance), "pca_tolerance must be >= 0, got ",
               o.pca_tolerance);
  FASTCD_CHECK(o.pca_max_targets >= 1, "pca_max_targets must be >= 1, got ", o.pca_max_targets);
  Index F = 0;
  for (std::size_t mi = 0; mi < deltas.size(); ++mi) {
    if (deltas[mi].empty()) continue;
    FASTCD_CHECK(F == 0 || static_cast<Index>(deltas[mi].size()) == F, "skinned mesh ", mi, " has ", deltas[mi].size(),
                 " frames of deltas, an earlier one ", F);
    F = static_cast<Index>(deltas[mi].size());
    const GltfSkinnedMesh& m = c.meshes[mi];
    for (std::size_t f = 0; f < deltas[mi].size(); ++f) {
      FASTCD_CHECK(deltas[mi][f].rows() == m.V.rows() && deltas[mi][f].cols() == 3, "skinned mesh ", mi, ", frame ", f,
                   ": deltas ", shape_of(deltas[mi][f]), ", the mesh has ", m.V.rows(), " vertices");
      FASTCD_CHECK(deltas[mi][f].allFinite() && deltas[mi][f].cwiseAbs().maxCoeff() < 1e30, "skinned mesh ", mi,
                   ", frame ", f, ": non-finite or huge deltas");
    }
  }
  FASTCD_CHECK(F > 0, "no frames to bake");
  FASTCD_CHECK(static_cast<double>(F - 1) * dt < 1e7, "frame times beyond float32 precision");

  Document d = merged_document(c);
  json& J = d.j;
  const std::string& src = c.path;
  GltfBakeReport r;
  r.encoding = o.encoding;
  r.frames = static_cast<int>(F);
  r.mesh_targets.assign(c.meshes.size(), 0);
  // Per baked skinned mesh: its nodes and its weights per frame (F x K).
  std::vector<std::pair<std::vector<int>, MatrixXd>> weight_channels;

  for (std::size_t mesh = 0; mesh < c.meshes.size(); ++mesh) {
    if (deltas[mesh].empty()) continue;
    const GltfSkinnedMesh& m = c.meshes[mesh];
    // The glTF meshes and nodes of the skinned mesh, and the checks that the bake can extend them.
    std::vector<int> meshes, nodes;
    for (const GltfPrimitiveSpan& s : m.spans) {
      if (std::find(meshes.begin(), meshes.end(), s.mesh) == meshes.end()) meshes.push_back(s.mesh);
      if (std::find(nodes.begin(), nodes.end(), s.node) == nodes.end()) nodes.push_back(s.node);
    }
    for (int mi : meshes) {
      int users = 0;
      for (const json& n : J["nodes"])
        if (n.value("mesh", -1) == mi) ++users;
      const json& mj = J["meshes"][static_cast<std::size_t>(mi)];
      const std::string name =
          "mesh " + std::to_string(mi) + (mj.contains("name") ? " ('" + mj["name"].get<std::string>() + "')" : "");
      if (users > 1)
        refuse(src, name + " is used by " + std::to_string(users) +
                        " nodes; morph targets belong to the mesh, so each instance would get the same motion "
                        "(make the instances single-user meshes)");
      for (const json& p : mj["primitives"])
        if (p.contains("targets") && !p["targets"].empty())
          refuse(src, name + " already has morph targets; baking secondary motion next to them is not supported yet");
    }
    for (const GltfPrimitiveSpan& s : m.spans) {
      const json& p =
          J["meshes"][static_cast<std::size_t>(s.mesh)]["primitives"][static_cast<std::size_t>(s.primitive)];
      const int pa = p["attributes"]["POSITION"].get<int>();
      const Index count = J["accessors"][static_cast<std::size_t>(pa)]["count"].get<Index>();
      if (count != s.vertices)
        refuse(src, "mesh " + std::to_string(s.mesh) + " primitive " + std::to_string(s.primitive) + ": POSITION has " +
                        std::to_string(count) + " vertices, the skinned mesh " + std::to_string(s.vertices));
    }

    // Encoding.
    const Eigen::RowVector3d lo = m.V.colwise().minCoeff(), hi = m.V.colwise().maxCoeff();
    const double diag = std::max((hi - lo).norm(), std::numeric_limits<double>::min());
    Encoding e = o.encoding == "pca" ? encode_pca(deltas[mesh], o.pca_tolerance * diag, o.pca_max_targets)
                                     : encode_frames(deltas[mesh]);
    const auto K = static_cast<Index>(e.targets.size());
    std::vector<std::string> names;
    for (Index k = 0; k < K; ++k) {
      char b[48];
      if (o.encoding == "frames")
        std::snprintf(b, sizeof b, "fastcd_frame_%05ld", long(k + 1));
      else
        std::snprintf(b, sizeof b, k == 0 ? "fastcd_offset" : "fastcd_pca_%02ld", long(k));
      names.emplace_back(b);
    }

    // Targets on every primitive of each mesh (the spec wants the same count on all of them).
    for (int mi : meshes) {
      json& mj = J["meshes"][static_cast<std::size_t>(mi)];
      for (std::size_t pi = 0; pi < mj["primitives"].size(); ++pi) {
        json& p = mj["primitives"][pi];
        const int pa = p["attributes"]["POSITION"].get<int>();
        const Index count = J["accessors"][static_cast<std::size_t>(pa)]["count"].get<Index>();
        const auto span = std::find_if(m.spans.begin(), m.spans.end(), [&](const GltfPrimitiveSpan& s) {
          return s.mesh == mi && s.primitive == static_cast<int>(pi);
        });
        p["targets"] = json::array();
        if (span == m.spans.end()) {  // points or lines: zeros (an accessor without a buffer view)
          const int zero = d.accessor(
              {{"componentType", kFloat}, {"type", "VEC3"}, {"count", count}, {"min", {0, 0, 0}}, {"max", {0, 0, 0}}});
          for (Index k = 0; k < K; ++k) p["targets"].push_back({{"POSITION", zero}});
          continue;
        }
        const auto n = static_cast<std::size_t>(span->vertices);
        std::vector<std::vector<float>> data(static_cast<std::size_t>(K), std::vector<float>(3 * n));
        for (Index k = 0; k < K; ++k)
          for (std::size_t v = 0; v < n; ++v)
            for (int a = 0; a < 3; ++a)
              data[static_cast<std::size_t>(k)][3 * v + static_cast<std::size_t>(a)] = static_cast<float>(
                  e.targets[static_cast<std::size_t>(k)](span->first_vertex + static_cast<Index>(v), a));
        std::string bytes;
        bytes.reserve(static_cast<std::size_t>(K) * n * 12);
        for (const auto& t : data) bytes.append(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(float));
        const int view = d.view(bytes, 12, kArrayBuffer);
        for (Index k = 0; k < K; ++k)
          p["targets"].push_back({{"POSITION", d.floats(data[static_cast<std::size_t>(k)], 3, "VEC3", true, view,
                                                        static_cast<std::size_t>(k) * n * 12)}});
      }
      mj["weights"] = std::vector<double>(static_cast<std::size_t>(K), 0.0);
      if (!mj.contains("extras")) mj["extras"] = json::object();
      if (mj["extras"].is_object()) mj["extras"]["targetNames"] = names;
    }
    for (int ni : nodes) J["nodes"][static_cast<std::size_t>(ni)].erase("weights");
    r.mesh_targets[mesh] = static_cast<int>(K);
    r.targets += static_cast<int>(K);
    r.max_error = std::max(r.max_error, e.max_error);
    r.max_error_relative = std::max(r.max_error_relative, e.max_error / diag);
    weight_channels.emplace_back(std::move(nodes), std::move(e.weights));
  }

  // The clip, resampled: one LINEAR key per frame for each node channel; other channels (morph
  // weights of other meshes, extensions) keep their samplers.
  json& anim = J["animations"][static_cast<std::size_t>(clip)];
  std::vector<float> times(static_cast<std::size_t>(F));
  for (Index k = 0; k < F; ++k) times[static_cast<std::size_t>(k)] = static_cast<float>(static_cast<double>(k) * dt);
  for (Index k = 1; k < F; ++k)
    FASTCD_CHECK(times[static_cast<std::size_t>(k)] > times[static_cast<std::size_t>(k - 1)],
                 "frame times collapse in float32 at frame ", k);
  const int input = d.floats(times, 1, "SCALAR", true);
  const GltfClip& gc = c.clips[static_cast<std::size_t>(clip)];
  json samplers = json::array(), channels = json::array();
  std::size_t next = 0;  // gc.channels holds the node channels in file order
  for (const json& ch : anim["channels"]) {
    const std::string path = ch["target"].value("path", std::string());
    json out = ch;
    if (path == "translation" || path == "rotation" || path == "scale") {
      FASTCD_ENSURE(next < gc.channels.size() && gc.channels[next].node == ch["target"].value("node", -1),
                    "the clip's channels do not match the file's");
      const GltfChannel& g = gc.channels[next++];
      const int per = path == "rotation" ? 4 : 3;
      std::vector<float> values(static_cast<std::size_t>(F * per));
      Eigen::Vector4d prev = Eigen::Vector4d::Zero();
      for (Index k = 0; k < F; ++k) {
        VectorXd x = gltf_sample(g, static_cast<double>(k) * dt);
        if (per == 4) {
          x.normalize();
          if (k > 0 && x.dot(prev) < 0) x = -x;  // sign-continuous: players interpolate the short way
          prev = x;
        }
        for (int a = 0; a < per; ++a) values[static_cast<std::size_t>(k * per + a)] = static_cast<float>(x[a]);
      }
      const int output = d.floats(values, per, per == 4 ? "VEC4" : "VEC3", false);
      samplers.push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
    } else {
      samplers.push_back(anim["samplers"][ch["sampler"].get<std::size_t>()]);
    }
    out["sampler"] = samplers.size() - 1;
    channels.push_back(std::move(out));
  }
  for (const auto& [nodes, W] : weight_channels) {
    const Index K = W.cols();
    std::vector<float> w(static_cast<std::size_t>(F * K));
    for (Index k = 0; k < F; ++k)
      for (Index t = 0; t < K; ++t) w[static_cast<std::size_t>(k * K + t)] = static_cast<float>(W(k, t));
    const int weights = d.floats(w, 1, "SCALAR", false);
    for (int ni : nodes) {
      samplers.push_back({{"input", input}, {"output", weights}, {"interpolation", "LINEAR"}});
      channels.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", ni}, {"path", "weights"}}}});
    }
  }
  anim["samplers"] = std::move(samplers);
  anim["channels"] = std::move(channels);

  std::string generator = J["asset"].value("generator", std::string());
  J["asset"]["generator"] = "fastcd (secondary motion baked as morph targets)" +
                            (generator.empty() ? std::string() : "; source: " + generator);
  d.j["buffers"][0]["byteLength"] = d.bin.size();
  const std::string bytes = glb_bytes(d, out_path);
  write_file_contents(out_path, bytes, kFn);

  r.bytes = bytes.size();
  return r;
}

}  // namespace fastcd
