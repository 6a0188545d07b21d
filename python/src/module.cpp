// fastcd._fastcd: the compiled half of the `fastcd` Python package. One binding file per
// library folder (geometry, subspace, solvers, cd, io + scene); the Pythonic signatures (simkit's names,
// defaults and return tuples) live in python/fastcd/*.py, which call these thin wrappers
// with inputs already converted to contiguous float64 / int32 arrays.
//
// Errors: the library's std::invalid_argument becomes ValueError and std::runtime_error
// becomes RuntimeError (pybind11's default translation), keeping the library's message.
#include <pybind11/pybind11.h>

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
}
