// Bindings of src/fastcd/cd: rigs, the momentum-leak field and the two complementary-dynamics
// solvers. Each solver is a small C++ object owning the precomputed system; the fast one also
// owns a FastCDWorkspace, so a Python step is: check/borrow 5 arrays, allocate the output
// array, one allocation-free C++ step written straight into it.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

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

/// Lets Python subclass fastcd.Rig: `positions(p)` returns the (n*dim,) positions; `jacobian(p)`
/// is optional (finite differences of positions otherwise). Calls take the GIL.
class PyRig : public Rig {
 public:
  Index dim() const override { PYBIND11_OVERRIDE_PURE(Index, Rig, dim); }
  Index num_vertices() const override { PYBIND11_OVERRIDE_PURE(Index, Rig, num_vertices); }
  Index num_params() const override { PYBIND11_OVERRIDE_PURE(Index, Rig, num_params); }
  // A Python rig is nonlinear unless it says otherwise (the base declares is_linear() pure).
  bool is_linear() const override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Rig*>(this), "is_linear")) return py::cast<bool>(f());
    return false;
  }
  VectorXd rest_params() const override { PYBIND11_OVERRIDE_PURE(VectorXd, Rig, rest_params); }
  std::string name() const override { PYBIND11_OVERRIDE(std::string, Rig, name); }
  void positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Rig*>(this), "positions");
    if (!f) throw std::runtime_error("a Python rig must define positions(p)");
    const VectorXd r = py::cast<VectorXd>(f(VectorXd(p)));
    if (r.size() != x.size())
      throw std::invalid_argument(name() + " rig: positions(p) returned " + std::to_string(r.size()) +
                                  " values, expected num_vertices * dim = " + std::to_string(x.size()));
    x = r;
  }
  SparseMatrix jacobian(const Eigen::Ref<const VectorXd>& p) const override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Rig*>(this), "jacobian")) {
      const py::object J = f(VectorXd(p));
      const SparseMatrix Js = py::isinstance<py::array>(J) ? SparseMatrix(py::cast<MatrixXd>(J).sparseView())
                                                          : py::cast<SparseMatrix>(J);
      if (Js.rows() != num_vertices() * dim() || Js.cols() != num_params())
        throw std::invalid_argument(name() + " rig: jacobian(p) is " + std::to_string(Js.rows()) + " x " +
                                    std::to_string(Js.cols()) + ", expected " +
                                    std::to_string(num_vertices() * dim()) + " x " + std::to_string(num_params()));
      return Js;
    }
    return Rig::jacobian(p);
  }
};

/// Full order driven by any rig, keeping its own state (the any-rig roll-out of full_cd.hpp).
struct RigFullCDObject {
  std::shared_ptr<Rig> rig;
  FullCD sys;
  CDState state;
  FullCDWorkspace ws;
  VectorXd advance(const VecRef& p_next) {
    full_cd_advance(sys, *rig, state, p_next, ws);
    return state.s;
  }
  double residual() const {  // ||J(p)^T M D u_c|| / (||C|| ||u_c||) for the current frame's constraint
    const double un = state.s.norm();
    return un > 0 ? (sys.constraint.C * state.s).norm() / (sys.constraint.C.norm() * un) : 0.0;
  }
};

}  // namespace

void bind_cd(py::module_& m) {
  py::class_<Rig, PyRig, std::shared_ptr<Rig>>(m, "Rig",
                                               "Any rig: subclass it in Python and define dim(), num_vertices(), "
                                               "num_params(), rest_params(), positions(p) -> (n*dim,) and optionally "
                                               "jacobian(p) (else finite differences) and is_linear().")
      .def(py::init<>())
      .def("dim", &Rig::dim)
      .def("num_vertices", &Rig::num_vertices)
      .def("num_params", &Rig::num_params)
      .def("is_linear", &Rig::is_linear)
      .def("rest_params", &Rig::rest_params)
      .def("name", &Rig::name)
      .def("positions", [](const Rig& r, const VecRef& p) { return r.positions(p); }, "p"_a)
      .def("jacobian", &Rig::jacobian, "p"_a);
  py::class_<LinearRig, Rig, std::shared_ptr<LinearRig>>(m, "LinearRig", "x = J p (LBS, handles, cages).")
      .def(py::init([](const SparseMatrix& J, const VecRef& p0, Index dim, const std::string& name) {
             return std::make_shared<LinearRig>(J, p0, dim, name);
           }),
           "J"_a, "p0"_a, "dim"_a, "name"_a = "linear");
  m.def("cage_rig",
        [](const MatRef& X, const MatRef& cage_V, const IdxRef& cage_F, const std::string& kind, int resolution) {
          if (kind != "mvc" && kind != "harmonic")
            throw std::invalid_argument("kind must be 'mvc' or 'harmonic', got '" + kind + "'");
          return std::make_shared<LinearRig>(cage_rig(X, cage_V, cage_F,
                                                      kind == "mvc" ? CageCoordinates::MeanValue : CageCoordinates::Harmonic,
                                                      resolution));
        },
        "X"_a, "cage_V"_a, "cage_F"_a, "kind"_a = "mvc", "resolution"_a = 128, "Cage rig, p = cage vertex positions.");
  m.def("finite_difference_jacobian", &finite_difference_jacobian, "rig"_a, "p"_a, "eps"_a = 1e-6);

  py::class_<RigFullCDObject>(m, "RigFullCD",
                              "Full-order complementary dynamics for any rig (C++ or Python); nonlinear rigs get "
                              "their constraint rebuilt from J(p) every step.")
      .def(py::init([](const MatRef& X, const IdxRef& T, std::shared_ptr<Rig> rig, double h, double ym, double pr,
                       double rho, int iterations) {
             const CDOptions o = make_options(h, ym, pr, rho, iterations, CDOptions{}.modes, CDOptions{}.clusters,
                                              "diffusion", 1.0);
             auto* obj = new RigFullCDObject{rig, full_cd_precompute(X, T, *rig, o), {}, {}};
             obj->state = full_cd_initial_state(obj->sys, *rig);
             return obj;
           }),
           "X"_a, "T"_a, "rig"_a, "h"_a = 1e-2, "ym"_a = 1e5, "pr"_a = 0.0, "rho"_a = 1e3, "iterations"_a = 10,
           // A Python subclass's overrides live in its Python object: keep it alive with the system.
           py::keep_alive<1, 4>())
      .def("advance", &RigFullCDObject::advance, "p_next"_a, "Steps to rig pose p_next; returns u_c (n*dim,).")
      .def("positions", [](const RigFullCDObject& o) { return VectorXd(o.state.x + o.state.s); },
           "Rig positions plus u_c (n*dim,).")
      .def("residual", &RigFullCDObject::residual, "||J(p)^T M D u_c|| / (||C|| ||u_c||) now.")
      .def_property_readonly("constraint_rank", [](const RigFullCDObject& o) { return o.sys.constraint.rank; });


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
