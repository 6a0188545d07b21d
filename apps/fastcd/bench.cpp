// `fastcd bench`: measures precompute, per-step (median / p10 / p90 after warm-up) and lifting
// times of the full-order and fast solvers on the tutorial's beam sweep and on 3D tet meshes, next
// to the project's targets, and optionally writes one JSON record per case.
#include "bench.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "fastcd/fastcd.hpp"
#include "progress.hpp"

namespace fastcd::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchSettings {
  std::string json, data = FASTCD_SHARED_DIR;
  int steps = 200, warmup = 10;
  double max_case_s = 4.0;  ///< per solver and case: fewer steps when one step is slow
  bool quick = false, no3d = false;
};

struct Case {
  std::string name;
  Mesh mesh;
  LinearRig rig;  ///< empty J: tutorial 23's single affine handle
  int modes, clusters;
};

/// The Spot tet mesh (4,447 vertices, 18,098 tets; tetgen -pYq1.414 of Keenan Crane's Spot, see
/// shared/data/SOURCES.md), normalised, with point handles at its six extremities and
/// biharmonic weights: a character-sized LBS rig. Empty name when the data is not there.
Case spot_case(const std::string& shared_dir) {
  const std::string node = shared_dir + "/data/derived-tetgen/spot_pYq1.414.node";
  Case c{"", {}, {}, 16, 100};
  if (!std::filesystem::exists(node)) return c;
  c.mesh = read_volume_mesh(node);
  c.mesh.X = normalize_and_center(c.mesh.X).X;
  c.rig = point_handle_rig(c.mesh.X, c.mesh.T, extremity_vertices(c.mesh.X),
                           kron_identity(massmatrix(c.mesh.X, c.mesh.T, CDOptions{}.rho), 3));
  c.name = "spot";
  return c;
}

struct Stats {
  double median = 0, p10 = 0, p90 = 0;
};

Stats stats(std::vector<double> t) {
  if (t.empty()) return {};
  std::sort(t.begin(), t.end());
  auto q = [&](double f) { return t[static_cast<std::size_t>(f * (t.size() - 1))]; };
  return {q(0.5), q(0.1), q(0.9)};
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Peak resident set size of the process so far (MiB).
double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

/// Solver steps under the metronome (the simulation's own per-step timer, monitor off).
Stats time_steps(Simulation& sim, const BenchSettings& st) {
  std::vector<double> us;
  const Index dim = sim.dim();
  const VectorXd p0 = sim.rig().rest_params();
  const auto start = Clock::now();
  for (int i = 0; i < st.warmup + st.steps; ++i) {
    sim.advance(metronome_pose(p0, dim, i, dim == 2 ? 3.0 : 0.3, 80.0));
    if (i >= st.warmup) us.push_back(1e6 * sim.last_step().step_seconds);
    if (i >= st.warmup + 20 && seconds_since(start) > st.max_case_s) break;  // at least 20 timed steps
  }
  return stats(us);
}

struct Result {
  std::string solver;
  const Case* c;
  int iterations;
  double pre_s;
  Stats step;
  double lift_us, memory_mib, step_memory_mib, peak_rss_mib;
};

nlohmann::json record(const Result& r) {
  const Case& c = *r.c;
  const bool fast = r.solver == "fast";
  return {{"solver", r.solver},
          {"case", c.name},
          {"dim", c.mesh.X.cols()},
          {"vertices", c.mesh.X.rows()},
          {"elements", c.mesh.T.rows()},
          {"modes", fast ? c.modes : 0},
          {"clusters", fast ? c.clusters : 0},
          {"iterations", r.iterations},
          {"precompute_s", r.pre_s},
          {"step_us_median", r.step.median},
          {"step_us_p10", r.step.p10},
          {"step_us_p90", r.step.p90},
          {"lift_us_median", r.lift_us},
          {"memory_mib", r.memory_mib},
          {"step_memory_mib", r.step_memory_mib},
          {"peak_rss_mib", r.peak_rss_mib}};
}

std::vector<Case> make_cases(const BenchSettings& st) {
  std::vector<Case> cases;
  const int sweep[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};
  for (const auto& r : sweep) {
    if (st.quick && r[0] != 40) continue;
    cases.push_back({"beam-" + std::to_string(r[0]) + "x" + std::to_string(r[1]), beam(r[0], r[1]), {}, 10, 20});
  }
  if (st.no3d) return cases;
  // 3D: the Spot character first (its peak memory is then its own), then boxes of growing size.
  if (!st.quick) {
    Case spot = spot_case(st.data);
    if (!spot.name.empty())
      cases.push_back(std::move(spot));
    else
      std::fprintf(stdout, "fastcd bench: no Spot mesh under %s/data/derived-tetgen; skipping it\n", st.data.c_str());
  }
  for (int n : {6, 10, 14}) {
    Mesh m = tetrahedralized_grid(3 * n, n, n);
    m.X.col(0) *= 3.0;
    cases.push_back({"box-" + std::to_string(m.X.rows()), m, {}, 16, 100});
    if (st.quick) break;
  }
  return cases;
}

const Result* find(const std::vector<Result>& rs, const std::string& solver, const std::string& name) {
  for (const Result& r : rs)
    if (r.solver == solver && r.c->name == name) return &r;
  return nullptr;
}

/// The targets next to what was measured.
void print_targets(const std::vector<Result>& rs) {
  std::printf("\ntargets (2 cores; medians, [p10, p90])\n");
  std::printf("%-44s %-30s %-14s %s\n", "figure", "measured", "target", "");
  auto row = [](const char* what, const Result* r, double value, const char* unit, double target, const char* ttext) {
    if (!r) return;
    char meas[64];
    if (std::string(unit) == "us" && r->step.p10 > 0 && value == r->step.median)
      std::snprintf(meas, sizeof meas, "%.1f us [%.1f, %.1f]", value, r->step.p10, r->step.p90);
    else if (std::string(unit) == "us" && value == r->step.median / 1000.0)
      std::snprintf(meas, sizeof meas, "%.3f ms [%.3f, %.3f]", value, r->step.p10 / 1000.0, r->step.p90 / 1000.0);
    else
      std::snprintf(meas, sizeof meas, "%.3g %s", value, unit);
    std::printf("%-44s %-30s %-14s %s\n", what, meas, ttext, value <= target ? "ok" : "MISSED");
  };
  const Result* fb = find(rs, "fast", "beam-40x5");
  const Result* fb2 = find(rs, "fast", "beam-180x10");
  const Result* ub = find(rs, "full", "beam-40x5");
  const Result* ub2 = find(rs, "full", "beam-180x10");
  row("fast step, beam 200 verts", fb, fb ? fb->step.median : 0, "us", 5.0, "<= 5 us");
  if (fb && fb2) {
    const double spread = std::abs(fb2->step.median / fb->step.median - 1.0);
    std::printf("%-44s %-30s %-14s %s\n", "fast step flat, 200 -> 1800 verts",
                (std::to_string(int(std::lround(100 * spread))) + " % change").c_str(), "<= 10 %",
                spread <= 0.10 ? "ok" : "MISSED");
  }
  row("full step, beam 200 verts", ub, ub ? ub->step.median : 0, "us", 60.0, "<= 60 us");
  row("full step, beam 1800 verts", ub2, ub2 ? ub2->step.median / 1000.0 : 0, "us", 1.5, "<= 1.5 ms");
  const Result* fs = find(rs, "fast", "spot");
  const Result* us = find(rs, "full", "spot");
  row("full step, Spot 4447 verts / 18k tets", us, us ? us->step.median / 1000.0 : 0, "us", 100.0, "<= 100 ms");
  row("fast step, Spot, 16 modes / 100 clusters", fs, fs ? fs->step.median : 0, "us", 100.0, "<= 100 us (50)");
  row("fast precompute, Spot", fs, fs ? fs->pre_s : 0, "s", 2.0, "<= 2 s");
  row("fast peak memory (process), Spot", fs, fs ? fs->peak_rss_mib : 0, "MiB", 300.0, "<= 300 MB");
  row("fast lift u = B z, Spot", fs, fs ? fs->lift_us : 0, "us", 500.0, "<= 0.5 ms");
  if (fb) std::printf("%-44s %.0fx (simkit ~1 ms)\n", "fast beam step vs simkit", 1000.0 / fb->step.median);
  if (ub && ub2)
    std::printf("%-44s %.0fx at 200, %.0fx at 1800 (simkit ~7 ms, ~130 ms)\n", "full step vs simkit",
                7000.0 / ub->step.median, 130000.0 / ub2->step.median);
  if (fs)
    std::printf("%-44s %.0fx (1,560 us on a 6.1k / 21.7k character)\n", "fast Spot step vs the 2023 library",
                1560.0 / fs->step.median);
}

int run_bench(const BenchSettings& st) {
  const std::vector<Case> cases = make_cases(st);
  std::vector<Result> results;
  std::printf("%-12s %3s %6s %6s | %-5s %10s %11s %11s %11s %10s %9s\n", "case", "dim", "verts", "elems", "solv",
              "precomp s", "step us med", "p10", "p90", "lift us", "mem MiB");
  Progress bar("benchmark", static_cast<int>(cases.size()));
  int done = 0;
  for (const Case& c : cases) {
    const Index dim = c.mesh.X.cols();
    CDOptions o;
    o.modes = c.modes;
    o.clusters = c.clusters;
    const LinearRig rig = c.rig.J.size() > 0
                              ? c.rig
                              : affine_handle_rig(c.mesh.X, kron_identity(massmatrix(c.mesh.X, c.mesh.T, o.rho), dim));
    // Fast first: its peak memory is measured before the full-order system exists.
    auto shared_rig = std::make_shared<const LinearRig>(rig);
    SimulationOptions so;
    so.cd = o;
    so.monitor = false;  // the solver step alone
    Result fast_r{"fast", &c, o.iterations, 0, {}, 0, 0, 0, 0};
    {
      so.solver = SolverKind::Fast;
      Simulation sim(c.mesh.X, c.mesh.T, shared_rig, so);
      fast_r.pre_s = sim.precompute_seconds();
      fast_r.peak_rss_mib = peak_rss_mib();
      fast_r.memory_mib = mib(sim.fast()->memory_bytes());
      fast_r.step_memory_mib = mib(sim.fast()->step_memory_bytes());
      fast_r.step = time_steps(sim, st);
      const FastCD& fast = *sim.fast();
      const VectorXd z = VectorXd::Random(fast.state_dim());
      VectorXd u(fast.num_vertices() * dim);
      std::vector<double> lift;
      for (int i = 0; i < 50; ++i) {
        const auto tl = Clock::now();
        fast.lift(z, u);
        lift.push_back(1e6 * seconds_since(tl));
      }
      fast_r.lift_us = stats(lift).median;
    }
    Result full_r{"full", &c, o.iterations, 0, {}, 0, 0, 0, 0};
    {
      so.solver = SolverKind::Full;
      Simulation sim(c.mesh.X, c.mesh.T, shared_rig, so);
      full_r.pre_s = sim.precompute_seconds();
      full_r.memory_mib = full_r.step_memory_mib = mib(sim.full()->memory_bytes());
      full_r.peak_rss_mib = peak_rss_mib();
      full_r.step = time_steps(sim, st);
    }
    for (const Result* r : {&full_r, &fast_r}) {
      std::printf("%-12s %3ld %6ld %6ld | %-5s %10.3f %11.2f %11.2f %11.2f %10.2f %9.1f\n", c.name.c_str(), long(dim),
                  long(c.mesh.X.rows()), long(c.mesh.T.rows()), r->solver.c_str(), r->pre_s, r->step.median,
                  r->step.p10, r->step.p90, r->lift_us, r->memory_mib);
      results.push_back(*r);
    }
    std::fflush(stdout);
    bar.update(++done);
  }
  print_targets(results);
  if (!st.json.empty()) {
    nlohmann::json records = nlohmann::json::array();
    for (const Result& r : results) records.push_back(record(r));
    write_file_atomically(st.json, [&](const std::string& tmp) {
      std::ofstream f(tmp);
      f << records.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write " + tmp);
    });
  }
  return 0;
}

}  // namespace

void register_bench(CLI::App& app) {
  auto st = std::make_shared<BenchSettings>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Time precompute, steps, lifting and memory of both solvers (beam sweep, Spot, 3D boxes) next to the targets");
  cmd->add_option("--json", st->json, "write one JSON record per measured case");
  cmd->add_option("--steps", st->steps, "timed steps per solver")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--max-case-seconds", st->max_case_s, "stop timing a solver on a case after this long (>= 20 steps)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--data", st->data, "the shared/ folder holding data/derived-tetgen/spot_pYq1.414.*")
      ->capture_default_str();
  cmd->add_flag("--quick", st->quick, "one beam and one box only");
  cmd->add_flag("--no-3d", st->no3d, "skip the 3D cases (Spot, boxes)");
  cmd->callback([st] { run_bench(*st); });
}

}  // namespace fastcd::cli
