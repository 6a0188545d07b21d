#include "fastcd/scene/scene.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fastcd/common/progress.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene_parts.hpp"

// Assembles a Scene from a scene JSON (or a plain surface's options): the pieces are in
// scene_keys.cpp (keys and values), scene_mesh.cpp (meshes) and scene_rig.cpp (rigs and weights).
namespace fastcd {

using namespace scene_parts;

namespace {

/// glTF options from a scene's settings: the mesher and tet cache of the run.
GltfSceneOptions gltf_options(const SceneOptions& opt) {
  GltfSceneOptions g;
  if (!opt.mesher.empty()) g.tets.mesher = opt.mesher;
  if (opt.voxel_resolution > 0) g.voxel.resolution = opt.voxel_resolution;
  g.cache_dir = opt.cache_dir;
  return g;
}

/// The material the scene asks for: "material", or the releases' "model" (the C++ release's name
/// for it: arap, neohookean, stvk, corotational), checked against what fastcd simulates (ARAP).
void read_material(Scene& s, const nlohmann::json& j, const std::string& json_path, const SceneOptions& opt) {
  if (!opt.material.empty() && opt.material != "arap")
    fail(json_path, "unknown material option '" + opt.material + "' (fastcd simulates arap)");
  for (const char* key : {"material", "model"})
    if (j.contains(key) && !j[key].is_string())
      fail(json_path, std::string("\"") + key + "\" must be a string (the material's name, e.g. \"arap\")");
  if (j.contains("material") && j.contains("model") && j["material"] != j["model"])
    fail(json_path, "\"material\" is '" + j["material"].get<std::string>() +
                        "' but \"model\" (the releases' name for the same setting) is '" +
                        j["model"].get<std::string>() + "': give one of them");
  if (j.contains("material"))
    s.material = j["material"].get<std::string>();
  else if (j.contains("model"))
    s.material = j["model"].get<std::string>();
  if (s.material != "arap") {
    if (opt.material != "arap")
      fail(json_path, "the scene asks for the '" + s.material +
                          "' material, which fastcd does not simulate (it simulates ARAP); to run it as ARAP with "
                          "the same YM and pr, say so (fastcd run --material arap)");
    s.warnings.push_back("the scene asks for the '" + s.material + "' material; simulated as ARAP, as asked");
  }
}

/// A scene JSON naming a glTF character ("character_file") with its clip, units, material and
/// mesher; the material is physical (Pa, kg/m^3) as on the command line.
Scene load_character_scene(const nlohmann::json& j, const fs::path& dir, const std::string& json_path,
                           const SceneOptions& opt) {
  for (const char* key : {"mesh_file", "handle_file", "weight_file", "anim_file", "skeleton_file", "constraint_file",
                          "fixed_region_file", "render_mesh_file", "scale"})
    if (j.contains(key))
      fail(json_path, std::string("\"") + key +
                          "\" does not apply to a \"character_file\" scene: the glTF file gives the mesh, skin and "
                          "animation");
  Scene unused;
  const std::string file = file_key(unused, j, {"character_file"}, dir, json_path);
  Scene material;  // checked before the character is meshed
  read_material(material, j, json_path, opt);
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
  s.material = material.material;
  s.warnings.insert(s.warnings.end(), material.warnings.begin(), material.warnings.end());
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

/// "YM" and "pr", or instead the Lame parameters "mu" and "lambda" (the MATLAB release's amoeba),
/// into s.ym and s.pr (ARAP uses both, through mu = ym / (2 (1 + pr))).
void read_elasticity(Scene& s, const nlohmann::json& j, const std::string& json_path) {
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
}

/// A scene from its JSON object: `json_path` names it in messages (a scene file, or the surface
/// of load_surface_scene), `dir` resolves its files. `physical`: a plain surface's options, whose
/// time step and material (in physical units) replace the JSON's "dt", "YM", "pr" and "rho"
/// (its JSON then names only the files).
Scene scene_from_json(const nlohmann::json& j, const std::string& json_path, const fs::path& dir,
                      const SceneOptions& opt, const SurfaceSceneOptions* physical = nullptr) {
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
  if (physical) {
    s.dt = physical->dt;
    s.ym = physical->ym;
    s.pr = physical->pr;
  } else {
    s.dt = required_number(j, "dt", "the time step, s", json_path);
    read_elasticity(s, j, json_path);
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
        "\"scale\" is ignored, as the C++ release ignores it (its read_json_data reads the value and its "
        "simulation never uses it): positions are normalised as the releases do and written back in the file's "
        "units; a glTF character's length unit is \"metres_per_unit\"");
  read_material(s, j, json_path, opt);
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
  s.rho = physical ? physical->rho
                   : number(j, "rho", s.dim == 3 ? defaults::scene_rho_3d : defaults::scene_rho_2d, json_path);
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
  make_rig(s, rig_opt, json_path);
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
  if (!(o.rho > 0) || !std::isfinite(o.rho)) fail(surface, "rho must be > 0, got " + fmt(o.rho));
  // The files, named by the keys the scene's loaders read (what a scene JSON naming the surface as
  // its "mesh_file" says); the time step and the material go in as they are (`physical`).
  nlohmann::json j = {
      {"mesh_file", absolute(surface)}, {"handle_file", absolute(o.handles)}, {"anim_file", absolute(o.animation)}};
  if (!o.weights.empty()) j["weight_file"] = absolute(o.weights);
  Scene s = scene_from_json(j, surface, fs::path(surface).parent_path(), opt, &o);
  if (s.dim != 3) fail(surface, "the surface is planar: give a 2D scene JSON for a 2D mesh");
  s.input_files.erase(s.input_files.begin());  // the surface itself, named again as the mesh
  // Physical units, as for glTF characters: L metres per normalised unit; the solvers take
  // ym / L^2 (normalised_ym) and gravity / L.
  s.metres_per_normalised_unit = s.half_extent * o.metres_per_unit;
  return s;
}

}  // namespace fastcd
