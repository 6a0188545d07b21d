// `fastcd tutorial`: reproduces simkit tutorial 23 ("Fast Complementary Dynamics"), sections 1-6,
// on the default beam and writes its numbers, videos, plots and trajectories.
#include "tutorial.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "fastcd/bake/output_folder.hpp"
#include "fastcd/fastcd.hpp"
#include "progress.hpp"
#if FASTCD_HAVE_VIZ
#include "fastcd/viz/render2d.hpp"
#endif

namespace fastcd::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct TutorialSettings {
  std::string out = "media";
  int width = 40, height = 5;
  double thickness = 0.1;
  int steps = 200;
  double amp = 3.0, period = 80.0;
  int bench_warmup = 2, bench_steps = 50;
  bool sweep = true, video = true, force = false;
  CDOptions cd;
};

const char* kRig = "#d62728";
const char* kFull = "#1f77b4";
const char* kRed = "#2ca02c";

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The tutorial's thin(): every k-th state, k = max(1, len / target).
std::vector<MatrixXd> thin(const std::vector<MatrixXd>& s, std::size_t target = 110) {
  const std::size_t k = std::max<std::size_t>(1, s.size() / target);
  std::vector<MatrixXd> out;
  for (std::size_t i = 0; i < s.size(); i += k) out.push_back(s[i]);
  return out;
}

struct Rollout {
  std::vector<MatrixXd> states;
  std::vector<double> violation;  ///< ||J^T M D u_c|| per step
  double step_ms = 0.0;           ///< mean solver time per step
};

/// The tutorial's run(): the metronome roll-out, recording positions and ||J^T M D u_c||.
Rollout roll_out(Simulation& sim, const TutorialSettings& st, const std::string& label) {
  Rollout r;
  Progress bar(label, st.steps);
  const VectorXd p0 = sim.rig().rest_params();
  for (int i = 0; i < st.steps; ++i) {
    sim.advance(metronome_pose(p0, sim.dim(), i, st.amp, st.period));
    r.states.push_back(sim.positions());
    r.violation.push_back((sim.constraint().C * flatten(sim.displacement())).norm());
    bar.update(i + 1);
  }
  r.step_ms = 1e3 * sim.stats().mean_step_seconds();
  return r;
}

/// The tutorial's bench(): median ms/step after warm-up.
double bench(Simulation sim, const TutorialSettings& st) {
  std::vector<double> ts;
  const VectorXd p0 = sim.rig().rest_params();
  for (int i = 0; i < st.bench_warmup + st.bench_steps; ++i) {
    sim.advance(metronome_pose(p0, sim.dim(), i, st.amp, st.period));
    if (i >= st.bench_warmup) ts.push_back(sim.last_step().step_seconds);
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  double med = ts[ts.size() / 2];
  if (ts.size() % 2 == 0) med = 0.5 * (med + *std::max_element(ts.begin(), ts.begin() + ts.size() / 2));
  return 1e3 * med;
}

struct Solvers {
  Mesh mesh;
  std::shared_ptr<const LinearRig> rig;
  Simulation full, fast;
};

SimulationOptions options(SolverKind kind, const TutorialSettings& st, bool monitor) {
  SimulationOptions o;
  o.solver = kind;
  o.cd = st.cd;
  o.monitor = monitor;
  return o;
}

Solvers build(int w, int h, const TutorialSettings& st, bool monitor = true) {
  Mesh mesh = beam(w, h, st.thickness);
  const SparseMatrix Mv = kron_identity(massmatrix(mesh.X, mesh.T, st.cd.rho), 2);
  auto rig = std::make_shared<const LinearRig>(affine_handle_rig(mesh.X, Mv));
  Simulation full(mesh.X, mesh.T, rig, options(SolverKind::Full, st, monitor));
  Simulation fast(mesh.X, mesh.T, rig, options(SolverKind::Fast, st, monitor));
  return {std::move(mesh), rig, std::move(full), std::move(fast)};
}

void write_states(const std::filesystem::path& path, const std::vector<MatrixXd>& states) {
  write_npy_states(path.string(), states);
}

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

int run_tutorial(const TutorialSettings& st) {
  namespace fs = std::filesystem;
  // Written into a staging folder and put in place when complete, as `fastcd run` does.
  OutputFolder folder(st.out, {}, st.force, output_folder_caller());
  folder.start({});
  const fs::path out = folder.stage();
  nlohmann::json summary;
  summary["settings"] = {{"beam", {st.width, st.height}},
                         {"thickness", st.thickness},
                         {"ym", st.cd.ym},
                         {"pr", st.cd.pr},
                         {"rho", st.cd.rho},
                         {"dt", st.cd.dt},
                         {"iterations", st.cd.iterations},
                         {"amp", st.amp},
                         {"period", st.period},
                         {"leak_dt", st.cd.leak.dt},
                         {"modes", st.cd.modes},
                         {"clusters", st.cd.clusters},
                         {"steps", st.steps}};
  const auto t_all = Clock::now();

  // 1 - the rig
  std::fprintf(stdout, "[1/6] rig and operators\n");
  const auto t_pre = Clock::now();
  Solvers s = build(st.width, st.height, st);
  const double pre_s = seconds_since(t_pre);
  const Index n = s.mesh.X.rows(), dim = 2;
  const LinearRig& rig = *s.rig;
  std::printf("mesh: %ld verts, %ld triangles | rig: J is (%ld, %ld) -> %ld DOFs\n", long(n), long(s.mesh.T.rows()),
              long(rig.J.rows()), long(rig.J.cols()), long(rig.J.cols()));
  std::vector<MatrixXd> rig_states;
  for (int i = 0; i < st.steps; ++i)
    rig_states.push_back(unflatten(rig.J * metronome_pose(rig.p0, dim, i, st.amp, st.period), dim));
  summary["mesh"] = {{"vertices", n},
                     {"triangles", s.mesh.T.rows()},
                     {"J_shape", {rig.J.rows(), rig.J.cols()}},
                     {"rig_dofs", rig.J.cols()}};

  // 2 - full order
  std::fprintf(stdout, "[2/6] full-order complementary dynamics\n");
  const Rollout full = roll_out(s.full, st, "full-order roll-out");
  const FullCD& full_sys = *s.full.full();
  const double full_viol = *std::max_element(full.violation.begin(), full.violation.end());
  std::printf("full-order: %s ms/step, %ld rotations/step\n", fmt("%.3f", full.step_ms).c_str(),
              long(full_sys.n_rot()));
  std::printf("max rig-orthogonality residual ||J^T M D u_c|| = %.1e (constraint holds)\n", full_viol);
  summary["full"] = {{"ms_per_step", full.step_ms},
                     {"rotations_per_step", full_sys.n_rot()},
                     {"max_violation", full_viol},
                     {"constraint_rank", full_sys.constraint().rank},
                     {"state_dim", full_sys.state_dim()}};

  // 4 - fast
  std::fprintf(stdout, "[3/6] fast complementary dynamics\n");
  const Rollout red = roll_out(s.fast, st, "fast roll-out");
  const FastCD& fast = *s.fast.fast();
  const double structural = (fast.constraint().C * fast.B()).norm();
  const double red_viol = *std::max_element(red.violation.begin(), red.violation.end());
  std::printf("subspace B: (%ld, %ld) -> %ld DOFs\n", long(fast.B().rows()), long(fast.B().cols()),
              long(fast.state_dim()));
  std::printf("structural rig-orthogonality ||(J^T M D) B|| = %.1e\n", structural);
  std::printf("rotation clusters: %ld (vs %ld triangles)\n", long(fast.n_rot()), long(s.mesh.T.rows()));
  std::printf("reduced: %s ms/step -> %.1fx faster than full-order\n", fmt("%.4f", red.step_ms).c_str(),
              full.step_ms / red.step_ms);
  std::vector<int> counts(static_cast<std::size_t>(fast.n_rot()), 0);
  for (Index e = 0; e < fast.labels().size(); ++e) ++counts[static_cast<std::size_t>(fast.labels()(e))];
  summary["fast"] = {{"ms_per_step", red.step_ms},
                     {"speedup", full.step_ms / red.step_ms},
                     {"B_shape", {fast.B().rows(), fast.B().cols()}},
                     {"state_dim", fast.state_dim()},
                     {"structural_residual", structural},
                     {"structural_residual_relative", fast.structural_residual()},
                     {"max_violation", red_viol},
                     {"clusters", fast.n_rot()},
                     {"cluster_counts", counts},
                     {"eigenvalues", std::vector<double>(fast.eigenvalues().data(),
                                                         fast.eigenvalues().data() + fast.eigenvalues().size())},
                     {"weight_constraint_rank", fast.weight_constraint_rank()}};
  summary["precompute_s"] = pre_s;

  // Trajectories for numpy.
  write_states(out / "states_rig.npy", rig_states);
  write_states(out / "states_full.npy", full.states);
  write_states(out / "states_fast.npy", red.states);
#if FASTCD_HAVE_VIZ
  write_cluster_png((out / "clusters.png").string(), s.mesh.X, s.mesh.T, fast.labels(),
                    "rotation clusters (one shared rotation each)");
#endif

  // 6 - resolution sweep
  std::vector<double> verts, t_fulls, t_reds;
  if (st.sweep) {
    std::fprintf(stdout, "[4/6] resolution sweep\n");
    const int res[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};
    Progress bar("sweep", 5);
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::string> lines;
    for (int k = 0; k < 5; ++k) {
      const Solvers r = build(res[k][0], res[k][1], st, /*monitor=*/false);
      const double tf = bench(r.full, st);
      const double tr = bench(r.fast, st);
      verts.push_back(double(r.mesh.X.rows()));
      t_fulls.push_back(tf);
      t_reds.push_back(tr);
      char line[160];
      std::snprintf(line, sizeof line, "%5ld verts / %5ld tris: full %7.3f ms reduced %7.4f ms (%6.1fx)",
                    long(r.mesh.X.rows()), long(r.mesh.T.rows()), tf, tr, tf / tr);
      lines.push_back(line);
      rows.push_back({{"vertices", r.mesh.X.rows()},
                      {"triangles", r.mesh.T.rows()},
                      {"full_ms", tf},
                      {"fast_ms", tr},
                      {"speedup", tf / tr}});
      bar.update(k + 1);
    }
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
    summary["sweep"] = rows;
    std::vector<double> speedup(verts.size());
    for (std::size_t i = 0; i < verts.size(); ++i) speedup[i] = t_fulls[i] / t_reds[i];
#if FASTCD_HAVE_VIZ
    write_timing_png(
        (out / "timing.png").string(),
        {{"full-order", verts, t_fulls, rgb_from_hex(kFull)}, {"fast (reduced)", verts, t_reds, rgb_from_hex(kRed)}},
        true, "per-step cost", "vertices", "ms / step", {{"speedup", verts, speedup, {0.2, 0.2, 0.2}}},
        "speedup grows with resolution", "speedup (full / reduced)");
#endif
  }

  // Videos (sections 1, 2 and 5).
#if FASTCD_HAVE_VIZ
  if (st.video) {
    std::fprintf(stdout, "[5/6] videos\n");
    auto encode = [&](const char* name, std::vector<MeshPanel> panels, const std::string& suptitle) {
      AnimationOptions opt;
      opt.suptitle = suptitle;
      std::optional<Progress> bar;
      write_panel_animation((out / name).string(), panels, opt, [&](int done, int total) {
        if (!bar) bar.emplace(name, total);
        bar->update(done);
      });
    };
    const auto rig_t = thin(rig_states), full_t = thin(full.states), red_t = thin(red.states);
    encode("rig.mp4", {{rig_t, s.mesh.T, "rig pose x = J p", rgb_from_hex(kRig)}},
           "The animator's input: a rigid beam swept left and right");
    encode("full.mp4",
           {{rig_t, s.mesh.T, "rig only J p", rgb_from_hex(kRig)},
            {full_t, s.mesh.T, "rig + complementary J p + u_c", rgb_from_hex(kFull)}},
           "Full-order complementary dynamics");
    char full_title[64], red_title[64];
    std::snprintf(full_title, sizeof full_title, "full (%ld rot, %ld DOF)", long(full_sys.n_rot()),
                  long(full_sys.state_dim()));
    std::snprintf(red_title, sizeof red_title, "reduced (%ld rot, %ld DOF)", long(fast.n_rot()),
                  long(fast.state_dim()));
    encode("compare.mp4",
           {{rig_t, s.mesh.T, "rig", rgb_from_hex(kRig)},
            {full_t, s.mesh.T, full_title, rgb_from_hex(kFull)},
            {red_t, s.mesh.T, red_title, rgb_from_hex(kRed)}},
           "Complementary dynamics: full-order vs. fast (skinning eigenmodes)");
  }
#else
  if (st.video || st.sweep)
    std::fprintf(stdout, "note: this build has no renderer (FASTCD_BUILD_VIZ=OFF); videos and PNGs skipped\n");
#endif

  std::fprintf(stdout, "[6/6] summary\n");
  summary["total_s"] = seconds_since(t_all);
  write_file_atomically((out / "summary.json").string(), [&](const std::string& tmp) {
    std::ofstream f(tmp);
    f << summary.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write " + tmp);
  });
  folder.commit();
  std::fprintf(stdout, "wrote %s (%.1f s)\n", folder.target().string().c_str(), seconds_since(t_all));
  return 0;
}

}  // namespace

void register_tutorial(CLI::App& app) {
  auto st = std::make_shared<TutorialSettings>();
  CLI::App* cmd = app.add_subcommand("tutorial",
                                     "Reproduce tutorial 23 (Fast Complementary Dynamics) on the default beam: "
                                     "prints its numbers, writes videos, plots, summary.json and .npy trajectories");
  cmd->add_option("--out", st->out, "output directory")->capture_default_str();
  cmd->add_option("--steps", st->steps, "time steps of the roll-outs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--modes", st->cd.modes, "skinning eigenmodes of the fast solver")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--clusters", st->cd.clusters, "rotation clusters of the fast solver")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--iterations", st->cd.iterations, "local/global iterations per step")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--bench-steps", st->bench_steps, "timed steps per solver in the sweep (after 2 warm-up)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("!--no-sweep", st->sweep, "skip the resolution sweep (section 6)");
  cmd->add_flag("!--no-video", st->video, "skip the videos");
  cmd->add_flag("--force", st->force, "replace an earlier tutorial output (marked by its .fastcd-output)");
  cmd->callback([st] {
    const int rc = run_tutorial(*st);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fastcd::cli
