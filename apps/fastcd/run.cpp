// `fastcd run`: complementary dynamics on a Complementary Dynamics release scene, baked to an
// OBJ sequence, a PC2 point cache with its rest OBJ, a preview video and run.json.
#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "bake.hpp"
#include "fastcd/fastcd.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/parse_util.hpp"
#include "output_folder.hpp"
#include "progress.hpp"
#if FASTCD_HAVE_VIZ
#include "fastcd/viz/render2d.hpp"
#include "fastcd/viz/render3d.hpp"
#endif

namespace fastcd::cli {

namespace {

struct RunSettings {
  std::string scene, out, solver = "full";
  int frames = 0, modes = 16, clusters = 100, iterations = 10;
  std::string leak = "auto", rig = "auto", material;
  double gravity = 0.0;
  bool dynamics = true, video = true, force = false, profile = false;
};

const char* kind_name(HandleKind k) {
  return k == HandleKind::Bones ? "bones" : k == HandleKind::Cage ? "cage vertices" : "point handles";
}

int run_scene(const RunSettings& st) {
  const auto t_all = Clock::now();
  PhaseClock clock;
  const StageLines stage_lines;
  clock.next("loading (scene, weights, poses, embedding)");
  set_phase("loading the scene");
  SceneOptions so;
  so.rig = st.rig;
  so.material = st.material;
  std::fprintf(stdout, "loading %s\n", st.scene.c_str());
  std::fflush(stdout);
  const Scene scene = load_scene(st.scene, so);
  check_interrupt("loading the scene");
  clock.next("setup (output folder, options)");
  const Rig& rig = *scene.rig;
  std::vector<std::string> warnings;
  for (const auto& w : scene.warnings) warn(warnings, w);
  const Index dim = scene.dim, n = scene.X.rows();
  const int frames = st.frames > 0 ? std::min<int>(st.frames, static_cast<int>(scene.poses.size()))
                                   : static_cast<int>(scene.poses.size());
  // Every check of the output folder happens before any work, so a bad --out costs nothing.
  OutputFolder folder(st.out.empty() ? ("runs/" + scene.name) : st.out, scene.input_files, st.force);
  const fs::path stage = folder.stage();
  fs::create_directories(stage / "obj");

  std::fprintf(stdout, "%s: %ldD, %ld vertices, %ld elements, %ld %s, rig %s, %d frames, solver %s\n",
               scene.name.c_str(), long(dim), long(n), long(scene.T.rows()), long(scene.handles), kind_name(scene.kind),
               rig.name().c_str(), frames, st.solver.c_str());
  if (scene.fixed.size() > 0)
    std::fprintf(stdout, "fixed region: %ld vertices held on the rig\n", long(scene.fixed.size()));
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
  clock.next("precompute");
  set_phase("precomputing");
  std::fprintf(stdout, "precomputing (%s solver)\n", st.solver.c_str());
  std::fflush(stdout);
  Simulation sim = make_simulation(scene, so_sim);
  check_interrupt("precomputing");
  const double pre_s = sim.precompute_seconds();
  const ComplementarityConstraint& cons = sim.constraint();
  const Index constraint_rank = cons.rank, rig_rank = cons.rig_rank;
  const std::string leak_used = to_string(sim.leak_field_used());
  const double structural = sim.fast() ? sim.fast()->structural_residual() : 0.0;
  std::fprintf(stdout, "constraint: rank %ld of the rig's %ld directions (%ld parameters), leak field %s\n",
               long(constraint_rank), long(rig_rank), long(rig.num_params()), leak_used.c_str());
  if (so_sim.dynamics && rig_rank >= 0 && constraint_rank < rig_rank)
    warn(warnings, "the complementarity constraint holds " + std::to_string(constraint_rank) + " of the rig's " +
                       std::to_string(rig_rank) +
                       " directions: the dynamics may add motion the rig can make (leak field " + leak_used + ")");

  clock.next("setup (output surface, OBJ pass-through)");
  if (scene.render_E.rows() > 0)
    std::fprintf(stdout,
                 "render mesh: %ld vertices, %ld triangles, embedded in the tets (farthest vertex %.2g outside)\n",
                 long(scene.render_V.rows()), long(scene.render_F.rows()), scene.render_max_distance * scene.scale);
  CharacterBake bake(scene, stage, warnings, "");
  clock.next("simulation loop: monitor, frame outputs (OBJ, checks)");
  set_phase("simulating");
  Progress bar("simulating", frames);
  {
    BackgroundWriter writer;
    for (int f = 0; f < frames; ++f) {
      sim.advance(scene.poses[static_cast<std::size_t>(f)]);
      bake.record(f, sim, writer);
      bar.update(f + 1);
    }
    writer.finish();
  }
  const SimulationStats& stats = sim.stats();
  const double step_s = stats.step_seconds, max_rel = stats.max_residual;
  clock.next("writing rest.obj, animation.pc2");
  clock.split_last("simulation loop: solver steps", step_s);
  set_phase("writing the outputs");
  bake.finish(so_sim.dynamics);
  std::vector<MatrixXd>& rig_frames = bake.rig_frames;
  std::vector<MatrixXd>& cd_frames = bake.cd_frames;
  nlohmann::json preview_info;  ///< run.json "preview": frames, fps, stride

#if FASTCD_HAVE_VIZ
  if (st.video) {
    clock.next("preview.mp4 (render, encode)");
    set_phase("preview.mp4");
    // Real time: sample the simulation at about 30 frames per second of simulated time (a
    // 100 Hz run keeps every 3rd frame and plays at 33 fps), never slow motion.
    const double rate = 1.0 / o.dt;
    const int stride = std::max(1, static_cast<int>(std::lround(rate / 30.0)));
    const int fps = std::clamp(static_cast<int>(std::lround(rate / stride)), 1, 120);
    if (stride > 1) {
      auto sample = [&](std::vector<MatrixXd>& v) {
        std::vector<MatrixXd> kept;
        for (std::size_t f = 0; f < v.size(); f += static_cast<std::size_t>(stride)) kept.push_back(std::move(v[f]));
        v = std::move(kept);
      };
      sample(rig_frames);
      sample(cd_frames);
    }
    preview_info = {{"frames", cd_frames.size()}, {"fps", fps}, {"stride", stride}};
    std::fprintf(
        stdout, "preview.mp4: %zu frames at %d fps (%s: real time)\n", cd_frames.size(), fps,
        stride == 1 ? "every simulated frame" : ("every " + std::to_string(stride) + " simulated frames").c_str());
    std::optional<Progress> vbar;
    auto progress = [&](int done, int total) {
      if (!vbar) vbar.emplace("preview.mp4", total);
      vbar->update(done);
    };
    const std::string mp4 = (stage / "preview.mp4").string();
    if (dim == 2) {
      AnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      vo.pad = 0.1;
      vo.fps = fps;
      write_panel_animation(mp4,
                            {{rig_frames, scene.T, "rig", rgb_from_hex("#d62728")},
                             {cd_frames, scene.T, "rig + CD (" + st.solver + ")", rgb_from_hex("#1f77b4")}},
                            vo, progress);
    } else {
      std::vector<MatrixXd> all = rig_frames;
      all.insert(all.end(), cd_frames.begin(), cd_frames.end());
      SurfaceAnimationOptions vo;
      vo.suptitle = scene.name + ": rig vs rig + complementary dynamics";
      vo.fps = fps;
      write_surface_animation(mp4,
                              {{rig_frames, bake.surface().F, "rig", rgb_from_hex("#d62728")},
                               {cd_frames, bake.surface().F, "rig + CD (" + st.solver + ")", rgb_from_hex("#1f77b4")}},
                              default_camera(all), vo, progress);
    }
  }
#else
  if (st.video) std::fprintf(stdout, "note: this build has no renderer (FASTCD_BUILD_VIZ=OFF); preview.mp4 skipped\n");
#endif

  clock.next("run.json");
  set_phase("writing run.json");
  nlohmann::json report;
  report["scene"] = st.scene;
  report["layout"] = scene.layout;
  report["solver"] = st.solver;
  report["dim"] = dim;
  report["vertices"] = n;
  report["elements"] = scene.T.rows();
  report["handles"] = scene.handles;
  report["fixed_vertices"] = scene.fixed.size();
  report["rig"] = {{"name", rig.name()}, {"linear", rig.is_linear()}, {"parameters", rig.num_params()}};
  report["frames"] = frames;
  if (scene.frames_declared >= 0) report["frames_declared"] = scene.frames_declared;
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
  report["rig_rank"] = rig_rank;
  report["leak_field"] = leak_used;
  report["max_constraint_residual_relative"] = max_rel;
  if (sim.fast()) report["structural_residual_relative"] = structural;
  report["complementary_kinetic_energy"] = {{"max", stats.max_kinetic_energy}, {"mean", stats.mean_kinetic_energy()}};
  report["complementary_motion_max_relative"] = bake.uc_rel;
  report["inverted_elements"] = bake.inverted_json();
  report["warnings"] = warnings;
  if (!preview_info.empty()) report["preview"] = preview_info;
  clock.next("");
  nlohmann::json profile = nlohmann::json::array();
  for (const auto& [phase, s] : clock.phases()) profile.push_back({{"phase", phase}, {"seconds", s}});
  report["profile"] = profile;
  write_file_contents((stage / "run.json").string(), report.dump(2) + "\n", "fastcd run");
  if (st.profile) {
    std::printf("\n%-56s %9s %6s\n", "phase", "seconds", "share");
    const double total = since(t_all);
    for (const auto& [phase, s] : clock.phases())
      std::printf("%-56s %9.3f %5.1f%%\n", phase.c_str(), s, total > 0 ? 100.0 * s / total : 0.0);
    std::printf("%-56s %9.3f\n\n", "total", total);
  }

  check_interrupt("writing the outputs");
  folder.commit();
  std::printf(
      "%s: %d frames, precompute %.3f s, %.3f ms/step, max residual %.1e, constraint rank %ld/%ld, "
      "inverted frames %ld -> %s\n",
      scene.name.c_str(), frames, pre_s, frames ? 1e3 * step_s / frames : 0.0, max_rel, long(constraint_rank),
      long(rig_rank), long(bake.frames_inverted), folder.target().string().c_str());
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
  cmd->add_option(
         "--leak", st->leak,
         "momentum-leak field: auto (default: the 2020 paper's Poisson field, or the centroid field on a "
         "boundary-dominated mesh), poisson, diffusion (simkit), centroid, none, or a #V x 1 DMAT of values in "
         "[0, 1]")
      ->capture_default_str();
  cmd->add_option("--material", st->material,
                  "arap: run a scene that asks for another material (neo-Hookean, ...) as ARAP; without it such a "
                  "scene is refused")
      ->check(CLI::IsMember({"arap"}));
  cmd->add_option("--gravity", st->gravity, "gravity along -y, in normalised scene units / s^2 (default off)");
  cmd->add_flag("!--no-dynamics", st->dynamics, "switch dynamics off (bakes the rig alone)");
  cmd->add_flag("!--no-video", st->video, "skip preview.mp4");
  cmd->add_flag("--profile", st->profile, "print the wall time of every phase (always in run.json's \"profile\")");
  cmd->add_flag("--force", st->force, "replace an earlier bake (a non-empty output folder holding run.json)");
  cmd->callback([st] { run_scene(*st); });
}

}  // namespace fastcd::cli
