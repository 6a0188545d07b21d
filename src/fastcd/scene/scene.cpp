#include "fastcd/scene/scene.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fastcd/cd/skeleton.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/geometry/biharmonic_weights.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "fastcd/geometry/harmonic_weights.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/anim_io.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/meshing/shells.hpp"
#include "fastcd/meshing/surface.hpp"
#include "fastcd/meshing/voxel.hpp"
#include "fastcd/scene/gltf_scene.hpp"

namespace fastcd {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(printable("load_scene: '" + path + "': " + what));
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// ---------------------------------------------------------------------------- keys

/// Every key a scene may have (both releases' and fastcd's own).
const std::vector<std::string> kKeys = {"mesh_file",
                                        "handle_file",
                                        "weight_file",
                                        "anim_file",
                                        "skeleton_file",
                                        "constraint_file",
                                        "dt",
                                        "YM",
                                        "pr",
                                        "rho",
                                        "mu",
                                        "lambda",
                                        "model",
                                        "with_dynamics",
                                        "frame_num",
                                        "fixed_region_file",
                                        "render_mesh_file",
                                        "scale",
                                        "image_file",
                                        "rendering",
                                        "character_file",
                                        "clip",
                                        "metres_per_unit",
                                        "mesher",
                                        "voxel_resolution"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The valid key an unknown one most likely meant ("" when nothing is close): words people use
/// for the same setting first, then the closest spelling.
std::string nearest_key(const std::string& key) {
  static const std::vector<std::pair<std::string, std::string>> kSynonyms = {{"young", "YM"},
                                                                             {"youngs", "YM"},
                                                                             {"e", "YM"},
                                                                             {"stiffness", "YM"},
                                                                             {"poisson", "pr"},
                                                                             {"nu", "pr"},
                                                                             {"density", "rho"},
                                                                             {"timestep", "dt"},
                                                                             {"time_step", "dt"},
                                                                             {"h", "dt"},
                                                                             {"mesh", "mesh_file"},
                                                                             {"weights", "weight_file"},
                                                                             {"animation", "anim_file"},
                                                                             {"anim", "anim_file"},
                                                                             {"handles", "handle_file"},
                                                                             {"skeleton", "skeleton_file"},
                                                                             {"frames", "frame_num"},
                                                                             {"material", "model"},
                                                                             {"dynamics", "with_dynamics"},
                                                                             {"fixed", "fixed_region_file"},
                                                                             {"render_mesh", "render_mesh_file"},
                                                                             {"character", "character_file"},
                                                                             {"gltf", "character_file"},
                                                                             {"units", "metres_per_unit"}};
  const std::string k = lower(key);
  for (const auto& [word, valid] : kSynonyms)
    if (k == word || (k.size() > 3 && k.rfind(word, 0) == 0 && word.size() > 3)) return valid;
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const std::string& valid : kKeys) {
    const std::size_t d = edit_distance(k, lower(valid));
    if (d < best_d) best_d = d, best = valid;
  }
  return best_d <= std::max<std::size_t>(2, key.size() / 3) ? best : std::string();
}

void check_keys(const nlohmann::json& j, const std::string& path) {
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) continue;
    const std::string near = nearest_key(key);
    fail(path, "unknown key '" + key + "'" + (near.empty() ? std::string() : " — did you mean '" + near + "'?") +
                   " (the keys are listed in docs/scene-format.md)");
  }
}

double number(const nlohmann::json& j, const char* key, double fallback, const std::string& path) {
  if (!j.contains(key)) return fallback;
  // A flag MATLAB's jsonencode may write as true / false; no other number may be a boolean.
  if (j[key].is_boolean() && std::string(key) == "with_dynamics") return j[key].get<bool>() ? 1.0 : 0.0;
  if (!j[key].is_number()) fail(path, std::string("\"") + key + "\" must be a number");
  return j[key].get<double>();
}

double required_number(const nlohmann::json& j, const char* key, const std::string& what, const std::string& path) {
  if (!j.contains(key)) fail(path, std::string("missing \"") + key + "\" (" + what + "): the scene must say it");
  return number(j, key, 0.0, path);
}

std::string file_key(Scene& s, const nlohmann::json& j, std::initializer_list<const char*> keys, const fs::path& dir,
                     const std::string& path, bool required = true) {
  for (const char* k : keys)
    if (j.contains(k)) {
      if (!j[k].is_string()) fail(path, std::string("\"") + k + "\" must be a file name");
      // Relative to the JSON's folder, or (the MATLAB release's layout, whose scripts run one
      // folder up) to its parent.
      const fs::path rel = j[k].get<std::string>();
      for (const fs::path& base : {dir, dir.parent_path()})
        if (fs::exists(base / rel)) {
          const std::string found = (base / rel).lexically_normal().string();
          s.input_files.push_back(fs::absolute(found).lexically_normal().string());
          return found;
        }
      fail(path, std::string("\"") + k + "\" names a missing file: " + (dir / rel).string());
    }
  if (required) fail(path, std::string("missing \"") + *keys.begin() + "\"");
  return {};
}

// ---------------------------------------------------------------------------- mesh

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

/// A closed triangle surface given as the scene's mesh (a 3D OBJ, OFF or PLY), filled with tets:
/// the scene's vertex-indexed files (weights, handle vertices, fixed region) count the
/// surface's own vertices, which this maps onto the tets.
struct SurfaceSource {
  bool active = false;
  std::string file;
  MatrixXd V;  ///< the file's vertices (file units)
  MatrixXi F;  ///< its triangles
  bool voxel = false;
  VectorXi weld;     ///< Netgen / TetGen: tet vertex of each surface vertex
  SparseMatrix E;    ///< voxel: the surface vertices in the tets (barycentric rows)
  VectorXi element;  ///< voxel: their tets
  double max_distance = 0;

  /// The tet vertex standing for surface vertex v (voxel: its heaviest corner).
  Index tet_vertex(Index v) const {
    if (!voxel) return weld[v];
    Index best = -1;
    double w = -1e300;
    for (SparseMatrix::InnerIterator it(E, v); it; ++it)
      if (it.value() > w) w = it.value(), best = it.col();
    return best;
  }
};

std::string lower_extension(const std::string& file) {
  std::string e = fs::path(file).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

/// Fills a surface mesh with tets (Netgen, TetGen or the voxel grid, as the scene or the
/// options say), cached in options.cache_dir when given.
SurfaceSource fill_surface(Scene& s, SurfaceMesh m, const std::string& mesh_file, const std::string& path,
                           const nlohmann::json& j, const SceneOptions& opt) {
  SurfaceSource src;
  src.active = true;
  src.file = mesh_file;
  src.V = m.V;
  src.F = m.F;
  std::string mesher = "netgen";
  if (j.contains("mesher")) {
    if (!j["mesher"].is_string()) fail(path, "\"mesher\" must be a string (netgen, tetgen or voxel)");
    mesher = j["mesher"].get<std::string>();
  }
  if (!opt.mesher.empty()) mesher = opt.mesher;
  if (mesher != "netgen" && mesher != "tetgen" && mesher != "voxel")
    fail(path, "unknown mesher '" + mesher + "' (use netgen, tetgen or voxel)");
  const double res = number(j, "voxel_resolution", opt.voxel_resolution > 0 ? opt.voxel_resolution : 24, path);
  if (!(res >= 2 && res <= 256) || res != std::floor(res))
    fail(path, "voxel_resolution must be a whole number in [2, 256], got " + fmt(res));
  const std::string name = fs::path(mesh_file).filename().string();
  detail::report_progress("loading", "filling the surface with tets", 0, 4);
  const WeldedSurface w = weld_surface(m.V, m.F);
  if (mesher == "voxel") {
    VoxelOptions vo;
    vo.resolution = static_cast<int>(res);
    VoxelMesh vm;
    try {
      vm = voxel_mesh(w.V, w.F, vo);
    } catch (const std::exception& e) {
      fail(path, "voxelising the surface '" + name + "': " + e.what());
    }
    s.X = std::move(vm.X);
    s.T = std::move(vm.T);
    s.surface = boundary_facets(s.T).F;
    const Embedding emb = embed_points(s.X, s.T, m.V);
    src.voxel = true;
    src.E = emb.E;
    src.element = emb.element;
    src.max_distance = emb.distance.size() > 0 ? emb.distance.maxCoeff() : 0.0;
    s.notes.push_back("'" + name + "': " + std::to_string(m.V.rows()) + " vertices, " + std::to_string(m.F.rows()) +
                      " triangles; voxels: " + std::to_string(s.X.rows()) + " vertices, " + std::to_string(s.T.rows()) +
                      " tets (" + std::to_string(vo.resolution) + " cells along the longest side)");
    return src;
  }
  TetrahedralizeOptions to;
  to.mesher = mesher;
  ShellTetMesh tm;
  try {
    tm = tetrahedralize_shells(w.V, w.F, to, opt.cache_dir);
  } catch (const std::invalid_argument& e) {
    fail(path, "the surface '" + name + "' does not bound a solid (after welding " + std::to_string(m.V.rows()) +
                   " vertices to " + std::to_string(w.V.rows()) + "; welded indices): " + e.what() +
                   ". Close it in the modelling tool, or use the voxel mesher (\"mesher\": \"voxel\", --mesher voxel)");
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    fail(path, "tetrahedralising the surface '" + name + "': " + e.what());
  }
  for (const std::string& note : tm.tets.warnings)  // the tet cache's, once each
    if (std::find(s.warnings.begin(), s.warnings.end(), note) == s.warnings.end()) s.warnings.push_back(note);
  if (tm.reversed > 0)
    s.warnings.push_back(std::to_string(tm.reversed) + " of the surface's " + std::to_string(tm.shells) +
                         " shells wind inward; reversed for meshing (the output keeps the file's)");
  s.notes.push_back(
      "'" + name + "': " + std::to_string(m.V.rows()) + " vertices, " + std::to_string(m.F.rows()) +
      " triangles, welded to " + std::to_string(w.V.rows()) + "; " + (mesher == "tetgen" ? "TetGen" : "Netgen") + ": " +
      (tm.shells > 1 ? std::to_string(tm.shells) + " shells, " : std::string()) + std::to_string(tm.tets.X.rows()) +
      " vertices, " + std::to_string(tm.tets.T.rows()) + " tets, min dihedral " +
      fmt(std::round(tm.tets.min_dihedral * 100) / 100) + " deg, " +
      (tm.cached == tm.shells ? std::string("from the cache") : fmt(std::round(tm.tets.seconds * 100) / 100) + " s"));
  s.X = std::move(tm.tets.X);
  s.T = std::move(tm.tets.T);
  s.surface = std::move(tm.F);
  src.weld = w.map;
  return src;
}

SurfaceSource read_mesh_file(Scene& s, const std::string& mesh_file, const std::string& path, const nlohmann::json& j,
                             const SceneOptions& opt) {
  const std::string ext = lower_extension(mesh_file);
  if (ext != ".obj" && ext != ".mesh" && ext != ".msh" && ext != ".node" && ext != ".off" && ext != ".ply")
    fail(path, "unsupported mesh format '" + ext +
                   "' (use .obj (2D, or a closed 3D surface), .off or .ply (closed surfaces), .mesh, .msh or .node)");
  // A surface: OFF, PLY, or an OBJ whose z varies (a planar OBJ is a 2D scene's mesh).
  if (ext == ".off" || ext == ".ply" || ext == ".obj") {
    SurfaceMesh m = read_surface(mesh_file);
    const bool planar = ext == ".obj" && m.V.rows() > 0 && (m.V.col(2).array() == m.V(0, 2)).all();
    if (!planar) {
      s.dim = 3;
      SurfaceSource src = fill_surface(s, std::move(m), mesh_file, path, j, opt);
      fastcd::detail::dispatch_dim(s.dim, "load_scene", [&]<int d>() { check_elements<d>(s, mesh_file, path); });
      if (ext == ".obj") s.output_obj = mesh_file;  // the baked surface keeps its OBJ (UVs, normals, materials)
      return src;
    }
  }
  for (const char* key : {"mesher", "voxel_resolution"})
    if (j.contains(key))
      s.warnings.push_back(std::string("\"") + key + "\" is not read: the mesh is already a " +
                           (ext == ".obj" ? "2D triangle mesh" : "tet mesh"));
  const Mesh m = read_volume_mesh(mesh_file);
  if (ext == ".node") s.input_files.push_back(fs::absolute(fs::path(mesh_file).replace_extension(".ele")).string());
  s.X = m.X;
  s.T = m.T;
  s.dim = s.X.cols();
  if (s.dim == 3 && s.T.cols() != 4) fail(path, "the 3D mesh has no tetrahedra");
  fastcd::detail::dispatch_dim(s.dim, "load_scene", [&]<int d>() { check_elements<d>(s, mesh_file, path); });
  s.surface = s.dim == 3 ? boundary_facets(s.T).F : s.T;
  if (s.dim == 2 && ext == ".obj") s.output_obj = mesh_file;  // the baked 2D mesh keeps its OBJ
  return {};
}

void normalize_scene(Scene& s, const std::string& json_path) {
  // Normalise as both releases do: centre of the bounding box, largest centred coordinate.
  s.center = ((s.X.colwise().maxCoeff() + s.X.colwise().minCoeff()) / 2.0).transpose();
  const MatrixXd Xc = s.X.rowwise() - s.center.transpose();
  s.scale = Xc.maxCoeff();
  if (!(s.scale > 0)) fail(json_path, "the mesh is degenerate (zero extent)");
  s.X = Xc / s.scale;
}

/// 1-based vertex indices (a MATLAB DMAT) -> 0-based, each checked.
VectorXi vertex_indices(const MatrixXd& A, Index n, const std::string& file, const char* what) {
  VectorXi I(A.size());
  for (Index k = 0; k < A.size(); ++k) {
    const double v = A.data()[k];
    if (!(v == std::floor(v)) || v < 1 || v > static_cast<double>(n))
      fail(file, std::string(what) + " entry " + std::to_string(k) + " is " + fmt(v) +
                     ", not a 1-based vertex index in [1, " + std::to_string(n) + "]");
    I(k) = static_cast<int>(v) - 1;
  }
  return I;
}

// ---------------------------------------------------------------------------- weights

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
  const MatrixXd C = (g.C.rowwise() - s.center.transpose()) / s.scale;
  const double d2r = EIGEN_PI / 180.0;
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
}

void point_poses_3d(Scene& s, const TgfGraph& g, const std::string& anim, const std::string& json_path) {
  const MatrixXd C = (g.C.rowwise() - s.center.transpose()) / s.scale;
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
      const Eigen::Vector3d t = (a.translation[f].row(h).transpose() - s.center) / s.scale -
                                (a.rest_translation.row(h).transpose() - s.center) / s.scale + c - R * c;
      MatrixXd Ah(3, 4);
      Ah << R, t;
      A.push_back(Ah);
    }
    s.poses.push_back(pack_affine_pose(A));
  }
}

// ---------------------------------------------------------------------------- layouts

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
      s.handle_points.row(h) = (g.C.row(g.P(h)).leftCols(s.dim) - s.center.transpose()) / s.scale;
  }
  const std::string anim = file_key(s, j, {"anim_file"}, dir, json_path);
  if (s.dim == 2) {
    const Animation2D a = read_animation_2d(anim);
    if (a.rest.rows() != s.handles)
      fail(json_path,
           "the animation has " + std::to_string(a.rest.rows()) + " handles, the rig " + std::to_string(s.handles));
    for (Index f = 0; f < static_cast<Index>(a.frames.size()); ++f) {
      std::vector<MatrixXd> A = to_file_poses_2d(g, P, a, f, s.kind);
      for (auto& Ab : A) Ab = normalize_affine(Ab, s.center, s.scale);
      s.poses.push_back(pack_affine_pose(A));
    }
  } else if (s.kind == HandleKind::Bones) {
    bone_poses_3d(s, g, anim, json_path);
  } else {
    point_poses_3d(s, g, anim, json_path);
  }
}

/// The release's fixed region: `fixed_region_file`, or <mesh stem>_fixed_region.dmat beside
/// the mesh (the MATLAB release ships the bird's so), 1-based vertex indices held on the rig.
void load_fixed_region(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                       const std::string& mesh_file, const SurfaceSource& src) {
  std::string file = file_key(s, j, {"fixed_region_file"}, dir, json_path, false);
  if (file.empty()) {
    const fs::path m(mesh_file);
    const fs::path guess = m.parent_path() / (m.stem().string() + "_fixed_region.dmat");
    if (!fs::exists(guess)) return;
    file = guess.string();
    s.input_files.push_back(fs::absolute(guess).lexically_normal().string());
  }
  VectorXi I = vertex_indices(read_dmat(file), src.active ? src.V.rows() : s.X.rows(), file, "fixed vertex");
  if (src.active)
    for (Index k = 0; k < I.size(); ++k) I[k] = static_cast<int>(src.tet_vertex(I[k]));
  std::sort(I.data(), I.data() + I.size());
  const Index unique = std::unique(I.data(), I.data() + I.size()) - I.data();
  s.fixed = I.head(unique);
  s.warnings.push_back(std::to_string(unique) + " vertices of '" + fs::path(file).filename().string() +
                       "' are held on the rig (the scene's fixed region)");
}

/// Render surface: named in the JSON, or the release's convention of <name>.obj beside <name>.mesh.
void load_render_mesh(Scene& s, const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                      const std::string& mesh_file, const SurfaceSource& src) {
  if (src.active) {  // the surface itself, each vertex on its tet vertex (voxel: in its tet)
    if (j.contains("render_mesh_file"))
      s.warnings.push_back("\"render_mesh_file\" is not read: a surface scene bakes its own surface");
    s.render_V = (src.V.rowwise() - s.center.transpose()) / s.scale;
    s.render_F = src.F;
    if (src.voxel) {
      s.render_E = src.E;
      s.render_element = src.element;
      s.render_max_distance = src.max_distance / s.scale;
      return;
    }
    std::vector<Triplet> sel;
    for (Index v = 0; v < src.V.rows(); ++v) sel.emplace_back(v, src.weld[v], 1.0);
    s.render_E.resize(src.V.rows(), s.X.rows());
    s.render_E.setFromTriplets(sel.begin(), sel.end());
    VectorXi incident = VectorXi::Constant(s.X.rows(), -1);
    for (Index t = 0; t < s.T.rows(); ++t)
      for (int k = 0; k < 4; ++k)
        if (incident[s.T(t, k)] < 0) incident[s.T(t, k)] = static_cast<int>(t);
    s.render_element.resize(src.V.rows());
    for (Index v = 0; v < src.V.rows(); ++v) s.render_element[v] = incident[src.weld[v]];
    s.render_max_distance = 0;
    return;
  }
  std::string render = file_key(s, j, {"render_mesh_file"}, dir, json_path, false);
  if (render.empty() && s.dim == 3) {
    const fs::path guess = fs::path(mesh_file).replace_extension(".obj");
    if (fs::exists(guess)) {
      render = guess.string();
      s.input_files.push_back(fs::absolute(guess).lexically_normal().string());
    }
  }
  if (!render.empty() && s.dim != 3)
    s.warnings.push_back("\"render_mesh_file\" is not read: a 2D scene bakes its own mesh");
  if (render.empty() || s.dim != 3) return;
  const SurfaceMesh r = read_obj(render);
  s.render_V = (r.V.rowwise() - s.center.transpose()) / s.scale;
  s.render_F = r.F;
  const Embedding emb = embed_points(s.X, s.T, s.render_V);
  s.render_E = emb.E;
  s.render_element = emb.element;
  s.render_max_distance = emb.distance.maxCoeff();
  s.output_obj = render;
}

}  // namespace

const std::vector<std::string>& scene_keys() { return kKeys; }

namespace {

/// glTF options from a scene's settings: the mesher and tet cache of the run.
GltfSceneOptions gltf_options(const SceneOptions& opt) {
  GltfSceneOptions g;
  if (!opt.mesher.empty()) g.tets.mesher = opt.mesher;
  if (opt.voxel_resolution > 0) g.voxel.resolution = opt.voxel_resolution;
  g.cache_dir = opt.cache_dir;
  return g;
}

/// A scene JSON naming a glTF character ("character_file") with its clip, units, material and
/// mesher; the material is physical (Pa, kg/m^3) as on the command line.
Scene load_character_scene(const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                           const SceneOptions& opt) {
  for (const char* key : {"mesh_file", "handle_file", "weight_file", "anim_file", "skeleton_file", "constraint_file",
                          "fixed_region_file", "render_mesh_file", "model", "scale"})
    if (j.contains(key))
      fail(json_path, std::string("\"") + key +
                          "\" does not apply to a \"character_file\" scene: the glTF file gives the mesh, skin and "
                          "animation");
  Scene unused;
  const std::string file = file_key(unused, j, {"character_file"}, dir, json_path);
  GltfSceneOptions g = gltf_options(opt);
  if (j.contains("clip")) {
    if (j["clip"].is_string())
      g.clip = j["clip"].get<std::string>();
    else if (j["clip"].is_number_integer() && j["clip"].get<long long>() >= 0)
      g.clip = std::to_string(j["clip"].get<long long>());
    else
      fail(json_path, "\"clip\" must be a clip name or a non-negative index");
  }
  g.dt = number(j, "dt", g.dt, json_path);
  g.metres_per_unit = number(j, "metres_per_unit", g.metres_per_unit, json_path);
  if (j.contains("mu") || j.contains("lambda")) {
    if (j.contains("YM") || j.contains("pr")) fail(json_path, "give either YM and pr or mu and lambda, not both");
    const double mu = required_number(j, "mu", "the Lame parameter mu, Pa", json_path);
    const double lambda = required_number(j, "lambda", "the Lame parameter lambda, Pa", json_path);
    if (!(mu > 0) || !(3 * lambda + 2 * mu > 0))
      fail(json_path, "mu must be > 0 and 3 lambda + 2 mu > 0 (a positive Young's modulus)");
    g.ym = mu * (3 * lambda + 2 * mu) / (lambda + mu);
    g.pr = lambda / (2 * (lambda + mu));
  } else {
    g.ym = number(j, "YM", g.ym, json_path);
    g.pr = number(j, "pr", g.pr, json_path);
  }
  g.rho = number(j, "rho", g.rho, json_path);
  if (j.contains("mesher") && opt.mesher.empty()) {
    if (!j["mesher"].is_string()) fail(json_path, "\"mesher\" must be a string (netgen, tetgen or voxel)");
    g.tets.mesher = j["mesher"].get<std::string>();
  }
  if (g.tets.mesher != "netgen" && g.tets.mesher != "tetgen" && g.tets.mesher != "voxel")
    fail(json_path, "unknown mesher '" + g.tets.mesher + "' (use netgen, tetgen or voxel)");
  if (opt.voxel_resolution <= 0) {
    const double res = number(j, "voxel_resolution", g.voxel.resolution, json_path);
    if (!(res >= 2 && res <= 256) || res != std::floor(res))
      fail(json_path, "voxel_resolution must be a whole number in [2, 256], got " + fmt(res));
    g.voxel.resolution = static_cast<int>(res);
  }
  Scene s = load_gltf_scene(file, g);
  s.name = fs::path(json_path).stem().string();
  s.input_files.insert(s.input_files.begin(), fs::absolute(json_path).lexically_normal().string());
  s.with_dynamics = number(j, "with_dynamics", 1, json_path) != 0;
  if (j.contains("frame_num")) {
    const double fnum = number(j, "frame_num", 0, json_path);
    if (!(fnum >= 1) || fnum != std::floor(fnum) || fnum > 1e9)
      fail(json_path, "frame_num must be a whole number >= 1, got " + fmt(fnum));
    if (static_cast<std::size_t>(fnum) < s.poses.size()) s.poses.resize(static_cast<std::size_t>(fnum));
    s.frames_declared = static_cast<Index>(fnum);
  }
  return s;
}

/// A scene from its JSON object: `json_path` names it in messages (a scene file, or the surface
/// of load_surface_scene), `dir` resolves its files.
Scene scene_from_json(const nlohmann::json& j, const std::string& json_path, const fs::path& dir,
                      const SceneOptions& opt) {
  check_keys(j, json_path);
  if (j.contains("image_file"))
    fail(json_path,
         "\"image_file\" (a mesh built from a PNG image, the 2020 release's amoeba) is not supported: "
         "give the scene a \"mesh_file\" instead");
  if (j.contains("character_file")) return load_character_scene(j, dir, json_path, opt);
  for (const char* key : {"clip", "metres_per_unit"})
    if (j.contains(key))
      fail(json_path, std::string("\"") + key + "\" is for a \"character_file\" scene (a glTF character)");
  Scene s;
  s.name = fs::path(json_path).stem().string();
  s.input_files.push_back(fs::absolute(json_path).lexically_normal().string());
  s.dt = required_number(j, "dt", "the time step, s", json_path);
  if (j.contains("mu") || j.contains("lambda")) {
    if (j.contains("YM") || j.contains("pr")) fail(json_path, "give either YM and pr or mu and lambda, not both");
    const double mu = required_number(j, "mu", "the Lame parameter mu", json_path);
    const double lambda = required_number(j, "lambda", "the Lame parameter lambda", json_path);
    // Young's modulus E = mu (3 lambda + 2 mu) / (lambda + mu) > 0 needs 3 lambda + 2 mu > 0.
    if (!(mu > 0) || !(3 * lambda + 2 * mu > 0))
      fail(json_path, "mu must be > 0 and 3 lambda + 2 mu > 0 (a positive Young's modulus), got mu = " +
                          std::to_string(mu) + ", lambda = " + std::to_string(lambda));
    s.ym = mu * (3 * lambda + 2 * mu) / (lambda + mu);
    s.pr = lambda / (2 * (lambda + mu));
  } else {
    s.ym = required_number(j, "YM", "Young's modulus, Pa", json_path);
    s.pr = required_number(j, "pr", "Poisson's ratio", json_path);
  }
  s.with_dynamics = number(j, "with_dynamics", 1, json_path) != 0;
  if (!(s.dt > 0)) fail(json_path, "dt must be > 0, got " + std::to_string(s.dt));
  if (!(s.ym > 0)) fail(json_path, "YM must be > 0, got " + std::to_string(s.ym));
  if (!(s.pr > -1 && s.pr < 0.5)) fail(json_path, "pr must lie in (-1, 0.5), got " + std::to_string(s.pr));
  if (j.contains("frame_num")) {
    const double fnum = number(j, "frame_num", 0, json_path);
    if (!(fnum >= 1) || fnum != std::floor(fnum) || fnum > 1e9)
      fail(json_path, "frame_num must be a whole number >= 1, got " + fmt(fnum));
    s.frames_declared = static_cast<Index>(fnum);
  }
  if (j.contains("scale") && number(j, "scale", 1.0, json_path) != 1.0)
    s.warnings.push_back(
        "\"scale\" is read by the C++ release but used by none of its examples; fastcd ignores it "
        "(positions are normalised like the releases and written back in the file's units)");
  if (j.contains("model")) {
    if (!j["model"].is_string()) fail(json_path, "\"model\" must be a string");
    s.model = j["model"].get<std::string>();
  }
  if (s.model != "arap") {
    if (opt.material != "arap")
      fail(json_path, "the scene asks for the '" + s.model +
                          "' material, which fastcd does not simulate (it simulates ARAP); to run it as ARAP with "
                          "the same YM and pr, say so (fastcd run --material arap)");
    s.warnings.push_back("the scene asks for the '" + s.model + "' material; simulated as ARAP, as asked");
  }
  if (!opt.material.empty() && opt.material != "arap")
    fail(json_path, "unknown material option '" + opt.material + "' (fastcd simulates arap)");
  const std::string rig_opt = opt.rig;
  if (rig_opt != "auto" && rig_opt != "lbs" && rig_opt != "wire" && rig_opt != "mvc" && rig_opt != "harmonic")
    fail(json_path, "unknown rig option '" + rig_opt + "' (use auto, lbs, wire, mvc or harmonic)");

  constexpr const char* kWork = "loading";
  detail::report_progress(kWork, "reading the mesh", 0, 4);
  const std::string mesh_file = file_key(s, j, {"mesh_file"}, dir, json_path);
  const SurfaceSource src = read_mesh_file(s, mesh_file, json_path, j, opt);
  detail::report_progress(kWork, "rig, weights and animation", 1, 4);
  const bool cage = j.contains("skeleton_file") && !j.contains("handle_file");
  if (!cage && (rig_opt == "mvc" || rig_opt == "harmonic"))
    fail(json_path, "rig option '" + rig_opt + "' needs a cage scene (\"skeleton_file\" with a closed cage)");
  // Keys the chosen layout does not read: say so rather than ignore them quietly.
  auto unused = [&](const char* key, const char* why) {
    if (j.contains(key)) s.warnings.push_back(std::string("\"") + key + "\" is not read: " + why);
  };
  if (cage) {
    unused("weight_file", "a cage scene's weights are its cage coordinates");
    unused("constraint_file", "a cage scene has no vertex handles");
  } else if (j.contains("handle_file")) {
    unused("skeleton_file", "the scene's handles come from \"handle_file\"");
    unused("constraint_file", "the scene's handles come from \"handle_file\"");
  }
  if (cage) {
    load_cage(s, j, dir, json_path, opt);
  } else if (j.contains("constraint_file") && !j.contains("handle_file")) {
    load_vertex_handles(s, j, dir, json_path, src);
  } else {
    load_tgf_handles(s, j, dir, json_path, src);
  }
  // Density: the releases' mass matrices (the MATLAB release's unit density in 2D, the C++
  // release's lumped mass times 1000 in 3D), unless the scene says.
  s.rho = number(j, "rho", s.dim == 3 ? 1000.0 : 1.0, json_path);
  if (!(s.rho > 0) || !std::isfinite(s.rho)) fail(json_path, "rho must be > 0, got " + std::to_string(s.rho));
  load_fixed_region(s, j, dir, json_path, mesh_file, src);
  detail::report_progress(kWork, "embedding the render mesh", 2, 4);
  load_render_mesh(s, j, dir, json_path, mesh_file, src);
  detail::report_progress(kWork, "checks", 3, 4);

  if (s.poses.empty()) fail(json_path, "the animation has no frames");
  const Index available = static_cast<Index>(s.poses.size());
  if (s.frames_declared > 0 && s.frames_declared < available) {
    s.poses.resize(static_cast<std::size_t>(s.frames_declared));
  } else if (s.frames_declared > available) {
    s.warnings.push_back("the scene declares " + std::to_string(s.frames_declared) +
                         " frames (frame_num) but its "
                         "animation has " +
                         std::to_string(available) + ": simulating " + std::to_string(available));
  }
  // Point handles far from the mesh: likely a unit mismatch between the handle and mesh files.
  if (s.kind == HandleKind::Points && s.handle_points.rows() > 0) {
    const double size = (s.X.colwise().maxCoeff() - s.X.colwise().minCoeff()).maxCoeff();
    for (Index h = 0; h < s.handle_points.rows(); ++h) {
      const double dist = (s.X.rowwise() - s.handle_points.row(h)).rowwise().norm().minCoeff();
      if (dist > size)
        s.warnings.push_back("point handle " + std::to_string(h) + " lies " + fmt(dist / size) +
                             " mesh sizes away from the mesh (different units in the handle and mesh files?)");
    }
  }

  if (s.kind == HandleKind::Cage) return s;
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
    s.rig = std::make_shared<LinearRig>(lbs_jacobian(s.X, s.W), s.rest_pose, s.dim,
                                        s.kind == HandleKind::Bones ? "lbs (bones)" : "lbs (point handles)");
  }
  return s;
}

}  // namespace

Scene load_scene(const std::string& path, const SceneOptions& opt) {
  if (is_gltf_file(path)) return load_gltf_scene(path, gltf_options(opt));
  const std::string text = read_regular_file(path, "load_scene");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail(path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(path, "the scene must be a JSON object");
  if (j.contains("characters"))
    fail(path,
         "this is a scene of several characters (\"characters\"): read it with load_characters "
         "(fastcd run does)");
  return scene_from_json(j, path, fs::path(path).parent_path(), opt);
}

bool is_surface_file(const std::string& path) {
  const std::string e = lower_extension(path);
  return e == ".obj" || e == ".off" || e == ".ply";
}

Scene load_surface_scene(const std::string& surface, const SurfaceSceneOptions& o, const SceneOptions& opt) {
  auto absolute = [](const std::string& f) { return fs::absolute(f).lexically_normal().string(); };
  if (o.handles.empty())
    fail(surface, "a surface needs handles to move it: a TGF of point handles or bones (--handles FILE)");
  if (o.animation.empty())
    fail(surface,
         "a surface needs an animation of its handles (--anim FILE: the releases' 3D bone or point-handle "
         "format)");
  if (!(o.ym > 0) || !std::isfinite(o.ym)) fail(surface, "YM must be > 0, got " + fmt(o.ym));
  if (!(o.metres_per_unit > 0) || !std::isfinite(o.metres_per_unit))
    fail(surface, "the length unit (metres per file unit) must be > 0, got " + fmt(o.metres_per_unit));
  nlohmann::json j = {{"mesh_file", absolute(surface)},
                      {"handle_file", absolute(o.handles)},
                      {"anim_file", absolute(o.animation)},
                      {"dt", o.dt},
                      {"YM", o.ym},
                      {"pr", o.pr},
                      {"rho", o.rho}};
  if (!o.weights.empty()) j["weight_file"] = absolute(o.weights);
  Scene s = scene_from_json(j, surface, fs::path(surface).parent_path(), opt);
  if (s.dim != 3) fail(surface, "the surface is planar: give a 2D scene JSON for a 2D mesh");
  s.input_files.erase(s.input_files.begin());  // the surface itself, named again as the mesh
  // Physical units: YM in Pa over L^2 (L metres per normalised unit), as for glTF characters.
  const double L = s.scale * o.metres_per_unit;
  s.metres_per_normalised_unit = L;
  s.ym = o.ym / (L * L);
  return s;
}

}  // namespace fastcd
