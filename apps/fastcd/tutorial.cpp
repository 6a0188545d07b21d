// `fastcd tutorial`: reproduces the seed tutorial's sections 1-6 on the default beam and
// writes its numbers, videos, plots and trajectories.
#include "tutorial.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "fastcd/fastcd.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/npy.hpp"
#include "fastcd/io/render2d.hpp"
#include "progress.hpp"

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
  bool sweep = true, video = true;
  CDOptions cd;
};

const char* kRig = "#d62728";
const char* kFull = "#1f77b4";
const char* kRed = "#2ca02c";

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The seed's thin(): every k-th state, k = max(1, len / target).
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

template <class System, class Advance, class Lift>
Rollout roll_out(const System& sys, const TutorialSettings& st, Advance advance, Lift lift, CDState s,
                 const std::string& label) {
  Rollout r;
  Progress bar(label, st.steps);
  double solve_s = 0.0;
  for (int i = 0; i < st.steps; ++i) {
    const VectorXd p_next = metronome_pose(sys.p0, sys.dim, i, st.amp, st.period);
    const auto t0 = Clock::now();
    advance(s, p_next);
    solve_s += seconds_since(t0);
    const VectorXd uc = lift(s.s);
    r.states.push_back(unflatten(sys.J * s.p + uc, sys.dim));
    r.violation.push_back((sys.constraint.C * uc).norm());
    bar.update(i + 1);
  }
  r.step_ms = 1e3 * solve_s / st.steps;
  return r;
}

/// The seed's bench(): median ms/step after warm-up.
template <class System, class Advance>
double bench(const System& sys, const TutorialSettings& st, Advance advance, CDState s) {
  std::vector<double> ts;
  for (int i = 0; i < st.bench_warmup + st.bench_steps; ++i) {
    const VectorXd p_next = metronome_pose(sys.p0, sys.dim, i, st.amp, st.period);
    const auto t0 = Clock::now();
    advance(s, p_next);
    const double dt = seconds_since(t0);
    if (i >= st.bench_warmup) ts.push_back(dt);
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  double med = ts[ts.size() / 2];
  if (ts.size() % 2 == 0) med = 0.5 * (med + *std::max_element(ts.begin(), ts.begin() + ts.size() / 2));
  return 1e3 * med;
}

struct Solvers {
  Mesh mesh;
  LinearRig rig;
  FullCD full;
  FastCD fast;
};

Solvers build(int w, int h, const TutorialSettings& st) {
  Solvers s;
  s.mesh = beam(w, h, st.thickness);
  const SparseMatrix Mv = kron_identity(massmatrix(s.mesh.X, s.mesh.T, st.cd.rho), 2);
  s.rig = affine_handle_rig(s.mesh.X, Mv);
  s.full = full_cd_precompute(s.mesh.X, s.mesh.T, s.rig.J, s.rig.p0, st.cd);
  s.fast = fast_cd_precompute(s.mesh.X, s.mesh.T, s.rig.J, s.rig.p0, st.cd);
  return s;
}

void write_states(const std::filesystem::path& path, const std::vector<MatrixXd>& states) {
  io::write_npy_states(path.string(), states);
}

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

int run_tutorial(const TutorialSettings& st) {
  namespace fs = std::filesystem;
  const fs::path out(st.out);
  fs::create_directories(out);
  nlohmann::json summary;
  summary["settings"] = {{"beam", {st.width, st.height}}, {"thickness", st.thickness}, {"YM", st.cd.ym},
                         {"poisson", st.cd.pr}, {"rho", st.cd.rho}, {"dt", st.cd.h},
                         {"bcd_iters", st.cd.iterations}, {"amp", st.amp}, {"period", st.period},
                         {"leak_dt", st.cd.leak.dt}, {"k_modes", st.cd.modes}, {"n_clusters", st.cd.clusters},
                         {"steps", st.steps}};
  const auto t_all = Clock::now();

  // 1 - the rig
  std::fprintf(stdout, "[1/6] rig and operators\n");
  const auto t_pre = Clock::now();
  Solvers s = build(st.width, st.height, st);
  const double pre_s = seconds_since(t_pre);
  const Index n = s.mesh.X.rows(), dim = 2;
  std::printf("mesh: %ld verts, %ld triangles | rig: J is (%ld, %ld) -> %ld DOFs\n", long(n), long(s.mesh.T.rows()),
              long(s.rig.J.rows()), long(s.rig.J.cols()), long(s.rig.J.cols()));
  std::vector<MatrixXd> rig_states;
  for (int i = 0; i < st.steps; ++i)
    rig_states.push_back(unflatten(s.rig.J * metronome_pose(s.rig.p0, dim, i, st.amp, st.period), dim));
  summary["mesh"] = {{"vertices", n}, {"triangles", s.mesh.T.rows()}, {"J_shape", {s.rig.J.rows(), s.rig.J.cols()}},
                     {"rig_dofs", s.rig.J.cols()}};

  // 2 - full order
  std::fprintf(stdout, "[2/6] full-order complementary dynamics\n");
  FullCDWorkspace fws;
  auto full_adv = [&](CDState& c, const VectorXd& p) { full_cd_advance(s.full, c, p, fws); };
  const Rollout full = roll_out(s.full, st, full_adv, [](const VectorXd& u) { return u; },
                                full_cd_initial_state(s.full), "full-order roll-out");
  const double full_viol = *std::max_element(full.violation.begin(), full.violation.end());
  std::printf("full-order: %s ms/step, %ld rotations/step\n", fmt("%.3f", full.step_ms).c_str(), long(s.full.n_rot()));
  std::printf("max rig-orthogonality residual ||J^T M D u_c|| = %.1e (constraint holds)\n", full_viol);
  summary["full"] = {{"ms_per_step", full.step_ms}, {"rotations_per_step", s.full.n_rot()},
                     {"max_violation", full_viol}, {"constraint_rank", s.full.constraint.rank},
                     {"state_dim", s.full.state_dim()}};

  // 4 - fast
  std::fprintf(stdout, "[3/6] fast complementary dynamics\n");
  FastCDWorkspace ws;
  auto fast_adv = [&](CDState& c, const VectorXd& p) { fast_cd_advance(s.fast, c, p, ws); };
  const Rollout red = roll_out(s.fast, st, fast_adv, [&](const VectorXd& z) { return fast_cd_lift(s.fast, z); },
                               fast_cd_initial_state(s.fast), "fast roll-out");
  const double structural = (s.fast.constraint.C * s.fast.B).norm();
  const double red_viol = *std::max_element(red.violation.begin(), red.violation.end());
  std::printf("subspace B: (%ld, %ld) -> %ld DOFs\n", long(s.fast.B.rows()), long(s.fast.B.cols()), long(s.fast.state_dim()));
  std::printf("structural rig-orthogonality ||(J^T M D) B|| = %.1e\n", structural);
  std::printf("rotation clusters: %ld (vs %ld triangles)\n", long(s.fast.n_rot()), long(s.mesh.T.rows()));
  std::printf("reduced: %s ms/step -> %.1fx faster than full-order\n", fmt("%.4f", red.step_ms).c_str(),
              full.step_ms / red.step_ms);
  std::vector<int> counts(static_cast<std::size_t>(s.fast.clusters), 0);
  for (Index e = 0; e < s.fast.labels.size(); ++e) ++counts[static_cast<std::size_t>(s.fast.labels(e))];
  summary["reduced"] = {{"ms_per_step", red.step_ms}, {"speedup", full.step_ms / red.step_ms},
                        {"B_shape", {s.fast.B.rows(), s.fast.B.cols()}}, {"state_dim", s.fast.state_dim()},
                        {"structural_residual", structural}, {"structural_residual_relative", s.fast.structural_residual},
                        {"max_violation", red_viol}, {"clusters", s.fast.n_rot()}, {"cluster_counts", counts},
                        {"eigenvalues", std::vector<double>(s.fast.E.data(), s.fast.E.data() + s.fast.E.size())},
                        {"weight_constraint_rank", s.fast.weight_constraint_rank}};
  summary["precompute_s"] = pre_s;

  // Trajectories for numpy.
  write_states(out / "states_rig.npy", rig_states);
  write_states(out / "states_full.npy", full.states);
  write_states(out / "states_reduced.npy", red.states);
  viz::write_cluster_png((out / "clusters.png").string(), s.mesh.X, s.mesh.T, s.fast.labels,
                         "rotation clusters (one shared rotation each)");

  // 6 - resolution sweep
  std::vector<double> verts, t_fulls, t_reds;
  if (st.sweep) {
    std::fprintf(stdout, "[4/6] resolution sweep\n");
    const int res[5][2] = {{40, 5}, {70, 7}, {100, 8}, {140, 9}, {180, 10}};
    Progress bar("sweep", 5);
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::string> lines;
    for (int k = 0; k < 5; ++k) {
      const Solvers r = build(res[k][0], res[k][1], st);
      FastCDWorkspace w;
      FullCDWorkspace fw;
      const double tf = bench(r.full, st, [&](CDState& c, const VectorXd& p) { full_cd_advance(r.full, c, p, fw); },
                              full_cd_initial_state(r.full));
      const double tr = bench(r.fast, st, [&](CDState& c, const VectorXd& p) { fast_cd_advance(r.fast, c, p, w); },
                              fast_cd_initial_state(r.fast));
      verts.push_back(double(r.mesh.X.rows()));
      t_fulls.push_back(tf);
      t_reds.push_back(tr);
      char line[160];
      std::snprintf(line, sizeof line, "%5ld verts / %5ld tris: full %7.3f ms reduced %7.4f ms (%6.1fx)",
                    long(r.mesh.X.rows()), long(r.mesh.T.rows()), tf, tr, tf / tr);
      lines.push_back(line);
      rows.push_back({{"vertices", r.mesh.X.rows()}, {"triangles", r.mesh.T.rows()}, {"full_ms", tf},
                      {"reduced_ms", tr}, {"speedup", tf / tr}});
      bar.update(k + 1);
    }
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
    summary["sweep"] = rows;
    std::vector<double> speedup(verts.size());
    for (std::size_t i = 0; i < verts.size(); ++i) speedup[i] = t_fulls[i] / t_reds[i];
    viz::write_timing_png((out / "timing.png").string(),
                          {{"full-order", verts, t_fulls, viz::rgb_from_hex(kFull)},
                           {"fast (reduced)", verts, t_reds, viz::rgb_from_hex(kRed)}},
                          true, "per-step cost", "vertices", "ms / step",
                          {{"speedup", verts, speedup, {0.2, 0.2, 0.2}}}, "speedup grows with resolution",
                          "speedup (full / reduced)");
  }

  // Videos (sections 1, 2 and 5).
  if (st.video) {
    std::fprintf(stdout, "[5/6] videos\n");
    auto encode = [&](const char* name, std::vector<viz::MeshPanel> panels, const std::string& suptitle) {
      viz::AnimationOptions opt;
      opt.suptitle = suptitle;
      std::optional<Progress> bar;
      viz::write_panel_animation((out / name).string(), panels, opt, [&](int done, int total) {
        if (!bar) bar.emplace(name, total);
        bar->update(done);
      });
    };
    const auto rig_t = thin(rig_states), full_t = thin(full.states), red_t = thin(red.states);
    encode("rig.mp4", {{rig_t, s.mesh.T, "rig pose x = J p", viz::rgb_from_hex(kRig)}},
           "The animator's input: a rigid beam swept left and right");
    encode("full.mp4",
           {{rig_t, s.mesh.T, "rig only J p", viz::rgb_from_hex(kRig)},
            {full_t, s.mesh.T, "rig + complementary J p + u_c", viz::rgb_from_hex(kFull)}},
           "Full-order complementary dynamics");
    char full_title[64], red_title[64];
    std::snprintf(full_title, sizeof full_title, "full (%ld rot, %ld DOF)", long(s.full.n_rot()), long(s.full.state_dim()));
    std::snprintf(red_title, sizeof red_title, "reduced (%ld rot, %ld DOF)", long(s.fast.n_rot()), long(s.fast.state_dim()));
    encode("compare.mp4",
           {{rig_t, s.mesh.T, "rig", viz::rgb_from_hex(kRig)},
            {full_t, s.mesh.T, full_title, viz::rgb_from_hex(kFull)},
            {red_t, s.mesh.T, red_title, viz::rgb_from_hex(kRed)}},
           "Complementary dynamics: full-order vs. fast (skinning eigenmodes)");
  }

  std::fprintf(stdout, "[6/6] summary\n");
  summary["total_s"] = seconds_since(t_all);
  io::write_file_atomically((out / "summary.json").string(), [&](const std::string& tmp) {
    std::ofstream f(tmp);
    f << summary.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write " + tmp);
  });
  std::fprintf(stdout, "wrote %s (%.1f s)\n", out.string().c_str(), seconds_since(t_all));
  return 0;
}

}  // namespace

void register_tutorial(CLI::App& app) {
  auto st = std::make_shared<TutorialSettings>();
  CLI::App* cmd = app.add_subcommand("tutorial",
                                     "Reproduce tutorial 23 (Fast Complementary Dynamics) on the default beam: "
                                     "prints its numbers, writes videos, plots, summary.json and .npy trajectories");
  cmd->add_option("--out", st->out, "output directory")->capture_default_str();
  cmd->add_option("--steps", st->steps, "time steps of the roll-outs")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--modes", st->cd.modes, "skinning eigenmodes of the fast solver")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--clusters", st->cd.clusters, "rotation clusters of the fast solver")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--iterations", st->cd.iterations, "local/global iterations per step")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--bench-steps", st->bench_steps, "timed steps per solver in the sweep (after 2 warm-up)")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("!--no-sweep", st->sweep, "skip the resolution sweep (section 6)");
  cmd->add_flag("!--no-video", st->video, "skip the videos");
  cmd->callback([st] {
    const int rc = run_tutorial(*st);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace fastcd::cli
