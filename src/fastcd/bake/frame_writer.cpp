#include "fastcd/bake/frame_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/input_reference.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/obj_document.hpp"
#include "fastcd/io/parse_util.hpp"
#include "fastcd/io/pc2_io.hpp"

namespace fastcd {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWho = "fastcd bake";  // names the bake in file errors

// Signed measure of every simplex (triangle area in 2D, tet volume in 3D) into m (#T, resized).
void signed_measures(const MatrixXd& X, const MatrixXi& T, VectorXd& m) {
  m.resize(T.rows());
  detail::dispatch_dim(X.cols(), "signed_measures", [&]<int dim>() {
    for (Index e = 0; e < T.rows(); ++e) m(e) = detail::signed_measure<dim>(X, T, e);
  });
}

// Elements whose orientation flipped from the rest shape (or collapsed to nothing).
Index count_inverted(const VectorXd& rest, const VectorXd& now) {
  Index k = 0;
  for (Index e = 0; e < rest.size(); ++e)
    if (rest(e) * now(e) <= 0.0) ++k;
  return k;
}

}  // namespace

// The baked OBJ of a scene whose output surface came from an OBJ: every frame is that file
// with new positions (and, in 3D, normals turned by each render vertex's tet: n' = F^-T n), so
// UVs, normals, groups and materials survive; rest.obj is the file itself.
class ObjPassThrough {
 public:
  ObjPassThrough(const Scene& scene, Index rows) : scene_(scene), doc_(read_obj_document(scene.output_obj)) {
    resolve_references();
    if (static_cast<Index>(doc_.v_lines.size()) != rows) {
      mismatch_ = "the OBJ '" + scene.output_obj + "' has " + std::to_string(doc_.v_lines.size()) +
                  " vertex records, the baked surface " + std::to_string(rows) +
                  " (unused vertices?): the frames are written as plain OBJs without its UVs, normals and materials";
      return;
    }
    if (scene.dim == 3 && doc_.N.rows() > 0 && scene.render_element.size() == rows) {
      // The tets that carry a normal (through the render vertex it is paired with), and their
      // rest edge matrices inverted.
      normal_slot_ = VectorXi::Constant(doc_.N.rows(), -1);
      std::map<int, int> slot_of_tet;
      for (Index k = 0; k < doc_.N.rows(); ++k) {
        const int v = doc_.normal_vertex(k);
        if (v < 0) continue;
        const int t = scene.render_element(v);
        const auto [it, fresh] = slot_of_tet.emplace(t, static_cast<int>(tets_.size()));
        if (fresh) {
          tets_.push_back(t);
          rest_inv_.push_back(detail::edge_matrix<3>(scene.X, scene.T, t).inverse());
        }
        normal_slot_(k) = it->second;
      }
    }
  }

  /// Empty when the document fits the baked surface; otherwise why it cannot be kept.
  const std::string& mismatch() const { return mismatch_; }

  /// The document has normals that turn with the simulated tets (write reads Xs).
  bool turns_normals() const { return !tets_.empty(); }

  /// Writes frame positions V (file units) with simulated mesh positions Xs (normalised; read
  /// only when turns_normals()).
  void write(const std::string& path, const MatrixXd& V, const MatrixXd& Xs, const std::string& mtllib_prefix) const {
    if (tets_.empty()) {
      write_obj_document(path, doc_, V, MatrixXd(), mtllib_prefix);
      return;
    }
    std::vector<Eigen::Matrix3d> turn(tets_.size());  // F^-T of each tet, F = D(x) D(X)^-1
    for (std::size_t i = 0; i < tets_.size(); ++i)
      turn[i] = (detail::edge_matrix<3>(Xs, scene_.T, tets_[i]) * rest_inv_[i]).inverse().transpose();
    MatrixXd N = doc_.N;
    for (Index k = 0; k < N.rows(); ++k) {
      if (normal_slot_(k) < 0) continue;
      const Eigen::Vector3d n = turn[static_cast<std::size_t>(normal_slot_(k))] * N.row(k).transpose();
      if (n.allFinite() && n.norm() > 0) N.row(k) = n.normalized().transpose();
    }
    write_obj_document(path, doc_, V, N, mtllib_prefix);
  }

  /// One line per reference the input OBJ or its material libraries make that the bake leaves
  /// out (see resolve_references).
  const std::vector<std::string>& dropped() const { return dropped_; }

  /// Writes rest.obj (the input OBJ; without the material libraries that were left out), and
  /// the material libraries and texture maps that were kept, at the same relative places in
  /// `stage`; each copy with at most its source's permission bits.
  void copy_inputs(const fs::path& stage) const {
    std::string rest;
    if (dropped_.empty()) {
      rest = read_regular_file(scene_.output_obj, kWho);
    } else {
      for (const auto& line : doc_.lines) rest += line + '\n';
    }
    write_file_contents((stage / "rest.obj").string(), rest, kWho);
    fs::permissions(stage / "rest.obj",
                    fs::status(stage / "rest.obj").permissions() & fs::status(scene_.output_obj).permissions(),
                    fs::perm_options::replace);
    for (const Copy& c : copies_) {
      const fs::path dst = stage / c.relative;
      fs::create_directories(dst.parent_path());
      write_file_contents(dst.string(), c.bytes, kWho);
      fs::permissions(dst, fs::status(dst).permissions() & c.permissions, fs::perm_options::replace);
    }
  }

 private:
  /// A file the bake copies beside its output: its bytes (material libraries without the
  /// texture lines that were left out) and where it goes.
  struct Copy {
    fs::path relative;
    std::string bytes;
    fs::perms permissions;
  };

  // Every file the OBJ names (`mtllib`) and every texture map its material libraries name is
  // copied only when it follows fastcd's rule for references (input_reference.hpp: a regular
  // file inside the OBJ's folder, symbolic links resolved first) and its copy would not land on
  // a file the bake writes itself. Anything else is left out with a line in dropped(): a
  // material library also from the frames' `mtllib` lines (so no frame refers outside the bake),
  // a texture map also from the copied library.
  void resolve_references() {
    const fs::path dir = fs::path(scene_.output_obj).parent_path();
    const std::string obj_name = fs::path(scene_.output_obj).filename().string();
    std::set<std::string> kept_libs;
    for (const auto& lib : doc_.mtllibs) {
      const InputReference ref = admit(dir, lib);
      if (!ref.ok()) {
        dropped_.push_back("'" + obj_name + "': the material library '" + lib + "' " + ref.problem +
                           "; it is not copied and the baked frames do not name it");
        continue;
      }
      kept_libs.insert(lib);
      Copy copy{fs::path(lib).lexically_normal(), std::string(), fs::status(ref.path).permissions()};
      // A texture map's file name is the last token of its statement (options come before it),
      // relative to the library's own folder.
      const std::string bytes = read_regular_file(ref.path.string(), kWho);
      std::string_view raw;
      std::size_t start = 0;
      while (start < bytes.size()) {
        std::size_t end = bytes.find('\n', start);
        end = end == std::string::npos ? bytes.size() : end + 1;
        raw = std::string_view(bytes).substr(start, end - start);
        start = end;
        std::string_view content = raw.substr(0, std::min(raw.find('#'), raw.find_first_of("\r\n")));
        detail::Tokens tokens(content);
        std::string_view key, tok, last;
        tokens.next(key);
        const bool map = key.rfind("map_", 0) == 0 || key == "bump" || key == "disp" || key == "decal" || key == "refl";
        while (map && tokens.next(tok)) last = tok;
        if (map && !last.empty()) {
          const std::string tex = (copy.relative.parent_path() / std::string(last)).string();
          const InputReference t = admit(dir, tex);
          if (!t.ok()) {
            dropped_.push_back("'" + lib + "': the texture '" + std::string(last) + "' " + t.problem +
                               "; it is not copied and the copied library does not name it");
            continue;  // the statement is left out of the copy
          }
          if (planned_.insert(fs::path(tex).lexically_normal().string()).second) {
            copies_.push_back(Copy{fs::path(tex).lexically_normal(), read_regular_file(t.path.string(), kWho),
                                   fs::status(t.path).permissions()});
          }
        }
        copy.bytes.append(raw);
      }
      if (planned_.insert(copy.relative.string()).second) copies_.push_back(std::move(copy));
    }
    if (kept_libs.size() == doc_.mtllibs.size()) return;
    // The `mtllib` lines name only the libraries that are copied.
    for (std::string& line : doc_.lines) {
      detail::Tokens tokens(line);
      std::string_view tok;
      if (!tokens.next(tok) || tok != "mtllib") continue;
      std::string kept;
      while (tokens.next(tok))
        if (kept_libs.count(std::string(tok))) kept += " " + std::string(tok);
      line = kept.empty() ? std::string() : "mtllib" + kept;
    }
    doc_.mtllibs.assign(kept_libs.begin(), kept_libs.end());
  }

  // `reference` (relative to `dir`) resolved by the rule, and refused too (`problem` set) when
  // its copy at the same relative place would land outside the output or on the bake's own files.
  InputReference admit(const fs::path& dir, const std::string& reference) const {
    InputReference ref = resolve_input_reference(dir, reference);
    if (!ref.ok()) return ref;
    const fs::path rel = fs::path(reference).lexically_normal();
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
      ref.problem = "points outside the input's folder";
      return ref;
    }
    const std::string top = rel.begin()->string();
    if (top == "obj" || top == "rest.obj" || top == "run.json" || top == "preview.mp4" || top == "animation.pc2" ||
        top.rfind(".fastcd", 0) == 0 || top.rfind("rest_space.", 0) == 0 || rel.extension() == ".glb")
      ref.problem = "would be copied onto the bake's own '" + rel.string() + "'";
    return ref;
  }

  std::vector<std::string> dropped_;
  std::vector<Copy> copies_;
  std::set<std::string> planned_;  ///< relative places of copies_
  const Scene& scene_;
  ObjDocument doc_;
  std::string mismatch_;
  std::vector<int> tets_;                  ///< tets that turn a normal (3D), in first-use order
  std::vector<Eigen::Matrix3d> rest_inv_;  ///< D(X)^-1 of each of tets_
  VectorXi normal_slot_;                   ///< #vn: index into tets_, -1 for a normal no face uses
};

FrameWriter::FrameWriter(const Scene& scene, fs::path dir, std::vector<std::string>& warnings, std::string prefix,
                         bool keep_preview)
    : scene_(scene),
      dir_(std::move(dir)),
      warnings_(warnings),
      prefix_(std::move(prefix)),
      keep_preview_(keep_preview) {
  fs::create_directories(dir_ / "obj");
  surf_ = output_surface(scene);
  whole_mesh_ = scene.dim == 2 && !scene.output_obj.empty();
  if (!scene.output_obj.empty()) {
    obj_ = std::make_unique<ObjPassThrough>(scene, whole_mesh_ ? scene.X.rows() : surf_.E.rows());
    for (const auto& d : obj_->dropped()) warn(d);
    if (!obj_->mismatch().empty()) {
      warn(obj_->mismatch());
      obj_.reset();
    }
  }
  signed_measures(scene.X, scene.T, rest_measure_);
  if (scene.render_W.rows() > 0 && scene.render_W.rows() == surf_.E.rows())
    render_J_ = lbs_jacobian(scene.render_V, scene.render_W);
  extent_ = (scene.X.colwise().maxCoeff() - scene.X.colwise().minCoeff()).norm();
}

FrameWriter::~FrameWriter() = default;

void FrameWriter::warn(const std::string& w) { warnings_.push_back(prefix_ + w); }

MatrixXd FrameWriter::file_units(const MatrixXd& Xs) const {
  if (whole_mesh_ && obj_) return (Xs * scene_.half_extent).rowwise() + scene_.center.transpose();
  return to_file_units(scene_, surf_, Xs);
}

void FrameWriter::record(int f, const Simulation& sim, BackgroundWriter& writer) {
  // The simulated mesh's positions into the writer's own buffers (sized once): the frame's
  // rig, simulated and complementary positions.
  const Index n = sim.num_vertices(), dim = sim.dim();
  Xr_.resize(n, dim);
  Xc_.resize(n, dim);
  sim.rig_positions(Xr_);
  sim.positions(Xc_);
  Uc_.resize(n, dim);
  Uc_.noalias() = Xc_ - Xr_;
  const MatrixXd &Xr = Xr_, &Xc = Xc_;
  // The surface: embedded in the tets, or (glTF) its own skinning plus the embedded u_c.
  MatrixXd Sr, Sc, Su;  // rig, simulated and complementary positions of the surface
  if (scene_.layout == "gltf") Su = surf_.E * Uc_;
  if (render_J_.rows() > 0) {
    Sr = unflatten(render_J_ * sim.state().p, 3);
    Sc = Sr + Su;
  }
  max_uc_ = std::max(max_uc_, Uc_.rowwise().norm().maxCoeff());
  signed_measures(Xc, scene_.T, measure_);
  inverted.push_back(count_inverted(rest_measure_, measure_));
  signed_measures(Xr, scene_.T, measure_);
  rig_inverted = std::max(rig_inverted, count_inverted(rest_measure_, measure_));
  const MatrixXd V =
      render_J_.rows() > 0 ? MatrixXd((Sc * scene_.half_extent).rowwise() + scene_.center.transpose()) : file_units(Xc);
  char name[64];
  std::snprintf(name, sizeof name, "frame_%05d.obj", f + 1);
  // The OBJ is written on the writer's thread while the next frames simulate: it gets its own
  // copy of the simulated positions only when it turns the input's normals by them.
  MatrixXd Xs = obj_ && obj_->turns_normals() ? Xc : MatrixXd();
  writer.push([this, path = (dir_ / "obj" / name).string(), V, Xs = std::move(Xs)] {
    if (obj_)
      obj_->write(path, V, Xs, "../");
    else
      write_obj(path, V, surf_.F);
  });
  baked_.push_back(V);
  if (scene_.layout == "gltf") displacements_.push_back(Su * scene_.half_extent);
  if (!keep_preview_) return;
  if (render_J_.rows() > 0) {
    rig_frames.push_back(Sr);
    cd_frames.push_back(Sc);
  } else if (scene_.dim == 3) {  // previews show the baked surface
    rig_frames.push_back(surf_.E * Xr);
    cd_frames.push_back(surf_.E * Xc);
  } else {
    rig_frames.push_back(Xr);
    cd_frames.push_back(Xc);
  }
}

void FrameWriter::finish() {
  if (obj_)
    obj_->copy_inputs(dir_);
  else
    write_obj((dir_ / "rest.obj").string(), file_units(scene_.X), surf_.F);
  write_pc2((dir_ / "animation.pc2").string(), baked_, 1.0, 1.0);
  const auto frames = static_cast<Index>(inverted.size());
  frames_inverted = std::count_if(inverted.begin(), inverted.end(), [](Index k) { return k > 0; });
  most_inverted = frames ? *std::max_element(inverted.begin(), inverted.end()) : 0;
  if (frames_inverted > 0) {
    const auto first = std::find_if(inverted.begin(), inverted.end(), [](Index k) { return k > 0; });
    warn("inverted elements in " + std::to_string(frames_inverted) + " of " + std::to_string(frames) +
         " frames (up to " + std::to_string(most_inverted) + " of " + std::to_string(scene_.T.rows()) +
         ", first at frame " + std::to_string(first - inverted.begin() + 1) + "; the rig alone inverts " +
         (rig_inverted > 0 ? "up to " + std::to_string(rig_inverted) : std::string("none")) +
         "): a smaller dt, more iterations or a stiffer YM reduce those the dynamics add");
  }
  uc_rel = extent_ > 0 ? max_uc_ / extent_ : 0.0;
  // (Secondary motion too small to see, or a mesh held in place: Simulation::warnings.)
  if (uc_rel > 1.0)
    warn("the complementary motion reaches " + std::to_string(uc_rel) +
         " times the mesh size: the material is too soft for this motion, or dt too large");
}

GltfOutputs FrameWriter::write_gltf(const std::string& clip, const GltfBakeOptions& options) {
  GltfOutputs g = write_gltf_outputs(scene_, clip, displacements_, dir_.string(), options);
  const GltfBakeReport& r = g.report;
  if (r.encoding == "pca" && r.max_error_relative > options.pca_tolerance)
    warn("the PCA encoding reaches " + std::to_string(r.max_error_relative) + " of the size with " +
         std::to_string(r.targets) + " targets, above --pca-tolerance " + std::to_string(options.pca_tolerance) +
         ": use --glb-encoding frames for an exact bake");
  return g;
}

}  // namespace fastcd
