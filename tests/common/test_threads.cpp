// The thread policy: parsing, parallel_for's contract, the BLAS pin, and — what users rely on —
// bitwise-identical simulations for any thread count.
#include "fastcd/common/threads.hpp"

#include <atomic>
#include <stdexcept>
#include <vector>

#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "fastcd/solvers/kron_cholesky.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_threads {

TEST(Threads, ParsesCountsAndRejectsTheRest) {
  EXPECT_EQ(parse_thread_count("3", "--threads"), 3);
  EXPECT_EQ(parse_thread_count("auto", "--threads"), 0);
  EXPECT_EQ(parse_thread_count("0", "--threads"), 0);
  for (const char* bad : {"", "-1", "2x", "1e3", "4096", " 2", "two"})
    test::expect_throw_with<std::invalid_argument>([&] { parse_thread_count(bad, "FASTCD_THREADS"); },
                                                   "FASTCD_THREADS must be a thread count in [1, 1024]");
  EXPECT_THROW(set_threads(-1), std::invalid_argument);
  EXPECT_THROW(set_threads(5000), std::invalid_argument);
}

TEST(Threads, DefaultIsSerialInsideAStepAndExplicitCountsApplyEverywhere) {
  if (!threads_set_explicitly()) {  // (FASTCD_THREADS unset in the test environment)
    EXPECT_EQ(fine_threads(), 1);
    EXPECT_GE(threads(), 1);
  }
  {
    const test::ThreadCount scope(3);
    EXPECT_EQ(threads(), 3);
    EXPECT_EQ(fine_threads(), 3);
    EXPECT_TRUE(threads_set_explicitly());
  }
}

TEST(Threads, ParallelForCoversEveryIndexOnceAndPropagatesErrors) {
  for (int t : {1, 2, 4}) {
    std::vector<std::atomic<int>> hits(10007);
    parallel_for(
        static_cast<Index>(hits.size()), 64,
        [&](Index b, Index e) {
          ASSERT_LE(b, e);
          for (Index i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
          // nested loops share the outer threads
          parallel_for(
              4, 1, [](Index, Index) {}, t);
        },
        t);
    for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << t << " threads";
    test::expect_throw_with<std::runtime_error>(
        [&] {
          parallel_for(
              1000, 10,
              [](Index, Index e) {
                if (e > 500) throw std::runtime_error("chunk failed");
              },
              t);
        },
        "chunk failed");
  }
  parallel_for(
      0, 1, [](Index, Index) { FAIL() << "an empty range runs nothing"; }, 2);
}

TEST(Threads, BlasRunsOnOneThreadInsideFastcdAndIsRestoredAfter) {
  const int before = blas_threads();
  if (before == 0) GTEST_SKIP() << "the BLAS in this process is not OpenBLAS";
  {
    const SingleThreadedBlas a;
    EXPECT_EQ(blas_threads(), 1);
    {
      const SingleThreadedBlas nested;
      EXPECT_EQ(blas_threads(), 1);
    }
    EXPECT_EQ(blas_threads(), 1);
  }
  EXPECT_EQ(blas_threads(), before);
}

/// Every vertex position of `frames` frames of the elephant (24 bones: its full-order KKT is
/// singular, so rounding differences would show) with `threads` threads.
std::vector<MatrixXd> elephant_run(SolverKind solver, int threads, int frames) {
  const test::ThreadCount scope(threads);
  const Scene s =
      load_scene(std::string(FASTCD_SHARED_DIR) + "/data/complementary-dynamics-cpp/elephant/elephant.json");
  SimulationOptions o = scene_simulation_options(s);
  o.solver = solver;
  Simulation sim = make_simulation(s, o);
  std::vector<MatrixXd> out;
  for (int f = 0; f < frames; ++f) {
    sim.advance(s.poses[static_cast<std::size_t>(f) % s.poses.size()]);
    out.push_back(sim.positions());
  }
  return out;
}

TEST(Threads, SimulationsAreBitwiseIdenticalForAnyThreadCount) {
  for (SolverKind solver : {SolverKind::Full, SolverKind::Fast}) {
    const auto one = elephant_run(solver, 1, 12);
    for (int t : {2, 3}) {
      const auto many = elephant_run(solver, t, 12);
      for (std::size_t f = 0; f < one.size(); ++f)
        ASSERT_TRUE(one[f] == many[f]) << (solver == SolverKind::Full ? "full" : "fast") << ", " << t
                                       << " threads, frame " << f << ": max difference "
                                       << (one[f] - many[f]).cwiseAbs().maxCoeff();
    }
  }
}

// Large meshes: the per-element loops run on several threads (when a count is set) and CHOLMOD
// factors the system (OpenBLAS inside). Both must give the same numbers as one thread.
TEST(Threads, LargeMeshStepsAndCholmodSolvesAreIdentical) {
  const Mesh m = tetrahedralized_grid(16, 12, 12);  // 2,873 vertices, 12,342 tets: every loop threads
  auto run = [&](int threads) {
    const test::ThreadCount scope(threads);
    SimulationOptions o;
    o.solver = SolverKind::Full;
    o.cd.iterations = 3;
    const SparseMatrix M = kron_identity(massmatrix(m.X, m.T, o.cd.rho), 3);
    Simulation sim(m.X, m.T, std::make_shared<const LinearRig>(affine_handle_rig(m.X, M)), o);
    VectorXd p = sim.rig().rest_params();
    for (int f = 0; f < 3; ++f) {
      p(9) += 0.05;  // translate the handle along x
      sim.advance(p);
    }
    const SparseMatrix A = SparseMatrix(massmatrix(m.X, m.T, 1.0)) + 1e-3 * dirichlet_laplacian(m.X, m.T);
    KronCholesky k;
    k.compute(A, 3, CholeskyBackend::Cholmod);
    const VectorXd b = VectorXd::LinSpaced(A.rows() * 3, -1.0, 1.0);
    VectorXd x(b.size()), scratch(k.scratch_size());
    k.solve(b.data(), x.data(), scratch.data());
    return std::pair{sim.positions(), x};
  };
  const auto one = run(1), two = run(2);
  EXPECT_TRUE(one.first == two.first) << (one.first - two.first).cwiseAbs().maxCoeff();
  EXPECT_TRUE(one.second == two.second) << (one.second - two.second).cwiseAbs().maxCoeff();
}

}  // namespace test_threads
}  // namespace fastcd
