#include "fastcd/scene/gltf_scene.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "fastcd/cd/rig.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "fastcd/geometry/harmonic_weights.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/rest_space.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/meshing/shells.hpp"
#include "fastcd/meshing/surface.hpp"
#include "fastcd/meshing/voxel.hpp"

namespace fastcd {

namespace fs = std::filesystem;

namespace {

/// `source` names what is read: "load_gltf_scene: '<path>'", "Blender object 'Body'".
[[noreturn]] void fail_at(const std::string& source, const std::string& what) {
  throw std::runtime_error(source + ": " + what);
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  fail_at("load_gltf_scene: '" + path + "'", what);
}

std::string fmt(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool is_gltf_file(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".glb" || ext == ".gltf";
}

namespace {

// One skin's solid in file units (bind space): tets, weights on the skin's own joints, and the
// skin's render vertices placed in the tets.
struct Body {
  MatrixXd X;
  MatrixXi T, surface;
  MatrixXd W;
  VectorXd leak;           // painted leak field on the tet vertices (empty when none was given)
  std::vector<Triplet> E;  // render vertex -> tet vertex (both numbered within the body)
  VectorXi element;        // the tet each render vertex is in
  double max_distance = 0;
};

// The skinned mesh's nodes by name: "'fox' + 'eye'" (a few, then how many more).
std::string mesh_label(const GltfCharacter& c, const GltfSkinnedMesh& m) {
  std::vector<int> nodes;
  for (const GltfPrimitiveSpan& s : m.spans)
    if (std::find(nodes.begin(), nodes.end(), s.node) == nodes.end()) nodes.push_back(s.node);
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < 4; ++i) {
    const std::string& n = c.nodes[static_cast<std::size_t>(nodes[i])].name;
    out += (i ? " + '" : "'") + (n.empty() ? "node " + std::to_string(nodes[i]) : n) + "'";
  }
  if (nodes.size() > 4) out += " + " + std::to_string(nodes.size() - 4) + " more mesh nodes";
  return out.empty() ? "'" + m.name + "'" : out;
}

Body skin_body(const std::string& path /* the source */, const SkinnedSurface& m, const GltfSceneOptions& o,
               const std::string& who, Scene& s) {
  Body b;
  detail::throw_if_cancelled("load_gltf_scene");
  const WeldedSurface w = weld_surface(m.V, m.F);
  if (o.tets.mesher == "voxel") {
    VoxelMesh vm;
    try {
      vm = voxel_mesh(w.V, w.F, o.voxel);
    } catch (const std::exception& e) {
      fail_at(path, who + "voxelising the skin: " + e.what());
    }
    s.notes.push_back(who + "welded " + std::to_string(m.V.rows()) + " -> " + std::to_string(w.V.rows()) +
                      " vertices; voxels: " + std::to_string(vm.cells) + " cells of " + fmt(vm.cell_size) + " (" +
                      std::to_string(vm.inside_cells) + " inside by winding number, " +
                      std::to_string(vm.dropped_cells) + " dropped: no skin), " + std::to_string(vm.X.rows()) +
                      " vertices, " + std::to_string(vm.T.rows()) + " tets, " + fmt(vm.seconds, "%.2f") + " s");
    const auto t_w = std::chrono::steady_clock::now();
    const Embedding emb = embed_points(vm.X, vm.T, m.V);
    detail::throw_if_cancelled("load_gltf_scene");
    HarmonicExtension h;
    try {
      h = harmonic_fit(vm.X, vm.T, emb.E, m.W);
    } catch (const std::exception& e) {
      fail_at(path, who + "fitting the skin weights to the voxels: " + e.what());
    }
    s.notes.push_back(who + "weights: fitted to the " + std::to_string(m.V.rows()) + " skin vertices (largest error " +
                      fmt(h.fit_error) + "; " + std::to_string(h.clamped) + " negatives clamped, most " +
                      fmt(h.most_negative) + "), " + fmt(seconds_since(t_w), "%.2f") + " s");
    if (h.fit_error > 0.1)
      s.warnings.push_back(who + "the voxel grid (" + std::to_string(o.voxel.resolution) +
                           " cells along the longest side) is too coarse for the skin weights: they differ by up to " +
                           fmt(h.fit_error) +
                           "; raise --voxel-resolution for a body that follows the rig more closely");
    if (m.leak.size() > 0) {
      MatrixXd L(m.V.rows(), 2);
      L << m.leak, 1.0 - m.leak.array();
      b.leak = harmonic_fit(vm.X, vm.T, emb.E, L).W.col(0);
    }
    b.X = std::move(vm.X);
    b.T = std::move(vm.T);
    b.surface = boundary_facets(b.T).F;
    b.W = std::move(h.W);
    for (Index r = 0; r < emb.E.outerSize(); ++r)
      for (SparseMatrix::InnerIterator it(emb.E, r); it; ++it) b.E.emplace_back(it.row(), it.col(), it.value());
    b.element = emb.element;
    b.max_distance = emb.distance.size() > 0 ? emb.distance.maxCoeff() : 0.0;
    return b;
  }

  ShellTetMesh tm;
  try {
    tm = tetrahedralize_shells(w.V, w.F, o.tets, o.cache_dir);
  } catch (const std::invalid_argument& e) {
    fail_at(path, who + "the skin of " + m.label + " does not bound a solid (after welding " +
                      std::to_string(m.V.rows()) + " vertices to " + std::to_string(w.V.rows()) +
                      "; welded indices): " + e.what() +
                      ". Close it in the modelling tool, or use --mesher voxel (a grid embedding the skin)");
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    fail_at(path, who + "tetrahedralising the skin: " + e.what());
  }
  for (const std::string& note : tm.tets.warnings)  // the tet cache's, once each
    if (std::find(s.warnings.begin(), s.warnings.end(), note) == s.warnings.end()) s.warnings.push_back(note);
  if (tm.reversed > 0)
    s.warnings.push_back(who + std::to_string(tm.reversed) + " of the skin's " + std::to_string(tm.shells) +
                         " shells wind inward; reversed for meshing (the output keeps the file's)");
  s.notes.push_back(who + "welded " + std::to_string(m.V.rows()) + " -> " + std::to_string(w.V.rows()) + " vertices; " +
                    std::string(tm.tets.mesher == "tetgen" ? "TetGen" : "Netgen") + ": " +
                    (tm.shells > 1 ? std::to_string(tm.shells) + " shells, each filled on its own, " : std::string()) +
                    std::to_string(tm.tets.X.rows()) + " vertices, " + std::to_string(tm.tets.T.rows()) +
                    " tets, min dihedral " + fmt(tm.tets.min_dihedral, "%.2f") + " deg (" +
                    std::to_string(tm.tets.slivers) + " under 5), " +
                    (tm.cached == tm.shells
                         ? "from the cache " + o.cache_dir
                         : fmt(tm.tets.seconds, "%.2f") + " s" +
                               (tm.cached > 0 ? " (" + std::to_string(tm.cached) + " shells cached)" : std::string())));

  // Weights: the skin's on the surface (each welded vertex takes its first render vertex's),
  // harmonic inside.
  const auto t_w = std::chrono::steady_clock::now();
  VectorXi first = VectorXi::Constant(w.V.rows(), -1);
  double seam_gap = 0;
  for (Index r = 0; r < m.V.rows(); ++r) {
    const int k = w.map[r];
    if (first[k] < 0)
      first[k] = static_cast<int>(r);
    else
      seam_gap = std::max(seam_gap, (m.W.row(r) - m.W.row(first[k])).cwiseAbs().maxCoeff());
  }
  MatrixXd Wb(w.V.rows(), m.W.cols());
  for (Index k = 0; k < w.V.rows(); ++k) Wb.row(k) = m.W.row(first[k]);
  const VectorXi known = VectorXi::LinSpaced(w.V.rows(), 0, static_cast<int>(w.V.rows()) - 1);
  detail::throw_if_cancelled("load_gltf_scene");
  HarmonicExtension h = harmonic_extension(tm.tets.X, tm.tets.T, known, Wb);
  if (seam_gap > 1e-6)
    s.warnings.push_back(who + "seam duplicates carry different skin weights (largest difference " + fmt(seam_gap) +
                         "); the simulation uses the first's at each welded vertex");
  s.notes.push_back(who + "weights: " + std::to_string(w.V.rows()) + " from the skin, " +
                    std::to_string(tm.tets.X.rows() - w.V.rows()) + " harmonic inside (" + std::to_string(h.clamped) +
                    " negatives clamped, most " + fmt(h.most_negative) + "), " + fmt(seconds_since(t_w), "%.2f") +
                    " s");
  if (m.leak.size() > 0) {
    // The painted field as a two-column partition of unity [D, 1 - D]: the extension keeps it in [0, 1].
    MatrixXd L(w.V.rows(), 2);
    for (Index k = 0; k < w.V.rows(); ++k) L.row(k) << m.leak[first[k]], 1.0 - m.leak[first[k]];
    b.leak = harmonic_extension(tm.tets.X, tm.tets.T, known, L).W.col(0);
  }
  b.X = std::move(tm.tets.X);
  b.T = std::move(tm.tets.T);
  b.surface = std::move(tm.F);
  b.W = std::move(h.W);
  // Every render vertex on its welded tet vertex (seams move together).
  VectorXi incident = VectorXi::Constant(b.X.rows(), -1);
  for (Index t = 0; t < b.T.rows(); ++t)
    for (int k = 0; k < 4; ++k)
      if (incident[b.T(t, k)] < 0) incident[b.T(t, k)] = static_cast<int>(t);
  b.element.resize(m.V.rows());
  for (Index r = 0; r < m.V.rows(); ++r) {
    b.E.emplace_back(r, w.map[r], 1.0);
    b.element[r] = incident[w.map[r]];
  }
  return b;
}

}  // namespace

Scene skinned_scene(const SkinnedCharacter& c, const GltfSceneOptions& o, const std::string& source) {
  const std::string& path = source;  // skin_body's name for it
  if (!(o.dt > 0) || !std::isfinite(o.dt)) fail_at(path, "dt must be > 0, got " + fmt(o.dt));
  if (!(o.metres_per_unit > 0) || !std::isfinite(o.metres_per_unit))
    fail_at(path, "the length unit (--scale, metres per file unit) must be > 0, got " + fmt(o.metres_per_unit));
  if (!(o.ym > 0) || !std::isfinite(o.ym)) fail_at(path, "YM must be > 0, got " + fmt(o.ym));
  if (!(o.pr > -1 && o.pr < 0.5)) fail_at(path, "pr must lie in (-1, 0.5), got " + fmt(o.pr));
  if (!(o.rho > 0) || !std::isfinite(o.rho)) fail_at(path, "rho must be > 0, got " + fmt(o.rho));
  const std::size_t K = c.skins.size();
  if (K == 0) fail_at(path, "no skinned surface");
  Index joints = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const SkinnedSurface& m = c.skins[k];
    if (m.V.cols() != 3 || m.F.cols() != 3 || m.V.rows() == 0 || m.F.rows() == 0)
      fail_at(path, m.label + ": expected vertices (n, 3) and triangles (m, 3), got (" + std::to_string(m.V.rows()) +
                        ", " + std::to_string(m.V.cols()) + ") and (" + std::to_string(m.F.rows()) + ", " +
                        std::to_string(m.F.cols()) + ")");
    if (!m.V.allFinite()) fail_at(path, m.label + ": vertex positions have NaN or Inf");
    if (m.F.minCoeff() < 0 || m.F.maxCoeff() >= m.V.rows())
      fail_at(path, m.label + ": a triangle names vertex " +
                        std::to_string(m.F.minCoeff() < 0 ? m.F.minCoeff() : m.F.maxCoeff()) + " of " +
                        std::to_string(m.V.rows()));
    if (m.W.rows() != m.V.rows() || m.W.cols() == 0)
      fail_at(path, m.label + ": skin weights are (" + std::to_string(m.W.rows()) + ", " + std::to_string(m.W.cols()) +
                        ") for " + std::to_string(m.V.rows()) + " vertices");
    for (Index v = 0; v < m.W.rows(); ++v) {
      const double sum = m.W.row(v).sum();
      if (!m.W.row(v).allFinite() || m.W.row(v).minCoeff() < 0 || std::abs(sum - 1) > 1e-6)
        fail_at(path, m.label + ": the skin weights of vertex " + std::to_string(v) +
                          " are not a partition of unity (non-negative, summing to 1; sum " + fmt(sum) +
                          "): every vertex needs weights on the joints that move it");
    }
    if (m.leak.size() > 0 &&
        (m.leak.size() != m.V.rows() || !m.leak.allFinite() || m.leak.minCoeff() < 0 || m.leak.maxCoeff() > 1))
      fail_at(path, m.label + ": the painted leak field has " + std::to_string(m.leak.size()) + " values for " +
                        std::to_string(m.V.rows()) + " vertices, or values outside [0, 1]");
    if ((m.leak.size() > 0) != (c.skins[0].leak.size() > 0))
      fail_at(path, m.label + ": a painted leak field must be given for every skin or for none");
    joints += m.W.cols();
  }
  if (c.poses.empty()) fail_at(path, "no animation frames");
  for (std::size_t f = 0; f < c.poses.size(); ++f)
    if (c.poses[f].size() != 12 * joints || !c.poses[f].allFinite())
      fail_at(path, "frame " + std::to_string(f) + "'s pose has " + std::to_string(c.poses[f].size()) +
                        " entries (or NaN), expected 12 per joint for " + std::to_string(joints) + " joints");
  if (c.joint_points.size() > 0 && (c.joint_points.rows() != joints || c.joint_points.cols() != 3))
    fail_at(path, "joint points are (" + std::to_string(c.joint_points.rows()) + ", " +
                      std::to_string(c.joint_points.cols()) + "), expected (" + std::to_string(joints) + ", 3)");

  Scene s;
  s.name = c.name;
  s.layout = c.layout;
  s.dim = 3;
  s.kind = HandleKind::Bones;
  s.dt = o.dt;
  s.pr = o.pr;
  s.material = "arap";
  if (K > 1)
    s.notes.push_back(std::to_string(K) +
                      " skins, each its own body (its tets, weights and joints): they share the clip, not the tissue");

  // Every skin's body, in file units.
  std::vector<Body> bodies;
  std::vector<Index> joint_offset{0};
  for (std::size_t k = 0; k < K; ++k) {
    const SkinnedSurface& m = c.skins[k];
    const std::string who = K > 1 ? m.label + ": " : std::string();
    const Eigen::RowVector3d lo = m.V.colwise().minCoeff(), hi = m.V.colwise().maxCoeff();
    s.notes.push_back(m.label + ": " + std::to_string(m.V.rows()) + " vertices, " + std::to_string(m.F.rows()) +
                      " triangles, " + std::to_string(m.W.cols()) + " joints; bind-pose box " + fmt(hi.x() - lo.x()) +
                      " x " + fmt(hi.y() - lo.y()) + " x " + fmt(hi.z() - lo.z()) + " file units (" +
                      fmt((hi - lo).maxCoeff() * o.metres_per_unit) + " m at " + fmt(o.metres_per_unit) +
                      " m per unit)");
    bodies.push_back(skin_body(path, m, o, who, s));
    joint_offset.push_back(joint_offset.back() + m.W.cols());
  }
  s.handles = joint_offset.back();
  // The bodies as one mesh: vertices and tets stacked, weights block-diagonal over the joints.
  Index nx = 0, nt = 0, nf = 0, nr = 0;
  for (std::size_t k = 0; k < K; ++k) {
    nx += bodies[k].X.rows();
    nt += bodies[k].T.rows();
    nf += bodies[k].surface.rows();
    nr += c.skins[k].V.rows();
  }
  MatrixXd TX(nx, 3);
  s.T.resize(nt, 4);
  s.surface.resize(nf, 3);
  s.W = MatrixXd::Zero(nx, s.handles);
  if (c.skins[0].leak.size() > 0) s.leak_values = VectorXd::Zero(nx);
  MatrixXd RV(nr, 3);
  s.render_W = MatrixXd::Zero(nr, s.handles);
  s.render_element.resize(nr);
  std::vector<Triplet> E;
  std::vector<MatrixXi> render_F;
  {
    Index x0 = 0, t0 = 0, f0 = 0, r0 = 0;
    for (std::size_t k = 0; k < K; ++k) {
      const Body& b = bodies[k];
      const SkinnedSurface& m = c.skins[k];
      const Index j0 = joint_offset[k], nj = joint_offset[k + 1] - j0;
      TX.middleRows(x0, b.X.rows()) = b.X;
      s.T.middleRows(t0, b.T.rows()) = b.T.array() + static_cast<int>(x0);
      s.surface.middleRows(f0, b.surface.rows()) = b.surface.array() + static_cast<int>(x0);
      s.W.block(x0, j0, b.X.rows(), nj) = b.W;
      if (b.leak.size() > 0) s.leak_values.segment(x0, b.X.rows()) = b.leak;
      RV.middleRows(r0, m.V.rows()) = m.V;
      render_F.push_back(m.F.array() + static_cast<int>(r0));
      s.render_W.block(r0, j0, m.V.rows(), nj) = m.W;
      s.render_element.segment(r0, m.V.rows()) = b.element.array() + static_cast<int>(t0);
      for (const Triplet& e : b.E) E.emplace_back(e.row() + r0, e.col() + x0, e.value());
      s.render_max_distance = std::max(s.render_max_distance, b.max_distance);
      x0 += b.X.rows();
      t0 += b.T.rows();
      f0 += b.surface.rows();
      r0 += m.V.rows();
    }
  }
  bodies.clear();

  // Normalisation, as every scene: X = (X - center) / scale.
  s.center = ((TX.colwise().maxCoeff() + TX.colwise().minCoeff()) / 2.0).transpose();
  const MatrixXd Xc = TX.rowwise() - s.center.transpose();
  s.half_extent = Xc.cwiseAbs().maxCoeff();
  if (!(s.half_extent > 0)) fail_at(path, "the skin has zero extent");
  s.X = Xc / s.half_extent;
  const double L = s.half_extent * o.metres_per_unit;
  s.metres_per_normalised_unit = L;
  s.ym = o.ym;  // Pa, as given: the solvers take normalised_ym(s, s.ym) = ym / L^2
  s.rho = o.rho;

  // Joints at rest (bind pose, normalised) for drawing.
  s.handle_points = MatrixXd::Zero(s.handles, 3);
  if (c.joint_points.size() > 0) s.handle_points = (c.joint_points.rowwise() - s.center.transpose()) / s.half_extent;

  // Poses: each joint's [A | t] taken to normalised coordinates (x_n = (x - c) / s: A stays,
  // t -> (A c + t - c) / s).
  const Eigen::Vector3d ctr = s.center;
  s.poses = c.poses;
  for (VectorXd& p : s.poses)
    for (Index j = 0; j < s.handles; ++j) {
      Eigen::Map<Eigen::Matrix<double, 3, 4>> A(p.data() + 12 * j);
      A.col(3) = (A.leftCols<3>() * ctr + A.col(3) - ctr) / s.half_extent;
    }
  s.frames_declared = static_cast<Index>(s.poses.size());
  // The simulation starts at the clip's first frame, at rest: the bind pose is usually far from
  // it (a T-pose; on the COLLADA2GLTF files a Z-up root turns everything by 90 degrees), and
  // starting there would jerk the tissue into the first frame in one step.
  s.rest_pose = s.poses.front();
  // p is each joint's skinning transform [A | t] (normalised): the rig reports it as the joint's frame.
  s.rig = std::make_shared<LinearRig>(lbs_jacobian(s.X, s.W), s.rest_pose, 3,
                                      c.layout == "gltf" ? "lbs (glTF skin)" : "lbs (skin)", RigParams::AffineHandles);

  // Output: every render vertex of every skin, in the tets.
  s.render_V = (RV.rowwise() - s.center.transpose()) / s.half_extent;
  Index rf = 0;
  for (const MatrixXi& Fk : render_F) rf += Fk.rows();
  s.render_F.resize(rf, 3);
  rf = 0;
  for (const MatrixXi& Fk : render_F) {
    s.render_F.middleRows(rf, Fk.rows()) = Fk;
    rf += Fk.rows();
  }
  s.render_E.resize(nr, s.X.rows());
  s.render_E.setFromTriplets(E.begin(), E.end());
  s.render_max_distance /= s.half_extent;  // voxel embeddings: the farthest render vertex outside the tets
  return s;
}

Scene load_gltf_scene(const std::string& path, const GltfSceneOptions& o) {
  if (!(o.dt > 0) || !std::isfinite(o.dt)) fail(path, "dt must be > 0, got " + fmt(o.dt));
  const GltfCharacter c = read_gltf(path);
  int clip = 0;
  try {
    clip = gltf_clip_index(c, o.clip.empty() ? std::string("0") : o.clip);
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
  const std::size_t K = c.meshes.size();
  SkinnedCharacter sc;
  sc.name = fs::path(path).stem().string();
  sc.layout = "gltf";
  Index joints = 0;
  for (const GltfSkinnedMesh& m : c.meshes)
    joints += static_cast<Index>(c.skins[static_cast<std::size_t>(m.skin)].joints.size());
  sc.joint_points.resize(joints, 3);
  Index j0 = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const GltfSkinnedMesh& m = c.meshes[k];
    const GltfSkin& skin = c.skins[static_cast<std::size_t>(m.skin)];
    const std::string label = mesh_label(c, m);
    sc.skins.push_back({K > 1 ? label + " (skin " + std::to_string(m.skin) + ")" : label, m.V, m.F, m.W,
                        VectorXd()});  // (a glTF file paints no leak field)
    for (std::size_t j = 0; j < skin.joints.size(); ++j)
      sc.joint_points.row(j0 + static_cast<Index>(j)) =
          skin.inverse_bind[j].inverse().topRightCorner<3, 1>().transpose();
    j0 += static_cast<Index>(skin.joints.size());
  }
  // The clip at k dt for every skin, the skins' joints one after another.
  std::vector<std::vector<VectorXd>> per_skin(K);
  try {
    for (std::size_t k = 0; k < K; ++k) per_skin[k] = gltf_sample_clip(c, static_cast<int>(k), clip, o.dt);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  sc.poses.assign(per_skin[0].size(), VectorXd(12 * joints));
  for (std::size_t f = 0; f < sc.poses.size(); ++f) {
    Index at = 0;
    for (std::size_t k = 0; k < K; ++k) {
      sc.poses[f].segment(at, per_skin[k][f].size()) = per_skin[k][f];
      at += per_skin[k][f].size();
    }
  }
  Scene s = skinned_scene(sc, o, "load_gltf_scene: '" + path + "'");
  s.input_files.push_back(fs::absolute(path).lexically_normal().string());
  s.warnings.insert(s.warnings.begin(), c.warnings.begin(), c.warnings.end());
  s.clip = std::to_string(clip);
  s.notes.push_back("clip '" + c.clips[static_cast<std::size_t>(clip)].name + "' (" +
                    fmt(c.clips[static_cast<std::size_t>(clip)].duration, "%.3g") +
                    " s): " + std::to_string(s.poses.size()) + " frames at dt " + fmt(o.dt, "%.4g") + " s");
  return s;
}

GltfOutputs write_gltf_outputs(const Scene& scene, const std::string& clip, const std::vector<MatrixXd>& U,
                               const std::string& dir, const GltfBakeOptions& options) {
  const auto file = std::find_if(scene.input_files.begin(), scene.input_files.end(), is_gltf_file);
  FASTCD_CHECK(scene.layout == "gltf" && file != scene.input_files.end(),
               "the scene was not loaded from a glTF file (layout '", scene.layout, "')");
  FASTCD_CHECK(!U.empty(), "no frames to write");
  const GltfCharacter c = read_gltf(*file);
  Index rows = 0;
  for (const GltfSkinnedMesh& m : c.meshes) rows += m.V.rows();
  for (std::size_t f = 0; f < U.size(); ++f)
    FASTCD_CHECK(U[f].rows() == rows && U[f].cols() == 3, "frame ", f, ": displacements ", shape_of(U[f]), ", the ",
                 c.meshes.size(), " skinned meshes have ", rows, " vertices");
  const int ci = gltf_clip_index(c, !clip.empty() ? clip : !scene.clip.empty() ? scene.clip : std::string("0"));
  GltfOutputs out;
  out.clip = c.clips[static_cast<std::size_t>(ci)].name;
  out.clip_index = ci;
  constexpr const char* kWork = "writing glTF";
  detail::report_progress(kWork, "rest-space displacements", 0, 3);
  // Each skinned mesh's rows of U, taken to rest space with its own skin's poses.
  std::vector<std::vector<MatrixXd>> deltas(c.meshes.size());
  Index r0 = 0;
  for (std::size_t k = 0; k < c.meshes.size(); ++k) {
    const Index n = c.meshes[k].V.rows();
    // Past the clip's end the rig holds its last pose (the glTF sampler clamps), as a run of
    // several characters does when one clip is shorter than the run.
    std::vector<VectorXd> poses = gltf_sample_clip(c, static_cast<int>(k), ci, scene.dt);
    for (std::size_t f = poses.size(); f < U.size(); ++f)
      poses.push_back(gltf_pose(c, static_cast<int>(k), ci, static_cast<double>(f) * scene.dt));
    poses.resize(U.size());
    std::vector<MatrixXd> Uk(U.size());
    for (std::size_t f = 0; f < U.size(); ++f) Uk[f] = U[f].middleRows(r0, n);
    double worst = 1;
    deltas[k] = lbs_rest_space_displacements(c.meshes[k].W, poses, Uk, &worst);
    out.worst_condition = std::max(out.worst_condition, worst);
    r0 += n;
  }
  const fs::path d(dir);
  out.glb = (d / (scene.name + ".glb")).string();
  detail::report_progress(kWork, options.encoding == "pca" ? "morph targets (PCA)" : "morph targets", 1, 3);
  out.report = write_gltf_bake(c, ci, scene.dt, deltas, out.glb, options);
  detail::report_progress(kWork, "rest-space point caches (PC2, MDD)", 2, 3);

  // One cache per mesh node: Blender makes each node with a mesh an object of its own (its
  // primitives' vertices one after another).
  // (A node's primitives are consecutive in its skinned mesh: GltfSkinnedMesh orders them so.)
  std::vector<std::pair<int, std::vector<std::pair<std::size_t, const GltfPrimitiveSpan*>>>> nodes;
  std::vector<Index> node_first;
  Index mesh_first = 0;
  for (std::size_t k = 0; k < c.meshes.size(); ++k) {
    for (const GltfPrimitiveSpan& s : c.meshes[k].spans) {
      auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.first == s.node; });
      if (it == nodes.end()) {
        nodes.push_back({s.node, {}});
        node_first.push_back(mesh_first + s.first_vertex);
        it = nodes.end() - 1;
      }
      it->second.emplace_back(k, &s);
    }
    mesh_first += c.meshes[k].V.rows();
  }
  // Each mesh's caches in the space Blender's importer gives its vertices: per vertex, the
  // joints' bind matrices blended by its skin weights.
  std::vector<std::vector<Eigen::Matrix<double, 3, 4>>> binds(c.meshes.size());
  for (std::size_t k = 0; k < c.meshes.size(); ++k) binds[k] = gltf_blender_joint_binds(c, c.meshes[k].skin);
  auto bind_of = [&](std::size_t k, Index v) {
    Eigen::Matrix<double, 3, 4> M = Eigen::Matrix<double, 3, 4>::Zero();
    for (Index j = 0; j < c.meshes[k].W.cols(); ++j)
      if (c.meshes[k].W(v, j) != 0) M += c.meshes[k].W(v, j) * binds[k][static_cast<std::size_t>(j)];
    return M;
  };
  std::vector<std::string> taken;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& [node, spans] = nodes[i];
    GltfCache cache;
    cache.node = node;
    cache.first_vertex = node_first[i];
    cache.skinned_mesh = static_cast<int>(spans.front().first);
    cache.node_name = c.nodes[static_cast<std::size_t>(node)].name;
    std::string stem = "rest_space";
    if (nodes.size() > 1) {  // rest_space_<node name>, made safe and unique
      std::string safe;
      for (char ch : cache.node_name)
        safe.push_back(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ? ch : '_');
      if (safe.empty()) safe = "node" + std::to_string(node);
      if (safe.size() > 100) safe = safe.substr(0, 100) + "_node" + std::to_string(node);  // a valid file name
      stem += "_" + safe;
      while (std::find(taken.begin(), taken.end(), stem) != taken.end()) stem += "_" + std::to_string(node);
      taken.push_back(stem);
    }
    Index n = 0;
    for (const auto& [k, s] : spans) n += s->vertices;
    std::vector<Eigen::Matrix<double, 3, 4>> M;  // per vertex of the node
    for (const auto& [k, s] : spans)
      for (Index v = 0; v < s->vertices; ++v) {
        M.push_back(bind_of(k, s->first_vertex + v));
        const Eigen::Vector3d p = c.meshes[k].V.row(s->first_vertex + v).transpose();
        cache.bind_offset = std::max(cache.bind_offset, (M.back() * p.homogeneous() - p).norm());
      }
    std::vector<MatrixXd> rest(U.size(), MatrixXd(n, 3));
    std::vector<double> times(U.size());
    for (std::size_t f = 0; f < U.size(); ++f) {
      Index row = 0;
      for (const auto& [k, s] : spans)
        for (Index v = 0; v < s->vertices; ++v, ++row) {
          const Eigen::Vector3d p = M[static_cast<std::size_t>(row)] *
                                    (c.meshes[k].V.row(s->first_vertex + v) + deltas[k][f].row(s->first_vertex + v))
                                        .transpose()
                                        .homogeneous();
          rest[f].row(row) << p.x(), -p.z(), p.y();
        }
      times[f] = static_cast<double>(f) * scene.dt;
    }
    cache.vertices = n;
    cache.pc2 = (d / (stem + ".pc2")).string();
    cache.mdd = (d / (stem + ".mdd")).string();
    write_pc2(cache.pc2, rest, 0.0, 1.0);
    write_mdd(cache.mdd, rest, times);
    out.caches.push_back(std::move(cache));
  }
  out.pc2 = out.caches.front().pc2;
  out.mdd = out.caches.front().mdd;
  return out;
}

}  // namespace fastcd
