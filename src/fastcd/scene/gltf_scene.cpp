#include "fastcd/scene/gltf_scene.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "fastcd/cd/rig.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "fastcd/geometry/harmonic_weights.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/meshing/surface.hpp"
#include "fastcd/meshing/voxel.hpp"

namespace fastcd {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("load_gltf_scene: '" + path + "': " + what);
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

Scene load_gltf_scene(const std::string& path, const GltfSceneOptions& o) {
  if (!(o.dt > 0) || !std::isfinite(o.dt)) fail(path, "dt must be > 0, got " + fmt(o.dt));
  if (!(o.metres_per_unit > 0) || !std::isfinite(o.metres_per_unit))
    fail(path, "the length unit (--scale, metres per file unit) must be > 0, got " + fmt(o.metres_per_unit));
  if (!(o.ym > 0) || !std::isfinite(o.ym)) fail(path, "YM must be > 0, got " + fmt(o.ym));
  if (!(o.pr > -1 && o.pr < 0.5)) fail(path, "pr must lie in (-1, 0.5), got " + fmt(o.pr));
  if (!(o.rho > 0) || !std::isfinite(o.rho)) fail(path, "rho must be > 0, got " + fmt(o.rho));

  const GltfCharacter c = read_gltf(path);
  if (c.meshes.size() > 1)
    fail(path, std::to_string(c.meshes.size()) +
                   " skinned meshes with different skins: fastcd simulates one skin per file (join them in the "
                   "modelling tool, or export each character on its own)");
  int clip = 0;
  try {
    clip = gltf_clip_index(c, o.clip.empty() ? std::string("0") : o.clip);
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
  const GltfSkinnedMesh& m = c.meshes[0];
  const GltfSkin& skin = c.skins[static_cast<std::size_t>(m.skin)];
  Scene s;
  s.name = fs::path(path).stem().string();
  s.layout = "gltf";
  s.dim = 3;
  s.kind = HandleKind::Bones;
  s.handles = static_cast<Index>(skin.joints.size());
  s.input_files.push_back(fs::absolute(path).lexically_normal().string());
  s.warnings = c.warnings;
  s.dt = o.dt;
  s.pr = o.pr;
  s.model = "arap";
  const Eigen::RowVector3d lo = m.V.colwise().minCoeff(), hi = m.V.colwise().maxCoeff();
  s.notes.push_back("'" + m.name + "': " + std::to_string(m.V.rows()) + " vertices, " + std::to_string(m.F.rows()) +
                    " triangles, " + std::to_string(s.handles) + " joints; bind-pose box " + fmt(hi.x() - lo.x()) +
                    " x " + fmt(hi.y() - lo.y()) + " x " + fmt(hi.z() - lo.z()) + " file units (" +
                    fmt((hi - lo).maxCoeff() * o.metres_per_unit) + " m at " + fmt(o.metres_per_unit) + " m per unit)");

  // Skin -> welded surface -> tets.
  detail::throw_if_cancelled("load_gltf_scene");
  const WeldedSurface w = weld_surface(m.V, m.F);
  const bool voxel = o.tets.mesher == "voxel";
  MatrixXd TX;  // tets, file units
  MatrixXi TT, F = w.F;
  HarmonicExtension h;
  Embedding emb;  // voxel: the render vertices in the tets
  if (voxel) {
    VoxelMesh vm;
    try {
      vm = voxel_mesh(w.V, w.F, o.voxel);
    } catch (const std::exception& e) {
      fail(path, std::string("voxelising the skin: ") + e.what());
    }
    TX = vm.X;
    TT = vm.T;
    s.notes.push_back("welded " + std::to_string(m.V.rows()) + " -> " + std::to_string(w.V.rows()) +
                      " vertices; voxels: " + std::to_string(vm.cells) + " cells of " + fmt(vm.cell_size) + " (" +
                      std::to_string(vm.inside_cells) + " inside by winding number, " +
                      std::to_string(vm.dropped_cells) + " dropped: no skin), " + std::to_string(TX.rows()) +
                      " vertices, " + std::to_string(TT.rows()) + " tets, " + fmt(vm.seconds, "%.2f") + " s");
    const auto t_w = std::chrono::steady_clock::now();
    emb = embed_points(TX, TT, m.V);
    detail::throw_if_cancelled("load_gltf_scene");
    try {
      h = harmonic_fit(TX, TT, emb.E, m.W);
    } catch (const std::exception& e) {
      fail(path, std::string("fitting the skin weights to the voxels: ") + e.what());
    }
    s.notes.push_back("weights: fitted to the " + std::to_string(m.V.rows()) + " skin vertices (largest error " +
                      fmt(h.fit_error) + "; " + std::to_string(h.clamped) + " negatives clamped, most " +
                      fmt(h.most_negative) + "), " + fmt(seconds_since(t_w), "%.2f") + " s");
    if (h.fit_error > 0.1)
      s.warnings.push_back("the voxel grid (" + std::to_string(o.voxel.resolution) +
                           " cells along the longest side) is too coarse for the skin weights: they differ by up to " +
                           fmt(h.fit_error) +
                           "; raise --voxel-resolution for a body that follows the rig more closely");
  } else {
    const SurfaceDefects d = check_surface(w.V, w.F);
    if (!d.ok())
      fail(path, "the skin of '" + m.name + "' does not bound a solid (after welding " + std::to_string(m.V.rows()) +
                     " vertices to " + std::to_string(w.V.rows()) + "; welded indices): " + d.describe() +
                     ". Close it in the modelling tool, or use --mesher voxel (a grid embedding the skin)");
    if (d.volume < 0) {
      F = F.rowwise().reverse().eval();
      s.warnings.push_back("the skin's triangles wind inward; reversed for meshing (the output keeps the file's)");
    }
    std::vector<char> used(static_cast<std::size_t>(w.V.rows()), 0);
    for (Index i = 0; i < F.size(); ++i) used[static_cast<std::size_t>(F.data()[i])] = 1;
    if (std::find(used.begin(), used.end(), 0) != used.end())
      fail(path, "the skin has vertices on no triangle (points or lines only); remove them in the modelling tool");
    TetMesh tm;
    bool cached = false;
    try {
      tm = tetrahedralize_cached(w.V, F, o.tets, o.cache_dir, &cached);
    } catch (const std::exception& e) {
      fail(path, std::string("tetrahedralising the skin: ") + e.what());
    }
    s.notes.push_back("welded " + std::to_string(m.V.rows()) + " -> " + std::to_string(w.V.rows()) + " vertices; " +
                      std::string(tm.mesher == "tetgen" ? "TetGen" : "Netgen") + ": " + std::to_string(tm.X.rows()) +
                      " vertices, " + std::to_string(tm.T.rows()) + " tets, min dihedral " +
                      fmt(tm.min_dihedral, "%.2f") + " deg (" + std::to_string(tm.slivers) + " under 5), " +
                      (cached ? "from the cache " + o.cache_dir : fmt(tm.seconds, "%.2f") + " s"));

    // Weights: the skin's on the surface (each welded vertex takes its first render vertex's),
    // harmonic inside.
    const auto t_w = std::chrono::steady_clock::now();
    VectorXi first(w.V.rows());
    first.setConstant(-1);
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
    VectorXi known = VectorXi::LinSpaced(w.V.rows(), 0, static_cast<int>(w.V.rows()) - 1);
    detail::throw_if_cancelled("load_gltf_scene");
    h = harmonic_extension(tm.X, tm.T, known, Wb);
    if (seam_gap > 1e-6)
      s.warnings.push_back("seam duplicates carry different skin weights (largest difference " + fmt(seam_gap) +
                           "); the simulation uses the first's at each welded vertex");
    s.notes.push_back("weights: " + std::to_string(w.V.rows()) + " from the skin, " +
                      std::to_string(tm.X.rows() - w.V.rows()) + " harmonic inside (" + std::to_string(h.clamped) +
                      " negatives clamped, most " + fmt(h.most_negative) + "), " + fmt(seconds_since(t_w), "%.2f") +
                      " s");
    TX = std::move(tm.X);
    TT = std::move(tm.T);
  }

  // Normalisation, as every scene: X = (X - center) / scale.
  s.center = ((TX.colwise().maxCoeff() + TX.colwise().minCoeff()) / 2.0).transpose();
  const MatrixXd Xc = TX.rowwise() - s.center.transpose();
  s.scale = Xc.cwiseAbs().maxCoeff();
  if (!(s.scale > 0)) fail(path, "the skin has zero extent");
  s.X = Xc / s.scale;
  s.T = TT;
  s.surface = voxel ? boundary_facets(TT).F : F;
  s.W = h.W;
  const double L = s.scale * o.metres_per_unit;
  s.metres_per_normalised_unit = L;
  s.ym = o.ym / (L * L);
  s.rho = o.rho;

  // Joints at rest (bind pose, normalised) for drawing.
  s.handle_points.resize(s.handles, 3);
  for (Index j = 0; j < s.handles; ++j) {
    const Eigen::Vector3d p = skin.inverse_bind[static_cast<std::size_t>(j)].inverse().topRightCorner<3, 1>();
    s.handle_points.row(j) = ((p - s.center) / s.scale).transpose();
  }

  // Poses: the clip at k dt, each joint's [A | t] taken to normalised coordinates
  // (x_n = (x - c) / s: A stays, t -> (A c + t - c) / s).
  std::vector<VectorXd> poses;
  try {
    poses = gltf_sample_clip(c, 0, clip, o.dt);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  const Eigen::Vector3d ctr = s.center;
  for (VectorXd& p : poses)
    for (Index j = 0; j < s.handles; ++j) {
      Eigen::Map<Eigen::Matrix<double, 3, 4>> A(p.data() + 12 * j);
      A.col(3) = (A.leftCols<3>() * ctr + A.col(3) - ctr) / s.scale;
    }
  s.poses = std::move(poses);
  s.frames_declared = static_cast<Index>(s.poses.size());
  s.notes.push_back("clip '" + c.clips[static_cast<std::size_t>(clip)].name + "' (" +
                    fmt(c.clips[static_cast<std::size_t>(clip)].duration, "%.3g") +
                    " s): " + std::to_string(s.poses.size()) + " frames at dt " + fmt(o.dt, "%.4g") + " s");
  // The simulation starts at the clip's first frame, at rest: the bind pose is usually far from
  // it (a T-pose; on the COLLADA2GLTF files a Z-up root turns everything by 90 degrees), and
  // starting there would jerk the tissue into the first frame in one step.
  s.rest_pose = s.poses.front();
  s.rig = std::make_shared<LinearRig>(lbs_jacobian(s.X, s.W), s.rest_pose, 3, "lbs (glTF skin)");

  // Output: every render vertex on its welded tet vertex (seams move together).
  s.render_V = (m.V.rowwise() - s.center.transpose()) / s.scale;
  s.render_F = m.F;
  s.render_W = m.W;
  if (voxel) {  // barycentric in the voxel tets (affine, so the normalisation keeps it)
    s.render_E = emb.E;
    s.render_element = emb.element;
    s.render_max_distance = emb.distance.maxCoeff() / s.scale;
    return s;
  }
  std::vector<Triplet> sel;
  sel.reserve(static_cast<std::size_t>(m.V.rows()));
  for (Index r = 0; r < m.V.rows(); ++r) sel.emplace_back(r, w.map[r], 1.0);
  s.render_E.resize(m.V.rows(), s.X.rows());
  s.render_E.setFromTriplets(sel.begin(), sel.end());
  VectorXi incident = VectorXi::Constant(s.X.rows(), -1);
  for (Index t = 0; t < s.T.rows(); ++t)
    for (int k = 0; k < 4; ++k)
      if (incident[s.T(t, k)] < 0) incident[s.T(t, k)] = static_cast<int>(t);
  s.render_element.resize(m.V.rows());
  for (Index r = 0; r < m.V.rows(); ++r) s.render_element[r] = incident[w.map[r]];
  s.render_max_distance = 0;
  return s;
}

GltfOutputs write_gltf_outputs(const Scene& scene, const std::string& clip, const std::vector<MatrixXd>& U,
                               const std::string& dir, const GltfBakeOptions& options) {
  FASTCD_CHECK(scene.layout == "gltf" && !scene.input_files.empty(),
               "the scene was not loaded from a glTF file (layout '", scene.layout, "')");
  FASTCD_CHECK(!U.empty(), "no frames to write");
  const GltfCharacter c = read_gltf(scene.input_files[0]);
  FASTCD_CHECK(c.meshes.size() == 1, "the character has ", c.meshes.size(), " skinned meshes");
  const int ci = gltf_clip_index(c, clip.empty() ? std::string("0") : clip);
  std::vector<VectorXd> poses = gltf_sample_clip(c, 0, ci, scene.dt);
  FASTCD_CHECK(U.size() <= poses.size(), U.size(), " frames of displacements, the clip samples ", poses.size());
  poses.resize(U.size());
  GltfOutputs out;
  out.clip = c.clips[static_cast<std::size_t>(ci)].name;
  out.clip_index = ci;
  const std::vector<MatrixXd> deltas = gltf_rest_space_deltas(c, 0, poses, U, &out.worst_condition);
  const fs::path d(dir);
  out.glb = (d / (scene.name + ".glb")).string();
  out.report = write_gltf_bake(c, 0, ci, scene.dt, deltas, out.glb, options);
  const MatrixXd& V = c.meshes[0].V;
  std::vector<MatrixXd> rest(deltas.size());
  std::vector<double> times(deltas.size());
  for (std::size_t f = 0; f < deltas.size(); ++f) {
    const MatrixXd P = V + deltas[f];
    rest[f].resize(P.rows(), 3);
    rest[f].col(0) = P.col(0);
    rest[f].col(1) = -P.col(2);
    rest[f].col(2) = P.col(1);
    times[f] = static_cast<double>(f) * scene.dt;
  }
  out.pc2 = (d / "rest_space.pc2").string();
  out.mdd = (d / "rest_space.mdd").string();
  write_pc2(out.pc2, rest, 0.0, 1.0);
  write_mdd(out.mdd, rest, times);
  return out;
}

}  // namespace fastcd
