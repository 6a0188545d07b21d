// fastcd._fastcd: the compiled half of the `fastcd` Python package. One binding file per
// library folder (geometry, subspace, solvers, cd, io + scene); the Pythonic signatures (simkit's names,
// defaults and return tuples) live in python/fastcd/*.py, which call these thin wrappers
// with inputs already converted to contiguous float64 / int32 arrays.
//
// Errors: the library's std::invalid_argument becomes ValueError and std::runtime_error
// becomes RuntimeError (pybind11's default translation), keeping the library's message; memory
// that does not suffice (fastcd::MemoryLimitError, std::bad_alloc) becomes MemoryError.
#include <pybind11/pybind11.h>

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/common/threads.hpp"

namespace py = pybind11;

namespace {

// The CancelScopes that `with token:` opened on this thread, innermost last, each with its token.
thread_local std::vector<std::pair<std::shared_ptr<fastcd::CancelToken>, std::unique_ptr<fastcd::CancelScope>>>
    t_cancel_scopes;

// fastcd.CancelToken: one job's cancellation among several in one process (a bake per thread).
void bind_cancel_token(py::module_& m) {
  using fastcd::CancelToken;
  py::class_<CancelToken, std::shared_ptr<CancelToken>>(
      m, "CancelToken",
      "One job's cancellation. Run the job's fastcd calls inside `with token:` in its thread; token.request() "
      "(from any thread) then stops that work at its next check (RuntimeError('cancelled during ...')) and "
      "leaves other threads' work running. request_cancel() still stops everything.")
      .def(py::init<>())
      .def("request", &CancelToken::request, "Stops the work running inside this token's `with` block.")
      .def_property_readonly("requested", &CancelToken::requested)
      .def("__enter__",
           [](const std::shared_ptr<CancelToken>& t) {
             t_cancel_scopes.emplace_back(t, std::make_unique<fastcd::CancelScope>(t.get()));
             return t;
           })
      .def("__exit__", [](const std::shared_ptr<CancelToken>& t, const py::args&) {
        if (t_cancel_scopes.empty() || t_cancel_scopes.back().first != t)
          throw py::value_error("CancelToken: leave its `with` block in the thread that entered it, innermost first");
        t_cancel_scopes.pop_back();
        return false;
      });
}

// fastcd.defaults: the values of fastcd/common/defaults.hpp, which the Python signatures, the CLI
// and the Blender add-on all read (docs/vocabulary.md, "Defaults").
void bind_defaults(py::module_& m) {
  namespace d = fastcd::defaults;
  py::module_ s = m.def_submodule(
      "defaults",
      "What a run uses when the user says nothing (fastcd/common/defaults.hpp): the CLI, fastcd.load_scene, "
      "fastcd.bake, fastcd.read_character, fastcd.read_surface_scene, fastcd.skinned_scene and the Blender "
      "add-on read these values. The solvers' own constructors (Simulation, FullCD, ReducedCD) keep simkit "
      "tutorial 23's.");
  s.attr("solver") = d::solver;
  s.attr("interactive_solver") = d::interactive_solver;
  s.attr("iterations") = d::iterations;
  s.attr("modes") = d::modes;
  s.attr("clusters") = d::clusters;
  s.attr("precision") = d::precision;
  s.attr("leak") = d::leak;
  s.attr("gravity") = d::gravity;
  s.attr("dt") = d::dt;
  s.attr("ym") = d::ym;
  s.attr("pr") = d::pr;
  s.attr("rho") = d::rho;
  s.attr("metres_per_unit") = d::metres_per_unit;
  s.attr("mesher") = d::mesher;
  s.attr("voxel_resolution") = d::voxel_resolution;
  s.attr("scene_rho_2d") = d::scene_rho_2d;
  s.attr("scene_rho_3d") = d::scene_rho_3d;
  s.attr("glb_encoding") = d::glb_encoding;
  s.attr("pca_tolerance") = d::pca_tolerance;
}

}  // namespace

namespace fastcd::python {
void bind_geometry(py::module_& m);
void bind_subspace(py::module_& m);
void bind_solvers(py::module_& m);
void bind_cd(py::module_& m);
void bind_io(py::module_& m);
void bind_bake(py::module_& m);
}  // namespace fastcd::python

PYBIND11_MODULE(_fastcd, m) {
  m.doc() = "fastcd C++ core (complementary dynamics). Use the `fastcd` package, not this module.";
  // Memory: a refusal before the work (fastcd::MemoryLimitError, with its estimate and the fix)
  // and any std::bad_alloc become MemoryError with a sentence, never a bare "std::bad_alloc".
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const fastcd::MemoryLimitError& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const std::bad_alloc&) {
      const std::string what = "fastcd ran out of memory (" +
                               fastcd::memory_in_words(static_cast<double>(fastcd::available_memory_bytes())) +
                               " available now): use a coarser mesh or a rig with fewer handles, or free memory";
      PyErr_SetString(PyExc_MemoryError, what.c_str());
    }
  });
  fastcd::python::bind_geometry(m);
  fastcd::python::bind_subspace(m);
  fastcd::python::bind_solvers(m);
  fastcd::python::bind_cd(m);
  fastcd::python::bind_io(m);
  fastcd::python::bind_bake(m);
  m.def(
      "set_threads", [](int n) { fastcd::set_threads(n); }, py::arg("n"),
      "Threads for fastcd's parallel work (n >= 1; 0 = the default: FASTCD_THREADS, else every core for "
      "independent work and one inside a step). Results are bitwise identical for any n.");
  m.def("threads", &fastcd::threads, "The thread count fastcd's parallel work may use now.");
  m.def("request_cancel", &fastcd::request_cancel,
        "Asks running fastcd work (meshing, a precompute, a weight solve; e.g. in another Python thread) to stop: it "
        "raises RuntimeError('cancelled during ...') at its next check. Call clear_cancel() before new work.");
  m.def("clear_cancel", &fastcd::clear_cancel, "Clears request_cancel(), so new work runs.");
  bind_cancel_token(m);
  bind_defaults(m);
  m.def(
      "set_progress_callback",
      [](py::object fn) {
        if (fn.is_none()) {
          fastcd::set_progress_sink({});
          return;
        }
        // Shared, and released with the GIL held: the sink may be called from fastcd's threads.
        auto held = std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
          py::gil_scoped_acquire gil;
          delete o;
        });
        fastcd::set_progress_sink([held](const char* work, const char* stage, int done, int total) {
          py::gil_scoped_acquire gil;
          try {
            (*held)(work, stage, done, total);
          } catch (py::error_already_set& e) {
            e.discard_as_unraisable("fastcd progress callback");
          }
        });
      },
      py::arg("fn"),
      "fn(work, stage, done, total) is called as long fastcd work starts each stage (from any thread; total 0 for "
      "work of unknown length, e.g. meshing); None removes it. Not to be changed while fastcd work runs.");
}
