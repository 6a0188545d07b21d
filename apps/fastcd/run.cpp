// `fastcd run`: complementary dynamics on a Complementary Dynamics release scene, baked to an
// OBJ sequence, a PC2 point cache with its rest OBJ, a preview video and run.json.
#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "fastcd/fastcd.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/io/render2d.hpp"
#include "fastcd/io/scene.hpp"
#include "progress.hpp"
#if __has_include("fastcd/io/render3d.hpp")
#include "fastcd/io/render3d.hpp"
#define FASTCD_HAVE_RENDER3D 1
#endif

namespace fastcd::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct RunSettings {
  std::string scene, out, solver = "full";
  int frames = 0, modes = 16, clusters = 100, iterations = 10;
  std::string leak = "diffusion", rig = "auto";
  double gravity = 0.0;
  bool dynamics = true, video = true, force = false;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The mesh that is baked: the scene's render surface embedded in the tets, or the
/// simulation mesh's own surface (its vertices re-indexed). Positions are E * X.
struct Surface {
  SparseMatrix E;  ///< #out x #V
  MatrixXi F;
};

Surface output_surface(const io::Scene& s) {
  Surface out;
  if (s.render_E.rows() > 0) {
    out.E = s.render_E;
    out.F = s.render_F;
    return out;
  }
  std::vector<Index> slot(static_cast<std::size_t>(s.X.rows()), -1);
  for (Index i = 0; i < s.surface.size(); ++i) slot[s.surface.data()[i]] = 0;
  std::vector<Triplet> sel;
  for (Index v = 0; v < s.X.rows(); ++v)
    if (slot[v] == 0) {
      slot[v] = static_cast<Index>(sel.size());
      sel.emplace_back(slot[v], v, 1.0);
    }
  out.E.resize(static_cast<Index>(sel.size()), s.X.rows());
  out.E.setFromTriplets(sel.begin(), sel.end());
  out.F.resize(s.surface.rows(), s.surface.cols());
  for (Index i = 0; i < s.surface.rows(); ++i)
    for (Index k = 0; k < s.surface.cols(); ++k) out.F(i, k) = static_cast<int>(slot[s.surface(i, k)]);
  return out;
}

/// Baked positions (normalised simulation coordinates in) in the scene file's units.
MatrixXd to_file_units(const io::Scene& s, const Surface& surf, const MatrixXd& X) {
  return (MatrixXd(surf.E * X) * s.scale).rowwise() + s.center.transpose();
}

int run_scene(const RunSettings& st) {
  const auto t_all = Clock::now();
  io::SceneOptions so;
  so.rig = st.rig;
  const io::Scene scene = io::load_scene(st.scene, so);
  const Rig& rig = *scene.rig;
  for (const auto& w : scene.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const Index dim = scene.dim, n = scene.X.rows();
  const int frames = st.frames > 0 ? std::min<int>(st.frames, static_cast<int>(scene.poses.size()))
                                   : static_cast<int>(scene.poses.size());
  const fs::path out(st.out.empty() ? ("runs/" + scene.name) : st.out);
  if (fs::exists(out) && !fs::is_empty(out) && !st.force)
    throw std::runtime_error("output folder '" + out.string() + "' is not empty (use --force to replace it)");
  // Stage everything next to the destination; move it in place only when complete.
  const fs::path stage = fs::path(out.string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(stage);
  fs::create_directories(stage / "obj");
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      if (!p.empty()) fs::remove_all(p, ec);
    }
  } cleanup{stage};

  std::fprintf(stdout, "%s: %ldD, %ld vertices, %ld elements, %ld %s, rig %s, %d frames, solver %s\n",
               scene.name.c_str(), long(dim), long(n), long(scene.T.rows()), long(scene.handles),
               scene.kind == io::HandleKind::Bones ? "bones" : scene.kind == io::HandleKind::Cage ? "cage vertices" : "point handles",
               rig.name().c_str(), frames, st.solver.c_str());
  CDOptions o;
  o.h = scene.dt;
  o.ym = scene.ym;
  o.pr = scene.pr;
  o.rho = scene.rho;
  o.iterations = st.iterations;
  o.modes = st.modes;
  o.clusters = std::min<int>(st.clusters, static_cast<int>(scene.T.rows()));
  if (st.leak == "diffusion") {
    o.leak.kind = LeakFieldKind::Diffusion;
  } else if (st.leak == "poisson") {
    o.leak.kind = LeakFieldKind::Poisson;
  } else if (st.leak == "none") {
    o.leak.kind = LeakFieldKind::None;
  } else {  // a DMAT of per-vertex values
    o.leak.kind = LeakFieldKind::Values;
    const MatrixXd v = io::read_dmat(st.leak);
    if (v.cols() != 1 || v.rows() != n)
      throw std::runtime_error("--leak " + st.leak + ": expected a " + std::to_string(n) + " x 1 DMAT, got " +
                               std::to_string(v.rows()) + " x " + std::to_string(v.cols()));
    o.leak.values = v.col(0);
  }
  if (st.gravity != 0.0) {
    o.gravity = VectorXd::Zero(dim);
    o.gravity(1) = -st.gravity;
  }
  const auto t_pre = Clock::now();
  std::optional<FullCD> full;
  std::optional<FastCD> fast;
  Index constraint_rank = 0;
  double structural = 0.0;
  if (st.solver == "full") {
    full.emplace(full_cd_precompute(scene.X, scene.T, rig, o));
    constraint_rank = full->constraint.rank;
  } else {
    const auto* linear = dynamic_cast<const LinearRig*>(&rig);
    if (!linear || !rig.is_linear())
      throw std::runtime_error("the fast solver needs a linear rig (its subspace is built for one constant J); the " +
                               rig.name() + " rig is nonlinear: use --solver full");
    fast.emplace(fast_cd_precompute(scene.X, scene.T, linear->J, linear->p0, o));
    constraint_rank = fast->constraint.rank;
    structural = fast->structural_residual;
  }
  const double pre_s = since(t_pre);
  const SparseMatrix Mv = kron_identity(massmatrix(scene.X, scene.T, scene.rho), dim);
  const double extent = (scene.X.colwise().maxCoeff() - scene.X.colwise().minCoeff()).maxCoeff();
  const double gravity_work = 0.5 * Mv.diagonal().sum() / dim * std::abs(st.gravity) * extent;
  DivergenceMonitor monitor(Mv, extent, o.h, o.ym, gravity_work);

  const Surface surf = output_surface(scene);
  if (scene.render_E.rows() > 0)
    std::fprintf(stdout, "render mesh: %ld vertices, %ld triangles, embedded in the tets (max distance %.2g)\n",
                 long(scene.render_V.rows()), long(scene.render_F.rows()), scene.render_max_distance * scene.scale);
  std::vector<MatrixXd> baked, rig_frames, cd_frames;
  CDState state = full ? full_cd_initial_state(*full, rig) : fast_cd_initial_state(*fast);
  FullCDWorkspace fws;
  FastCDWorkspace ws;
  double step_s = 0.0, max_rel = 0.0, sum_kinetic = 0.0;
  VectorXd rig_prev = rig.positions(scene.rest_pose);
  Progress bar("simulating", frames);
  for (int f = 0; f < frames; ++f) {
    const VectorXd& p = scene.poses[static_cast<std::size_t>(f)];
    VectorXd uc, ucd;
    if (st.dynamics && scene.with_dynamics) {
      const auto t0 = Clock::now();
      if (full) full_cd_advance(*full, rig, state, p, fws);
      else fast_cd_advance(*fast, state, p, ws);
      step_s += since(t0);
      uc = full ? state.s : fast_cd_lift(*fast, state.s);
      ucd = full ? state.s_dot : fast_cd_lift(*fast, state.s_dot);
    } else {
      uc = ucd = VectorXd::Zero(n * dim);
      state.p = p;
    }
    const VectorXd rigx = rig.positions(p);
    monitor.check(f + 1, (rigx - rig_prev) / o.h, uc, ucd);
    rig_prev = rigx;
    sum_kinetic += monitor.last_kinetic();
    // ||J(p)^T M D u_c|| relative, with the constraint of this frame (rebuilt for nonlinear rigs).
    const SparseMatrix& C = full ? full->constraint.C : fast->constraint.C;
    if (uc.norm() > 0) max_rel = std::max(max_rel, (C * uc).norm() / (C.norm() * uc.norm()));
    const VectorXd& rig_x = rigx;
    const MatrixXd Xr = unflatten(rig_x, dim), Xc = unflatten(rig_x + uc, dim);
    const MatrixXd V = to_file_units(scene, surf, Xc);
    char name[64];
    std::snprintf(name, sizeof name, "frame_%05d.obj", f + 1);
    io::write_obj((stage / "obj" / name).string(), V, surf.F);
    baked.push_back(V);
    if (dim == 3) {  // previews show the baked surface
      rig_frames.push_back(surf.E * Xr);
      cd_frames.push_back(surf.E * Xc);
    } else {
      rig_frames.push_back(Xr);
      cd_frames.push_back(Xc);
    }
    bar.update(f + 1);
  }
  io::write_obj((stage / "rest.obj").string(), to_file_units(scene, surf, scene.X), surf.F);
  io::write_pc2((stage / "animation.pc2").string(), baked, 1.0, 1.0);

  if (st.video) {
    std::optional<Progress> vbar;
    auto progress = [&](int done, int total) {
      if (!vbar) vbar.emplace("preview.mp4", total);
      vbar->update(done);
    };
    if (dim == 2) {
      viz::AnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      vo.pad = 0.1;
      viz::write_panel_animation((stage / "preview.mp4").string(),
                                 {{rig_frames, scene.T, "rig", viz::rgb_from_hex("#d62728")},
                                  {cd_frames, scene.T, "rig + CD (" + st.solver + ")", viz::rgb_from_hex("#1f77b4")}},
                                 vo, progress);
    } else {
#ifdef FASTCD_HAVE_RENDER3D
      std::vector<MatrixXd> all = rig_frames;
      all.insert(all.end(), cd_frames.begin(), cd_frames.end());
      viz::SurfaceAnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      viz::write_surface_animation((stage / "preview.mp4").string(),
                                   {{rig_frames, surf.F, "rig", viz::rgb_from_hex("#d62728")},
                                    {cd_frames, surf.F, "rig + CD (" + st.solver + ")", viz::rgb_from_hex("#1f77b4")}},
                                   viz::default_camera(all), vo, progress);
#else
      std::fprintf(stdout, "note: no 3D preview renderer in this build; preview.mp4 skipped\n");
#endif
    }
  }

  nlohmann::json report;
  report["scene"] = st.scene;
  report["solver"] = st.solver;
  report["dim"] = dim;
  report["vertices"] = n;
  report["elements"] = scene.T.rows();
  report["handles"] = scene.handles;
  report["rig"] = {{"name", rig.name()}, {"linear", rig.is_linear()}, {"parameters", rig.num_params()}};
  report["frames"] = frames;
  report["settings"] = {{"dt", o.h}, {"YM", o.ym}, {"pr", o.pr}, {"rho", o.rho}, {"iterations", o.iterations},
                        {"leak", st.leak}, {"gravity", st.gravity},
                        {"model_requested", scene.model}, {"model_simulated", "arap"},
                        {"dynamics", st.dynamics && scene.with_dynamics}};
  if (fast) report["settings"].update({{"modes", o.modes}, {"clusters", o.clusters}});
  report["timings"] = {{"precompute_s", pre_s}, {"ms_per_step", frames ? 1e3 * step_s / frames : 0.0},
                       {"total_s", since(t_all)}};
  report["constraint_rank"] = constraint_rank;
  report["max_constraint_residual_relative"] = max_rel;
  if (fast) report["structural_residual_relative"] = structural;
  report["complementary_kinetic_energy"] = {{"max", monitor.max_kinetic()}, {"mean", frames ? sum_kinetic / frames : 0.0}};
  report["warnings"] = scene.warnings;
  io::write_file_atomically((stage / "run.json").string(), [&](const std::string& tmp) {
    std::ofstream f(tmp);
    f << report.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write " + tmp);
  });

  if (fs::exists(out)) fs::remove_all(out);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  fs::rename(stage, out);
  cleanup.p.clear();
  std::printf("%s: %d frames, precompute %.3f s, %.3f ms/step, max residual %.1e -> %s\n", scene.name.c_str(), frames,
              pre_s, frames ? 1e3 * step_s / frames : 0.0, max_rel, out.string().c_str());
  return 0;
}

}  // namespace

void register_run(CLI::App& app) {
  auto st = std::make_shared<RunSettings>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scene (Complementary Dynamics release JSON) and bake it: "
                                            "OBJ sequence, PC2 + rest OBJ, preview.mp4, run.json");
  cmd->add_option("scene", st->scene, "scene JSON file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", st->out, "output folder (default runs/<scene>)");
  cmd->add_option("--solver", st->solver, "full or fast")->check(CLI::IsMember({"full", "fast"}))->capture_default_str();
  cmd->add_option("--frames", st->frames, "simulate only the first N frames")->check(CLI::PositiveNumber);
  cmd->add_option("--modes", st->modes, "fast: skinning eigenmodes")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--clusters", st->clusters, "fast: rotation clusters")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--iterations", st->iterations, "local/global iterations per step")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--rig", st->rig,
                  "auto (the scene's rig), lbs, wire (2D point handles: the daisy's Catmull-Rom wire, full order "
                  "only), mvc or harmonic (cage coordinates)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "lbs", "wire", "mvc", "harmonic"}));
  cmd->add_option("--leak", st->leak,
                  "momentum-leak field: diffusion (simkit, default), poisson (the 2020 paper), none, or a #V x 1 DMAT "
                  "of values in [0, 1]")
      ->capture_default_str();
  cmd->add_option("--gravity", st->gravity, "gravity along -y, in normalised scene units / s^2 (default off)");
  cmd->add_flag("!--no-dynamics", st->dynamics, "switch dynamics off (bakes the rig alone)");
  cmd->add_flag("!--no-video", st->video, "skip preview.mp4");
  cmd->add_flag("--force", st->force, "replace a non-empty output folder");
  cmd->callback([st] { run_scene(*st); });
}

}  // namespace fastcd::cli
