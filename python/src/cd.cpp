// Bindings of src/fastcd/cd: rigs, the momentum-leak field, the two complementary-dynamics
// solvers and the Simulation that runs either. Each solver object owns its precomputed system
// and a workspace (guarded by a mutex, so two Python threads can share one solver); a step
// converts its five arrays, allocates the output array, releases the GIL and runs one
// allocation-free C++ step straight into it. A Simulation has the same per-object lock around
// every call that changes or reads its state (simulation_object.hpp). Both solvers and the
// simulation copy (copy.copy / copy.deepcopy: the precomputed data is immutable and shared); the
// solvers pickle (their construction inputs, checked and rebuilt on loading: the precompute is
// deterministic). Arguments a user passes straight to these bindings are converted by name
// (arguments.hpp), so a wrong one is named in a short error.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/full_cd.hpp"
#include "fastcd/cd/leak_field.hpp"
#include "fastcd/cd/options.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "simulation_object.hpp"

namespace py = pybind11;
using namespace py::literals;

namespace fastcd::python {

namespace {

using MatRef = Eigen::Ref<const MatrixXd>;
using IdxRef = Eigen::Ref<const MatrixXi>;
using VecRef = Eigen::Ref<const VectorXd>;
using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using ConstMap = Eigen::Map<const VectorXd>;

/// The leak field from Python: "diffusion", "poisson", "none", a DMAT path, or an array of
/// #V values in [0, 1].
LeakFieldOptions leak_options(const py::object& leak, double leak_dt, Index n) {
  LeakFieldOptions o;
  if (py::isinstance<py::str>(leak)) {
    o = leak_field_options(py::cast<std::string>(leak), n);
  } else {
    o.kind = LeakFieldKind::Values;
    o.values = vector_from_python(leak, "leak", n);
  }
  o.dt = leak_dt;
  return o;
}

/// The options every solver and simulation constructor takes (the names of
/// docs/vocabulary.md).
CDOptions make_options(double dt, double ym, double pr, double rho, int iterations, int modes, int clusters,
                       const py::object& leak, double leak_dt, const py::object& gravity, double tolerance, Index n,
                       const std::string& precision = "double") {
  CDOptions o;
  o.dt = dt;
  o.ym = ym;
  o.pr = pr;
  o.rho = rho;
  o.iterations = iterations;
  o.modes = modes;
  o.clusters = clusters;
  o.tolerance = tolerance;
  o.precision = precision_from_name(precision);
  o.leak = leak_options(leak, leak_dt, n);
  if (!gravity.is_none()) o.gravity = vector_from_python(gravity, "gravity");
  return o;
}

py::dict options_dict(const CDOptions& o) {
  py::dict d;
  d["dt"] = o.dt;
  d["ym"] = o.ym;
  d["pr"] = o.pr;
  d["rho"] = o.rho;
  d["iterations"] = o.iterations;
  d["tolerance"] = o.tolerance;
  d["modes"] = o.modes;
  d["clusters"] = o.clusters;
  d["leak_kind"] = static_cast<int>(o.leak.kind);
  d["leak_dt"] = o.leak.dt;
  d["leak_values"] = o.leak.values;
  d["gravity"] = o.gravity;
  d["constraint_rtol"] = o.constraint_rtol;
  d["backend"] = static_cast<int>(o.backend);
  d["precision"] = std::string(precision_name(o.precision));
  return d;
}

/// One entry of a pickled options dict: present and of the right kind.
template <class T>
T option(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw std::invalid_argument(std::string("its options lack '") + key + "'");
  try {
    return d[key].cast<T>();
  } catch (const py::cast_error&) {
    throw std::invalid_argument(std::string("its option '") + key + "' is " + describe(d[key]));
  }
}

/// An enum stored as its integer, checked to name one of the first `count` values.
template <class Enum>
Enum enum_option(const py::dict& d, const char* key, int count) {
  const int v = option<int>(d, key);
  if (v < 0 || v >= count)
    throw std::invalid_argument(std::string("its option '") + key + "' is " + std::to_string(v) + ", not one of 0.." +
                                std::to_string(count - 1));
  return static_cast<Enum>(v);
}

/// The options of a pickled solver, every field checked (validate() and the value ranges of
/// the enums and vectors) before anything is built from them.
CDOptions options_from_dict(const py::handle& h) {
  if (!py::isinstance<py::dict>(h)) throw std::invalid_argument("its options are " + describe(h) + ", not a dict");
  const auto d = py::reinterpret_borrow<py::dict>(h);
  CDOptions o;
  o.dt = option<double>(d, "dt");
  o.ym = option<double>(d, "ym");
  o.pr = option<double>(d, "pr");
  o.rho = option<double>(d, "rho");
  o.iterations = option<int>(d, "iterations");
  o.tolerance = option<double>(d, "tolerance");
  o.modes = option<int>(d, "modes");
  o.clusters = option<int>(d, "clusters");
  o.leak.kind = enum_option<LeakFieldKind>(d, "leak_kind", static_cast<int>(LeakFieldKind::Centroid) + 1);
  o.leak.dt = option<double>(d, "leak_dt");
  o.leak.values = vector_from_python(option<py::object>(d, "leak_values"), "leak_values");
  o.gravity = vector_from_python(option<py::object>(d, "gravity"), "gravity");
  o.constraint_rtol = option<double>(d, "constraint_rtol");
  o.backend = enum_option<CholeskyBackend>(d, "backend", static_cast<int>(CholeskyBackend::Cholmod) + 1);
  if (d.contains("precision")) o.precision = precision_from_name(option<std::string>(d, "precision"));
  if (!o.leak.values.allFinite()) throw std::invalid_argument("leak_values has NaN or infinite entries");
  validate(o);
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
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(n) + ",) or (" + std::to_string(n) +
                          ", 1), got " + shape_str(a));
  return a;
}

ConstMap as_map(const CArray& a) { return ConstMap(a.data(), a.size()); }

/// New float64 array of n entries, shaped (n, 1) when `column`, else (n,).
py::array_t<double> new_state(Index n, bool column) {
  if (column) return py::array_t<double>(std::vector<py::ssize_t>{py::ssize_t(n), 1});
  return py::array_t<double>(std::vector<py::ssize_t>{py::ssize_t(n)});
}

/// A precomputed solver (FullCD or FastCD), its workspace and the inputs it was built from.
template <class Solver>
struct SolverObject {
  MatrixXd X;
  MatrixXi T;
  SparseMatrix J;
  VectorXd p0;
  CDOptions options;
  Solver sys;
  typename Solver::Workspace ws;
  std::mutex ws_mutex;

  SolverObject(MatrixXd X_, MatrixXi T_, SparseMatrix J_, VectorXd p0_, CDOptions o)
      : X(std::move(X_)), T(std::move(T_)), J(std::move(J_)), p0(std::move(p0_)), options(std::move(o)) {
    py::gil_scoped_release release;
    if constexpr (std::is_same_v<Solver, FullCD>)
      sys = full_cd_precompute(X, T, J, p0, options);
    else
      sys = fast_cd_precompute(X, T, J, p0, options);
  }
  SolverObject(const SolverObject& o) : X(o.X), T(o.T), J(o.J), p0(o.p0), options(o.options), sys(o.sys) {}

  py::array_t<double> step(py::handle s, py::handle s_dot, py::handle p, py::handle p_dot, py::handle p_next,
                           int iterations) {
    const Index m = sys.state_dim(), np = sys.J().cols();
    const CArray a = vector_arg(s, m, "state"), ad = vector_arg(s_dot, m, "state velocity");
    const CArray ap = vector_arg(p, np, "p"), apd = vector_arg(p_dot, np, "p_dot"),
                 apn = vector_arg(p_next, np, "p_next");
    py::array_t<double> out = new_state(m, a.ndim() == 2);
    Eigen::Map<VectorXd> s_out(out.mutable_data(), m);
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(ws_mutex);
      sys.step(as_map(a), as_map(ad), as_map(ap), as_map(apd), as_map(apn), s_out, ws, iterations);
    }
    return out;
  }

  py::tuple getstate() const { return py::make_tuple(X, T, J, p0, options_dict(options)); }

  /// Rebuilds a solver from its pickled state (X, T, J, p0, options), every part checked for
  /// kind, size, index range and finiteness before the precompute sees it (which checks the
  /// mesh and the fit between the parts again): a damaged or foreign pickle raises ValueError
  /// naming the object, never a crash.
  static SolverObject* setstate(const py::object& state) {
    const char* object = std::is_same_v<Solver, FullCD> ? "fastcd.FullCD" : "fastcd.ReducedCD";
    try {
      if (!py::isinstance<py::tuple>(state) || py::len(state) != 5)
        throw std::invalid_argument("its state is " + describe(state) + ", not the 5 items fastcd pickles");
      const auto t = py::reinterpret_borrow<py::tuple>(state);
      MatrixXd X = matrix_from_python(t[0], "X");
      if (X.cols() != 2 && X.cols() != 3)
        throw std::invalid_argument("X has " + std::to_string(X.cols()) + " columns, not 2 or 3");
      MatrixXi T = index_matrix_from_python(t[1], "T", X.cols() + 1);
      if (T.size() > 0 && (T.minCoeff() < 0 || T.maxCoeff() >= X.rows()))
        throw std::invalid_argument("T names vertices outside [0, " + std::to_string(X.rows()) + ")");
      SparseMatrix J = sparse_from_python(t[2], "J");
      if (J.rows() != X.size())
        throw std::invalid_argument("J has " + std::to_string(J.rows()) + " rows, the mesh has " +
                                    std::to_string(X.size()) + " DOFs");
      VectorXd p0 = vector_from_python(t[3], "p0", J.cols());
      if (!p0.allFinite()) throw std::invalid_argument("p0 has NaN or infinite entries");
      CDOptions o = options_from_dict(t[4]);
      return new SolverObject(std::move(X), std::move(T), std::move(J), std::move(p0), std::move(o));
    } catch (const py::error_already_set& e) {
      throw py::value_error(std::string("cannot unpickle a ") + object + ": " + e.what() +
                            " (the pickle is damaged, or was not written by fastcd)");
    } catch (const std::exception& e) {
      throw py::value_error(std::string("cannot unpickle a ") + object + ": " + e.what() +
                            " (the pickle is damaged, or was not written by fastcd)");
    }
  }
};
using FullCDObject = SolverObject<FullCD>;
using FastCDObject = SolverObject<FastCD>;

/// The properties both solver classes have.
template <class Obj, class Cls>
void common_solver_properties(Cls& c) {
  c.def("step", &Obj::step, "s"_a, "s_dot"_a, "p"_a, "p_dot"_a, "p_next"_a, "iterations"_a = -1,
        "The state after one step; same shape as s ((n,) or (n, 1)).")
      .def(
          "lift", [](const Obj& o, const VecRef& s) { return o.sys.lift(s); }, "s"_a, "u_c of a state.")
      .def_property_readonly("J", [](const Obj& o) { return o.sys.J(); })
      .def_property_readonly("p0", [](const Obj& o) { return o.sys.p0(); })
      .def_property_readonly("D", [](const Obj& o) { return o.sys.D(); })
      .def_property_readonly("C", [](const Obj& o) { return o.sys.constraint().C; })
      .def_property_readonly("Mv", [](const Obj& o) { return o.sys.Mv(); })
      .def_property_readonly("constraint_rank", [](const Obj& o) { return o.sys.constraint().rank; })
      .def_property_readonly("state_dim", [](const Obj& o) { return o.sys.state_dim(); })
      .def_property_readonly("n_rot", [](const Obj& o) { return o.sys.n_rot(); })
      .def_property_readonly("dim", [](const Obj& o) { return o.sys.dim(); })
      .def_property_readonly("dt", [](const Obj& o) { return o.sys.options().dt; })
      .def_property_readonly("iterations", [](const Obj& o) { return o.sys.options().iterations; })
      .def_property_readonly("memory_bytes", [](const Obj& o) { return o.sys.memory_bytes(); })
      .def("__copy__", [](const Obj& o) { return new Obj(o); })
      .def(
          "__deepcopy__", [](const Obj& o, const py::dict&) { return new Obj(o); }, "memo"_a)
      .def(py::pickle([](const Obj& o) -> py::object { return o.getstate(); },
                      [](const py::object& t) { return Obj::setstate(t); }));
}

/// A Python rig's result, converted. A bad one is the rig's mistake: std::invalid_argument
/// (ValueError), which the library passes on as it is, not a py::value_error (a runtime_error,
/// which the solvers' precompute reads as a failed factorisation).
template <class F>
auto rig_result(F&& convert) {
  try {
    return convert();
  } catch (const py::builtin_exception& e) {
    throw std::invalid_argument(e.what());
  }
}

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
    const py::object result = f(VectorXd(p));
    const VectorXd r = rig_result([&] { return vector_from_python(result, name() + " rig: positions(p)'s result"); });
    if (r.size() != x.size())
      throw std::invalid_argument(name() + " rig: positions(p) returned " + std::to_string(r.size()) +
                                  " values, expected num_vertices * dim = " + std::to_string(x.size()));
    x = r;
  }
  SparseMatrix jacobian(const Eigen::Ref<const VectorXd>& p) const override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Rig*>(this), "jacobian")) {
      const py::object J = f(VectorXd(p));
      const SparseMatrix Js = rig_result([&] { return sparse_from_python(J, name() + " rig: jacobian(p)'s result"); });
      if (Js.rows() != num_vertices() * dim() || Js.cols() != num_params())
        throw std::invalid_argument(name() + " rig: jacobian(p) is " + std::to_string(Js.rows()) + " x " +
                                    std::to_string(Js.cols()) + ", expected " + std::to_string(num_vertices() * dim()) +
                                    " x " + std::to_string(num_params()));
      return Js;
    }
    return Rig::jacobian(p);
  }
  Index num_handles() const override { PYBIND11_OVERRIDE(Index, Rig, num_handles); }
  MatrixXd handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Rig*>(this), "handle_frame")) {
      const py::object result = f(VectorXd(p), k);
      const MatrixXd A =
          rig_result([&] { return matrix_from_python(result, name() + " rig: handle_frame(p, k)'s result"); });
      if (A.rows() != dim() || A.cols() != dim() + 1)
        throw std::invalid_argument(name() + " rig: handle_frame(p, k) is " + std::to_string(A.rows()) + " x " +
                                    std::to_string(A.cols()) + ", expected dim x (dim + 1) = " + std::to_string(dim()) +
                                    " x " + std::to_string(dim() + 1));
      return A;
    }
    return Rig::handle_frame(p, k);
  }
};

/// A LinearRig's parameter layout by name ("unspecified", "affine_handles", "handle_points").
RigParams rig_params(const std::string& name) {
  if (name == "unspecified") return RigParams::Unspecified;
  if (name == "affine_handles") return RigParams::AffineHandles;
  if (name == "handle_points") return RigParams::HandlePoints;
  throw std::invalid_argument("params must be 'unspecified', 'affine_handles' or 'handle_points', got '" + name + "'");
}

const char* rig_params_name(RigParams p) {
  switch (p) {
    case RigParams::AffineHandles:
      return "affine_handles";
    case RigParams::HandlePoints:
      return "handle_points";
    case RigParams::Unspecified:
      break;
  }
  return "unspecified";
}

py::dict stats_dict(const SimulationObject& sim) {
  const auto [st, precompute_seconds] =
      sim.locked([](const Simulation& s) { return std::make_pair(s.stats(), s.precompute_seconds()); });
  py::dict d;
  d["steps"] = st.steps;
  d["step_seconds"] = st.step_seconds;
  d["mean_step_seconds"] = st.mean_step_seconds();
  d["max_residual"] = st.max_residual;
  d["max_kinetic_energy"] = st.max_kinetic_energy;
  d["mean_kinetic_energy"] = st.mean_kinetic_energy();
  d["precompute_seconds"] = precompute_seconds;
  return d;
}

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
      .def(
          "positions",
          [](const Rig& r, py::handle p) { return r.positions(vector_from_python(p, "p", r.num_params())); }, "p"_a)
      .def(
          "jacobian", [](const Rig& r, py::handle p) { return r.jacobian(vector_from_python(p, "p", r.num_params())); },
          "p"_a)
      .def("num_handles", &Rig::num_handles,
           "How many handles the rig has (bones, point handles, cage vertices, wire handles); 0 when its parameters "
           "are not a list of handles.")
      .def(
          "handle_frame",
          [](const Rig& r, py::handle p, Index k) {
            return r.handle_frame(vector_from_python(p, "p", r.num_params()), k);
          },
          "p"_a, "k"_a,
          "Handle k's frame at pose p: the (dim, dim + 1) affine map [A | t] taking a rest-space point attached to "
          "the handle to posed space, y -> A y + t (a bone's skinning transform; the identity at an LBS rig's rest "
          "pose). Raises ValueError for rigs whose handles have no frame (cages: points; a LinearRig without a "
          "parameter layout), k out of range, or a bad p.");
  py::class_<LinearRig, Rig, std::shared_ptr<LinearRig>>(m, "LinearRig", "x = J p (LBS, handles, cages).")
      .def(py::init([](py::handle J, py::handle p0, Index dim, const std::string& name, const std::string& params) {
             SparseMatrix Jm = sparse_from_python(J, "J");
             return std::make_shared<LinearRig>(Jm, vector_from_python(p0, "p0", Jm.cols()), dim, name,
                                                rig_params(params));
           }),
           "J"_a, "p0"_a, "dim"_a, "name"_a = "linear", "params"_a = "unspecified",
           "params says what p is: 'affine_handles' (a column-major [A | t] per handle, lbs_jacobian's layout: the "
           "rig then reports handle frames), 'handle_points' (a position per handle) or 'unspecified'.")
      .def_readonly("J", &LinearRig::J)
      .def_readonly("p0", &LinearRig::p0)
      .def_property_readonly("params", [](const LinearRig& r) { return rig_params_name(r.params()); });
  m.def(
      "cage_rig",
      [](py::handle X, py::handle cage_V, py::handle cage_F, const std::string& kind, int resolution) {
        if (kind != "mvc" && kind != "harmonic")
          throw std::invalid_argument("kind must be 'mvc' or 'harmonic', got '" + kind + "'");
        return std::make_shared<LinearRig>(
            cage_rig(matrix_from_python(X, "X"), matrix_from_python(cage_V, "cage_V"),
                     index_matrix_from_python(cage_F, "cage_F"),
                     kind == "mvc" ? CageCoordinates::MeanValue : CageCoordinates::Harmonic, resolution));
      },
      "X"_a, "cage_V"_a, "cage_F"_a, "kind"_a = "mvc", "resolution"_a = 128, "Cage rig, p = cage vertex positions.");
  m.def(
      "point_handle_rig",
      [](py::handle X, py::handle T, const std::vector<Index>& handles, py::handle Mv) {
        return std::make_shared<LinearRig>(point_handle_rig(
            matrix_from_python(X, "X"), index_matrix_from_python(T, "T"), handles, sparse_from_python(Mv, "Mv")));
      },
      "X"_a, "T"_a, "handles"_a, "Mv"_a, "Point handles at mesh vertices with biharmonic weights (LBS).");
  m.def(
      "extremity_vertices", [](py::handle X) { return extremity_vertices(matrix_from_python(X, "X")); }, "X"_a,
      "Vertices of smallest and largest x, y (, z).");
  m.def(
      "finite_difference_jacobian",
      [](const Rig& rig, py::handle p, double eps) {
        return finite_difference_jacobian(rig, vector_from_python(p, "p", rig.num_params()), eps);
      },
      "rig"_a, "p"_a, "eps"_a = 1e-6);

  m.def("rig_rest", &rig_rest, "J"_a, "Mv"_a, "X"_a,
        "p0 = argmin_p ||J p - flatten(X)||_Mv (minimum norm when J has dependent columns).");
  m.def(
      "momentum_leak_field",
      [](const MatRef& X, const IdxRef& T, const py::object& leak, double dt) {
        return momentum_leak_field(X, T, leak_options(leak, dt, X.rows()));
      },
      "X"_a, "T"_a, "leak"_a = "diffusion", "dt"_a = 1.0, "Per-vertex momentum-leak field D in [0, 1].");

  auto full = py::class_<FullCDObject>(m, "FullCD", "Precomputed full-order complementary dynamics (C++ FullCD).");
  full.def(py::init([](const MatRef& X, const IdxRef& T, const SparseMatrix& J, const VecRef& p0, double dt, double ym,
                       double pr, double rho, int iterations, const py::object& leak, double leak_dt,
                       const py::object& gravity, double tolerance) {
             return new FullCDObject(X, T, J, p0,
                                     make_options(dt, ym, pr, rho, iterations, CDOptions{}.modes, CDOptions{}.clusters,
                                                  leak, leak_dt, gravity, tolerance, X.rows()));
           }),
           "X"_a, "T"_a, "J"_a, "p0"_a, "dt"_a = 1e-2, "ym"_a = 1e5, "pr"_a = 0.0, "rho"_a = 1e3, "iterations"_a = 10,
           "leak"_a = "diffusion", "leak_dt"_a = 1.0, "gravity"_a = py::none(), "tolerance"_a = 0.0);
  common_solver_properties<FullCDObject>(full);

  auto fast = py::class_<FastCDObject>(m, "FastCD", "Precomputed fast complementary dynamics (C++ FastCD).");
  fast.def(
      py::init([](const MatRef& X, const IdxRef& T, const SparseMatrix& J, const VecRef& p0, int modes, int clusters,
                  double dt, double ym, double pr, double rho, int iterations, const py::object& leak, double leak_dt,
                  const py::object& gravity, double tolerance, const std::string& precision) {
        return new FastCDObject(X, T, J, p0,
                                make_options(dt, ym, pr, rho, iterations, modes, clusters, leak, leak_dt, gravity,
                                             tolerance, X.rows(), precision));
      }),
      "X"_a, "T"_a, "J"_a, "p0"_a, "modes"_a = 10, "clusters"_a = 20, "dt"_a = 1e-2, "ym"_a = 1e5, "pr"_a = 0.0,
      "rho"_a = 1e3, "iterations"_a = 10, "leak"_a = "diffusion", "leak_dt"_a = 1.0, "gravity"_a = py::none(),
      "tolerance"_a = 0.0, "precision"_a = "double");
  common_solver_properties<FastCDObject>(fast);
  fast.def_property_readonly(
          "B", [](const FastCDObject& o) -> const MatrixXd& { return o.sys.B(); },
          py::return_value_policy::reference_internal)
      .def_property_readonly(
          "W", [](const FastCDObject& o) -> const MatrixXd& { return o.sys.W(); },
          py::return_value_policy::reference_internal)
      .def_property_readonly(
          "Phi", [](const FastCDObject& o) -> const MatrixXd& { return o.sys.Phi(); },
          py::return_value_policy::reference_internal)
      .def_property_readonly("eigenvalues", [](const FastCDObject& o) { return o.sys.eigenvalues(); })
      .def_property_readonly("labels", [](const FastCDObject& o) { return o.sys.labels(); })
      .def_property_readonly("structural_residual", [](const FastCDObject& o) { return o.sys.structural_residual(); })
      .def_property_readonly("modes", [](const FastCDObject& o) { return o.sys.options().modes; })
      .def_property_readonly("clusters", [](const FastCDObject& o) { return o.sys.n_rot(); });

  py::class_<SimulationObject>(m, "Simulation", py::dynamic_attr(),
                               "Complementary dynamics of a mesh under a rig, for either solver (C++ Simulation). "
                               "Safe to share between threads: its calls run one at a time.")
      .def(py::init([](const MatRef& X, const IdxRef& T, std::shared_ptr<Rig> rig, const std::string& solver, double dt,
                       double ym, double pr, double rho, int iterations, int modes, int clusters,
                       const py::object& leak, double leak_dt, const py::object& gravity, double tolerance,
                       bool dynamics, bool monitor, const std::string& precision) {
             SimulationOptions o;
             o.solver = solver_kind(solver);
             o.cd = make_options(dt, ym, pr, rho, iterations, modes, clusters, leak, leak_dt, gravity, tolerance,
                                 X.rows(), precision);
             o.dynamics = dynamics;
             o.monitor = monitor;
             if (!rig) throw std::invalid_argument("Simulation needs a rig");
             std::shared_ptr<const Rig> r = rig;
             py::gil_scoped_release release;
             return new SimulationObject(X, T, r, o);
           }),
           "X"_a, "T"_a, "rig"_a, "solver"_a = "full", "dt"_a = 1e-2, "ym"_a = 1e5, "pr"_a = 0.0, "rho"_a = 1e3,
           "iterations"_a = 10, "modes"_a = 10, "clusters"_a = 20, "leak"_a = "diffusion", "leak_dt"_a = 1.0,
           "gravity"_a = py::none(), "tolerance"_a = 0.0, "dynamics"_a = true, "monitor"_a = true,
           "precision"_a = "double",
           // A Python subclass's overrides live in its Python object: keep it alive with the simulation.
           py::keep_alive<1, 4>())
      .def(
          "advance",
          [](SimulationObject& sim, py::handle p_next) {
            const VectorXd p = vector_from_python(p_next, "p_next", sim.num_params());
            sim.locked([&](Simulation& s) { s.advance(p); });
          },
          "p_next"_a, "One time step to rig pose p_next.")
      .def(
          "reset", [](SimulationObject& sim) { sim.locked([](Simulation& s) { s.reset(); }); },
          "Back to the rest pose, at rest.")
      .def(
          "positions",
          [](const SimulationObject& sim) { return sim.locked([](const Simulation& s) { return s.positions(); }); },
          "Rig + complementary positions (n, dim).")
      .def(
          "rig_positions",
          [](const SimulationObject& sim) { return sim.locked([](const Simulation& s) { return s.rig_positions(); }); },
          "The rig's positions (n, dim).")
      .def(
          "displacement", [](const SimulationObject& sim) { return sim.locked(&Simulation::displacement); },
          "u_c (n, dim).")
      .def(
          "velocities", [](const SimulationObject& sim) { return sim.locked(&Simulation::velocities); },
          "Vertex velocities (n, dim).")
      .def(
          "residual", [](const SimulationObject& sim) { return sim.locked(&Simulation::residual); },
          "||J^T M D u_c|| / (||C|| ||u_c||) now.")
      .def(
          "kinetic_energy", [](const SimulationObject& sim) { return sim.locked(&Simulation::kinetic_energy); },
          "1/2 u_c_dot^T M u_c_dot now.")
      .def_property_readonly("stats", &stats_dict)
      .def_property_readonly("state",
                             [](const SimulationObject& sim) {
                               return sim.locked([](const Simulation& s) -> VectorXd { return s.state().s; });
                             })
      .def_property_readonly("p",
                             [](const SimulationObject& sim) {
                               return sim.locked([](const Simulation& s) -> VectorXd { return s.state().p; });
                             })
      .def_property_readonly("step_count",
                             [](const SimulationObject& sim) { return sim.locked(&Simulation::step_count); })
      .def_property_readonly("time", [](const SimulationObject& sim) { return sim.locked(&Simulation::time); })
      .def_property_readonly("solver", [](const SimulationObject& s) { return to_string(s.solver()); })
      .def_property_readonly("dim", [](const SimulationObject& s) { return s.dim(); })
      .def_property_readonly("num_vertices", [](const SimulationObject& s) { return s.num_vertices(); })
      .def_property_readonly("num_params", [](const SimulationObject& s) { return s.num_params(); })
      .def_property_readonly("dt", [](const SimulationObject& s) { return s.options().cd.dt; })
      .def_property_readonly("constraint_rank",
                             [](const SimulationObject& sim) {
                               return sim.locked([](const Simulation& s) { return s.constraint().rank; });
                             })
      .def_property_readonly("C",
                             [](const SimulationObject& sim) {
                               return sim.locked([](const Simulation& s) -> SparseMatrix { return s.constraint().C; });
                             })
      .def_property_readonly(
          "D",
          [](const SimulationObject& sim) { return sim.locked([](const Simulation& s) -> VectorXd { return s.D(); }); })
      .def_property_readonly("rest_params", [](const SimulationObject& s) { return s.rig().rest_params(); })
      .def_property_readonly("memory_bytes",
                             [](const SimulationObject& sim) { return sim.locked(&Simulation::memory_bytes); })
      .def(
          "__copy__", [](const SimulationObject& s) { return new SimulationObject(s); }, py::keep_alive<0, 1>())
      .def(
          "__deepcopy__", [](const SimulationObject& s, const py::dict&) { return new SimulationObject(s); }, "memo"_a,
          py::keep_alive<0, 1>())
      .def("__reduce__", [](const SimulationObject&) -> py::object {
        throw py::type_error(
            "a fastcd.Simulation cannot be pickled (its rig may be Python code); pickle what it was built from "
            "(the mesh, the rig's J and p0, the options) and build it again, or use copy.deepcopy in one process");
      });
}

}  // namespace fastcd::python
