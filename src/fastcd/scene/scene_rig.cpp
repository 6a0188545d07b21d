// A scene's rig: handles (bones, point handles, vertex handles, a cage), their weights (a file
// checked as a partition of unity, or automatic), the animation as rig poses, and the rig itself.
#include "fastcd/scene/scene_parts.hpp"

#include <algorithm>
#include <cmath>

#include "fastcd/cd/skeleton.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/geometry/biharmonic_weights.hpp"
#include "fastcd/geometry/harmonic_weights.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/io/anim_io.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"

namespace fastcd::scene_parts {

// ---------------------------------------------------------------------------- weights

namespace {

/// "vertex 12 (row 13)": a vertex by fastcd's 0-based index and the 1-based row of the file.
std::string vertex_row(Index v) { return "vertex " + std::to_string(v) + " (row " + std::to_string(v + 1) + ")"; }

/// File weights must be a partition of unity: rows whose sum is within 1e-4 of 1, with
/// negatives no lower than -1e-4 (rounding in the file), are clamped and renormalised with one
/// warning; all-zero rows, rows far from 1 and real negatives are an error naming the vertex.
void check_weights(Scene& s, const std::string& file) {
  MatrixXd& W = s.W;
  Index changed = 0;
  double worst = 0.0;
  for (Index v = 0; v < W.rows(); ++v) {
    for (Index h = 0; h < W.cols(); ++h)
      if (!(W(v, h) >= -1e-4))
        fail(file, vertex_row(v) + " has the weight " + fmt(W(v, h)) + " for handle " + std::to_string(h) +
                       " (LBS weights must lie in [0, 1])");
    if (W.row(v).cwiseAbs().maxCoeff() == 0.0)
      fail(file, vertex_row(v) +
                     " has all-zero weights: no handle moves it (it would stay at the "
                     "origin); give it weights or a handle nearby");
    const double sum = W.row(v).sum();
    if (std::abs(sum - 1.0) > 1e-4)
      fail(file, "the weights of " + vertex_row(v) + " sum to " + fmt(sum) +
                     ", not 1: LBS weights must be a partition of unity (renormalise them, or check the file)");
    const double negative = -std::min(0.0, W.row(v).minCoeff());
    const double deviation = std::max(std::abs(sum - 1.0), negative);
    if (deviation > 1e-12) {  // beyond rounding: clamp and renormalise, and say so once
      W.row(v) = W.row(v).cwiseMax(0.0);
      W.row(v) /= W.row(v).sum();
      ++changed;
      worst = std::max(worst, deviation);
    }
  }
  if (changed > 0)
    s.warnings.push_back(std::to_string(changed) + " weight rows of '" + fs::path(file).filename().string() +
                         "' were renormalised to sum to 1 (largest deviation " + fmt(worst) +
                         "; negatives above -1e-4 clamped to 0)");
}

/// Every connected part of the mesh must hold a pinned vertex, or the automatic weights are
/// zero there and the part stays at the origin. Throws naming a vertex of the first part without
/// one.
void check_components_have_handles(const Scene& s, const std::vector<std::vector<Index>>& pins,
                                   const std::string& path) {
  const Index n = s.X.rows();
  std::vector<Index> parent(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) parent[v] = v;
  auto find = [&](Index v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (Index e = 0; e < s.T.rows(); ++e)
    for (Index a = 1; a < s.T.cols(); ++a) parent[find(s.T(e, a))] = find(s.T(e, 0));
  std::vector<char> reached(static_cast<std::size_t>(n), 0);
  for (const auto& p : pins)
    for (Index v : p) reached[find(v)] = 1;
  Index size = 0, first = -1, root = -1;
  for (Index v = 0; v < n; ++v)
    if (!reached[find(v)]) {
      if (root < 0) root = find(v), first = v;
      if (find(v) == root) ++size;
    }
  if (first >= 0)
    fail(path, "a part of the mesh (" + std::to_string(size) + " vertices, e.g. vertex " + std::to_string(first) +
                   ") is not connected to any handle, so automatic weights cannot move it: add a handle on it or "
                   "give a weight_file");
}

/// Dense work a rig of `handles` LBS handles brings (weights, the rig Jacobian, the constraint),
/// refused with the estimate when it exceeds the memory there is.
void check_rig_memory(Index n, Index dim, Index handles, const std::string& path) {
  const double per = static_cast<double>(n) * static_cast<double>(handles);
  const double d = static_cast<double>(dim), p = d * (d + 1);
  // W (8 B), J entries (d (d+1) per vertex, handle and coordinate: 12 B each), the dense
  // constraint and its factorisation copies (#p x #V*dim, three of them).
  const double bytes = per * 8.0 + per * p * d * 12.0 + 3.0 * per * p * d * 8.0;
  const double avail = static_cast<double>(available_memory_bytes());
  if (avail > 0 && bytes > 0.8 * avail)
    fail(path, "this rig needs about " + fmt(std::round(bytes / 1e8) / 10.0) + " GB (" + std::to_string(n) +
                   " vertices x " + std::to_string(handles) + " handles), more than the " +
                   fmt(std::round(avail / 1e8) / 10.0) +
                   " GB available: use fewer handles (a handle per region, not per vertex)");
}

// ---------------------------------------------------------------------------- animations

std::vector<MatrixXd> to_file_poses_2d(const TgfGraph& g, const VectorXi& P, const Animation2D& a, Index f,
                                       HandleKind kind) {
  const MatrixXd C = g.C.leftCols(2);
  const MatrixXd& fr = a.frames[static_cast<std::size_t>(f)];
  const MatrixXd offset = fr.leftCols(2) - a.rest.leftCols(2);
  const double d2r = EIGEN_PI / 180.0;
  if (kind == HandleKind::Bones) return forward_kinematics_2d(C, g.BE, P, fr.col(2), offset);
  std::vector<MatrixXd> out;
  for (Index h = 0; h < fr.rows(); ++h) {
    MatrixXd A = rotation_about_2d(fr(h, 2) * d2r, C.row(g.P(h)).transpose());
    A.col(2) += offset.row(h).transpose();
    out.push_back(A);
  }
  return out;
}

/// One row of a MATLAB release per-frame handle DMAT (the hedgehog's): the LBS parameters Z of
/// gptoolbox's lbs_matrix_column order, Z(c*h*d + x*h + i) = T_i(x, c) for handle i, output
/// coordinate x and input coordinate (or translation) c — to fastcd's pose, column-major
/// [A | t] per handle.
VectorXd pose_from_lbs_column(const Eigen::Ref<const Eigen::RowVectorXd>& Z, Index h, Index d) {
  VectorXd p(h * d * (d + 1));
  for (Index i = 0; i < h; ++i)
    for (Index c = 0; c <= d; ++c)
      for (Index x = 0; x < d; ++x) p(i * d * (d + 1) + c * d + x) = Z(c * h * d + x * h + i);
  return p;
}

void bone_poses_3d(Scene& s, const TgfGraph& g, const std::string& anim, const std::string& json_path) {
  const MatrixXd C = (g.C.rowwise() - s.center.transpose()) / s.half_extent;
  const double d2r = EIGEN_PI / 180.0;
  const BoneAnimation3D a = read_bone_animation_3d(anim);
  if (a.bone_rest_euler.rows() != s.handles)
    fail(json_path, "the animation has " + std::to_string(a.bone_rest_euler.rows()) + " bones, the rig " +
                        std::to_string(s.handles));
  const VectorXi P = bone_parents(g.BE);
  const Index roots = (P.array() < 0).count();
  const Eigen::Vector3d root_rest = (a.root_rest_translation - s.center) / s.half_extent;
  const Eigen::Matrix3d root_axes = euler_about_axes(a.root_rest_euler * d2r).toRotationMatrix();
  std::vector<Eigen::Matrix3d> rest_axes;
  for (Index b = 0; b < s.handles; ++b)
    rest_axes.push_back(euler_about_axes(a.bone_rest_euler.row(b).transpose() * d2r).toRotationMatrix());
  for (std::size_t f = 0; f < a.root_rotation.size(); ++f) {
    const Eigen::Quaterniond root_q = euler_about_axes(a.root_rotation[f] * d2r, root_axes);
    const Eigen::Vector3d root_t = (a.root_translation[f] - s.center) / s.half_extent;
    std::vector<Eigen::Quaterniond> dQ;
    std::vector<Eigen::Vector3d> dT;
    for (Index b = 0; b < s.handles; ++b) {
      Eigen::Quaterniond q = euler_about_axes(a.bone_euler[f].row(b).transpose() * d2r, rest_axes[b]);
      Eigen::Vector3d t = Eigen::Vector3d::Zero();
      if (P(b) < 0) {
        if (roots > 1) q = q * root_q;
        t = root_t - root_rest;
      }
      dQ.push_back(q);
      dT.push_back(t);
    }
    s.poses.push_back(pack_affine_pose(forward_kinematics_3d(C, g.BE, P, dQ, dT)));
  }
}

void point_poses_3d(Scene& s, const TgfGraph& g, const std::string& anim, const std::string& json_path) {
  const MatrixXd C = (g.C.rowwise() - s.center.transpose()) / s.half_extent;
  const double d2r = EIGEN_PI / 180.0;
  const PointAnimation3D a = read_point_animation_3d(anim);
  if (a.rest_translation.rows() != s.handles)
    fail(json_path, "the animation has " + std::to_string(a.rest_translation.rows()) + " handles, the rig " +
                        std::to_string(s.handles));
  for (std::size_t f = 0; f < a.translation.size(); ++f) {
    std::vector<MatrixXd> A;
    for (Index h = 0; h < s.handles; ++h) {
      const Eigen::Matrix3d rest = euler_about_axes(a.rest_euler.row(h).transpose() * d2r).toRotationMatrix();
      const Eigen::Matrix3d R =
          rest.transpose() * euler_about_axes(a.euler[f].row(h).transpose() * d2r, rest).toRotationMatrix();
      const Eigen::Vector3d c = C.row(g.P(h)).transpose();
      const Eigen::Vector3d t = (a.translation[f].row(h).transpose() - s.center) / s.half_extent -
                                (a.rest_translation.row(h).transpose() - s.center) / s.half_extent + c - R * c;
      MatrixXd Ah(3, 4);
      Ah << R, t;
      A.push_back(Ah);
    }
    s.poses.push_back(pack_affine_pose(A));
  }
}

// ---------------------------------------------------------------------------- layouts

}  // namespace

/// The walrus: a closed cage polygon (TGF edges) driving the mesh by generalized barycentric
/// coordinates; the animation is a DMAT of cage positions.
void load_cage(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
               const SceneOptions& opt) {
  if (s.dim != 2) fail(json_path, "cage scenes are 2D (a closed polygon cage); this mesh is 3D");
  if (opt.rig == "lbs" || opt.rig == "wire")
    fail(json_path, "rig option '" + opt.rig + "' does not apply to a cage scene (use auto, mvc or harmonic)");
  s.layout = "matlab-2d-cage";
  const std::string cage_file = file_key(s, j, {"skeleton_file"}, dir, json_path);
  const TgfGraph g = read_tgf(cage_file);
  if (g.C.rows() < 3 || g.E.rows() < 3)
    fail(cage_file, "a cage needs at least 3 vertices and 3 edges, got " + std::to_string(g.C.rows()) + " and " +
                        std::to_string(g.E.rows()));
  normalize_scene(s, json_path);
  s.kind = HandleKind::Cage;
  s.handles = g.C.rows();
  s.handle_points = (g.C.leftCols(2).rowwise() - s.center.transpose()) / s.half_extent;
  s.cage_edges = g.E;
  const bool harmonic = opt.rig == "harmonic";
  std::shared_ptr<LinearRig> rig;
  try {
    rig = std::make_shared<LinearRig>(cage_rig(s.X, s.handle_points, s.cage_edges,
                                               harmonic ? CageCoordinates::Harmonic : CageCoordinates::MeanValue,
                                               opt.harmonic_resolution));
  } catch (const std::invalid_argument& e) {
    fail(cage_file, std::string("cannot bind the mesh to this cage: ") + e.what());
  }
  s.rig = rig;
  s.rest_pose = rig->p0;
  s.W = MatrixXd(s.X.rows(), s.handles);  // the coordinates, for inspection
  for (Index i = 0; i < s.X.rows(); ++i)
    for (Index c = 0; c < s.handles; ++c) s.W(i, c) = rig->J.coeff(2 * i, 2 * c);
  const std::string anim = file_key(s, j, {"anim_file"}, dir, json_path);
  const MatrixXd A = read_dmat(anim);
  if (A.cols() != 2 * s.handles)
    fail(anim, "the cage animation has " + std::to_string(A.cols()) + " columns; the cage has " +
                   std::to_string(s.handles) + " vertices (expected " + std::to_string(2 * s.handles) +
                   " columns: x_0..x_{C-1}, y_0..y_{C-1})");
  if (!A.allFinite()) fail(anim, "the cage animation has NaN or infinite entries");
  for (Index f = 0; f < A.rows(); ++f) {
    VectorXd p(2 * s.handles);
    for (Index c = 0; c < s.handles; ++c) p.segment<2>(2 * c) << A(f, c), A(f, s.handles + c);
    s.poses.push_back(p);
  }
  if (harmonic) s.warnings.push_back("harmonic cage coordinates on a grid, corrected to reproduce the rest shape");
}

namespace {

/// Weights for handles given without a weight_file: unconstrained biharmonic weights pinned at
/// `pins` (a partition of unity), after checking that every part of the mesh holds a pin.
void automatic_weights(Scene& s, const std::vector<std::vector<Index>>& pins, const std::string& json_path) {
  check_components_have_handles(s, pins, json_path);
  s.W = biharmonic_weights(s.X, s.T, pins);
  s.warnings.push_back("no weight_file: using unconstrained biharmonic weights pinned at the handles");
}

void check_weight_shape(const Scene& s, const std::string& json_path) {
  if (s.W.rows() != s.X.rows())
    fail(json_path, "the weights have " + std::to_string(s.W.rows()) + " rows but the mesh has " +
                        std::to_string(s.X.rows()) + " vertices");
  if (s.W.cols() != s.handles)
    fail(json_path,
         "the weights have " + std::to_string(s.W.cols()) + " columns for " + std::to_string(s.handles) + " handles");
}

/// The weight_file, one row per mesh vertex; for a surface scene one row per surface vertex,
/// carried to the tets (Netgen / TetGen: the surface vertices are tet vertices, the interior is
/// harmonic; voxel: fitted to the surface vertices).
void read_weight_file(Scene& s, const std::string& file, const std::string& json_path, const SurfaceSource& src) {
  s.W = read_dmat(file);
  if (!src.active) {
    check_weight_shape(s, json_path);
    check_weights(s, file);
    return;
  }
  if (s.W.rows() != src.V.rows())
    fail(json_path, "the weights have " + std::to_string(s.W.rows()) + " rows but the surface '" +
                        fs::path(src.file).filename().string() + "' has " + std::to_string(src.V.rows()) +
                        " vertices (one row per surface vertex)");
  if (s.W.cols() != s.handles)
    fail(json_path,
         "the weights have " + std::to_string(s.W.cols()) + " columns for " + std::to_string(s.handles) + " handles");
  check_weights(s, file);
  const MatrixXd Ws = s.W;
  HarmonicExtension h;
  if (src.voxel) {
    h = harmonic_fit(s.X, s.T, src.E, Ws);
    if (h.fit_error > 0.1)
      s.warnings.push_back("the voxel grid is too coarse for the surface's weights: they differ by up to " +
                           fmt(h.fit_error) + "; raise the voxel resolution");
  } else {
    Index welded = 0;
    for (Index v = 0; v < src.weld.size(); ++v) welded = std::max<Index>(welded, src.weld[v] + 1);
    MatrixXd Wb(welded, Ws.cols());
    std::vector<char> set(static_cast<std::size_t>(welded), 0);
    double gap = 0;
    for (Index v = 0; v < src.weld.size(); ++v) {
      const Index k = src.weld[v];
      if (!set[static_cast<std::size_t>(k)])
        Wb.row(k) = Ws.row(v), set[static_cast<std::size_t>(k)] = 1;
      else
        gap = std::max(gap, (Wb.row(k) - Ws.row(v)).cwiseAbs().maxCoeff());
    }
    if (gap > 1e-6)
      s.warnings.push_back("surface vertices at the same position carry different weights (largest difference " +
                           fmt(gap) + "); the simulation uses the first's");
    h = harmonic_extension(s.X, s.T, VectorXi::LinSpaced(welded, 0, static_cast<int>(welded) - 1), Wb);
  }
  s.W = h.W;
  s.notes.push_back("weights: " + std::to_string(Ws.rows()) + " rows of '" + fs::path(file).filename().string() +
                    "' on the surface, " + (src.voxel ? "fitted to the voxels" : "harmonic inside") + " (" +
                    std::to_string(h.clamped) + " negatives clamped)");
}

}  // namespace

/// The hedgehog: point handles at mesh vertices (a DMAT of 1-based indices) and a DMAT of
/// per-frame affine handle transforms in normalised coordinates.
void load_vertex_handles(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                         const SurfaceSource& src) {
  s.layout = src.active ? "surface" : s.dim == 2 ? "matlab-2d-vertex-handles" : "vertex-handles";
  const std::string cfile = file_key(s, j, {"constraint_file"}, dir, json_path);
  VectorXi I = vertex_indices(read_dmat(cfile), src.active ? src.V.rows() : s.X.rows(), cfile, "handle vertex");
  if (src.active)
    for (Index h = 0; h < I.size(); ++h) I[h] = static_cast<int>(src.tet_vertex(I[h]));
  if (I.size() == 0) fail(cfile, "no handle vertices");
  s.kind = HandleKind::Points;
  s.handles = I.size();
  check_rig_memory(s.X.rows(), s.dim, s.handles, json_path);
  std::vector<std::vector<Index>> pins;
  std::vector<Index> owner(static_cast<std::size_t>(s.X.rows()), -1);
  for (Index h = 0; h < I.size(); ++h) {
    if (owner[I(h)] >= 0)
      fail(cfile, "handles " + std::to_string(owner[I(h)]) + " and " + std::to_string(h) + " are both vertex " +
                      std::to_string(I(h) + 1));
    owner[I(h)] = h;
    pins.push_back({I(h)});
  }
  const std::string weights = file_key(s, j, {"weight_file"}, dir, json_path, false);
  if (!weights.empty()) {
    read_weight_file(s, weights, json_path, src);
  } else {
    automatic_weights(s, pins, json_path);
  }
  normalize_scene(s, json_path);
  s.handle_points.resize(s.handles, s.dim);
  for (Index h = 0; h < s.handles; ++h) s.handle_points.row(h) = s.X.row(I(h));
  s.rest_pose = identity_pose(s.handles, s.dim);
  const std::string anim = file_key(s, j, {"anim_file"}, dir, json_path);
  const MatrixXd Z = read_dmat(anim);
  const Index per = s.dim * (s.dim + 1);
  if (Z.cols() != s.handles * per)
    fail(anim, "the handle animation has " + std::to_string(Z.cols()) + " columns; " + std::to_string(s.handles) +
                   " handles need " + std::to_string(s.handles * per) + " (one affine " + std::to_string(s.dim) +
                   " x " + std::to_string(s.dim + 1) + " transform each, per frame)");
  if (!Z.allFinite()) fail(anim, "the handle animation has NaN or infinite entries");
  for (Index f = 0; f < Z.rows(); ++f) s.poses.push_back(pose_from_lbs_column(Z.row(f), s.handles, s.dim));
}

/// Both releases' handle layout: a TGF of bones (forward kinematics) or point handles, weights
/// from a DMAT (or automatic), the release's animation format.
void load_tgf_handles(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                      const SurfaceSource& src) {
  s.layout = s.dim == 2 ? "matlab-2d" : src.active ? "surface" : "cpp-3d";
  const TgfGraph g = read_tgf(file_key(s, j, {"handle_file"}, dir, json_path));
  s.kind = g.BE.rows() > 0 ? HandleKind::Bones : HandleKind::Points;
  if (g.BE.rows() > 0 && g.P.size() > 0)
    fail(json_path, "mixed point handles and bones are not supported (" + std::to_string(g.P.size()) + " points, " +
                        std::to_string(g.BE.rows()) + " bones)");
  s.handles = s.kind == HandleKind::Bones ? g.BE.rows() : g.P.size();
  if (s.handles == 0) fail(json_path, "the handle file defines no handles");
  const VectorXi P = s.kind == HandleKind::Bones ? bone_parents(g.BE) : VectorXi();
  check_rig_memory(s.X.rows(), s.dim, s.handles, json_path);
  const std::string weights = file_key(s, j, {"weight_file"}, dir, json_path, false);
  if (!weights.empty()) {
    read_weight_file(s, weights, json_path, src);
  } else {
    // No weights: unconstrained biharmonic weights pinned at the handles (partition of unity).
    const MatrixXd C = g.C.leftCols(s.dim);
    std::vector<std::vector<Index>> pins;
    for (Index hnd = 0; hnd < s.handles; ++hnd) {
      const VectorXd a = C.row(s.kind == HandleKind::Bones ? g.BE(hnd, 0) : g.P(hnd)).transpose();
      const VectorXd b = s.kind == HandleKind::Bones ? VectorXd(C.row(g.BE(hnd, 1)).transpose()) : a;
      pins.push_back(nearest_vertices_on_segment(s.X, a, b, s.kind == HandleKind::Bones ? 10 : 1));
    }
    // Bones sharing a joint pin the same vertex there: keep it with the first bone.
    std::vector<char> taken(static_cast<std::size_t>(s.X.rows()), 0);
    for (auto& p : pins) {
      std::vector<Index> own;
      for (Index v : p)
        if (!taken[v]) own.push_back(v), taken[v] = 1;
      if (own.empty()) fail(json_path, "two handles sit on the same mesh vertex; cannot compute weights");
      p = own;
    }
    automatic_weights(s, pins, json_path);
  }
  normalize_scene(s, json_path);
  s.rest_pose = identity_pose(s.handles, s.dim);
  if (s.kind == HandleKind::Points) {
    s.handle_points.resize(s.handles, s.dim);
    for (Index h = 0; h < s.handles; ++h)
      s.handle_points.row(h) = (g.C.row(g.P(h)).leftCols(s.dim) - s.center.transpose()) / s.half_extent;
  }
  const std::string anim = file_key(s, j, {"anim_file"}, dir, json_path);
  if (s.dim == 2) {
    const Animation2D a = read_animation_2d(anim);
    if (a.rest.rows() != s.handles)
      fail(json_path,
           "the animation has " + std::to_string(a.rest.rows()) + " handles, the rig " + std::to_string(s.handles));
    for (Index f = 0; f < static_cast<Index>(a.frames.size()); ++f) {
      std::vector<MatrixXd> A = to_file_poses_2d(g, P, a, f, s.kind);
      for (auto& Ab : A) Ab = normalize_affine(Ab, s.center, s.half_extent);
      s.poses.push_back(pack_affine_pose(A));
    }
  } else if (s.kind == HandleKind::Bones) {
    bone_poses_3d(s, g, anim, json_path);
  } else {
    point_poses_3d(s, g, anim, json_path);
  }
}

void make_rig(Scene& s, const std::string& rig_opt, const std::string& json_path) {
  if (rig_opt == "wire") {
    if (s.dim != 2 || s.kind != HandleKind::Points)
      fail(json_path, "the wire rig needs a 2D scene with point handles (this one has " +
                          std::string(s.kind == HandleKind::Bones ? "bones" : "3D handles") + ")");
    // Handle positions per frame: each point handle's affine pose applied to its rest position.
    const Index H = s.handles, per = 6;
    for (VectorXd& p : s.poses) {
      VectorXd c(2 * H);
      for (Index h = 0; h < H; ++h) {
        const Eigen::Map<const Eigen::Matrix<double, 2, 3>> A(p.data() + h * per);
        c.segment<2>(2 * h) = A.leftCols<2>() * s.handle_points.row(h).transpose() + A.col(2);
      }
      p = c;
    }
    s.rest_pose = flatten(s.handle_points);
    s.rig = std::make_shared<WireRig>(s.X, s.handle_points);
  } else {
    // (Bones and point handles alike: p is an [A | t] per handle, so each reports its frame.)
    s.rig = std::make_shared<LinearRig>(lbs_jacobian(s.X, s.W), s.rest_pose, s.dim,
                                        s.kind == HandleKind::Bones ? "lbs (bones)" : "lbs (point handles)",
                                        RigParams::AffineHandles);
  }
}

}  // namespace fastcd::scene_parts
