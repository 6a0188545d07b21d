// `fastcd bench`: measures precompute, per-step (median / p10 / p90 after warm-up) and lifting
// times of the full-order and fast solvers on the seed's beam sweep and on 3D tet meshes, next
// to the project's targets, and optionally writes one JSON record per case.
#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fastcd/fastcd.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "progress.hpp"

namespace fastcd::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchSettings {
  std::string json;
  int steps = 200, warmup = 10;
  bool quick = false, no3d = false;
};

struct Case {
  std::string name;
  Mesh mesh;
  int modes, clusters;
};

struct Stats {
  double median, p10, p90;
};

Stats stats(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  auto q = [&](double f) { return t[static_cast<std::size_t>(f * (t.size() - 1))]; };
  return {q(0.5), q(0.1), q(0.9)};
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class Advance>
Stats time_steps(const VectorXd& p0, Index dim, const BenchSettings& st, CDState s, Advance advance) {
  std::vector<double> us;
  for (int i = 0; i < st.warmup + st.steps; ++i) {
    const VectorXd p = metronome_pose(p0, dim, i, dim == 2 ? 3.0 : 0.3, 80.0);
    const auto t0 = Clock::now();
    advance(s, p);
    if (i >= st.warmup) us.push_back(1e6 * seconds_since(t0));
  }
  return stats(us);
}

nlohmann::json record(const std::string& solver, const Case& c, int iterations, double pre, const Stats& step,
                      double lift) {
  nlohmann::json r = {{"solver", solver}, {"case", c.name}, {"dim", c.mesh.X.cols()},
                      {"vertices", c.mesh.X.rows()}, {"elements", c.mesh.T.rows()},
                      {"modes", solver == "fast" ? c.modes : 0}, {"clusters", solver == "fast" ? c.clusters : 0},
                      {"iterations", iterations}, {"precompute_s", pre}, {"step_us_median", step.median},
                      {"step_us_p10", step.p10}, {"step_us_p90", step.p90}};
  r["lift_us_median"] = lift;
  return r;
}

int run_bench(const BenchSettings& st) {
  std::vector<Case> cases;
  const int sweep[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};
  for (const auto& r : sweep) {
    cases.push_back({"beam-" + std::to_string(r[0]) + "x" + std::to_string(r[1]), beam(r[0], r[1]), 10, 20});
    if (st.quick) break;
  }
  if (!st.no3d) {
    for (int n : {6, 10, 14}) {
      Mesh m = tetrahedralized_grid(3 * n, n, n);
      m.X.col(0) *= 3.0;
      cases.push_back({"box-" + std::to_string(m.X.rows()), m, 16, 100});
      if (st.quick) break;
    }
  }
  nlohmann::json records = nlohmann::json::array();
  std::printf("%-12s %3s %6s %6s | %-5s %10s %11s %11s %11s %10s\n", "case", "dim", "verts", "elems", "solv",
              "precomp s", "step us med", "p10", "p90", "lift us");
  Progress bar("benchmark", static_cast<int>(cases.size()));
  int done = 0;
  for (const Case& c : cases) {
    const Index dim = c.mesh.X.cols();
    CDOptions o;
    o.modes = c.modes;
    o.clusters = c.clusters;
    const SparseMatrix Mv = kron_identity(massmatrix(c.mesh.X, c.mesh.T, o.rho), dim);
    const Rig rig = affine_handle_rig(c.mesh.X, Mv);
    auto t0 = Clock::now();
    const FullCD full = full_cd_precompute(c.mesh.X, c.mesh.T, rig.J, rig.p0, o);
    const double pre_full = seconds_since(t0);
    FullCDWorkspace fws;
    const Stats sf = time_steps(rig.p0, dim, st, full_cd_initial_state(full),
                                [&](CDState& s, const VectorXd& p) { full_cd_advance(full, s, p, fws); });
    t0 = Clock::now();
    const FastCD fast = fast_cd_precompute(c.mesh.X, c.mesh.T, rig.J, rig.p0, o);
    const double pre_fast = seconds_since(t0);
    FastCDWorkspace ws;
    const Stats sr = time_steps(rig.p0, dim, st, fast_cd_initial_state(fast),
                                [&](CDState& s, const VectorXd& p) { fast_cd_advance(fast, s, p, ws); });
    // Lifting u = B z to every vertex.
    const VectorXd z = VectorXd::Random(fast.state_dim());
    VectorXd u(fast.B.rows());
    std::vector<double> lift;
    for (int i = 0; i < 50; ++i) {
      const auto tl = Clock::now();
      u.noalias() = fast.B * z;
      lift.push_back(1e6 * seconds_since(tl));
    }
    const double lift_us = stats(lift).median;
    for (const auto& [name, pre, s, l] : {std::tuple{"full", pre_full, sf, 0.0}, std::tuple{"fast", pre_fast, sr, lift_us}}) {
      std::printf("%-12s %3ld %6ld %6ld | %-5s %10.3f %11.2f %11.2f %11.2f %10.2f\n", c.name.c_str(), long(dim),
                  long(c.mesh.X.rows()), long(c.mesh.T.rows()), name, pre, s.median, s.p10, s.p90, l);
      records.push_back(record(name, c, o.iterations, pre, s, l));
    }
    bar.update(++done);
  }
  std::printf("targets (issue 'Speed'): fast beam step <= 5 us, flat across the sweep; full step <= 60 us at 200 "
              "and <= 1.5 ms at 1800 vertices\n");
  if (!st.json.empty())
    io::write_file_atomically(st.json, [&](const std::string& tmp) {
      std::ofstream f(tmp);
      f << records.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write " + tmp);
    });
  return 0;
}

}  // namespace

void register_bench(CLI::App& app) {
  auto st = std::make_shared<BenchSettings>();
  CLI::App* cmd = app.add_subcommand("bench", "Time precompute, steps and lifting of both solvers (beam sweep, 3D boxes)");
  cmd->add_option("--json", st->json, "write one JSON record per measured case");
  cmd->add_option("--steps", st->steps, "timed steps per solver")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--quick", st->quick, "one beam and one box only");
  cmd->add_flag("--no-3d", st->no3d, "skip the 3D boxes");
  cmd->callback([st] { run_bench(*st); });
}

}  // namespace fastcd::cli
