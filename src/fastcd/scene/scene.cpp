#include "fastcd/scene/scene.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fastcd/cd/skeleton.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/biharmonic_weights.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/anim_io.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"

namespace fastcd {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(printable("load_scene: '" + path + "': " + what));
}

double number(const nlohmann::json& j, const char* key, double fallback, const std::string& path) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_number()) fail(path, std::string("\"") + key + "\" must be a number");
  return j[key].get<double>();
}

std::string file_key(const nlohmann::json& j, std::initializer_list<const char*> keys, const fs::path& dir,
                     const std::string& path, bool required = true) {
  for (const char* k : keys)
    if (j.contains(k)) {
      if (!j[k].is_string()) fail(path, std::string("\"") + k + "\" must be a file name");
      // Relative to the JSON's folder, or (the MATLAB release's layout, whose scripts run one
      // folder up) to its parent.
      const fs::path rel = j[k].get<std::string>();
      for (const fs::path& base : {dir, dir.parent_path()})
        if (fs::exists(base / rel)) return (base / rel).lexically_normal().string();
      fail(path, std::string("\"") + k + "\" names a missing file: " + (dir / rel).string());
    }
  if (required) fail(path, std::string("missing \"") + *keys.begin() + "\"");
  return {};
}

/// Rejects degenerate rest elements (detail::is_degenerate, the test the operators apply) and
/// inverted ones: elements whose orientation is opposite to the mesh's majority, i.e. folded or
/// tangled rest elements (or inconsistently ordered vertices). A mesh oriented negatively
/// throughout is a convention and loads.
template <int dim>
void check_elements(const Scene& s, const std::string& mesh_file, const std::string& path) {
  const Index m = s.T.rows();
  if (m == 0) fail(path, "the mesh '" + mesh_file + "' has no elements");
  Index positive = 0, first_pos = -1, first_neg = -1;
  for (Index e = 0; e < m; ++e) {
    const double det = fastcd::detail::edge_matrix<dim>(s.X, s.T, e).determinant();
    const double h = fastcd::detail::longest_edge<dim>(s.X, s.T, e);
    if (fastcd::detail::is_degenerate<dim>(det, h)) {
      std::ostringstream os;
      os << "element " << e << " of '" << mesh_file << "' is degenerate (vertices " << s.T(e, 0);
      for (int a = 1; a <= dim; ++a) os << ", " << s.T(e, a);
      os << "; rest " << (dim == 2 ? "area " : "volume ") << det / (dim == 2 ? 2.0 : 6.0) << ", longest edge " << h
         << "): remove it or fix the mesh";
      fail(path, os.str());
    }
    if (det > 0) {
      ++positive;
      if (first_pos < 0) first_pos = e;
    } else if (first_neg < 0) {
      first_neg = e;
    }
  }
  const Index negative = m - positive;
  if (positive > 0 && negative > 0) {
    const bool neg_minority = negative <= positive;
    const Index bad = neg_minority ? first_neg : first_pos, count = neg_minority ? negative : positive;
    std::ostringstream os;
    os << "element " << bad << " of '" << mesh_file << "' is inverted: " << count << " of " << m
       << " elements are oriented opposite to the rest (folded rest elements or inconsistent vertex order; "
          "reorient them or fix the mesh)";
    fail(path, os.str());
  }
}

void read_mesh_file(Scene& s, const std::string& mesh_file, const std::string& path) {
  const std::string ext = fs::path(mesh_file).extension().string();
  if (ext != ".obj" && ext != ".mesh" && ext != ".msh" && ext != ".node")
    fail(path, "unsupported mesh format '" + ext + "' (use .obj (2D), .mesh, .msh or .node)");
  const Mesh m = read_volume_mesh(mesh_file);
  s.X = m.X;
  s.T = m.T;
  s.dim = s.X.cols();
  if (s.dim == 3 && s.T.cols() != 4) fail(path, "the 3D mesh has no tetrahedra");
  fastcd::detail::dispatch_dim(s.dim, "load_scene", [&]<int d>() { check_elements<d>(s, mesh_file, path); });
  s.surface = s.dim == 3 ? boundary_facets(s.T).F : s.T;
}

std::vector<MatrixXd> to_file_poses_2d(const TgfGraph& g, const Animation2D& a, Index f, HandleKind kind) {
  const MatrixXd C = g.C.leftCols(2);
  const MatrixXd& fr = a.frames[static_cast<std::size_t>(f)];
  const MatrixXd offset = fr.leftCols(2) - a.rest.leftCols(2);
  const double d2r = EIGEN_PI / 180.0;
  if (kind == HandleKind::Bones) return forward_kinematics_2d(C, g.BE, bone_parents(g.BE), fr.col(2), offset);
  std::vector<MatrixXd> out;
  for (Index h = 0; h < fr.rows(); ++h) {
    MatrixXd A = rotation_about_2d(fr(h, 2) * d2r, C.row(g.P(h)).transpose());
    A.col(2) += offset.row(h).transpose();
    out.push_back(A);
  }
  return out;
}

void normalize_scene(Scene& s, const std::string& json_path) {
  // Normalise as both releases do: centre of the bounding box, largest centred coordinate.
  s.center = ((s.X.colwise().maxCoeff() + s.X.colwise().minCoeff()) / 2.0).transpose();
  const MatrixXd Xc = s.X.rowwise() - s.center.transpose();
  s.scale = Xc.maxCoeff();
  if (!(s.scale > 0)) fail(json_path, "the mesh is degenerate (zero extent)");
  s.X = Xc / s.scale;
}

/// The walrus: a closed cage polygon (TGF edges) driving the mesh by generalized barycentric
/// coordinates; the animation is a DMAT of cage positions.
Scene load_cage_scene(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                      const SceneOptions& opt) {
  if (s.dim != 2) fail(json_path, "cage scenes are 2D (a closed polygon cage); this mesh is 3D");
  if (opt.rig == "lbs" || opt.rig == "wire")
    fail(json_path, "rig option '" + opt.rig + "' does not apply to a cage scene (use auto, mvc or harmonic)");
  const std::string cage_file = file_key(j, {"skeleton_file"}, dir, json_path);
  const TgfGraph g = read_tgf(cage_file);
  if (g.C.rows() < 3 || g.E.rows() < 3)
    fail(cage_file, "a cage needs at least 3 vertices and 3 edges, got " + std::to_string(g.C.rows()) + " and " +
                        std::to_string(g.E.rows()));
  normalize_scene(s, json_path);
  s.kind = HandleKind::Cage;
  s.handles = g.C.rows();
  s.handle_points = (g.C.leftCols(2).rowwise() - s.center.transpose()) / s.scale;
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
  const std::string anim = file_key(j, {"anim_file"}, dir, json_path);
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
  return s;
}

}  // namespace

Scene load_scene(const std::string& json_path, const SceneOptions& opt) {
  std::ifstream in(json_path);
  if (!in) fail(json_path, "cannot open the scene file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    fail(json_path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(json_path, "the scene must be a JSON object");
  const fs::path dir = fs::path(json_path).parent_path();
  Scene s;
  s.name = fs::path(json_path).stem().string();
  s.dt = number(j, "dt", 0.01, json_path);
  s.ym = number(j, "YM", 1e5, json_path);
  s.pr = number(j, "pr", 0.0, json_path);
  s.rho = number(j, "rho", 1.0, json_path);
  s.with_dynamics = number(j, "with_dynamics", 1, json_path) != 0;
  if (!(s.dt > 0)) fail(json_path, "dt must be > 0, got " + std::to_string(s.dt));
  if (!(s.ym > 0)) fail(json_path, "YM must be > 0, got " + std::to_string(s.ym));
  if (!(s.rho > 0) || !std::isfinite(s.rho)) fail(json_path, "rho must be > 0, got " + std::to_string(s.rho));
  if (!(s.pr > -1 && s.pr < 0.5)) fail(json_path, "pr must lie in (-1, 0.5), got " + std::to_string(s.pr));
  if (j.contains("model")) {
    if (!j["model"].is_string()) fail(json_path, "\"model\" must be a string");
    s.model = j["model"].get<std::string>();
    if (s.model != "arap")
      s.warnings.push_back("scene asks for the '" + s.model + "' material; fastcd simulates ARAP (same YM and pr)");
  }
  const std::string rig_opt = opt.rig;
  if (rig_opt != "auto" && rig_opt != "lbs" && rig_opt != "wire" && rig_opt != "mvc" && rig_opt != "harmonic")
    fail(json_path, "unknown rig option '" + rig_opt + "' (use auto, lbs, wire, mvc or harmonic)");

  read_mesh_file(s, file_key(j, {"mesh_file"}, dir, json_path), json_path);
  if (j.contains("skeleton_file") && !j.contains("handle_file")) return load_cage_scene(s, j, dir, json_path, opt);
  if (rig_opt == "mvc" || rig_opt == "harmonic")
    fail(json_path, "rig option '" + rig_opt + "' needs a cage scene (\"skeleton_file\" with a closed cage)");
  const TgfGraph g = read_tgf(file_key(j, {"handle_file"}, dir, json_path));
  s.kind = g.BE.rows() > 0 ? HandleKind::Bones : HandleKind::Points;
  if (g.BE.rows() > 0 && g.P.size() > 0)
    fail(json_path, "mixed point handles and bones are not supported (" + std::to_string(g.P.size()) + " points, " +
                        std::to_string(g.BE.rows()) + " bones)");
  s.handles = s.kind == HandleKind::Bones ? g.BE.rows() : g.P.size();
  const std::string weights = file_key(j, {"weight_file"}, dir, json_path, false);
  if (!weights.empty()) {
    s.W = read_dmat(weights);
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
    s.W = biharmonic_weights(s.X, s.T, pins);
    s.warnings.push_back("no weight_file: using unconstrained biharmonic weights pinned at the handles");
  }
  if (s.W.rows() != s.X.rows())
    fail(json_path, "the weights have " + std::to_string(s.W.rows()) + " rows but the mesh has " +
                        std::to_string(s.X.rows()) + " vertices");
  if (s.W.cols() != s.handles)
    fail(json_path,
         "the weights have " + std::to_string(s.W.cols()) + " columns for " + std::to_string(s.handles) + " handles");

  normalize_scene(s, json_path);
  s.rest_pose = identity_pose(s.handles, s.dim);
  if (s.kind == HandleKind::Points) {
    s.handle_points.resize(s.handles, s.dim);
    for (Index h = 0; h < s.handles; ++h)
      s.handle_points.row(h) = (g.C.row(g.P(h)).leftCols(s.dim) - s.center.transpose()) / s.scale;
  }

  // Render surface: named in the JSON, or the release's convention of <name>.obj beside <name>.mesh.
  std::string render = file_key(j, {"render_mesh_file"}, dir, json_path, false);
  if (render.empty() && s.dim == 3) {
    const fs::path guess = fs::path(file_key(j, {"mesh_file"}, dir, json_path)).replace_extension(".obj");
    if (fs::exists(guess)) render = guess.string();
  }
  if (!render.empty() && s.dim == 3) {
    const SurfaceMesh r = read_obj(render);
    s.render_V = (r.V.rowwise() - s.center.transpose()) / s.scale;
    s.render_F = r.F;
    const Embedding emb = embed_points(s.X, s.T, s.render_V);
    s.render_E = emb.E;
    s.render_max_distance = emb.distance.maxCoeff();
  }

  const std::string anim = file_key(j, {"anim_file"}, dir, json_path);
  const Index d = s.dim;
  if (d == 2) {
    const Animation2D a = read_animation_2d(anim);
    if (a.rest.rows() != s.handles)
      fail(json_path,
           "the animation has " + std::to_string(a.rest.rows()) + " handles, the rig " + std::to_string(s.handles));
    for (Index f = 0; f < static_cast<Index>(a.frames.size()); ++f) {
      std::vector<MatrixXd> A = to_file_poses_2d(g, a, f, s.kind);
      for (auto& Ab : A) Ab = normalize_affine(Ab, s.center, s.scale);
      s.poses.push_back(pack_affine_pose(A));
    }
  } else {
    const MatrixXd C = (g.C.rowwise() - s.center.transpose()) / s.scale;
    const double d2r = EIGEN_PI / 180.0;
    if (s.kind == HandleKind::Bones) {
      const BoneAnimation3D a = read_bone_animation_3d(anim);
      if (a.bone_rest_euler.rows() != s.handles)
        fail(json_path, "the animation has " + std::to_string(a.bone_rest_euler.rows()) + " bones, the rig " +
                            std::to_string(s.handles));
      const VectorXi P = bone_parents(g.BE);
      const Index roots = (P.array() < 0).count();
      const Eigen::Vector3d root_rest = (a.root_rest_translation - s.center) / s.scale;
      const Eigen::Matrix3d root_axes = euler_about_axes(a.root_rest_euler * d2r).toRotationMatrix();
      std::vector<Eigen::Matrix3d> rest_axes;
      for (Index b = 0; b < s.handles; ++b)
        rest_axes.push_back(euler_about_axes(a.bone_rest_euler.row(b).transpose() * d2r).toRotationMatrix());
      for (std::size_t f = 0; f < a.root_rotation.size(); ++f) {
        const Eigen::Quaterniond root_q = euler_about_axes(a.root_rotation[f] * d2r, root_axes);
        const Eigen::Vector3d root_t = (a.root_translation[f] - s.center) / s.scale;
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
    } else {
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
          const Eigen::Vector3d t = (a.translation[f].row(h).transpose() - s.center) / s.scale -
                                    (a.rest_translation.row(h).transpose() - s.center) / s.scale + c - R * c;
          MatrixXd Ah(3, 4);
          Ah << R, t;
          A.push_back(Ah);
        }
        s.poses.push_back(pack_affine_pose(A));
      }
    }
  }
  const SparseMatrix Jlbs = lbs_jacobian(s.X, s.W);
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
    s.rig = std::make_shared<LinearRig>(Jlbs, s.rest_pose, s.dim,
                                        s.kind == HandleKind::Bones ? "lbs (bones)" : "lbs (point handles)");
  }
  return s;
}

}  // namespace fastcd
