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
#include "progress.hpp"
#if FASTCD_HAVE_VIZ
#include "fastcd/viz/render2d.hpp"
#include "fastcd/viz/render3d.hpp"
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

int run_scene(const RunSettings& st) {
  const auto t_all = Clock::now();
  SceneOptions so;
  so.rig = st.rig;
  const Scene scene = load_scene(st.scene, so);
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
               scene.kind == HandleKind::Bones  ? "bones"
               : scene.kind == HandleKind::Cage ? "cage vertices"
                                                : "point handles",
               rig.name().c_str(), frames, st.solver.c_str());
  SceneRunSettings run;
  run.solver = solver_kind(st.solver);
  run.iterations = st.iterations;
  run.modes = st.modes;
  run.clusters = st.clusters;
  run.leak = st.leak;
  run.gravity = st.gravity;
  run.dynamics = st.dynamics;
  const SimulationOptions so_sim = scene_simulation_options(scene, run);
  const CDOptions& o = so_sim.cd;
  Simulation sim = make_simulation(scene, so_sim);
  const double pre_s = sim.precompute_seconds();
  const Index constraint_rank = sim.constraint().rank;
  const double structural = sim.fast() ? sim.fast()->structural_residual() : 0.0;

  const OutputSurface surf = output_surface(scene);
  if (scene.render_E.rows() > 0)
    std::fprintf(stdout, "render mesh: %ld vertices, %ld triangles, embedded in the tets (max distance %.2g)\n",
                 long(scene.render_V.rows()), long(scene.render_F.rows()), scene.render_max_distance * scene.scale);
  std::vector<MatrixXd> baked, rig_frames, cd_frames;
  Progress bar("simulating", frames);
  for (int f = 0; f < frames; ++f) {
    sim.advance(scene.poses[static_cast<std::size_t>(f)]);
    const MatrixXd Xr = sim.rig_positions(), Xc = sim.positions();
    const MatrixXd V = to_file_units(scene, surf, Xc);
    char name[64];
    std::snprintf(name, sizeof name, "frame_%05d.obj", f + 1);
    write_obj((stage / "obj" / name).string(), V, surf.F);
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
  const SimulationStats& stats = sim.stats();
  const double step_s = stats.step_seconds, max_rel = stats.max_residual;
  write_obj((stage / "rest.obj").string(), to_file_units(scene, surf, scene.X), surf.F);
  write_pc2((stage / "animation.pc2").string(), baked, 1.0, 1.0);

#if FASTCD_HAVE_VIZ
  if (st.video) {
    std::optional<Progress> vbar;
    auto progress = [&](int done, int total) {
      if (!vbar) vbar.emplace("preview.mp4", total);
      vbar->update(done);
    };
    if (dim == 2) {
      AnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      vo.pad = 0.1;
      write_panel_animation((stage / "preview.mp4").string(),
                            {{rig_frames, scene.T, "rig", rgb_from_hex("#d62728")},
                             {cd_frames, scene.T, "rig + CD (" + st.solver + ")", rgb_from_hex("#1f77b4")}},
                            vo, progress);
    } else {
      std::vector<MatrixXd> all = rig_frames;
      all.insert(all.end(), cd_frames.begin(), cd_frames.end());
      SurfaceAnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      write_surface_animation((stage / "preview.mp4").string(),
                              {{rig_frames, surf.F, "rig", rgb_from_hex("#d62728")},
                               {cd_frames, surf.F, "rig + CD (" + st.solver + ")", rgb_from_hex("#1f77b4")}},
                              default_camera(all), vo, progress);
    }
  }
#else
  if (st.video) std::fprintf(stdout, "note: this build has no renderer (FASTCD_BUILD_VIZ=OFF); preview.mp4 skipped\n");
#endif

  nlohmann::json report;
  report["scene"] = st.scene;
  report["solver"] = st.solver;
  report["dim"] = dim;
  report["vertices"] = n;
  report["elements"] = scene.T.rows();
  report["handles"] = scene.handles;
  report["rig"] = {{"name", rig.name()}, {"linear", rig.is_linear()}, {"parameters", rig.num_params()}};
  report["frames"] = frames;
  report["settings"] = {{"dt", o.dt},
                        {"ym", o.ym},
                        {"pr", o.pr},
                        {"rho", o.rho},
                        {"iterations", o.iterations},
                        {"leak", st.leak},
                        {"gravity", st.gravity},
                        {"model_requested", scene.model},
                        {"model_simulated", "arap"},
                        {"dynamics", so_sim.dynamics}};
  if (sim.fast()) report["settings"].update({{"modes", o.modes}, {"clusters", o.clusters}});
  report["timings"] = {
      {"precompute_s", pre_s}, {"ms_per_step", frames ? 1e3 * step_s / frames : 0.0}, {"total_s", since(t_all)}};
  report["constraint_rank"] = constraint_rank;
  report["max_constraint_residual_relative"] = max_rel;
  if (sim.fast()) report["structural_residual_relative"] = structural;
  report["complementary_kinetic_energy"] = {{"max", stats.max_kinetic_energy}, {"mean", stats.mean_kinetic_energy()}};
  report["warnings"] = scene.warnings;
  write_file_atomically((stage / "run.json").string(), [&](const std::string& tmp) {
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
  CLI::App* cmd = app.add_subcommand("run",
                                     "Simulate a scene (Complementary Dynamics release JSON) and bake it: "
                                     "OBJ sequence, PC2 + rest OBJ, preview.mp4, run.json");
  cmd->add_option("scene", st->scene, "scene JSON file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", st->out, "output folder (default runs/<scene>)");
  cmd->add_option("--solver", st->solver, "full or fast")
      ->check(CLI::IsMember({"full", "fast"}))
      ->capture_default_str();
  cmd->add_option("--frames", st->frames, "simulate only the first N frames")->check(CLI::PositiveNumber);
  cmd->add_option("--modes", st->modes, "fast: skinning eigenmodes")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--clusters", st->clusters, "fast: rotation clusters")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--iterations", st->iterations, "local/global iterations per step")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
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
