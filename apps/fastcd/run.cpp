// `fastcd run`: complementary dynamics on a Complementary Dynamics release scene, baked to an
// OBJ sequence, a PC2 point cache with its rest OBJ, a preview video and run.json.
#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
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
#include "fastcd/common/cancel.hpp"
#include "fastcd/fastcd.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/parse_util.hpp"
#include "fastcd/scene/gltf_scene.hpp"
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
  std::string leak = "auto", rig = "auto", material, precision = "double";
  double gravity = 0.0;
  bool dynamics = true, video = true, force = false, profile = false;
  // glTF characters only (0 / empty: the defaults of GltfSceneOptions).
  std::string clip;
  bool list_clips = false, cache = true;
  double metres_per_unit = 0, ym = 0, pr = -2, rho = 0, dt = 0;
  std::string glb_encoding, mesher;
  double pca_tolerance = 0;
  int voxel_resolution = 0;
  // Plain surfaces (OBJ / OFF / PLY) only.
  std::string handles, anim, weights;
  bool gltf_option_given() const { return !clip.empty() || list_clips || !glb_encoding.empty() || pca_tolerance > 0; }
  bool physical_option_given() const { return metres_per_unit > 0 || ym > 0 || pr > -2 || rho > 0 || dt > 0; }
  bool surface_option_given() const { return !handles.empty() || !anim.empty() || !weights.empty(); }
};

/// Where tets and fast precomputes are cached: .fastcd-cache beside the output folder (so a
/// re-bake with other material settings skips the meshing and most of the precompute), or
/// nowhere with --no-cache.
std::string cache_dir(const RunSettings& st) {
  if (!st.cache) return {};
  return (fs::absolute(st.out.empty() ? fs::path("runs") / fs::path(st.scene).stem() : fs::path(st.out)).parent_path() /
          ".fastcd-cache")
      .string();
}

/// The command line's physical settings (--scale, --ym, --pr, --rho, --dt) over the defaults of a
/// glTF character's or a plain surface's options, which share these fields.
template <class CharacterOptions>
void physical_settings(const RunSettings& st, CharacterOptions& o) {
  if (st.metres_per_unit > 0) o.metres_per_unit = st.metres_per_unit;
  if (st.ym > 0) o.ym = st.ym;
  if (st.pr > -2) o.pr = st.pr;
  if (st.rho > 0) o.rho = st.rho;
  if (st.dt > 0) o.dt = st.dt;
}

SceneOptions scene_options(const RunSettings& st) {
  SceneOptions so;
  so.rig = st.rig;
  so.material = st.material;
  so.mesher = st.mesher;
  so.voxel_resolution = st.voxel_resolution;
  so.cache_dir = cache_dir(st);
  return so;
}

/// Loads the run's input: a glTF character, a plain surface with handles, or a scene JSON.
Scene load_input(const RunSettings& st) {
  const bool gltf = is_gltf_file(st.scene), surface = !gltf && is_surface_file(st.scene);
  if (!gltf && st.gltf_option_given())
    throw std::invalid_argument("--clip, --list-clips, --glb-encoding and --pca-tolerance are for glTF characters");
  if (!surface && st.surface_option_given())
    throw std::invalid_argument("--handles, --anim and --weights are for a plain surface (.obj, .off, .ply)");
  if (!gltf && !surface) {
    if (st.physical_option_given())
      throw std::invalid_argument(
          "--scale, --ym, --pr, --rho and --dt are for glTF characters and plain surfaces; a scene JSON gives its "
          "own material and time step");
    Scene s = load_scene(st.scene, scene_options(st));
    for (const std::string& n : s.notes) std::fprintf(stdout, "  %s\n", n.c_str());
    return s;
  }
  if (surface) {
    if (st.rig != "auto" && st.rig != "lbs")
      throw std::invalid_argument("--rig " + st.rig + ": a surface with handles is rigged by LBS");
    SurfaceSceneOptions o;
    o.handles = st.handles;
    o.animation = st.anim;
    o.weights = st.weights;
    physical_settings(st, o);
    std::fprintf(stdout, "filling the surface with tets (YM %g Pa, pr %g, rho %g kg/m^3)\n", o.ym, o.pr, o.rho);
    std::fflush(stdout);
    Scene s = load_surface_scene(st.scene, o, scene_options(st));
    for (const std::string& n : s.notes) std::fprintf(stdout, "  %s\n", n.c_str());
    return s;
  }
  if (st.rig != "auto" && st.rig != "lbs")
    throw std::invalid_argument("--rig " + st.rig + ": a glTF character is rigged by its skin (lbs)");
  GltfSceneOptions go;
  go.clip = st.clip;
  physical_settings(st, go);
  if (!st.mesher.empty()) go.tets.mesher = st.mesher;
  if (st.voxel_resolution > 0) go.voxel.resolution = st.voxel_resolution;
  go.cache_dir = cache_dir(st);
  std::fprintf(stdout, "meshing the skin and sampling the clip (glTF, YM %g Pa, pr %g, rho %g kg/m^3)\n", go.ym, go.pr,
               go.rho);
  std::fflush(stdout);
  Scene s = load_gltf_scene(st.scene, go);
  for (const std::string& n : s.notes) std::fprintf(stdout, "  %s\n", n.c_str());
  return s;
}

/// --list-clips: the clips of a glTF character, one per line.
int list_clips(const RunSettings& st) {
  if (!is_gltf_file(st.scene)) throw std::invalid_argument("--list-clips needs a .glb or .gltf character");
  const GltfCharacter c = read_gltf(st.scene);
  if (c.clips.empty()) std::printf("%s has no animation\n", st.scene.c_str());
  for (std::size_t i = 0; i < c.clips.size(); ++i)
    std::printf("%zu  %-24s %8.3f s  %zu channels\n", i, c.clips[i].name.c_str(), c.clips[i].duration,
                c.clips[i].channels.size());
  return 0;
}

/// The preview's sampling: every `stride`-th simulated frame, played at `fps`, so that it plays
/// in real time at about 30 frames per second (a 100 Hz run keeps every 3rd frame, at 33 fps).
struct PreviewRate {
  int stride = 1, fps = 30;
  explicit PreviewRate(double dt) {
    const double rate = 1.0 / dt;
    stride = std::max(1, static_cast<int>(std::lround(rate / 30.0)));
    fps = std::clamp(static_cast<int>(std::lround(rate / stride)), 1, 120);
  }
  int frames(int simulated) const { return simulated > 0 ? (simulated - 1) / stride + 1 : 0; }
  std::string says(int frames) const {
    return "preview.mp4: " + std::to_string(frames) + " frames at " + std::to_string(fps) + " fps (" +
           (stride == 1 ? std::string("every simulated frame")
                        : "every " + std::to_string(stride) + " simulated frames") +
           ": real time)";
  }
};

#if FASTCD_HAVE_VIZ
const char* kPreviewTitle = ": rig vs rig + complementary dynamics";

/// The three 3D panels: the rig, rig + CD, and rig + CD with the rig-only pose over it as a
/// ghost (so what the dynamics add shows where the two differ).
std::vector<SurfacePanel> preview_panels(std::vector<MatrixXd> rig_frames, std::vector<MatrixXd> cd_frames,
                                         const MatrixXi& F, const std::string& solver) {
  SurfacePanel overlay{
      cd_frames, F, "overlay: rig as ghost", rgb_from_hex("#1f77b4"), rig_frames, rgb_from_hex("#d62728"), 0.45};
  std::vector<SurfacePanel> panels(2);
  panels[0].states = std::move(rig_frames);
  panels[0].title = "rig";
  panels[0].color = rgb_from_hex("#d62728");
  panels[1].states = std::move(cd_frames);
  panels[1].title = "rig + CD (" + solver + ")";
  panels[1].color = rgb_from_hex("#1f77b4");
  panels[0].F = panels[1].F = F;
  panels.push_back(std::move(overlay));
  return panels;
}

/// Per frame, the rig's and the dynamics' vertices stacked: what a preview camera keeps in view.
std::vector<MatrixXd> stacked(const std::vector<MatrixXd>& a, const std::vector<MatrixXd>& b) {
  std::vector<MatrixXd> out(std::min(a.size(), b.size()));
  for (std::size_t f = 0; f < out.size(); ++f) {
    out[f].resize(a[f].rows() + b[f].rows(), 3);
    out[f] << a[f], b[f];
  }
  return out;
}

/// A 3D bake's preview.mp4, rendered and encoded on its own thread while the simulation runs:
/// the rig-only frames are known before the first step, so they fix the camera (framed with
/// room for the dynamics) and fill the rig panel; offer() hands over each simulated frame.
class PreviewStream {
 public:
  PreviewStream(std::string mp4, std::vector<MatrixXd> rig_frames, const MatrixXi& F, const std::string& title,
                const std::string& solver, const PreviewRate& rate)
      : rate_(rate), frames_(static_cast<int>(rig_frames.size())) {
    // Framed on the rig alone with fill 0.8 (the usual jiggle stays inside the other 20 %).
    track_ = track_camera(rig_frames, rate.fps, 0.8);
    panels_ = preview_panels(rig_frames, std::vector<MatrixXd>(rig_frames.size()), F, solver);
    opt_.suptitle = title + kPreviewTitle;
    opt_.fps = rate.fps;
    opt_.feed = &feed_;
    thread_ = std::thread([this, mp4 = std::move(mp4)] {
      try {
        write_surface_animation(mp4, panels_, track_.cameras, opt_, [this](int done, int) { done_ = done; });
      } catch (...) {
        error_ = std::current_exception();
        failed_ = true;
      }
    });
  }
  PreviewStream(const PreviewStream&) = delete;
  PreviewStream& operator=(const PreviewStream&) = delete;
  ~PreviewStream() {
    if (!thread_.joinable()) return;
    feed_.abort("the run stopped before the preview's last frame");
    thread_.join();
  }

  /// Simulated frame f (0-based) of the baked surface, normalised units.
  void offer(int f, const MatrixXd& cd) {
    if (failed_) finish();  // rethrows the renderer's failure now rather than after the loop
    if (f % rate_.stride != 0) return;
    const auto k = static_cast<std::size_t>(f / rate_.stride);
    if (k >= panels_[1].states.size()) return;
    panels_[1].states[k] = cd;
    panels_[2].states[k] = cd;
    feed_.publish(static_cast<int>(k) + 1);
  }

  /// Waits for the encoder (showing its progress when it is still behind) and returns run.json's
  /// "preview"; rethrows what failed in it.
  nlohmann::json finish() {
    if (thread_.joinable()) {
      std::optional<Progress> bar;
      while (!failed_ && done_ < frames_) {
        if (!bar) bar.emplace("preview.mp4", frames_, done_.load());
        bar->update(done_);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      thread_.join();
      if (bar && !error_) bar->update(frames_);
    }
    if (error_) std::rethrow_exception(error_);
    return {{"frames", frames_},
            {"fps", rate_.fps},
            {"stride", rate_.stride},
            {"camera", camera_kind()},
            {"encoded_during_simulation", true}};
  }
  const char* camera_kind() const { return track_.follows ? "follow" : "fixed"; }

 private:
  PreviewRate rate_;
  int frames_ = 0;
  CameraTrack track_;
  std::vector<SurfacePanel> panels_;
  SurfaceAnimationOptions opt_;
  FrameFeed feed_;
  std::atomic<int> done_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::thread thread_;
};
#endif

/// preview.mp4 beside the bake, after the simulation: the rig and rig + complementary dynamics
/// side by side (2D mesh panels, or 3D surfaces with a camera that follows a travelling
/// subject), sampled as PreviewRate says. Returns run.json's "preview" (frames, fps, stride);
/// empty in a build without the renderer.
nlohmann::json write_preview(const std::string& mp4, Index dim, std::vector<MatrixXd> rig_frames,
                             std::vector<MatrixXd> cd_frames, const MatrixXi& F, const std::string& title,
                             const std::string& solver, double dt) {
#if FASTCD_HAVE_VIZ
  const PreviewRate r(dt);
  const int stride = r.stride, fps = r.fps;
  if (stride > 1) {
    auto sample = [&](std::vector<MatrixXd>& v) {
      std::vector<MatrixXd> kept;
      for (std::size_t f = 0; f < v.size(); f += static_cast<std::size_t>(stride)) kept.push_back(std::move(v[f]));
      v = std::move(kept);
    };
    sample(rig_frames);
    sample(cd_frames);
  }
  std::fprintf(stdout, "%s\n", r.says(static_cast<int>(cd_frames.size())).c_str());
  std::optional<Progress> vbar;
  auto progress = [&](int done, int total) {
    if (!vbar) vbar.emplace("preview.mp4", total);
    vbar->update(done);
  };
  nlohmann::json info = {{"frames", cd_frames.size()}, {"fps", fps}, {"stride", stride}};
  if (dim == 2) {
    AnimationOptions vo;
    vo.suptitle = title + ": rig vs rig + complementary dynamics";
    vo.pad = 0.1;
    vo.fps = fps;
    write_panel_animation(mp4,
                          {{rig_frames, F, "rig", rgb_from_hex("#d62728")},
                           {cd_frames, F, "rig + CD (" + solver + ")", rgb_from_hex("#1f77b4")}},
                          vo, progress);
  } else {
    SurfaceAnimationOptions vo;
    vo.suptitle = title + kPreviewTitle;
    vo.fps = fps;
    const CameraTrack track = track_camera(stacked(rig_frames, cd_frames), fps);
    info["camera"] = track.follows ? "follow" : "fixed";
    write_surface_animation(mp4, preview_panels(std::move(rig_frames), std::move(cd_frames), F, solver), track.cameras,
                            vo, progress);
  }
  return info;
#else
  (void)mp4, (void)dim, (void)rig_frames, (void)cd_frames, (void)F, (void)title, (void)solver, (void)dt;
  std::fprintf(stdout, "note: this build has no renderer (FASTCD_BUILD_VIZ=OFF); preview.mp4 skipped\n");
  return {};
#endif
}

void print_profile(const PhaseClock& clock, double total) {
  std::printf("\n%-56s %9s %6s\n", "phase", "seconds", "share");
  for (const auto& [phase, s] : clock.phases())
    std::printf("%-56s %9.3f %5.1f%%\n", phase.c_str(), s, total > 0 ? 100.0 * s / total : 0.0);
  std::printf("%-56s %9.3f\n\n", "total", total);
}

const char* kind_name(HandleKind k) {
  return k == HandleKind::Bones ? "bones" : k == HandleKind::Cage ? "cage vertices" : "point handles";
}

/// A glTF scene's own outputs beside its bake in `dir`: <name>.glb and the rest-space caches of
/// every mesh node. Returns run.json's "gltf".
nlohmann::json bake_gltf(const Scene& scene, const RunSettings& st, const std::vector<MatrixXd>& U, const fs::path& dir,
                         std::vector<std::string>& warnings, const std::string& prefix) {
  GltfBakeOptions go;
  if (!st.glb_encoding.empty()) go.encoding = st.glb_encoding;
  if (st.pca_tolerance > 0) go.pca_tolerance = st.pca_tolerance;
  const GltfOutputs g = write_gltf_outputs(scene, st.clip, U, dir.string(), go);
  const GltfBakeReport& r = g.report;
  std::string caches;
  for (const GltfCache& k : g.caches)
    caches += (caches.empty() ? "" : ", ") + fs::path(k.pc2).stem().string() + ".pc2 / .mdd";
  std::fprintf(stdout,
               "%s.glb: %d frames as %d morph targets (%s), %.2f MB, encoding error %.1e of the size; "
               "%s: Mesh Cache above the Armature modifier in Blender\n",
               scene.name.c_str(), r.frames, r.targets, r.encoding.c_str(), static_cast<double>(r.bytes) / 1e6,
               r.max_error_relative, caches.c_str());
  if (r.encoding == "pca" && r.max_error_relative > go.pca_tolerance)
    warn(warnings, prefix + "the PCA encoding reaches " + std::to_string(r.max_error_relative) + " of the size with " +
                       std::to_string(r.targets) + " targets, above --pca-tolerance " +
                       std::to_string(go.pca_tolerance) + ": use --glb-encoding frames for an exact bake");
  nlohmann::json gltf_info = {{"glb", fs::path(g.glb).filename().string()},
                              {"clip", g.clip},
                              {"clip_index", g.clip_index},
                              {"encoding", r.encoding},
                              {"frames", r.frames},
                              {"targets", r.targets},
                              {"bytes", r.bytes},
                              {"encoding_error_relative", r.max_error_relative},
                              {"worst_blend_condition", g.worst_condition},
                              {"rest_space_pc2", fs::path(g.pc2).filename().string()},
                              {"rest_space_mdd", fs::path(g.mdd).filename().string()},
                              {"ym_pa", scene.ym * scene.metres_per_normalised_unit * scene.metres_per_normalised_unit},
                              {"metres_per_normalised_unit", scene.metres_per_normalised_unit},
                              {"gravity_m_per_s2", st.gravity}};
  nlohmann::json caches_json = nlohmann::json::array();
  for (const GltfCache& k : g.caches)
    caches_json.push_back({{"node", k.node},
                           {"name", k.node_name},
                           {"bind_offset", k.bind_offset},
                           {"first_vertex", k.first_vertex},
                           {"targets", r.mesh_targets[static_cast<std::size_t>(k.skinned_mesh)]},
                           {"vertices", k.vertices},
                           {"pc2", fs::path(k.pc2).filename().string()},
                           {"mdd", fs::path(k.mdd).filename().string()}});
  gltf_info["caches"] = caches_json;
  gltf_info["render_vertices"] = scene.render_V.rows();
  gltf_info["mesh_targets"] = r.mesh_targets;
  return gltf_info;
}

/// The glTF outputs of a character written once, with no motion, into a scratch folder of the
/// stage before anything is simulated: whatever write_gltf_outputs refuses (a mesh instanced by
/// two nodes, morph targets already there) or cannot write fails now, not after the whole bake.
void check_gltf_outputs(const Scene& scene, const RunSettings& st, const fs::path& stage, const std::string& prefix) {
  const fs::path dir = stage / ".gltf-check";
  fs::create_directories(dir);
  try {
    (void)write_gltf_outputs(scene, st.clip, {MatrixXd::Zero(scene.render_V.rows(), 3)}, dir.string());
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(prefix + "nothing was simulated: the glTF outputs cannot be written (" + e.what() + ")");
  }
  fs::remove_all(dir);
}

/// The output folder of a run, locked and checked before the scene is loaded (runs/<scene> by
/// default; a scene's name is its file's stem).
std::string output_folder_name(const RunSettings& st) {
  return st.out.empty() ? "runs/" + fs::path(st.scene).stem().string() : st.out;
}

int run_scene(const RunSettings& st) {
  if (st.precision == "mixed" && st.solver != "fast")
    throw std::invalid_argument(
        "--precision mixed is a fast-solver setting (the full solver runs in double): add "
        "--solver fast");
  const auto t_all = Clock::now();
  PhaseClock clock;
  const StageLines stage_lines;
  clock.next("loading (scene, weights, poses, embedding)");
  set_phase("loading the scene");
  // Every check of the output folder that needs no scene happens before loading it.
  OutputFolder folder(output_folder_name(st), {fs::absolute(st.scene).lexically_normal().string()}, st.force);
  std::fprintf(stdout, "loading %s\n", st.scene.c_str());
  std::fflush(stdout);
  const Scene scene = load_input(st);
  check_interrupt("loading the scene");
  clock.next("setup (output folder, options)");
  const Rig& rig = *scene.rig;
  std::vector<std::string> warnings;
  for (const auto& w : scene.warnings) warn(warnings, w);
  const Index dim = scene.dim, n = scene.X.rows();
  const int frames = st.frames > 0 ? std::min<int>(st.frames, static_cast<int>(scene.poses.size()))
                                   : static_cast<int>(scene.poses.size());
  folder.start(scene.input_files);
  const fs::path stage = folder.stage();
  fs::create_directories(stage / "obj");
  if (scene.layout == "gltf" && frames > 0) check_gltf_outputs(scene, st, stage, "");

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
  run.precision = precision_from_name(st.precision);
  run.leak = st.leak;
  run.gravity = st.gravity;  // m/s^2 when the scene is in physical units (scene_simulation_options converts)
  if (scene.metres_per_normalised_unit > 0 && st.gravity != 0)
    std::fprintf(stdout, "gravity %g m/s^2 along the file's -Y\n", st.gravity);
  run.dynamics = st.dynamics;
  const SimulationOptions so_sim = scene_simulation_options(scene, run);
  const CDOptions& o = so_sim.cd;
  clock.next("precompute");
  set_phase("precomputing");
  std::fprintf(stdout, "precomputing (%s solver)\n", st.solver.c_str());
  std::fflush(stdout);
  bool pre_cached = false;
  std::vector<std::string> cache_warnings;  // the precompute cache's, each once (the tets' may have said it)
  Simulation sim = make_simulation(scene, so_sim, cache_dir(st), &pre_cached, &cache_warnings);
  for (const std::string& w : cache_warnings)
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warn(warnings, w);
  check_interrupt("precomputing");
  const double pre_s = sim.precompute_seconds();
  if (pre_cached)
    std::fprintf(stdout, "  leak field, modes and clusters from the cache %s (%.3f s)\n", cache_dir(st).c_str(), pre_s);
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
#if FASTCD_HAVE_VIZ
  // A 3D preview is rendered and encoded while the simulation runs (its camera comes from the
  // rig-only frames, known now); a 2D one after it (its axes fit every simulated frame).
  std::optional<PreviewStream> stream;
  if (st.video && dim == 3 && frames > 0) {
    clock.next("setup (preview: rig frames, camera)");
    const PreviewRate rate(o.dt);
    std::vector<MatrixXd> rig_surface;
    for (int f = 0; f < frames; f += rate.stride)
      rig_surface.push_back(bake.surface().E * unflatten(rig.positions(scene.poses[static_cast<std::size_t>(f)]), dim));
    std::fprintf(stdout, "%s, encoded while simulating\n", rate.says(static_cast<int>(rig_surface.size())).c_str());
    stream.emplace((stage / "preview.mp4").string(), std::move(rig_surface), bake.surface().F, scene.name, st.solver,
                   rate);
  }
#endif
  clock.next("simulation loop: monitor, frame outputs (OBJ, checks)");
  set_phase("simulating");
  Progress bar("simulating", frames);
  {
    BackgroundWriter writer;
    for (int f = 0; f < frames; ++f) {
      sim.advance(scene.poses[static_cast<std::size_t>(f)]);
      bake.record(f, sim, writer);
#if FASTCD_HAVE_VIZ
      if (stream) stream->offer(f, bake.cd_frames.back());
#endif
      bar.update(f + 1);
    }
    writer.finish();
  }
  const SimulationStats& stats = sim.stats();
  for (const std::string& w : sim.warnings()) warn(warnings, w);  // settings outside the method's range
  const double step_s = stats.step_seconds, max_rel = stats.max_residual;
  clock.next("writing rest.obj, animation.pc2");
  clock.split_last("simulation loop: solver steps", step_s);
  set_phase("writing the outputs");
  bake.finish();
  nlohmann::json gltf_info;
  if (scene.layout == "gltf" && frames > 0) {
    clock.next("glTF: <name>.glb, rest_space.pc2 / .mdd");
    set_phase("writing the glTF outputs");
    gltf_info = bake_gltf(scene, st, bake.displacements, stage, warnings, "");
  }
  std::vector<MatrixXd>& rig_frames = bake.rig_frames;
  std::vector<MatrixXd>& cd_frames = bake.cd_frames;
  nlohmann::json preview_info;  ///< run.json "preview": frames, fps, stride

#if FASTCD_HAVE_VIZ
  if (stream) {
    clock.next("preview.mp4 (the rest of render, encode)");
    set_phase("preview.mp4");
    preview_info = stream->finish();
    stream.reset();
  }
#endif
  if (st.video && preview_info.empty()) {
    clock.next("preview.mp4 (render, encode)");
    set_phase("preview.mp4");
    preview_info = write_preview((stage / "preview.mp4").string(), dim, std::move(rig_frames), std::move(cd_frames),
                                 dim == 2 ? scene.T : bake.surface().F, scene.name, st.solver, o.dt);
  }

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
  if (sim.fast())
    report["settings"].update(
        {{"modes", o.modes}, {"clusters", o.clusters}, {"precision", std::string(precision_name(o.precision))}});
  report["timings"] = {{"precompute_s", pre_s},
                       {"precompute_from_cache", pre_cached},
                       {"ms_per_step", frames ? 1e3 * step_s / frames : 0.0},
                       {"total_s", since(t_all)}};
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
  if (!gltf_info.empty()) report["gltf"] = gltf_info;
  clock.next("");
  nlohmann::json profile = nlohmann::json::array();
  for (const auto& [phase, s] : clock.phases()) profile.push_back({{"phase", phase}, {"seconds", s}});
  report["profile"] = profile;
  write_file_contents((stage / "run.json").string(), report.dump(2) + "\n", "fastcd run");
  if (st.profile) print_profile(clock, since(t_all));

  check_interrupt("writing the outputs");
  folder.commit();
  std::printf(
      "%s: %d frames, precompute %.3f s, %.3f ms/step, max residual %.1e, constraint rank %ld/%ld, "
      "inverted frames %ld -> %s\n",
      scene.name.c_str(), frames, pre_s, frames ? 1e3 * step_s / frames : 0.0, max_rel, long(constraint_rank),
      long(rig_rank), long(bake.frames_inverted), folder.target().string().c_str());
  return 0;
}

/// `fastcd run` on a characters file: every character simulated in one Ensemble (stepped in
/// parallel), each baked into <out>/<name>/ as a single scene would be, one combined preview
/// (each character at its offset) and one run.json.
int run_characters(const RunSettings& st) {
  const auto t_all = Clock::now();
  PhaseClock clock;
  const StageLines stage_lines;
  clock.next("loading (scenes, weights, poses, embedding)");
  set_phase("loading the scene");
  if (st.gltf_option_given() || st.physical_option_given() || st.surface_option_given())
    throw std::invalid_argument(
        "a characters file takes its settings from each character's scene: --clip, --scale, --ym, --pr, --rho, "
        "--dt, --handles, --anim, --weights, --glb-encoding and --pca-tolerance do not apply");
  const std::string stem = fs::path(st.scene).stem().string();
  OutputFolder folder(output_folder_name(st), {fs::absolute(st.scene).lexically_normal().string()}, st.force);
  std::fprintf(stdout, "loading %s\n", st.scene.c_str());
  std::fflush(stdout);
  std::vector<CharacterSpec> chars = load_characters(st.scene, scene_options(st));
  check_interrupt("loading the scene");
  clock.next("setup (output folder, options)");
  std::vector<std::string> warnings, inputs = {fs::absolute(st.scene).lexically_normal().string()};
  int frames = 0;
  for (const CharacterSpec& c : chars) {
    for (const auto& w : c.scene.warnings) warn(warnings, c.name + ": " + w);
    inputs.insert(inputs.end(), c.scene.input_files.begin(), c.scene.input_files.end());
    frames = std::max(frames, static_cast<int>(c.scene.poses.size()) - c.frame_offset);
  }
  frames = std::max(frames, 1);
  if (st.frames > 0) frames = std::min(frames, st.frames);
  folder.start(inputs);
  const fs::path stage = folder.stage();
  for (const CharacterSpec& c : chars)
    if (c.scene.layout == "gltf" && c.frame_offset == 0) check_gltf_outputs(c.scene, st, stage / c.name, c.name + ": ");
  const Index dim = chars[0].scene.dim;
  Index verts = 0, elems = 0;
  for (const CharacterSpec& c : chars) {
    verts += c.scene.X.rows();
    elems += c.scene.T.rows();
    std::fprintf(stdout, "  %s: %ld vertices, %ld elements, %ld %s, rig %s, %zu animation frames, solver %s\n",
                 c.name.c_str(), long(c.scene.X.rows()), long(c.scene.T.rows()), long(c.scene.handles),
                 kind_name(c.scene.kind), c.scene.rig->name().c_str(), c.scene.poses.size(),
                 (c.solver.empty() ? st.solver : c.solver).c_str());
  }
  std::fprintf(stdout, "%s: %zu characters, %ldD, %ld vertices, %ld elements, %d frames\n", stem.c_str(), chars.size(),
               long(dim), long(verts), long(elems), frames);

  clock.next("precompute");
  set_phase("precomputing");
  std::fprintf(stdout, "precomputing %zu characters (in parallel)\n", chars.size());
  std::fflush(stdout);
  std::vector<SimulationOptions> opts;
  for (const CharacterSpec& c : chars) {
    SceneRunSettings run;
    run.solver = solver_kind(c.solver.empty() ? st.solver : c.solver);
    run.iterations = st.iterations;
    run.modes = st.modes;
    run.clusters = std::min<int>(st.clusters, static_cast<int>(c.scene.T.rows()));
    run.precision = precision_from_name(st.precision);
    run.leak = st.leak;
    run.gravity = st.gravity;
    run.dynamics = st.dynamics;
    opts.push_back(scene_simulation_options(c.scene, run));
  }
  std::vector<std::optional<Simulation>> built(chars.size());
  std::vector<std::exception_ptr> errors(chars.size());
  std::vector<std::vector<std::string>> cache_warnings(chars.size());
  parallel_for(static_cast<Index>(chars.size()), 1, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) {
      const auto k = static_cast<std::size_t>(i);
      try {
        built[k].emplace(make_simulation(chars[k].scene, opts[k], cache_dir(st), nullptr, &cache_warnings[k]));
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  });
  for (std::size_t k = 0; k < chars.size(); ++k) {
    if (!errors[k]) continue;
    try {
      std::rethrow_exception(errors[k]);
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& ex) {
      throw std::runtime_error("character " + std::to_string(k) + " (" + chars[k].name + "): " + ex.what());
    }
  }
  for (const auto& list : cache_warnings)
    for (const std::string& w : list)
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warn(warnings, w);
  check_interrupt("precomputing");
  Ensemble aq;
  for (std::size_t k = 0; k < chars.size(); ++k) aq.add(chars[k].name, std::move(*built[k]));

  clock.next("setup (output surfaces, OBJ pass-through)");
  std::vector<std::unique_ptr<CharacterBake>> bakes;
  for (const CharacterSpec& c : chars)
    bakes.push_back(std::make_unique<CharacterBake>(c.scene, stage / c.name, warnings, c.name + ": "));
  clock.next("simulation loop (characters in parallel), frame outputs");
  set_phase("simulating");
  Progress bar("simulating", frames);
  {
    BackgroundWriter writer;
    std::vector<VectorXd> poses(chars.size());
    for (int f = 0; f < frames; ++f) {
      for (std::size_t k = 0; k < chars.size(); ++k) {
        const auto& clip = chars[k].scene.poses;  // after its last frame, a character holds its last pose
        poses[k] = clip[std::min(clip.size() - 1, static_cast<std::size_t>(f + chars[k].frame_offset))];
      }
      aq.advance(poses);
      for (std::size_t k = 0; k < chars.size(); ++k) bakes[k]->record(f, aq[static_cast<Index>(k)], writer);
      bar.update(f + 1);
    }
    writer.finish();
  }
  clock.next("writing rest.obj, animation.pc2");
  set_phase("writing the outputs");
  for (std::size_t k = 0; k < chars.size(); ++k) bakes[k]->finish();
  std::vector<nlohmann::json> gltf_infos(chars.size());
  for (std::size_t k = 0; k < chars.size(); ++k)
    if (chars[k].scene.layout == "gltf" && !bakes[k]->displacements.empty()) {
      if (chars[k].frame_offset != 0) {  // the .glb's clip starts at its first key
        warn(warnings, chars[k].name + ": frame_offset " + std::to_string(chars[k].frame_offset) +
                           ": no <name>.glb or rest-space caches (their clip starts at its first frame)");
        continue;
      }
      clock.next("glTF: <name>.glb, rest-space caches");
      set_phase("writing the glTF outputs");
      gltf_infos[k] =
          bake_gltf(chars[k].scene, st, bakes[k]->displacements, stage / chars[k].name, warnings, chars[k].name + ": ");
    }

  nlohmann::json preview_info;
  if (st.video) {
    clock.next("preview.mp4 (render, encode)");
    set_phase("preview.mp4");
    // One mesh per frame: every character in file units at its offset.
    MatrixXi F;
    std::vector<MatrixXd> rig_all(static_cast<std::size_t>(frames)), cd_all(static_cast<std::size_t>(frames));
    Index rows = 0;
    std::vector<MatrixXi> faces;
    for (std::size_t k = 0; k < chars.size(); ++k) {
      const MatrixXi& Fk = dim == 2 ? chars[k].scene.T : bakes[k]->surface().F;
      faces.push_back(Fk.array() + static_cast<int>(rows));
      rows += bakes[k]->cd_frames[0].rows();
    }
    Index frows = 0;
    for (const MatrixXi& Fk : faces) frows += Fk.rows();
    F.resize(frows, faces[0].cols());
    frows = 0;
    for (const MatrixXi& Fk : faces) {
      F.middleRows(frows, Fk.rows()) = Fk;
      frows += Fk.rows();
    }
    for (int f = 0; f < frames; ++f) {
      MatrixXd R(rows, dim), C(rows, dim);
      Index r = 0;
      for (std::size_t k = 0; k < chars.size(); ++k) {
        const Scene& sc = chars[k].scene;
        const Eigen::RowVectorXd shift = sc.center.transpose() + chars[k].offset.transpose();
        const MatrixXd& Xr = bakes[k]->rig_frames[static_cast<std::size_t>(f)];
        const MatrixXd& Xc = bakes[k]->cd_frames[static_cast<std::size_t>(f)];
        R.middleRows(r, Xr.rows()) = (Xr * sc.scale).rowwise() + shift;
        C.middleRows(r, Xc.rows()) = (Xc * sc.scale).rowwise() + shift;
        r += Xr.rows();
      }
      rig_all[static_cast<std::size_t>(f)] = std::move(R);
      cd_all[static_cast<std::size_t>(f)] = std::move(C);
    }
    for (auto& b : bakes) b->rig_frames.clear(), b->cd_frames.clear();
    preview_info = write_preview((stage / "preview.mp4").string(), dim, std::move(rig_all), std::move(cd_all), F, stem,
                                 st.solver, chars[0].scene.dt);
  }

  clock.next("run.json");
  set_phase("writing run.json");
  nlohmann::json report, list = nlohmann::json::array();
  double max_rel = 0.0;
  for (std::size_t k = 0; k < chars.size(); ++k) {
    const Simulation& sim = aq[static_cast<Index>(k)];
    const SimulationStats& stats = sim.stats();
    for (const std::string& w : sim.warnings()) warn(warnings, chars[k].name + ": " + w);
    const ComplementarityConstraint& cons = sim.constraint();
    max_rel = std::max(max_rel, stats.max_residual);
    nlohmann::json c = {
        {"name", chars[k].name},
        {"scene", chars[k].scene_path},
        {"folder", chars[k].name},
        {"solver", to_string(sim.solver())},
        {"vertices", chars[k].scene.X.rows()},
        {"elements", chars[k].scene.T.rows()},
        {"animation_frames", chars[k].scene.poses.size()},
        {"frame_offset", chars[k].frame_offset},
        {"offset", std::vector<double>(chars[k].offset.data(), chars[k].offset.data() + chars[k].offset.size())},
        {"precompute_s", sim.precompute_seconds()},
        {"ms_per_step", 1e3 * stats.mean_step_seconds()},
        {"constraint_rank", cons.rank},
        {"rig_rank", cons.rig_rank},
        {"leak_field", to_string(sim.leak_field_used())},
        {"max_constraint_residual_relative", stats.max_residual},
        {"complementary_kinetic_energy", {{"max", stats.max_kinetic_energy}, {"mean", stats.mean_kinetic_energy()}}},
        {"complementary_motion_max_relative", bakes[k]->uc_rel},
        {"inverted_elements", bakes[k]->inverted_json()}};
    if (!gltf_infos[k].empty()) c["gltf"] = gltf_infos[k];
    list.push_back(c);
  }
  report["scene"] = st.scene;
  report["characters"] = list;
  report["dim"] = dim;
  report["vertices"] = verts;
  report["elements"] = elems;
  report["frames"] = frames;
  report["settings"] = {
      {"dt", chars[0].scene.dt},  {"iterations", st.iterations}, {"modes", st.modes},       {"clusters", st.clusters},
      {"leak", st.leak},          {"gravity", st.gravity},       {"dynamics", st.dynamics}, {"threads", threads()},
      {"precision", st.precision}};
  report["max_constraint_residual_relative"] = max_rel;
  report["warnings"] = warnings;
  if (!preview_info.empty()) report["preview"] = preview_info;
  clock.next("");
  nlohmann::json profile = nlohmann::json::array();
  for (const auto& [phase, sec] : clock.phases()) profile.push_back({{"phase", phase}, {"seconds", sec}});
  report["profile"] = profile;
  report["timings"] = {{"total_s", since(t_all)}};
  write_file_contents((stage / "run.json").string(), report.dump(2) + "\n", "fastcd run");
  if (st.profile) print_profile(clock, since(t_all));
  check_interrupt("writing the outputs");
  folder.commit();
  std::printf("%s: %zu characters, %d frames, max residual %.1e -> %s\n", stem.c_str(), chars.size(), frames, max_rel,
              folder.target().string().c_str());
  return 0;
}
}  // namespace

void register_run(CLI::App& app) {
  auto st = std::make_shared<RunSettings>();
  CLI::App* cmd = app.add_subcommand("run",
                                     "Simulate a scene (Complementary Dynamics release JSON) and bake it: "
                                     "OBJ sequence, PC2 + rest OBJ, preview.mp4, run.json");
  cmd->add_option("scene", st->scene,
                  "scene JSON file, a skinned, animated glTF 2.0 character (.glb / .gltf), or a closed surface "
                  "(.obj / .off / .ply) with --handles and --anim")
      ->required()
      ->check(CLI::ExistingFile);
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
  cmd->add_option("--precision", st->precision,
                  "fast: double, or mixed (the iteration's products in single precision: ~1.3x faster steps on "
                  "large characters, differences below the single-precision rounding of the files written)")
      ->capture_default_str()
      ->check(CLI::IsMember({"double", "mixed"}));
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
  cmd->add_option("--gravity", st->gravity,
                  "gravity along -y (default off): m/s^2 for a glTF character, normalised scene units / s^2 for a "
                  "scene JSON");
  cmd->add_option("--clip", st->clip, "glTF: the animation clip, by name or index (default: the first)");
  cmd->add_flag("--list-clips", st->list_clips, "glTF: list the clips and exit");
  cmd->add_option("--scale", st->metres_per_unit, "glTF / surface: metres per file unit (default 1, as glTF specifies)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ym", st->ym, "glTF / surface: Young's modulus, Pa (default 2e4)")->check(CLI::PositiveNumber);
  cmd->add_option("--pr", st->pr, "glTF / surface: Poisson's ratio (default 0.45)")->check(CLI::Range(-0.999, 0.499));
  cmd->add_option("--rho", st->rho, "glTF / surface: density, kg/m^3 (default 1000)")->check(CLI::PositiveNumber);
  cmd->add_option("--dt", st->dt, "glTF / surface: time step, s (default 1/60; the clip is sampled at it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--handles", st->handles, "surface: the handles, a TGF of point handles or bones (file units)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--anim", st->anim,
                  "surface: the handles' animation (the Complementary Dynamics release's 3D bone or point-handle "
                  "format)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--weights", st->weights,
                  "surface: LBS weights, a DMAT with one row per surface vertex (default: automatic biharmonic)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--mesher", st->mesher,
                  "glTF / surface (also a scene's surface mesh): fills the skin with tets: netgen (default, in "
                  "process), tetgen (the TetGen program, "
                  "-pYq1.414) or voxel (a grid embedding the skin: works for open or self-intersecting skins)")
      ->check(CLI::IsMember({"netgen", "tetgen", "voxel"}));
  cmd->add_option("--voxel-resolution", st->voxel_resolution,
                  "--mesher voxel: cells along the longest side (default 24)")
      ->check(CLI::Range(2, 256));
  cmd->add_flag("!--no-cache", st->cache,
                "mesh the skin or surface again instead of reusing the tets cached in .fastcd-cache/ beside the "
                "output folder");
  cmd->add_option("--glb-encoding", st->glb_encoding,
                  "glTF: the secondary motion in <name>.glb: frames (one morph target per frame, exact; default) or "
                  "pca (a few targets, weights in [0, 1]; smaller)")
      ->check(CLI::IsMember({"frames", "pca"}));
  cmd->add_option("--pca-tolerance", st->pca_tolerance,
                  "glTF, --glb-encoding pca: largest position error relative to the size (default 1e-4)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("!--no-dynamics", st->dynamics, "switch dynamics off (bakes the rig alone)");
  cmd->add_flag("!--no-video", st->video, "skip preview.mp4");
  cmd->add_flag("--profile", st->profile, "print the wall time of every phase (always in run.json's \"profile\")");
  cmd->add_flag("--force", st->force,
                "replace an earlier bake (an output folder fastcd wrote, marked by its .fastcd-output, holding "
                "nothing else)");
  cmd->callback([st] {
    if (st->list_clips) {
      list_clips(*st);
      return;
    }
    (!is_gltf_file(st->scene) && !is_surface_file(st->scene) && is_characters_file(st->scene)) ? run_characters(*st)
                                                                                               : run_scene(*st);
  });
}

}  // namespace fastcd::cli
