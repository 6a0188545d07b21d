// Bindings of src/fastcd/io (file formats) and src/fastcd/scene (scenes of the Complementary
// Dynamics releases, turned into ready simulations), so a notebook user never writes a parser.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/precompute_cache.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "simulation_object.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {
using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;

/// The physical settings a glTF character's and a plain surface's options share.
template <class CharacterOptions>
void set_physical(CharacterOptions& o, double metres_per_unit, double ym, double pr, double rho, double dt) {
  o.metres_per_unit = metres_per_unit;
  o.ym = ym;
  o.pr = pr;
  o.rho = rho;
  o.dt = dt;
}

std::string kind_name(HandleKind k) {
  return k == HandleKind::Bones ? "bones" : k == HandleKind::Points ? "points" : "cage";
}
}  // namespace

void bind_io(py::module_& m) {
  // ---- meshes
  m.def(
      "read_obj",
      [](const std::string& p) {
        SurfaceMesh s = read_obj(p);
        return py::make_tuple(s.V, s.F);
      },
      "path"_a, "Wavefront OBJ surface -> (V (n, 3), F (f, 3)); polygons fan-triangulated.");
  m.def(
      "read_obj_2d",
      [](const std::string& p) {
        Mesh s = read_obj_2d(p);
        return py::make_tuple(s.X, s.T);
      },
      "path"_a, "Planar OBJ triangle mesh -> (X (n, 2), T (t, 3)).");
  m.def("write_obj", &write_obj, "path"_a, "V"_a, "F"_a, "Writes an OBJ (atomically, exact round trip).");
  m.def(
      "read_off",
      [](const std::string& p) {
        SurfaceMesh s = read_off(p);
        return py::make_tuple(s.V, s.F);
      },
      "path"_a, "OFF surface -> (V, F).");
  m.def(
      "read_ply",
      [](const std::string& p) {
        PlyMesh s = read_ply(p);
        return py::make_tuple(s.V, s.F, s.UV, s.N);
      },
      "path"_a,
      "PLY surface (ASCII or binary of either byte order) -> (V, F, UV (n, 2) or (0, 2), N (n, 3) or (0, 3)); "
      "polygons fan-triangulated.");
  m.def("write_ply", &write_ply, "path"_a, "V"_a, "F"_a, "binary"_a = true,
        "Writes a PLY (binary little-endian or ASCII; atomically, exact round trip).");
  m.def(
      "read_surface",
      [](const std::string& p) {
        SurfaceMesh s = read_surface(p);
        return py::make_tuple(s.V, s.F);
      },
      "path"_a, "Any surface by its extension (.obj, .off, .ply; any case) -> (V, F).");
  m.def(
      "read_mesh",
      [](const std::string& p) {
        MeditMesh s = read_mesh(p);
        return py::make_tuple(s.X, s.T, s.F);
      },
      "path"_a, "Medit .mesh -> (X, T, F) (F: the file's triangles).");
  m.def(
      "write_mesh", [](const std::string& p, const MatRef& X, const IdxRef& T) { write_mesh(p, X, T); }, "path"_a,
      "X"_a, "T"_a, "Writes a Medit .mesh.");
  m.def(
      "read_msh",
      [](const std::string& p) {
        MshMesh s = read_msh(p);
        return py::make_tuple(s.X, s.T, s.physical);
      },
      "path"_a, "Gmsh .msh (2.2 / 4.1, ASCII / binary) -> (X, T, physical tags).");
  m.def(
      "read_tetgen",
      [](const std::string& node, const std::string& ele) {
        Mesh s = read_tetgen(node, ele);
        return py::make_tuple(s.X, s.T);
      },
      "node_path"_a, "ele_path"_a, "TetGen .node / .ele -> (X, T).");
  m.def(
      "read_volume_mesh",
      [](const std::string& p) {
        Mesh s = read_volume_mesh(p);
        return py::make_tuple(s.X, s.T);
      },
      "path"_a, "Any simulation mesh by extension (.obj 2D, .mesh, .msh, .node) -> (X, T).");
  // ---- rigs, weights, point caches
  m.def(
      "read_tgf",
      [](const std::string& p) {
        const TgfGraph g = read_tgf(p);
        py::dict d;
        d["C"] = g.C;
        d["E"] = g.E;
        d["BE"] = g.BE;
        d["PE"] = g.PE;
        d["CE"] = g.CE;
        d["P"] = g.P;
        return d;
      },
      "path"_a, "TGF handle graph -> dict(C, E, BE, PE, CE, P) (0-based).");
  m.def("read_dmat", &read_dmat, "path"_a, "libigl DMAT (ASCII or binary) -> matrix.");
  m.def(
      "write_dmat",
      [](const std::string& p, const MatRef& W, bool binary) {
        write_dmat(p, W, binary ? DmatEncoding::Binary : DmatEncoding::Ascii);
      },
      "path"_a, "W"_a, "binary"_a = false, "Writes a DMAT (atomically).");
  m.def(
      "read_pc2",
      [](const std::string& p) {
        const PointCache c = read_pc2(p);
        return py::make_tuple(c.frames, c.start_frame, c.sample_rate);
      },
      "path"_a, "PC2 point cache -> (frames: list of (n, 3), start_frame, sample_rate).");
  m.def("write_pc2", &write_pc2, "path"_a, "frames"_a, "start_frame"_a = 0.0, "sample_rate"_a = 1.0,
        "Writes a PC2 point cache (float32; 2D frames get z = 0).");

  // ---- scenes
  py::class_<Scene, std::shared_ptr<Scene>>(m, "Scene", "A loaded Complementary Dynamics release scene.")
      .def_readonly("name", &Scene::name)
      .def_readonly("dim", &Scene::dim)
      .def_readonly("X", &Scene::X)
      .def_readonly("T", &Scene::T)
      .def_readonly("surface", &Scene::surface)
      .def_readonly("center", &Scene::center)
      .def_readonly("half_extent", &Scene::half_extent)
      .def_property_readonly("kind", [](const Scene& s) { return kind_name(s.kind); })
      .def_readonly("handles", &Scene::handles)
      .def_readonly("W", &Scene::W)
      .def_readonly("handle_points", &Scene::handle_points)
      .def_property_readonly("rig", [](const Scene& s) { return std::const_pointer_cast<Rig>(s.rig); })
      .def_readonly("rest_pose", &Scene::rest_pose)
      .def_readonly("poses", &Scene::poses)
      .def_readonly("dt", &Scene::dt)
      .def_readonly("ym", &Scene::ym)
      .def_property_readonly(
          "ym_normalised", [](const Scene& s) { return normalised_ym(s, s.ym); },
          "Young's modulus as the solvers take it: ym / metres_per_normalised_unit^2 for a scene in physical "
          "units (ym in Pa), ym itself for a release scene")
      .def_readonly("pr", &Scene::pr)
      .def_readonly("rho", &Scene::rho)
      .def_readonly("material", &Scene::material)
      .def_readonly("with_dynamics", &Scene::with_dynamics)
      .def_readonly("render_V", &Scene::render_V)
      .def_readonly("render_F", &Scene::render_F)
      .def_readonly("warnings", &Scene::warnings)
      .def_readonly("layout", &Scene::layout)
      .def_readonly("fixed", &Scene::fixed)
      .def_readonly("frames_declared", &Scene::frames_declared)
      .def_readonly("input_files", &Scene::input_files)
      .def_readonly("notes", &Scene::notes)
      .def_readonly("metres_per_normalised_unit", &Scene::metres_per_normalised_unit)
      .def_readonly("leak_values", &Scene::leak_values)
      .def_readonly("render_W", &Scene::render_W)
      .def_property_readonly("output_faces", [](const Scene& s) { return output_surface(s).F; })
      .def(
          "to_file_units",
          [](const Scene& s, py::handle X) {
            return to_file_units(s, output_surface(s), matrix_from_python(X, "X", s.dim));
          },
          "X"_a, "Simulated positions (n, dim) -> the output surface in the scene file's units.")
      .def("__repr__", [](const Scene& s) {
        return "Scene('" + s.name + "', " + std::to_string(s.dim) + "D, " + std::to_string(s.X.rows()) + " vertices, " +
               std::to_string(s.handles) + " " + kind_name(s.kind) + ", " + std::to_string(s.poses.size()) + " frames)";
      });
  m.def(
      "read_scene",
      [](const std::string& path, const std::string& rig, int harmonic_resolution, const std::string& material,
         const std::string& cache_dir) {
        SceneOptions o;
        o.rig = rig;
        o.harmonic_resolution = harmonic_resolution;
        o.material = material;
        o.cache_dir = cache_dir;
        py::gil_scoped_release release;
        return std::make_shared<Scene>(load_scene(path, o));
      },
      "path"_a, "rig"_a = "auto", "harmonic_resolution"_a = 128, "material"_a = "", "cache_dir"_a = "",
      "Loads a scene JSON (see docs/scene-format.md); material='arap' runs a scene asking for another material "
      "as ARAP; cache_dir keeps the tets of a surface or character there (tets-<hash>.bin).");
  m.def(
      "read_character",
      [](const std::string& path, const std::string& clip, double metres_per_unit, double ym, double pr, double rho,
         double dt, const std::string& mesher, int voxel_resolution, const std::string& cache_dir) {
        GltfSceneOptions o;
        o.clip = clip;
        set_physical(o, metres_per_unit, ym, pr, rho, dt);
        o.tets.mesher = mesher;
        o.voxel.resolution = voxel_resolution;
        o.cache_dir = cache_dir;
        py::gil_scoped_release release;
        return std::make_shared<Scene>(load_gltf_scene(path, o));
      },
      "path"_a, "clip"_a = "", "metres_per_unit"_a = defaults::metres_per_unit, "ym"_a = defaults::ym,
      "pr"_a = defaults::pr, "rho"_a = defaults::rho, "dt"_a = defaults::dt, "mesher"_a = defaults::mesher,
      "voxel_resolution"_a = defaults::voxel_resolution, "cache_dir"_a = "",
      "Loads a skinned, animated glTF 2.0 character (.glb / .gltf) as fastcd run does: every skin a body of tets, "
      "one clip sampled at dt; material in physical units (Pa, kg/m^3), metres_per_unit = the file's length unit.");
  m.def(
      "skinned_scene",
      [](const py::list& skins, const py::sequence& poses, const py::object& joint_points, const std::string& name,
         const std::string& source, double metres_per_unit, double ym, double pr, double rho, double dt,
         const std::string& mesher, int voxel_resolution, const std::string& cache_dir) {
        SkinnedCharacter c;
        c.name = name;
        for (const py::handle& h : skins) {
          const std::string which = "skins[" + std::to_string(c.skins.size()) + "]";
          if (!py::isinstance<py::dict>(h))
            throw py::type_error(which + " must be a dict with 'V', 'F' and 'W', got " + describe(h));
          const auto d = py::reinterpret_borrow<py::dict>(h);
          for (const char* key : {"V", "F", "W"})
            if (!d.contains(key)) throw py::value_error(which + " has no '" + key + "'");
          SkinnedSurface k;
          k.label = d.contains("label") ? std::string(py::str(d["label"])) : "skin " + std::to_string(c.skins.size());
          k.V = matrix_from_python(d["V"], which + "['V']", 3);
          k.F = index_matrix_from_python(d["F"], which + "['F']", 3);
          k.W = matrix_from_python(d["W"], which + "['W']");
          if (d.contains("leak") && !d["leak"].is_none())
            k.leak = vector_from_python(d["leak"], which + "['leak']", k.V.rows());
          c.skins.push_back(std::move(k));
        }
        for (const py::handle& p : poses)
          c.poses.push_back(vector_from_python(p, "poses[" + std::to_string(c.poses.size()) + "]"));
        if (!joint_points.is_none()) c.joint_points = matrix_from_python(joint_points, "joint_points", 3);
        GltfSceneOptions o;
        set_physical(o, metres_per_unit, ym, pr, rho, dt);
        o.tets.mesher = mesher;
        o.voxel.resolution = voxel_resolution;
        o.cache_dir = cache_dir;
        py::gil_scoped_release release;
        return std::make_shared<Scene>(skinned_scene(c, o, source.empty() ? "skinned_scene '" + name + "'" : source));
      },
      "skins"_a, "poses"_a, "joint_points"_a = py::none(), "name"_a = "character", "source"_a = "",
      "metres_per_unit"_a = defaults::metres_per_unit, "ym"_a = defaults::ym, "pr"_a = defaults::pr,
      "rho"_a = defaults::rho, "dt"_a = defaults::dt, "mesher"_a = defaults::mesher,
      "voxel_resolution"_a = defaults::voxel_resolution, "cache_dir"_a = "",
      "A skinned character given as data (a DCC's mesh, weights and bone poses; no file), as fastcd run makes a "
      "glTF character: skins = [{'label', 'V' (n, 3), 'F' (f, 3), 'W' (n, joints: rows sum to 1), 'leak' "
      "(optional (n,) painted leak field in [0, 1]; leak='painted' uses it)}], poses = per step 12 entries per "
      "joint (column-major 3x4 [A | t] from bind space), units: metres_per_unit, ym Pa, rho kg/m^3.");
  m.def(
      "read_surface_scene",
      [](const std::string& path, const std::string& handles, const std::string& anim, const std::string& weights,
         double metres_per_unit, double ym, double pr, double rho, double dt, const std::string& mesher,
         const std::string& cache_dir) {
        SurfaceSceneOptions o;
        o.handles = handles;
        o.animation = anim;
        o.weights = weights;
        set_physical(o, metres_per_unit, ym, pr, rho, dt);
        SceneOptions so;
        so.mesher = mesher;
        so.cache_dir = cache_dir;
        py::gil_scoped_release release;
        return std::make_shared<Scene>(load_surface_scene(path, o, so));
      },
      "path"_a, "handles"_a, "anim"_a, "weights"_a = "", "metres_per_unit"_a = defaults::metres_per_unit,
      "ym"_a = defaults::ym, "pr"_a = defaults::pr, "rho"_a = defaults::rho, "dt"_a = defaults::dt,
      "mesher"_a = defaults::mesher, "cache_dir"_a = "",
      "Loads a closed surface (.obj / .off / .ply) with a TGF of handles and their animation, filled with tets, "
      "material in physical units (as fastcd run SURFACE --handles --anim).");
  m.def(
      "write_gltf_outputs",
      [](const std::shared_ptr<Scene>& scene, const py::sequence& frames, const std::string& dir,
         const std::string& clip, const std::string& encoding, double pca_tolerance) {
        std::vector<MatrixXd> U;
        for (const py::handle& f : frames) U.push_back(matrix_from_python(f, "U[" + std::to_string(U.size()) + "]", 3));
        GltfBakeOptions o;
        o.encoding = encoding;
        o.pca_tolerance = pca_tolerance;
        GltfOutputs g;
        {
          py::gil_scoped_release release;
          g = write_gltf_outputs(*scene, clip, U, dir, o);
        }
        py::list caches;
        for (const GltfCache& c : g.caches)
          caches.append(py::dict("node"_a = c.node, "name"_a = c.node_name, "first_vertex"_a = c.first_vertex,
                                 "vertices"_a = c.vertices, "pc2"_a = c.pc2, "mdd"_a = c.mdd));
        return py::dict("glb"_a = g.glb, "caches"_a = caches, "clip"_a = g.clip, "targets"_a = g.report.targets,
                        "encoding_error_relative"_a = g.report.max_error_relative, "bytes"_a = g.report.bytes);
      },
      "scene"_a, "U"_a, "dir"_a, "clip"_a = "", "encoding"_a = defaults::glb_encoding,
      "pca_tolerance"_a = defaults::pca_tolerance,
      "Bakes a glTF scene's complementary displacements U (per frame, (render vertices, 3), file units: the baked "
      "surface minus its rig-only positions) into dir: <name>.glb with rest-space morph targets and a rest-space "
      "PC2 / MDD per mesh node.");
  m.def(
      "simulation_from_scene",
      [](const std::shared_ptr<Scene>& scene, const std::string& solver, int iterations, int modes, int clusters,
         const std::string& leak, double gravity, bool dynamics, const std::string& cache_dir) {
        SceneRunSettings run;
        run.solver = solver_kind(solver);
        run.iterations = iterations;
        run.modes = modes;
        run.clusters = clusters;
        run.leak = leak;
        run.gravity = gravity;
        run.dynamics = dynamics;
        const SimulationOptions o = scene_simulation_options(*scene, run);
        std::vector<std::string> cache_warnings;
        std::unique_ptr<SimulationObject> sim;
        {
          py::gil_scoped_release release;
          sim = std::make_unique<SimulationObject>(make_simulation(*scene, o, cache_dir, nullptr, &cache_warnings));
        }
        for (std::string& w : cache_warnings)  // the precompute cache's, with the tet cache's (once each)
          if (std::find(scene->warnings.begin(), scene->warnings.end(), w) == scene->warnings.end())
            scene->warnings.push_back(std::move(w));
        return sim.release();
      },
      "scene"_a, "solver"_a = defaults::solver, "iterations"_a = defaults::iterations, "modes"_a = defaults::modes,
      "clusters"_a = defaults::clusters, "leak"_a = defaults::leak, "gravity"_a = defaults::gravity,
      "dynamics"_a = true, "cache_dir"_a = "",
      "A ready Simulation of a scene with the CLI's settings on top of the scene's own (as fastcd run). With "
      "cache_dir, the fast solver's leak field, modes and clusters are kept there (fast-<hash>.bin) and reused "
      "by a later call with the same mesh, rig and subspace settings (another material reuses them); a cache "
      "file of other settings or a damaged one is computed again, and a cache folder that cannot be written is "
      "not used: scene.warnings says so.");
}

}  // namespace fastcd::python
