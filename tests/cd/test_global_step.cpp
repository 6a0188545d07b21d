// The global-step seam (global_step.hpp): a GlobalStepHook's force enters both solvers' global
// step exactly, in every iteration form and precision, 2D and 3D; a hook that adds nothing leaves
// the step bit for bit as it was; the hook runs once per iteration; its solve is the step's.
#include <algorithm>
#include <cstring>
#include <functional>

#include "cd/cd_fixtures.hpp"

namespace fastcd {
namespace test_global_step {

/// A hook from a function, counting its calls and the iterations it saw.
struct FunctionHook : GlobalStepHook {
  std::function<void(GlobalStepContext&)> f;
  int calls = 0;
  std::vector<int> iterations;
  explicit FunctionHook(std::function<void(GlobalStepContext&)> fn = {}) : f(std::move(fn)) {}
  void global_step(GlobalStepContext& ctx) override {
    ++calls;
    iterations.push_back(ctx.iteration());
    if (f) f(ctx);
  }
};

/// A rig Jacobian not of the scalar-block form J_s (x) I: each output coordinate scaled differently.
SparseMatrix general_form(const SparseMatrix& J) {
  VectorXd sc(J.rows());
  for (Index r = 0; r < J.rows(); ++r) sc(r) = 1.0 + 0.1 * static_cast<double>(r % 3);
  return sc.asDiagonal() * J;
}

bool bit_identical(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

/// One fast-solver configuration: a mesh, a rig and the options that select the iteration form.
struct FastCase {
  std::string name;
  Mesh mesh;
  SparseMatrix J;
  VectorXd p0;
  CDOptions options;
  bool folded = false;
  double tol = 1e-10;  ///< relative agreement expected (single-precision products: 1e-5)
};

std::vector<FastCase> fast_cases() {
  std::vector<FastCase> cases;
  const Mesh b = beam();
  const LinearRig r2 = affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  const test::Small3D t;
  const auto add = [&](std::string name, int dim, int modes, int clusters, Precision precision, bool folded,
                       bool general) {
    FastCase c;
    c.name = std::move(name);
    c.mesh = dim == 2 ? b : t.m;
    const LinearRig& rig = dim == 2 ? r2 : t.rig;
    c.J = general ? general_form(rig.J) : rig.J;
    c.p0 = rig.p0;
    c.options.modes = modes;
    c.options.clusters = clusters;
    c.options.precision = precision;
    c.folded = folded;
    // Folded systems run in double whatever the option says; the structured mixed products in single.
    c.tol = precision == Precision::Mixed && !folded ? 1e-5 : 1e-10;
    cases.push_back(std::move(c));
  };
  constexpr Precision D = Precision::Double, X = Precision::Mixed;
  add("2D folded", 2, 10, 20, D, true, false);
  add("2D folded, mixed option", 2, 10, 20, X, true, false);
  add("2D structured", 2, 2, 20, D, false, false);
  add("2D structured mixed", 2, 2, 20, X, false, false);
  add("3D folded", 3, 4, 8, D, true, false);
  add("3D folded, general rig", 3, 4, 8, D, true, true);
  add("3D structured", 3, 2, 11, D, false, false);
  add("3D structured, general rig", 3, 2, 11, D, false, true);
  add("3D structured mixed", 3, 2, 17, X, false, false);
  add("3D structured mixed, general rig", 3, 2, 17, X, false, true);
  return cases;
}

/// A step's inputs: a moving state and a rig pose ahead of it.
struct StepInputs {
  VectorXd z, z_dot, p, p_dot, p_next;
  StepInputs(const FastCase& c, Index m) {
    const int dim = static_cast<int>(c.mesh.X.cols());
    std::srand(7);
    z = VectorXd::Random(m) * 1e-2;
    z_dot = VectorXd::Random(m) * 1e-1;
    p = c.p0;
    p_dot = VectorXd::Random(c.p0.size()) * 1e-1;
    p_next = metronome_pose(c.p0, dim, 5, dim == 2 ? 3.0 : 0.5, 20.0);
  }
};

/// Tutorial 23's ReducedCD step written plainly from the reduced operators, with the global
/// step's system changed: Hr z = b + f + k U (U^T ... ) -- that is, (Hr + k U U^T) z = b + f + k U t
/// (f a constant generalized force; k U U^T, k U t an implicit spring pulling U^T z to t).
VectorXd plain_step(const FastCD& sys, const StepInputs& in, const VectorXd& f, double k = 0.0,
                    const MatrixXd& U = MatrixXd(), const VectorXd& t = VectorXd(), int iters = 10) {
  const double h = sys.options().dt;
  const ReducedOperators& r = sys.reduced_operators();
  const VectorXd y = in.z + h * in.z_dot, q = in.p_next - (in.p + h * in.p_dot);
  MatrixXd H = MatrixXd(r.Hr.matrixL()) * MatrixXd(r.Hr.matrixU());
  VectorXd extra = f;
  if (k > 0) {
    H += k * U * U.transpose();
    extra += k * U * t;
  }
  const Eigen::LLT<MatrixXd> llt(H);
  VectorXd zz = in.z, R;
  for (int it = 0; it < iters; ++it) {
    polar_rotations(VectorXd(r.GB * zz + r.GJ * in.p_next), sys.dim(), R);
    const VectorXd rhs = r.BMB * y / (h * h) - r.BMJ * q / (h * h) + r.GB.transpose() * R - r.BLJ * in.p_next;
    zz = llt.solve(rhs + extra);
  }
  return zz;
}

VectorXd gravity(Index dim) {
  VectorXd g = VectorXd::Zero(dim);
  g(1) = -9.8;
  return g;
}

// A hook adding the generalized force of gravity, B^T M g, gives the step of the solver
// precomputed with that gravity (the physical change), and the plain iteration with f in every
// global step's right-hand side (a direct dense solve of the corrected system): in both fast
// iteration forms, both precisions, 2D and 3D, with LBS and general rigs.
TEST(GlobalStep, FastConstantForceEqualsGravityInEveryForm) {
  for (const FastCase& c : fast_cases()) {
    SCOPED_TRACE(c.name);
    const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, c.options);
    ASSERT_EQ(sys.folded(), c.folded);
    CDOptions og = c.options;
    og.gravity = 10.0 * gravity(sys.dim());  // (strong, so its effect stands well above rounding)
    const FastCD sys_g = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, og);
    const VectorXd f = sys.B().transpose() * (sys.Mv() * og.gravity.replicate(sys.num_vertices(), 1));
    const StepInputs in(c, sys.state_dim());
    FunctionHook hook([&](GlobalStepContext& ctx) { ctx.force() += f; });
    FastCD::Workspace ws;
    ws.hook = &hook;
    VectorXd hooked(sys.state_dim());
    sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, hooked, ws);
    const VectorXd with_gravity = sys_g.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next);
    const VectorXd plain = sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next);
    const VectorXd reference = plain_step(sys, in, f);
    EXPECT_EQ(hook.calls, 10);
    // The force matters (so the comparisons below could fail)...
    ASSERT_GT((with_gravity - plain).norm(), 1e-4 * with_gravity.norm());
    // ... and enters as gravity does.
    EXPECT_LT((hooked - with_gravity).norm(), c.tol * with_gravity.norm());
    EXPECT_LT((hooked - reference).norm(), c.tol * reference.norm());
  }
}

// The same with an implicit spring pulling a few subspace coordinates U^T z towards t, applied
// as the contact scheme would (Woodbury on the prefactored matrix, the Delassus block U^T Hr^{-1}
// U precomputed with solve_global): f = -U lambda, lambda = (I/k + U^T Hr^{-1} U)^{-1} (U^T
// z_free - t). Equals the plain iteration on Hr + k U U^T, in every form.
TEST(GlobalStep, FastWoodburyCorrectionEqualsTheModifiedSystem) {
  for (const FastCase& c : fast_cases()) {
    SCOPED_TRACE(c.name);
    const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, c.options);
    const Index m = sys.state_dim(), nc = 3;
    std::srand(11);
    const MatrixXd U = MatrixXd::Random(m, nc);
    const VectorXd t = VectorXd::Random(nc) * 1e-2;
    const double k = 1e6;
    MatrixXd HiU(m, nc);  // Hr^{-1} U, once
    for (Index j = 0; j < nc; ++j) sys.solve_global(U.col(j), HiU.col(j));
    const Eigen::LDLT<MatrixXd> cap(MatrixXd(MatrixXd::Identity(nc, nc) / k + U.transpose() * HiU));
    FunctionHook hook([&](GlobalStepContext& ctx) {
      const VectorXd lambda = cap.solve(U.transpose() * ctx.solution() - t);
      ctx.force() -= U * lambda;
    });
    FastCD::Workspace ws;
    ws.hook = &hook;
    const StepInputs in(c, m);
    VectorXd hooked(m);
    sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, hooked, ws);
    const VectorXd reference = plain_step(sys, in, VectorXd::Zero(m), k, U, t);
    const VectorXd plain = sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next);
    ASSERT_GT((reference - plain).norm(), 1e-3 * reference.norm());
    EXPECT_LT((hooked - reference).norm(), c.tol * reference.norm());
    // The spring holds: U^T z is close to t (k large).
    EXPECT_LT((U.transpose() * hooked - t).norm(), 1e-2 * (U.transpose() * plain - t).norm());
  }
}

// A hook that reads everything and adds nothing leaves the step bit for bit as without a hook,
// with and without the tolerance stop; the hook runs exactly once per iteration, numbered from 0
// in every step; it sees the iterate the local step used and the global step's result.
TEST(GlobalStep, FastZeroHookIsBitIdenticalAndRunsOncePerIteration) {
  for (const FastCase& c : fast_cases()) {
    for (const double tolerance : {0.0, 1e-12}) {
      SCOPED_TRACE(c.name + (tolerance > 0 ? ", tolerance stop" : ""));
      CDOptions o = c.options;
      o.tolerance = tolerance;
      const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, o);
      const Index m = sys.state_dim();
      const StepInputs in(c, m);
      VectorXd previous, scratch(m);
      double sum = 0.0;
      FunctionHook hook([&](GlobalStepContext& ctx) {
        ASSERT_EQ(ctx.size(), m);
        // The iterate is the step's start, then the previous global step's result.
        if (ctx.iteration() == 0)
          EXPECT_TRUE(bit_identical(ctx.iterate(), in.z));
        else
          EXPECT_TRUE(bit_identical(ctx.iterate(), previous));
        previous = ctx.solution();
        ctx.solve(ctx.solution(), scratch);
        sum += scratch.sum() + ctx.iterate().sum();
      });
      FastCD::Workspace ws, ws_hooked;
      ws_hooked.hook = &hook;
      const int iters = 7;
      VectorXd plain(m), hooked(m);
      sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, plain, ws, iters);
      sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, hooked, ws_hooked, iters);
      EXPECT_TRUE(std::isfinite(sum));
      EXPECT_TRUE(bit_identical(plain, hooked));
      EXPECT_TRUE(bit_identical(previous, hooked));  // the last global step's result is the step's
      if (tolerance == 0.0) {
        EXPECT_EQ(hook.calls, iters);
        EXPECT_EQ(hook.iterations, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
      } else {
        EXPECT_GE(hook.calls, 1);
        EXPECT_LE(hook.calls, iters);
      }
      // Over a roll-out (advance), once per iteration of every step, numbered from 0 each step.
      hook.calls = 0;
      hook.iterations.clear();
      hook.f = {};
      CDState a = sys.initial_state(), b = a;
      for (int i = 0; i < 3; ++i) {
        const VectorXd p = metronome_pose(c.p0, static_cast<int>(sys.dim()), i);
        sys.advance(a, p, ws);
        sys.advance(b, p, ws_hooked);
      }
      EXPECT_TRUE(bit_identical(a.s, b.s));
      if (tolerance == 0.0) {
        EXPECT_EQ(hook.calls, 3 * o.iterations);
        EXPECT_EQ(std::count(hook.iterations.begin(), hook.iterations.end(), 0), 3);
      }
    }
  }
}

// The context's solve is the global step's: Hr out = v, in place too.
TEST(GlobalStep, FastSolveIsTheReducedSystemMatrix) {
  for (const FastCase& c : fast_cases()) {
    SCOPED_TRACE(c.name);
    const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, c.options);
    const Index m = sys.state_dim();
    const ReducedOperators& r = sys.reduced_operators();
    const MatrixXd Hr = MatrixXd(r.Hr.matrixL()) * MatrixXd(r.Hr.matrixU());
    const VectorXd v = VectorXd::Random(m);
    VectorXd out(m), in_place = v;
    sys.solve_global(v, out);
    EXPECT_LT((Hr * out - v).norm(), 1e-10 * v.norm());
    sys.solve_global(in_place, in_place);
    EXPECT_LT((in_place - out).norm(), 1e-14 * out.norm());
    FunctionHook hook([&](GlobalStepContext& ctx) {
      VectorXd x(m);
      ctx.solve(v, x);
      EXPECT_TRUE(bit_identical(x, out));
      EXPECT_THROW(ctx.solve(VectorXd::Zero(m - 1), x), std::invalid_argument);
    });
    FastCD::Workspace ws;
    ws.hook = &hook;
    const StepInputs in(c, m);
    VectorXd z(m);
    sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, z, ws, 1);
    EXPECT_EQ(hook.calls, 1);
  }
  // A non-finite force is refused, naming the hook.
  const std::vector<FastCase> cases = fast_cases();
  const FastCase& c = cases.front();
  const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.J, c.p0, c.options);
  FunctionHook bad([](GlobalStepContext& ctx) { ctx.force()(0) = std::nan(""); });
  FastCD::Workspace ws;
  ws.hook = &bad;
  const StepInputs in(c, sys.state_dim());
  VectorXd z(sys.state_dim());
  test::expect_throw_with<std::invalid_argument>([&] { sys.step(in.z, in.z_dot, in.p, in.p_dot, in.p_next, z, ws); },
                                                 "global-step hook's force");
}

// ---- full order

struct FullCase {
  std::string name;
  Mesh mesh;
  LinearRig rig;
};

std::vector<FullCase> full_cases() {
  const Mesh b = beam();
  const test::Small3D t(5, 3, 3);
  return {{"2D beam", b, affine_handle_rig(b.X, kron_identity(massmatrix(b.X, b.T, 1e3), 2))}, {"3D grid", t.m, t.rig}};
}

// A hook adding M g gives the step of the full solver precomputed with gravity, 2D and 3D; the
// force's rig part goes to the constraint (C u = 0 still holds).
TEST(GlobalStep, FullConstantForceEqualsGravity) {
  for (const FullCase& c : full_cases()) {
    SCOPED_TRACE(c.name);
    const Index dim = c.mesh.X.cols();
    const FullCD sys = full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
    CDOptions og;
    og.gravity = gravity(dim);
    const FullCD sys_g = full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, og);
    const VectorXd f = sys.Mv() * og.gravity.replicate(sys.num_vertices(), 1);
    FunctionHook hook([&](GlobalStepContext& ctx) { ctx.force() += f; });
    FullCD::Workspace ws, ws_g, ws_plain;
    ws.hook = &hook;
    CDState a = sys.initial_state(), b = a, plain = a;
    for (int i = 0; i < 5; ++i) {
      const VectorXd p = metronome_pose(c.rig.p0, static_cast<int>(dim), i, dim == 2 ? 3.0 : 0.5);
      sys.advance(a, p, ws);
      sys_g.advance(b, p, ws_g);
      sys.advance(plain, p, ws_plain);
    }
    EXPECT_EQ(hook.calls, 5 * sys.options().iterations);
    ASSERT_GT((b.s - plain.s).norm(), 1e-3 * b.s.norm());
    EXPECT_LT((a.s - b.s).norm(), 1e-10 * b.s.norm());
    EXPECT_LT((sys.constraint().C * a.s).norm(), 1e-10 * (MatrixXd(sys.constraint().C).norm() * a.s.norm()));
  }
}

// The full solver's hook: bit-identical when it adds nothing, once per iteration, its iterate and
// solution as the iteration has them, and its solve the constrained (KKT) solve.
TEST(GlobalStep, FullZeroHookSolveAndCalls) {
  for (const FullCase& c : full_cases()) {
    SCOPED_TRACE(c.name);
    const Index dim = c.mesh.X.cols();
    const FullCD sys = full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
    const Index n = sys.state_dim();
    const SparseMatrix C = sys.constraint().C;
    const double h = sys.options().dt;
    // The KKT matrix [H C^T; C 0], dense, for the reference solve (C may have dependent rows:
    // a least-squares solve of the consistent system).
    const MatrixXd H = MatrixXd(sys.operators().L) + MatrixXd(sys.Mv()) / (h * h);
    MatrixXd K = MatrixXd::Zero(n + C.rows(), n + C.rows());
    K.topLeftCorner(n, n) = H;
    K.topRightCorner(n, C.rows()) = MatrixXd(C).transpose();
    K.bottomLeftCorner(C.rows(), n) = MatrixXd(C);
    const Eigen::CompleteOrthogonalDecomposition<MatrixXd> kkt(K);
    std::srand(3);
    const VectorXd v = VectorXd::Random(n);
    VectorXd rhs = VectorXd::Zero(n + C.rows());
    rhs.head(n) = v;
    const VectorXd ref = VectorXd(kkt.solve(rhs)).head(n);
    VectorXd out(n);
    sys.solve_global(v, out);
    EXPECT_LT((out - ref).norm(), 1e-8 * ref.norm());
    EXPECT_LT((C * out).norm(), 1e-10 * MatrixXd(C).norm() * out.norm());

    VectorXd previous;
    CDState s0 = sys.initial_state();
    VectorXd start;
    FunctionHook hook([&](GlobalStepContext& ctx) {
      ASSERT_EQ(ctx.size(), n);
      if (ctx.iteration() == 0)
        EXPECT_TRUE(bit_identical(ctx.iterate(), start));
      else
        EXPECT_TRUE(bit_identical(ctx.iterate(), previous));
      previous = ctx.solution();
      VectorXd x = v;
      ctx.solve(x, x);  // in place
      EXPECT_LT((x - out).norm(), 1e-12 * out.norm());
    });
    FullCD::Workspace ws, ws_hooked;
    ws_hooked.hook = &hook;
    CDState a = s0, b = s0;
    for (int i = 0; i < 4; ++i) {
      const VectorXd p = metronome_pose(c.rig.p0, static_cast<int>(dim), i, dim == 2 ? 3.0 : 0.5);
      start = b.s;
      sys.advance(a, p, ws);
      sys.advance(b, p, ws_hooked);
      EXPECT_TRUE(bit_identical(previous, b.s));
    }
    EXPECT_TRUE(bit_identical(a.s, b.s));
    EXPECT_GT(a.s.norm(), 0.0);
    EXPECT_EQ(hook.calls, 4 * sys.options().iterations);
    EXPECT_EQ(std::count(hook.iterations.begin(), hook.iterations.end(), 0), 4);
    // step_positions runs the hook too.
    hook.f = {};
    hook.calls = 0;
    VectorXd u(n);
    const VectorXd xr = sys.J() * c.rig.p0, zero = VectorXd::Zero(n);
    sys.step_positions(zero, zero, xr, zero, xr, u, ws_hooked, 3);
    EXPECT_EQ(hook.calls, 3);
  }
}

// ---- through Simulation (CDSolver::set_global_step_hook)

/// The generalized force of gravity g in the solver's coordinates: M g (full), B^T M g (fast).
VectorXd gravity_force(const Simulation& sim, const VectorXd& g) {
  const VectorXd Mg = sim.cd_solver().Mv() * g.replicate(sim.num_vertices(), 1);
  return sim.fast() != nullptr ? VectorXd(sim.fast()->B().transpose() * Mg) : Mg;
}

// A constant-force hook installed on a Simulation: the same steps as the solver-level hook
// (FullCD / FastCD::advance with Workspace::hook, bit for bit), and the same trajectory as that
// force given as gravity (to rounding); both solvers, 2D and 3D.
TEST(GlobalStep, SimulationConstantForceHookEqualsSolverHookAndGravity) {
  for (const FullCase& c : full_cases()) {
    for (const SolverKind kind : solver_kinds()) {
      SCOPED_TRACE(c.name + ", " + to_string(kind));
      const int dim = static_cast<int>(c.mesh.X.cols());
      const SimulationOptions o = test::small_options(kind, 4, 8);
      SimulationOptions og = o;
      og.cd.gravity = 10.0 * gravity(dim);
      Simulation sim(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o), with_gravity(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, og),
          plain(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o);
      const VectorXd f = gravity_force(sim, og.cd.gravity);
      FunctionHook hook([&](GlobalStepContext& ctx) { ctx.force() += f; });
      EXPECT_EQ(sim.global_step_hook(), nullptr);
      sim.set_global_step_hook(&hook);
      EXPECT_EQ(sim.global_step_hook(), &hook);
      // The solver-level roll-out: the simulation's own precompute, a workspace with the hook.
      FunctionHook solver_hook([&](GlobalStepContext& ctx) { ctx.force() += f; });
      CDState s = sim.state();
      FullCD::Workspace full_ws;
      FastCD::Workspace fast_ws;
      full_ws.hook = &solver_hook;
      fast_ws.hook = &solver_hook;
      const int steps = 6;
      for (int i = 1; i <= steps; ++i) {
        const VectorXd p = metronome_pose(c.rig.p0, dim, i, dim == 2 ? 3.0 : 0.5);
        sim.advance(p);
        with_gravity.advance(p);
        plain.advance(p);
        if (kind == SolverKind::Full)
          sim.full()->advance(s, p, full_ws);
        else
          sim.fast()->advance(s, p, fast_ws);
        EXPECT_TRUE(bit_identical(sim.state().s, s.s)) << "step " << i;
        EXPECT_TRUE(bit_identical(sim.state().s_dot, s.s_dot)) << "step " << i;
      }
      EXPECT_EQ(hook.calls, steps * o.cd.iterations);
      EXPECT_EQ(solver_hook.calls, hook.calls);
      const MatrixXd x = sim.positions(), xg = with_gravity.positions(), x0 = plain.positions();
      // The force matters (the comparison below could fail) and moves the mesh as gravity does.
      ASSERT_GT((xg - x0).norm(), 1e-3 * (xg - with_gravity.rig_positions()).norm());
      EXPECT_LT((x - xg).norm(), 1e-10 * xg.norm());
    }
  }
}

// Removing the hook gives back, bit for bit, the steps of a simulation that never had one (from
// the rest pose after reset, and for the steps after the removal); a copy starts without the hook.
TEST(GlobalStep, SimulationWithoutTheHookIsBitIdentical) {
  for (const FullCase& c : full_cases()) {
    for (const SolverKind kind : solver_kinds()) {
      SCOPED_TRACE(c.name + ", " + to_string(kind));
      const int dim = static_cast<int>(c.mesh.X.cols());
      const SimulationOptions o = test::small_options(kind, 4, 8);
      Simulation never(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o), sim(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o);
      const VectorXd f = gravity_force(sim, 10.0 * gravity(dim));
      FunctionHook hook([&](GlobalStepContext& ctx) { ctx.force() += f; });
      const auto pose = [&](int i) { return metronome_pose(c.rig.p0, dim, i, dim == 2 ? 3.0 : 0.5); };
      sim.set_global_step_hook(&hook);
      for (int i = 1; i <= 3; ++i) sim.advance(pose(i));
      const Simulation copy = sim;
      EXPECT_EQ(copy.global_step_hook(), nullptr);
      // The hook moved the state away (so the bit-for-bit checks below could fail).
      for (int i = 1; i <= 3; ++i) never.advance(pose(i));
      ASSERT_GT((sim.state().s - never.state().s).norm(), 1e-6 * never.state().s.norm());
      // Removed mid-run: the next steps are the hook-free steps from that state.
      Simulation resumed = copy;
      sim.set_global_step_hook(nullptr);
      const int calls = hook.calls;
      for (int i = 4; i <= 6; ++i) {
        sim.advance(pose(i));
        resumed.advance(pose(i));
        EXPECT_TRUE(bit_identical(sim.state().s, resumed.state().s)) << "step " << i;
      }
      EXPECT_EQ(hook.calls, calls);
      // reset keeps the hook; removed, the roll-out from rest is the never-hooked one.
      sim.set_global_step_hook(&hook);
      sim.reset();
      EXPECT_EQ(sim.global_step_hook(), &hook);
      sim.set_global_step_hook(nullptr);
      never.reset();
      for (int i = 1; i <= 6; ++i) {
        sim.advance(pose(i));
        never.advance(pose(i));
      }
      EXPECT_EQ(hook.calls, calls);
      EXPECT_TRUE(bit_identical(sim.state().s, never.state().s));
      EXPECT_TRUE(bit_identical(sim.state().s_dot, never.state().s_dot));
      EXPECT_EQ(sim.positions(), never.positions());
    }
  }
}

// Without dynamics nothing iterates: the hook is never called.
TEST(GlobalStep, SimulationWithoutDynamicsNeverCallsTheHook) {
  const FullCase c = full_cases().front();
  for (const SolverKind kind : solver_kinds()) {
    SimulationOptions o = test::small_options(kind, 4, 8);
    o.dynamics = false;
    Simulation sim(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o);
    FunctionHook hook([](GlobalStepContext& ctx) { ctx.force().setOnes(); });
    sim.set_global_step_hook(&hook);
    for (int i = 1; i <= 3; ++i) sim.advance(metronome_pose(c.rig.p0, 2, i, 3.0));
    EXPECT_EQ(hook.calls, 0) << to_string(kind);
    EXPECT_EQ(sim.positions(), sim.rig_positions()) << to_string(kind);
  }
}

}  // namespace test_global_step
}  // namespace fastcd
