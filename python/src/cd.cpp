// Bindings of src/fastcd/cd: rigs, the momentum-leak field and the two complementary-dynamics
// solvers. Each solver is a small C++ object owning the precomputed system; the fast one also
// owns a FastCDWorkspace, so a Python step is: check/borrow 5 arrays, allocate the output
// array, one allocation-free C++ step written straight into it.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/full_cd.hpp"
#include "fastcd/cd/leak_field.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {

using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;
using VecRef = Eigen::Ref<const VectorXd>;
using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using ConstMap = Eigen::Map<const VectorXd>;

LeakFieldKind leak_kind(const std::string& leak) {
  if (leak == "diffusion") return LeakFieldKind::Diffusion;
  if (leak == "none") return LeakFieldKind::None;
  throw std::invalid_argument("leak must be 'diffusion' or 'none', got '" + leak + "'");
}

CDOptions make_options(double h, double ym, double pr, double rho, int iterations, int modes, int clusters,
                       const std::string& leak, double leak_dt) {
  CDOptions o;
  o.h = h;
  o.ym = ym;
  o.pr = pr;
  o.rho = rho;
  o.iterations = iterations;
  o.modes = modes;
  o.clusters = clusters;
  o.leak.kind = leak_kind(leak);
  o.leak.dt = leak_dt;
  return o;
}

std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

/// A C-contiguous float64 array holding `obj` (no copy when it already is one), checked to be
/// an n-vector stored as (n,) or (n, 1).
CArray vector_arg(py::handle obj, Index n, const char* name) {
  CArray a = CArray::ensure(obj);
  if (!a) throw py::type_error(std::string(name) + " must be a numeric array-like");
  const bool ok = (a.ndim() == 1 && a.shape(0) == n) || (a.ndim() == 2 && a.shape(0) == n && a.shape(1) == 1);
  if (!ok)
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(n) + ",) or (" +
                          std::to_string(n) + ", 1), got " + shape_str(a));
  return a;
}

ConstMap as_map(const CArray& a) { return ConstMap(a.data(), a.size()); }

/// New float64 array of n entries, shaped (n, 1) when `column`, else (n,).
py::array_t<double> new_state(Index n, bool column) {
  if (column) return py::array_t<double>(std::vector<py::ssize_t>{py::ssize_t(n), 1});
  return py::array_t<double>(std::vector<py::ssize_t>{py::ssize_t(n)});
}

struct StepArgs {
  CArray s, s_dot, p, p_dot, p_next;
  StepArgs(py::handle s_, py::handle s_dot_, py::handle p_, py::handle p_dot_, py::handle p_next_, Index n, Index np)
      : s(vector_arg(s_, n, "state")),
        s_dot(vector_arg(s_dot_, n, "state velocity")),
        p(vector_arg(p_, np, "p")),
        p_dot(vector_arg(p_dot_, np, "p_dot")),
        p_next(vector_arg(p_next_, np, "p_next")) {}
};

/// The fast solver and its scratch space.
struct FastCDObject {
  FastCD sys;
  FastCDWorkspace ws;

  py::array_t<double> step(py::handle z, py::handle z_dot, py::handle p, py::handle p_dot, py::handle p_next,
                           int iterations) {
    const Index m = sys.state_dim();
    const StepArgs a(z, z_dot, p, p_dot, p_next, m, sys.J.cols());
    py::array_t<double> out = new_state(m, a.s.ndim() == 2);
    Eigen::Map<VectorXd> z_out(out.mutable_data(), m);
    fast_cd_step(sys, as_map(a.s), as_map(a.s_dot), as_map(a.p), as_map(a.p_dot), as_map(a.p_next), z_out, ws,
                 iterations);
    return out;
  }
};

struct FullCDObject {
  FullCD sys;

  py::array_t<double> step(py::handle uc, py::handle uc_dot, py::handle p, py::handle p_dot, py::handle p_next,
                           int iterations) {
    const Index n = sys.state_dim();
    const StepArgs a(uc, uc_dot, p, p_dot, p_next, n, sys.J.cols());
    VectorXd u;
    {
      py::gil_scoped_release release;
      u = full_cd_step(sys, as_map(a.s), as_map(a.s_dot), as_map(a.p), as_map(a.p_dot), as_map(a.p_next),
                       iterations);
    }
    py::array_t<double> out = new_state(n, a.s.ndim() == 2);
    Eigen::Map<VectorXd>(out.mutable_data(), n) = u;
    return out;
  }
};

}  // namespace

void bind_cd(py::module_& m) {
  m.def("rig_rest", &rig_rest, "J"_a, "Mv"_a, "X"_a, "p0 = argmin_p ||J p - flatten(X)||_Mv.");
  m.def(
      "momentum_leak_field",
      [](const MatRef& X, const IdxRef& T, const std::string& leak, double dt) {
        LeakFieldOptions o;
        o.kind = leak_kind(leak);
        o.dt = dt;
        return momentum_leak_field(X, T, o);
      },
      "X"_a, "T"_a, "leak"_a = "diffusion", "dt"_a = 1.0, "Per-vertex momentum-leak field D in [0, 1].");

  py::class_<FullCDObject>(m, "FullCDSystem", "Precomputed full-order complementary dynamics (C++ FullCD).")
      .def(py::init([](const MatRef& X, const IdxRef& T, const SparseMatrix& J, const VecRef& p0, double h,
                       double ym, double pr, double rho, int iterations, const std::string& leak, double leak_dt) {
             const CDOptions o = make_options(h, ym, pr, rho, iterations, CDOptions{}.modes, CDOptions{}.clusters,
                                              leak, leak_dt);
             return new FullCDObject{full_cd_precompute(X, T, J, p0, o)};
           }),
           "X"_a, "T"_a, "J"_a, "p0"_a, "h"_a = 1e-2, "ym"_a = 1e5, "pr"_a = 0.0, "rho"_a = 1e3,
           "iterations"_a = 10, "leak"_a = "diffusion", "leak_dt"_a = 1.0)
      .def("step", &FullCDObject::step, "uc"_a, "uc_dot"_a, "p"_a, "p_dot"_a, "p_next"_a, "iterations"_a = -1,
           "u_c after one step; same shape as uc ((n,) or (n, 1)).")
      .def_property_readonly("J", [](const FullCDObject& o) { return o.sys.J; })
      .def_property_readonly("p0", [](const FullCDObject& o) { return o.sys.p0; })
      .def_property_readonly("D", [](const FullCDObject& o) { return o.sys.D; })
      .def_property_readonly("C", [](const FullCDObject& o) { return o.sys.constraint.C; })
      .def_property_readonly("constraint_rank", [](const FullCDObject& o) { return o.sys.constraint.rank; })
      .def_property_readonly("state_dim", [](const FullCDObject& o) { return o.sys.state_dim(); })
      .def_property_readonly("n_rot", [](const FullCDObject& o) { return o.sys.n_rot(); })
      .def_property_readonly("dim", [](const FullCDObject& o) { return o.sys.dim; })
      .def_property_readonly("h", [](const FullCDObject& o) { return o.sys.options.h; })
      .def_property_readonly("iterations", [](const FullCDObject& o) { return o.sys.options.iterations; });

  py::class_<FastCDObject>(m, "FastCDSystem", "Precomputed fast complementary dynamics (C++ FastCD).")
      .def(py::init([](const MatRef& X, const IdxRef& T, const SparseMatrix& J, const VecRef& p0, int modes,
                       int clusters, double h, double ym, double pr, double rho, int iterations,
                       const std::string& leak, double leak_dt) {
             const CDOptions o = make_options(h, ym, pr, rho, iterations, modes, clusters, leak, leak_dt);
             return new FastCDObject{fast_cd_precompute(X, T, J, p0, o), FastCDWorkspace{}};
           }),
           "X"_a, "T"_a, "J"_a, "p0"_a, "modes"_a = 10, "clusters"_a = 20, "h"_a = 1e-2, "ym"_a = 1e5,
           "pr"_a = 0.0, "rho"_a = 1e3, "iterations"_a = 10, "leak"_a = "diffusion", "leak_dt"_a = 1.0)
      .def("step", &FastCDObject::step, "z"_a, "z_dot"_a, "p"_a, "p_dot"_a, "p_next"_a, "iterations"_a = -1,
           "z after one step; same shape as z ((m,) or (m, 1)). Not thread-safe (shared workspace).")
      .def("lift", [](const FastCDObject& o, const VecRef& z) { return fast_cd_lift(o.sys, z); }, "z"_a,
           "u_c = B z.")
      .def_property_readonly("J", [](const FastCDObject& o) { return o.sys.J; })
      .def_property_readonly("p0", [](const FastCDObject& o) { return o.sys.p0; })
      .def_property_readonly("D", [](const FastCDObject& o) { return o.sys.D; })
      .def_property_readonly("C", [](const FastCDObject& o) { return o.sys.constraint.C; })
      .def_property_readonly("constraint_rank", [](const FastCDObject& o) { return o.sys.constraint.rank; })
      .def_property_readonly(
          "B", [](const FastCDObject& o) -> const MatrixXd& { return o.sys.B; },
          py::return_value_policy::reference_internal)
      .def_property_readonly(
          "W", [](const FastCDObject& o) -> const MatrixXd& { return o.sys.W; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("E", [](const FastCDObject& o) { return o.sys.E; })
      .def_property_readonly("labels", [](const FastCDObject& o) { return o.sys.labels; })
      .def_property_readonly("structural_residual", [](const FastCDObject& o) { return o.sys.structural_residual; })
      .def_property_readonly("state_dim", [](const FastCDObject& o) { return o.sys.state_dim(); })
      .def_property_readonly("n_rot", [](const FastCDObject& o) { return o.sys.n_rot(); })
      .def_property_readonly("dim", [](const FastCDObject& o) { return o.sys.dim; })
      .def_property_readonly("h", [](const FastCDObject& o) { return o.sys.options.h; })
      .def_property_readonly("iterations", [](const FastCDObject& o) { return o.sys.options.iterations; });
}

}  // namespace fastcd::python
