// A scene's meshes: the simulation mesh (a tet or 2D mesh, or a closed surface filled with tets),
// its fixed region and the render mesh embedded in it.
#include "fastcd/scene/scene_parts.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/embed_points.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/meshing/shells.hpp"
#include "fastcd/meshing/surface.hpp"
#include "fastcd/meshing/voxel.hpp"

namespace fastcd::scene_parts {

namespace {

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

}  // namespace

std::string lower_extension(const std::string& file) {
  std::string e = fs::path(file).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

namespace {

/// Fills a surface mesh with tets (Netgen, TetGen or the voxel grid, as the scene or the
/// options say), cached in options.cache_dir when given.
SurfaceSource fill_surface(Scene& s, SurfaceMesh m, const std::string& mesh_file, const std::string& path,
                           const nlohmann::json& j, const SceneOptions& opt) {
  SurfaceSource src;
  src.active = true;
  src.file = mesh_file;
  src.V = m.V;
  src.F = m.F;
  std::string mesher = defaults::mesher;
  if (j.contains("mesher")) {
    if (!j["mesher"].is_string()) fail(path, "\"mesher\" must be a string (netgen, tetgen or voxel)");
    mesher = j["mesher"].get<std::string>();
  }
  if (!opt.mesher.empty()) mesher = opt.mesher;
  if (mesher != "netgen" && mesher != "tetgen" && mesher != "voxel")
    fail(path, "unknown mesher '" + mesher + "' (use netgen, tetgen or voxel)");
  const double res =
      number(j, "voxel_resolution", opt.voxel_resolution > 0 ? opt.voxel_resolution : defaults::voxel_resolution, path);
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

}  // namespace

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
  s.half_extent = Xc.maxCoeff();
  if (!(s.half_extent > 0)) fail(json_path, "the mesh is degenerate (zero extent)");
  s.X = Xc / s.half_extent;
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
    s.render_V = (src.V.rowwise() - s.center.transpose()) / s.half_extent;
    s.render_F = src.F;
    if (src.voxel) {
      s.render_E = src.E;
      s.render_element = src.element;
      s.render_max_distance = src.max_distance / s.half_extent;
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
  s.render_V = (r.V.rowwise() - s.center.transpose()) / s.half_extent;
  s.render_F = r.F;
  const Embedding emb = embed_points(s.X, s.T, s.render_V);
  s.render_E = emb.E;
  s.render_element = emb.element;
  s.render_max_distance = emb.distance.maxCoeff();
  s.output_obj = render;
}

}  // namespace fastcd::scene_parts
