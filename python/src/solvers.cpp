// Bindings of src/fastcd/solvers: batched polar decomposition. (block_coord is pure Python in
// fastcd/solvers.py, as in simkit: its steps are Python callables.)
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>

#include "fastcd/solvers/polar_svd.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

void bind_solvers(py::module_& m) {
  m.def(
      "polar_svd",
      [](const Eigen::Ref<const VectorXd>& F, Index dim) {
        PolarDecomposition r = polar_svd(F, dim);
        return py::make_tuple(std::move(r.R), std::move(r.S));
      },
      "F"_a, "dim"_a,
      "(R, S) of stacked row-major dim x dim matrices (#F dim^2 each): F = R S, det R = +1, S symmetric.");
}

}  // namespace fastcd::python
