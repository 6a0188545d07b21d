// Google Benchmark suite for the building blocks (built by the set-up, never run by ctest).
#include <benchmark/benchmark.h>

#include "fastcd/fastcd.hpp"

namespace {

using namespace fastcd;

void BM_PolarRotations2D(benchmark::State& state) {
  const VectorXd F = VectorXd::Random(state.range(0) * 4);
  VectorXd R(F.size());
  for (auto _ : state) {
    polar_rotations(F, 2, R);
    benchmark::DoNotOptimize(R.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PolarRotations2D)->Arg(312)->Arg(3222);

void BM_PolarRotations3D(benchmark::State& state) {
  const VectorXd F = VectorXd::Random(state.range(0) * 9);
  VectorXd R(F.size());
  for (auto _ : state) {
    polar_rotations(F, 3, R);
    benchmark::DoNotOptimize(R.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PolarRotations3D)->Arg(1000)->Arg(20000);

void BM_ElasticOperatorsBeam(benchmark::State& state) {
  const Mesh b = beam(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(elastic_operators(b.X, b.T).L.nonZeros());
}
BENCHMARK(BM_ElasticOperatorsBeam)->Args({40, 5})->Args({180, 10})->Unit(benchmark::kMillisecond);

void BM_SkinningEigenmodesBeam(benchmark::State& state) {
  const Mesh b = beam(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const SparseMatrix J = lbs_jacobian(b.X, MatrixXd::Ones(b.X.rows(), 1));
  const SparseMatrix C = SparseMatrix(J.transpose() * kron_identity(massmatrix(b.X, b.T, 1e3), 2));
  const MatrixXd Aeq = lbs_weight_space_constraint(b.X, b.T, C);
  for (auto _ : state) benchmark::DoNotOptimize(skinning_eigenmodes(b.X, b.T, 10, 1.0, std::nullopt, Aeq).E(0));
}
BENCHMARK(BM_SkinningEigenmodesBeam)->Args({40, 5})->Args({180, 10})->Unit(benchmark::kMillisecond);

void BM_SpectralCubatureBeam(benchmark::State& state) {
  const Mesh b = beam();
  const MatrixXd W = skinning_eigenmodes(b.X, b.T, 10).W;
  for (auto _ : state) benchmark::DoNotOptimize(spectral_cubature(b.X, b.T, W, 20).labels(0));
}
BENCHMARK(BM_SpectralCubatureBeam)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
