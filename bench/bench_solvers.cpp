// Google Benchmark suite for the complementary-dynamics solvers: per-step cost of full order
// and fast order over tutorial 23's resolution sweep, the pieces of a full-order iteration, and
// the fast solver on the Spot character.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "fastcd/fastcd.hpp"
#include "fastcd/meshing/tetrahedralize.hpp"

namespace {

using namespace fastcd;

const int kSweep[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};

/// Tutorial 23's beam and rig (one global affine handle) at sweep resolution k.
struct BeamCase {
  Mesh mesh;
  std::shared_ptr<const LinearRig> rig;
  explicit BeamCase(int k) : mesh(beam(kSweep[k][0], kSweep[k][1])) {
    rig =
        std::make_shared<const LinearRig>(affine_handle_rig(mesh.X, kron_identity(massmatrix(mesh.X, mesh.T, 1e3), 2)));
  }
};

/// Steps under the metronome: amplitude 3 on the 2D beam, 0.3 on the 3D meshes (normalised to
/// extent 2), as in `fastcd bench`. The simulation's monitor is off: the solver step alone.
void run_steps(benchmark::State& state, Simulation& sim) {
  const double amp = sim.dim() == 2 ? 3.0 : 0.3;
  const VectorXd p0 = sim.rig().rest_params();
  int i = 0;
  for (int w = 0; w < 10; ++w) sim.advance(metronome_pose(p0, sim.dim(), i++, amp));  // warm-up
  for (auto _ : state) {
    sim.advance(metronome_pose(p0, sim.dim(), i++, amp));
    benchmark::DoNotOptimize(sim.state().s.data());
  }
  state.counters["vertices"] = double(sim.num_vertices());
}

SimulationOptions bench_options(SolverKind kind, int modes = 10, int clusters = 20) {
  SimulationOptions o;
  o.solver = kind;
  o.monitor = false;
  o.cd.modes = modes;
  o.cd.clusters = clusters;
  return o;
}

void BM_FullStepBeam(benchmark::State& state) {
  const BeamCase c(static_cast<int>(state.range(0)));
  Simulation sim(c.mesh.X, c.mesh.T, c.rig, bench_options(SolverKind::Full));
  run_steps(state, sim);
}
BENCHMARK(BM_FullStepBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FastStepBeam(benchmark::State& state) {
  const BeamCase c(static_cast<int>(state.range(0)));
  Simulation sim(c.mesh.X, c.mesh.T, c.rig, bench_options(SolverKind::Fast));
  run_steps(state, sim);
}
BENCHMARK(BM_FastStepBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FastLiftBeam(benchmark::State& state) {
  const BeamCase c(static_cast<int>(state.range(0)));
  const FastCD sys = fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig->J, c.rig->p0);
  const VectorXd z = VectorXd::Random(sys.state_dim());
  VectorXd u(sys.B().rows());
  for (auto _ : state) {
    u.noalias() = sys.B() * z;
    benchmark::DoNotOptimize(u.data());
  }
}
BENCHMARK(BM_FastLiftBeam)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_FullPrecomputeBeam(benchmark::State& state) {
  const BeamCase c(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(full_cd_precompute(c.mesh.X, c.mesh.T, c.rig->J, c.rig->p0).memory_bytes());
}
BENCHMARK(BM_FullPrecomputeBeam)->Arg(0)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_FastPrecomputeBeam(benchmark::State& state) {
  const BeamCase c(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(fast_cd_precompute(c.mesh.X, c.mesh.T, c.rig->J, c.rig->p0).memory_bytes());
}
BENCHMARK(BM_FastPrecomputeBeam)->Arg(0)->Arg(4)->Unit(benchmark::kMillisecond);

// Pieces of one full-order iteration on the tutorial beam, built as full_cd_precompute builds
// them: the element tables and the factor of Hs.
struct FullPieces {
  Mesh b = beam();
  ElasticOperators op = elastic_operators(b.X, b.T);
  ArapElements arap = arap_elements(b.X, b.T, op.mu_vol);
  KronCholesky H;
  VectorXd u = VectorXd::Random(op.Mv.rows()), F = VectorXd(op.G.rows()), R = VectorXd(op.G.rows());
  VectorXd b0 = VectorXd::Random(op.Mv.rows());
  FullPieces() { H.compute(SparseMatrix(kron_identity_block(op.L, 2) + massmatrix(b.X, b.T, 1e3) / 1e-4), 2); }
};

void BM_FullPieceDeformation(benchmark::State& state) {
  FullPieces f;
  for (auto _ : state) {
    arap_deformation(f.arap, f.u.data(), f.F.data());
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
    arap_elastic_rhs(f.arap, f.R.data(), f.b0.data(), f.u.data());
    benchmark::DoNotOptimize(f.u.data());
  }
}
BENCHMARK(BM_FullPieceElasticRhs)->Unit(benchmark::kMicrosecond);

void BM_FullPieceSolve(benchmark::State& state) {
  FullPieces f;
  VectorXd rhs = VectorXd::Random(f.u.size()), scratch(f.H.scratch_size());
  for (auto _ : state) {
    f.H.solve(rhs.data(), f.u.data(), scratch.data());
    benchmark::DoNotOptimize(f.u.data());
  }
}
BENCHMARK(BM_FullPieceSolve)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- 3D: the Spot character
// Spot (4,447 vertices, 18,098 tets; shared/data/derived-tetgen) with point handles at its six
// extremities and biharmonic weights: a character-sized LBS rig.
// The fine variant: Spot's surface (shared/data/keenan-crane) filled by TetGen -pYq1.2 (5,544
// vertices, 25,290 tets), the size of the ~6k-vertex / 22k-tet character of the full-order target.
struct SpotCase {
  bool found = false;
  Mesh mesh;
  std::shared_ptr<const LinearRig> rig;
  explicit SpotCase(bool fine = false) {
    if (fine) {
      const std::string obj = std::string(FASTCD_SHARED_DIR) + "/data/keenan-crane/spot_triangulated.obj";
      if (!std::filesystem::exists(obj)) return;
      const SurfaceMesh surf = read_obj(obj);
      TetrahedralizeOptions to;
      to.mesher = "tetgen";
      to.tetgen_quality = 1.2;
      try {
        const TetMesh tm = tetrahedralize(surf.V, surf.F, to);
        mesh = Mesh{tm.X, tm.T};
      } catch (const std::exception&) {
        return;  // no TetGen program
      }
    } else {
      const std::string node = std::string(FASTCD_SHARED_DIR) + "/data/derived-tetgen/spot_pYq1.414.node";
      if (!std::filesystem::exists(node)) return;
      mesh = read_volume_mesh(node);
    }
    mesh.X = normalize_and_center(mesh.X).X;
    rig = std::make_shared<const LinearRig>(point_handle_rig(mesh.X, mesh.T, extremity_vertices(mesh.X),
                                                             kron_identity(massmatrix(mesh.X, mesh.T, 1e3), 3)));
    found = true;
  }
};
const SpotCase& spot() {
  static const SpotCase s;
  return s;
}
const SpotCase& spot_fine() {
  static const SpotCase s(true);
  return s;
}

void BM_FastStepSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  Simulation sim(s.mesh.X, s.mesh.T, s.rig, bench_options(SolverKind::Fast, 16, 100));
  run_steps(state, sim);
}
BENCHMARK(BM_FastStepSpot)->Unit(benchmark::kMicrosecond);

// The same step with the iteration's products in single precision (Precision::Mixed).
void BM_FastStepSpotMixed(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  SimulationOptions o = bench_options(SolverKind::Fast, 16, 100);
  o.cd.precision = Precision::Mixed;
  Simulation sim(s.mesh.X, s.mesh.T, s.rig, o);
  run_steps(state, sim);
}
BENCHMARK(BM_FastStepSpotMixed)->Unit(benchmark::kMicrosecond);

void BM_FullStepSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  Simulation sim(s.mesh.X, s.mesh.T, s.rig, bench_options(SolverKind::Full, 16, 100));
  run_steps(state, sim);
}
BENCHMARK(BM_FullStepSpot)->Unit(benchmark::kMillisecond);

void BM_FullStepSpotFine(benchmark::State& state) {
  const SpotCase& s = spot_fine();
  if (!s.found) return state.SkipWithError("Spot surface or the tetgen program not found");
  Simulation sim(s.mesh.X, s.mesh.T, s.rig, bench_options(SolverKind::Full, 16, 100));
  run_steps(state, sim);
}
BENCHMARK(BM_FullStepSpotFine)->Unit(benchmark::kMillisecond);

void BM_FastLiftSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  CDOptions o;
  o.modes = 16;
  o.clusters = 100;
  const FastCD sys = fast_cd_precompute(s.mesh.X, s.mesh.T, s.rig->J, s.rig->p0, o);
  const VectorXd z = VectorXd::Random(sys.state_dim());
  VectorXd u(sys.num_vertices() * 3);
  for (auto _ : state) {
    sys.lift(z, u);
    benchmark::DoNotOptimize(u.data());
  }
}
BENCHMARK(BM_FastLiftSpot)->Unit(benchmark::kMicrosecond);

// The lift a Simulation uses (FastCDSolver: the skinning form in double when it is exact).
void BM_FastSimulationLiftSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  const Simulation sim(s.mesh.X, s.mesh.T, s.rig, bench_options(SolverKind::Fast, 16, 100));
  const VectorXd z = VectorXd::Random(sim.fast()->state_dim());
  VectorXd u(sim.num_vertices() * 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim.cd_solver().lift(z, u).data());
  }
}
BENCHMARK(BM_FastSimulationLiftSpot)->Unit(benchmark::kMicrosecond);

// A roll-out as Python writes one: `sim.advance(p); x = sim.positions()` per frame, the monitor
// on (divergence check, residual, energies, travel statistics). Arg 0: Spot's six point handles;
// 1: tutorial 23's single affine handle.
void BM_FastRolloutSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  SimulationOptions o = bench_options(SolverKind::Fast, 16, 100);
  o.monitor = true;
  const std::shared_ptr<const LinearRig> rig =
      state.range(0) == 0 ? s.rig
                          : std::make_shared<const LinearRig>(
                                affine_handle_rig(s.mesh.X, kron_identity(massmatrix(s.mesh.X, s.mesh.T, 1e3), 3)));
  Simulation sim(s.mesh.X, s.mesh.T, rig, o);
  const VectorXd p0 = sim.rig().rest_params();
  int i = 0;
  for (int w = 0; w < 10; ++w) sim.advance(metronome_pose(p0, 3, i++, 0.3));
  for (auto _ : state) {
    sim.advance(metronome_pose(p0, 3, i++, 0.3));
    const MatrixXd x = sim.positions();
    benchmark::DoNotOptimize(x.data());
  }
}
BENCHMARK(BM_FastRolloutSpot)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_FastPrecomputeSpot(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  CDOptions o;
  o.modes = 16;
  o.clusters = 100;
  for (auto _ : state)
    benchmark::DoNotOptimize(fast_cd_precompute(s.mesh.X, s.mesh.T, s.rig->J, s.rig->p0, o).memory_bytes());
}
BENCHMARK(BM_FastPrecomputeSpot)->Unit(benchmark::kMillisecond)->Iterations(1);

// Pieces of one full-order Spot iteration: the fused local step (F, rotations and right-hand
// side, arap_rotated_rhs) and the global solve with the factor full_cd_precompute builds.
struct SpotFullPieces {
  ElasticOperators op;
  ArapElements arap;
  KronCholesky H;
  VectorXd x, b0, b, work;
  explicit SpotFullPieces(const Mesh& m) : op(elastic_operators(m.X, m.T)), arap(arap_elements(m.X, m.T, op.mu_vol)) {
    H.compute(SparseMatrix(kron_identity_block(op.L, 3) + massmatrix(m.X, m.T, 1e3) / 1e-4), 3);
    x = m.X.reshaped<Eigen::RowMajor>() + 0.01 * VectorXd::Random(m.X.size());
    b0 = VectorXd::Random(m.X.size());
    b.resize(m.X.size());
    work.resize(arap.rotated_rhs_buffer());
  }
};

void BM_FullPieceSpotLocal(benchmark::State& state) {
  const SpotCase& s = spot();
  if (!s.found) return state.SkipWithError("Spot mesh not found under FASTCD_SHARED_DIR");
  SpotFullPieces f(s.mesh);
  for (auto _ : state) {
    arap_rotated_rhs(f.arap, f.x.data(), f.b0.data(), f.b.data(), f.work.data());
    benchmark::DoNotOptimize(f.b.data());
  }
}
BENCHMARK(BM_FullPieceSpotLocal)->Unit(benchmark::kMicrosecond);

// One global solve of an iteration (3 right-hand sides through the factor of Spot's H).
void solve_piece(benchmark::State& state, const SpotCase& s) {
  if (!s.found) return state.SkipWithError("the Spot mesh (or, for the fine one, the tetgen program) not found");
  SpotFullPieces f(s.mesh);
  VectorXd scratch(f.H.scratch_size());
  for (auto _ : state) {
    f.H.solve(f.b0.data(), f.b.data(), scratch.data());
    benchmark::DoNotOptimize(f.b.data());
  }
  state.counters["factor_entries"] = static_cast<double>(f.H.factor_entries());
}
void BM_FullPieceSpotSolve(benchmark::State& state) { solve_piece(state, spot()); }
BENCHMARK(BM_FullPieceSpotSolve)->Unit(benchmark::kMicrosecond);
void BM_FullPieceSpotFineSolve(benchmark::State& state) { solve_piece(state, spot_fine()); }
BENCHMARK(BM_FullPieceSpotFineSolve)->Unit(benchmark::kMicrosecond);

// The local step of one structured 3D iteration (100 clusters of near-rotations).
void BM_FastPieceSpotRotations(benchmark::State& state) {
  const Index clusters = 100;
  VectorXd F = VectorXd::Random(clusters * 9), R(clusters * 9);
  for (Index c = 0; c < clusters; ++c) F(9 * c) += 3.0, F(9 * c + 4) += 3.0, F(9 * c + 8) += 3.0;
  for (auto _ : state) {
    detail::polar_rotations_unchecked<3>(F.data(), clusters, R.data());
    benchmark::DoNotOptimize(R.data());
  }
}
BENCHMARK(BM_FastPieceSpotRotations)->Unit(benchmark::kMicrosecond);

}  // namespace
