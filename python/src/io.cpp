// Bindings of src/fastcd/io (file formats) and src/fastcd/scene (scenes of the Complementary
// Dynamics releases, turned into ready simulations), so a notebook user never writes a parser.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {
using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;

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
      .def_readonly("scale", &Scene::scale)
      .def_property_readonly("kind", [](const Scene& s) { return kind_name(s.kind); })
      .def_readonly("handles", &Scene::handles)
      .def_readonly("W", &Scene::W)
      .def_readonly("handle_points", &Scene::handle_points)
      .def_property_readonly("rig", [](const Scene& s) { return std::const_pointer_cast<Rig>(s.rig); })
      .def_readonly("rest_pose", &Scene::rest_pose)
      .def_readonly("poses", &Scene::poses)
      .def_readonly("dt", &Scene::dt)
      .def_readonly("ym", &Scene::ym)
      .def_readonly("pr", &Scene::pr)
      .def_readonly("rho", &Scene::rho)
      .def_readonly("model", &Scene::model)
      .def_readonly("with_dynamics", &Scene::with_dynamics)
      .def_readonly("render_V", &Scene::render_V)
      .def_readonly("render_F", &Scene::render_F)
      .def_readonly("warnings", &Scene::warnings)
      .def_readonly("layout", &Scene::layout)
      .def_readonly("fixed", &Scene::fixed)
      .def_readonly("frames_declared", &Scene::frames_declared)
      .def_readonly("input_files", &Scene::input_files)
      .def_property_readonly("output_faces", [](const Scene& s) { return output_surface(s).F; })
      .def(
          "to_file_units", [](const Scene& s, const MatRef& X) { return to_file_units(s, output_surface(s), X); },
          "X"_a, "Simulated positions (n, dim) -> the output surface in the scene file's units.")
      .def("__repr__", [](const Scene& s) {
        return "Scene('" + s.name + "', " + std::to_string(s.dim) + "D, " + std::to_string(s.X.rows()) + " vertices, " +
               std::to_string(s.handles) + " " + kind_name(s.kind) + ", " + std::to_string(s.poses.size()) + " frames)";
      });
  m.def(
      "read_scene",
      [](const std::string& path, const std::string& rig, int harmonic_resolution, const std::string& material) {
        SceneOptions o;
        o.rig = rig;
        o.harmonic_resolution = harmonic_resolution;
        o.material = material;
        py::gil_scoped_release release;
        return std::make_shared<Scene>(load_scene(path, o));
      },
      "path"_a, "rig"_a = "auto", "harmonic_resolution"_a = 128, "material"_a = "",
      "Loads a scene JSON (see docs/scene-format.md); material='arap' runs a scene asking for another material "
      "as ARAP.");
  m.def(
      "simulation_from_scene",
      [](const std::shared_ptr<Scene>& scene, const std::string& solver, int iterations, int modes, int clusters,
         const std::string& leak, double gravity, bool dynamics) {
        SceneRunSettings run;
        run.solver = solver_kind(solver);
        run.iterations = iterations;
        run.modes = modes;
        run.clusters = clusters;
        run.leak = leak;
        run.gravity = gravity;
        run.dynamics = dynamics;
        const SimulationOptions o = scene_simulation_options(*scene, run);
        py::gil_scoped_release release;
        return new Simulation(make_simulation(*scene, o));
      },
      "scene"_a, "solver"_a = "full", "iterations"_a = 10, "modes"_a = 16, "clusters"_a = 100, "leak"_a = "auto",
      "gravity"_a = 0.0, "dynamics"_a = true,
      "A ready Simulation of a scene with the CLI's settings on top of the scene's own (as fastcd run).");
}

}  // namespace fastcd::python
