// Google Benchmark suite for the complementary-dynamics solvers: per-step cost of full order
// and fast order over the seed's resolution sweep, plus the pieces of a full-order step.
#include <benchmark/benchmark.h>

#include "bench_cases.hpp"
#include "fastcd/fastcd.hpp"

namespace {

using namespace fastcd;

struct BeamCase {
  Mesh mesh;
  LinearRig rig;
  explicit BeamCase(int w, int h) : mesh(beam(w, h)) {
    rig = affine_handle_rig(mesh.X, kron_identity(massmatrix(mesh.X, mesh.T, 1e3), 2));
  }
};

const int kSweep[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};

template <class Sys, class Advance, class Init>
void run_steps(benchmark::State& state, const Sys& sys, Advance advance, Init init) {
  CDState s = init(sys);
  int i = 0;
  // The seed's metronome: amplitude 3 on the 2D beam (length 2 * 40/5 after its scaling), 0.3 on
  // the 3D meshes (normalised to extent 2), as in `fastcd bench`.
  const double amp = sys.dim == 2 ? 3.0 : 0.3;
  for (int w = 0; w < 10; ++w) advance(s, metronome_pose(sys.p0, sys.dim, i++, amp));  // warm-up
  for (auto _ : state) {
    advance(s, metronome_pose(sys.p0, sys.dim, i++, amp));
    benchmark::DoNotOptimize(s.s.data());
  }
  state.counters["vertices"] = double(sys.J.rows() / sys.dim);
}

void BM_FullStepBeam(benchmark::State& state) {
  const auto& r = kSweep[state.range(0)];
  const BeamCase c(r[0], r[1]);
  const FullCD sys = full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
  FullCDWorkspace ws;
  run_steps(state, sys, [&](CDState& s, const VectorXd& p) { full_cd_advance(sys, s, p, ws); },
            [](const FullCD& f) { return full_cd_initial_state(f); });
}
BENCHMARK(BM_FullStepBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FastStepBeam(benchmark::State& state) {
  const auto& r = kSweep[state.range(0)];
  const BeamCase c(r[0], r[1]);
  const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
  FastCDWorkspace ws;
  run_steps(state, sys, [&](CDState& s, const VectorXd& p) { fast_cd_advance(sys, s, p, ws); }, fast_cd_initial_state);
}
BENCHMARK(BM_FastStepBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FastLiftBeam(benchmark::State& state) {
  const auto& r = kSweep[state.range(0)];
  const BeamCase c(r[0], r[1]);
  const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
  const VectorXd z = VectorXd::Random(sys.state_dim());
  VectorXd u(sys.B.rows());
  for (auto _ : state) {
    u.noalias() = sys.B * z;
    benchmark::DoNotOptimize(u.data());
  }
}
BENCHMARK(BM_FastLiftBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FullPrecomputeBeam(benchmark::State& state) {
  const auto& r = kSweep[state.range(0)];
  const BeamCase c(r[0], r[1]);
  for (auto _ : state) benchmark::DoNotOptimize(full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0).Y.data());
}
BENCHMARK(BM_FullPrecomputeBeam)->Arg(0)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_FastPrecomputeBeam(benchmark::State& state) {
  const auto& r = kSweep[state.range(0)];
  const BeamCase c(r[0], r[1]);
  for (auto _ : state) benchmark::DoNotOptimize(fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0).Zy.data());
}
BENCHMARK(BM_FastPrecomputeBeam)->Arg(0)->Arg(4)->Unit(benchmark::kMillisecond);

// Pieces of one full-order iteration on the tutorial beam.
struct FullPieces {
  BeamCase c{40, 5};
  FullCD sys = full_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0);
  VectorXd u = VectorXd::Random(sys.state_dim()), F = VectorXd(sys.op.G.rows()), R = VectorXd(sys.op.G.rows());
  VectorXd b0 = VectorXd::Random(sys.state_dim());
};

void BM_FullPieceDeformation(benchmark::State& state) {
  FullPieces f;
  for (auto _ : state) {
    arap_deformation(f.sys.arap, f.u.data(), f.F.data());
    benchmark::DoNotOptimize(f.F.data());
  }
}
BENCHMARK(BM_FullPieceDeformation)->Unit(benchmark::kMicrosecond);

void BM_FullPieceRotations(benchmark::State& state) {
  FullPieces f;
  f.F.setRandom();
  for (auto _ : state) {
    detail::polar_rotations_unchecked<2>(f.F.data(), f.F.size() / 4, f.R.data());
    benchmark::DoNotOptimize(f.R.data());
  }
}
BENCHMARK(BM_FullPieceRotations)->Unit(benchmark::kMicrosecond);

void BM_FullPieceElasticRhs(benchmark::State& state) {
  FullPieces f;
  f.R.setRandom();
  for (auto _ : state) {
    arap_elastic_rhs(f.sys.arap, f.R.data(), f.b0.data(), f.u.data());
    benchmark::DoNotOptimize(f.u.data());
  }
}
BENCHMARK(BM_FullPieceElasticRhs)->Unit(benchmark::kMicrosecond);

void BM_FullPieceSolve(benchmark::State& state) {
  FullPieces f;
  VectorXd b = VectorXd::Random(f.sys.state_dim()), scratch(f.sys.state_dim());
  for (auto _ : state) {
    f.sys.H_factor.solve(b.data(), f.u.data(), scratch.data());
    benchmark::DoNotOptimize(f.u.data());
  }
}
BENCHMARK(BM_FullPieceSolve)->Unit(benchmark::kMicrosecond);

}  // namespace

// ---------------------------------------------------------------- 3D: the Spot character
namespace {

struct SpotFast {
  bench::RiggedMesh c;
  FastCD sys;
  SpotFast() : c(bench::spot_case(FASTCD_SHARED_DIR)) {
    if (c.name.empty()) return;
    CDOptions o;
    o.modes = 16;
    o.clusters = 100;
    sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig.J, c.rig.p0, o);
  }
};
const SpotFast& spot_fast() {
  static const SpotFast s;
  return s;
}

void BM_FastStepSpot(benchmark::State& state) {
  const SpotFast& s = spot_fast();
  if (s.c.name.empty()) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  FastCDWorkspace ws;
  run_steps(state, s.sys, [&](CDState& st, const VectorXd& p) { fast_cd_advance(s.sys, st, p, ws); },
            [](const FastCD& f) { return fast_cd_initial_state(f); });
}
BENCHMARK(BM_FastStepSpot)->Unit(benchmark::kMicrosecond);

void BM_FastLiftSpot(benchmark::State& state) {
  const SpotFast& s = spot_fast();
  if (s.c.name.empty()) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  const VectorXd z = VectorXd::Random(s.sys.state_dim());
  VectorXd u(s.sys.n_vertices * 3);
  for (auto _ : state) {
    fast_cd_lift(s.sys, z, u);
    benchmark::DoNotOptimize(u.data());
  }
}
BENCHMARK(BM_FastLiftSpot)->Unit(benchmark::kMicrosecond);

void BM_FastPrecomputeSpot(benchmark::State& state) {
  const SpotFast& s = spot_fast();
  if (s.c.name.empty()) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  CDOptions o;
  o.modes = 16;
  o.clusters = 100;
  for (auto _ : state) benchmark::DoNotOptimize(fast_cd_precompute(s.c.mesh.X, s.c.mesh.T, s.c.rig.J, s.c.rig.p0, o).Zy.data());
}
BENCHMARK(BM_FastPrecomputeSpot)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

// The local step of one structured 3D iteration on Spot (100 clusters).
namespace {
void BM_FastPieceSpotRotations(benchmark::State& state) {
  const FastCD& f = spot_fast().sys;
  VectorXd F = VectorXd::Random(f.clusters * 9), R(f.clusters * 9);
  for (Index c = 0; c < f.clusters; ++c) F(9 * c) += 3.0, F(9 * c + 4) += 3.0, F(9 * c + 8) += 3.0;  // near-rotations
  for (auto _ : state) {
    detail::polar_rotations_unchecked<3>(F.data(), f.clusters, R.data());
    benchmark::DoNotOptimize(R.data());
  }
}
BENCHMARK(BM_FastPieceSpotRotations)->Unit(benchmark::kMicrosecond);
}  // namespace
