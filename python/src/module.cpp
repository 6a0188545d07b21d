// fastcd._fastcd: the compiled half of the `fastcd` Python package. One binding file per
// library folder (geometry, subspace, solvers, cd, io + scene); the Pythonic signatures (simkit's names,
// defaults and return tuples) live in python/fastcd/*.py, which call these thin wrappers
// with inputs already converted to contiguous float64 / int32 arrays.
//
// Errors: the library's std::invalid_argument becomes ValueError and std::runtime_error
// becomes RuntimeError (pybind11's default translation), keeping the library's message.
#include <pybind11/pybind11.h>

#include <memory>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/common/threads.hpp"

namespace py = pybind11;

namespace fastcd::python {
void bind_geometry(py::module_& m);
void bind_subspace(py::module_& m);
void bind_solvers(py::module_& m);
void bind_cd(py::module_& m);
void bind_io(py::module_& m);
}  // namespace fastcd::python

PYBIND11_MODULE(_fastcd, m) {
  m.doc() = "fastcd C++ core (complementary dynamics). Use the `fastcd` package, not this module.";
  fastcd::python::bind_geometry(m);
  fastcd::python::bind_subspace(m);
  fastcd::python::bind_solvers(m);
  fastcd::python::bind_cd(m);
  fastcd::python::bind_io(m);
  m.def(
      "set_threads", [](int n) { fastcd::set_threads(n); }, py::arg("n"),
      "Threads for fastcd's parallel work (n >= 1; 0 = the default: FASTCD_THREADS, else every core for "
      "independent work and one inside a step). Results are bitwise identical for any n.");
  m.def("threads", &fastcd::threads, "The thread count fastcd's parallel work may use now.");
  m.def("request_cancel", &fastcd::request_cancel,
        "Asks running fastcd work (meshing, a precompute, a weight solve; e.g. in another Python thread) to stop: it "
        "raises RuntimeError('cancelled during ...') at its next check. Call clear_cancel() before new work.");
  m.def("clear_cancel", &fastcd::clear_cancel, "Clears request_cancel(), so new work runs.");
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
