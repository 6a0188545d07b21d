// The fast step (and a Simulation with the monitor off) must not allocate once its workspace is
// sized. This test binary replaces the
// global operator new to count allocations (a separate executable, so no other test is affected).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <tuple>

#include "fastcd/fastcd.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return operator new(n, std::nothrow); }
// Every replaced new frees with free(), so every delete must too (ASan checks the pairs).
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace fastcd {
namespace {

TEST(FastCDAllocation, StepAllocatesNothingOnceTheWorkspaceIsSized) {
  // 2D; 3D folded (4 modes, 6 clusters); 3D structured iteration (2 modes, 8 clusters); the
  // mixed-precision structured iteration in 2D (3 tiles) and 3D (17 clusters: a tile pair and
  // a last odd tile).
  constexpr Precision D = Precision::Double, X = Precision::Mixed;
  for (const auto& [dim, modes, clusters, precision] :
       {std::tuple{2, 10, 20, D}, std::tuple{3, 4, 6, D}, std::tuple{3, 2, 8, D}, std::tuple{2, 2, 20, X},
        std::tuple{3, 2, 17, X}}) {
    const Mesh m = dim == 2 ? beam() : tetrahedralized_grid(5, 3, 3);
    const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T, 1e3), dim);
    const LinearRig rig = affine_handle_rig(m.X, Mv);
    CDOptions o;
    o.modes = modes;
    o.clusters = clusters;
    o.precision = precision;
    const FastCD sys = fast_cd_precompute(m.X, m.T, rig.J, rig.p0, o);
    FastCD::Workspace ws;
    VectorXd z = VectorXd::Zero(sys.state_dim()), z_dot = z, z_out = z;
    VectorXd p = rig.p0, p_dot = VectorXd::Zero(p.size()), p_next = metronome_pose(rig.p0, dim, 1);
    sys.step(z, z_dot, p, p_dot, p_next, z_out, ws);  // sizes the workspace
    const long before = g_allocations.load();
    for (int i = 0; i < 20; ++i) {
      sys.step(z, z_dot, p, p_dot, p_next, z_out, ws);
      z = z_out;
    }
    EXPECT_EQ(g_allocations.load() - before, 0)
        << dim << "D, " << modes << " modes, folded " << sys.folded() << ", " << precision_name(precision);
    // FastCD::advance too, once its workspace has seen one step.
    CDState state = sys.initial_state();
    sys.advance(state, p_next, ws);
    const long before_advance = g_allocations.load();
    for (int i = 0; i < 20; ++i) sys.advance(state, p_next, ws);
    EXPECT_EQ(g_allocations.load() - before_advance, 0) << "FastCD::advance, " << dim << "D";
    EXPECT_TRUE(z.allFinite());
    // And a whole Simulation step with the monitor off (rig positions, step, velocities).
    SimulationOptions so;
    so.solver = SolverKind::Fast;
    so.cd = o;
    so.monitor = false;
    Simulation sim(m.X, m.T, rig.J, rig.p0, so);
    sim.advance(p_next);
    const long before_sim = g_allocations.load();
    for (int i = 0; i < 20; ++i) sim.advance(p_next);
    EXPECT_EQ(g_allocations.load() - before_sim, 0) << "Simulation::advance, " << dim << "D";
    // Each step's positions read into the caller's buffers, as a bake's loop does.
    MatrixXd x(m.X.rows(), dim), xr(m.X.rows(), dim);
    sim.positions(x);
    sim.rig_positions(xr);
    const VectorXd pa = metronome_pose(rig.p0, dim, 2), pb = metronome_pose(rig.p0, dim, 3);
    const long before_read = g_allocations.load();
    for (int i = 0; i < 20; ++i) {
      sim.advance(i % 2 ? pb : pa);
      sim.positions(x);
      sim.rig_positions(xr);
    }
    EXPECT_EQ(g_allocations.load() - before_read, 0) << "Simulation::positions(x), " << dim << "D";
  }
}

/// A global-step hook adding a constant force and using the step's solve, as a contact hook would.
struct ConstantForce : GlobalStepHook {
  VectorXd f, scratch;
  void global_step(GlobalStepContext& ctx) override {
    ctx.force() += f;
    ctx.solve(f, scratch);
  }
};

TEST(FastCDAllocation, HookedStepsAllocateNothingOnceTheWorkspaceIsSized) {
  constexpr Precision D = Precision::Double, X = Precision::Mixed;
  for (const auto& [dim, modes, clusters, precision] :
       {std::tuple{2, 10, 20, D}, std::tuple{3, 4, 6, D}, std::tuple{3, 2, 8, D}, std::tuple{3, 2, 17, X}}) {
    const Mesh m = dim == 2 ? beam() : tetrahedralized_grid(5, 3, 3);
    const SparseMatrix Mv = kron_identity(massmatrix(m.X, m.T, 1e3), dim);
    const LinearRig rig = affine_handle_rig(m.X, Mv);
    CDOptions o;
    o.modes = modes;
    o.clusters = clusters;
    o.precision = precision;
    const FastCD sys = fast_cd_precompute(m.X, m.T, rig.J, rig.p0, o);
    ConstantForce hook;
    hook.f = VectorXd::Constant(sys.state_dim(), 1e-3);
    hook.scratch.resize(sys.state_dim());
    FastCD::Workspace ws;
    ws.hook = &hook;
    CDState state = sys.initial_state();
    const VectorXd p_next = metronome_pose(rig.p0, dim, 1);
    sys.advance(state, p_next, ws);  // sizes the workspace
    const long before = g_allocations.load();
    for (int i = 0; i < 10; ++i) sys.advance(state, p_next, ws);
    EXPECT_EQ(g_allocations.load() - before, 0)
        << dim << "D, folded " << sys.folded() << ", " << precision_name(precision);
    EXPECT_TRUE(state.s.allFinite());
  }
  // The full solver's global step with a hook.
  for (const int dim : {2, 3}) {
    const Mesh m = dim == 2 ? beam() : tetrahedralized_grid(5, 3, 3);
    const LinearRig rig = affine_handle_rig(m.X, kron_identity(massmatrix(m.X, m.T, 1e3), dim));
    const FullCD sys = full_cd_precompute(m.X, m.T, rig.J, rig.p0);
    ConstantForce hook;
    hook.f = VectorXd::Constant(sys.state_dim(), 1e-3);
    hook.scratch.resize(sys.state_dim());
    FullCD::Workspace ws;
    ws.hook = &hook;
    CDState state = sys.initial_state();
    const VectorXd p_next = metronome_pose(rig.p0, dim, 1);
    sys.advance(state, p_next, ws);
    const long before = g_allocations.load();
    for (int i = 0; i < 5; ++i) sys.advance(state, p_next, ws);
    EXPECT_EQ(g_allocations.load() - before, 0) << "full order, " << dim << "D";
    EXPECT_TRUE(state.s.allFinite());
  }
}

}  // namespace
}  // namespace fastcd
