// `fastcd run`: complementary dynamics on a scene (a Complementary Dynamics release scene, a plain
// surface with handles, a glTF character, or a file of several characters), baked by the
// library's pipeline (bake/bake.hpp) to an OBJ sequence, a PC2 point cache with its rest OBJ, the
// glTF outputs, run.json and a preview video (drawn here, with viz/).
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
#include <optional>
#include <thread>

#include "fastcd/bake/bake.hpp"
#include "fastcd/bake/output_folder.hpp"
#include "fastcd/bake/run_json.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/defaults.hpp"
#include "fastcd/fastcd.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/parse_util.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "progress.hpp"
#if FASTCD_HAVE_VIZ
#include "fastcd/viz/render2d.hpp"
#include "fastcd/viz/render3d.hpp"
#endif

namespace fastcd::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Wall time per phase of a run, in order (run.json "profile"; a table with --profile).
class PhaseClock {
 public:
  /// Ends the running phase (if any) and starts `name`.
  void next(const std::string& name) {
    const auto now = Clock::now();
    if (!current_.empty()) phases_.emplace_back(current_, std::chrono::duration<double>(now - start_).count());
    current_ = name;
    start_ = now;
  }
  /// Splits `part` seconds of the last finished phase into their own row (e.g. the solver steps
  /// inside the simulation loop).
  void split_last(const std::string& part, double seconds) {
    if (phases_.empty()) return;
    phases_.back().second -= seconds;
    phases_.emplace_back(part, seconds);
  }
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  std::string current_;
  Clock::time_point start_;
  std::vector<std::pair<std::string, double>> phases_;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// " (default V)" for a help text, V as printf's %g writes it (the value in fastcd/common/defaults.hpp).
std::string default_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " (default %g)", v);
  return buf;
}

struct RunSettings {
  std::string scene, out, solver = defaults::solver;
  int frames = 0, modes = defaults::modes, clusters = defaults::clusters, iterations = defaults::iterations;
  std::string leak = defaults::leak, rig = "auto", material, precision = defaults::precision;
  double gravity = defaults::gravity;
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
  PreviewInfo finish() {
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
    return PreviewInfo{frames_, rate_.fps, rate_.stride, camera_kind(), true};
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
/// none in a build without the renderer.
std::optional<PreviewInfo> write_preview(const std::string& mp4, Index dim, std::vector<MatrixXd> rig_frames,
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
  PreviewInfo info{static_cast<int>(cd_frames.size()), fps, stride, "", false};
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
    info.camera = track.follows ? "follow" : "fixed";
    write_surface_animation(mp4, preview_panels(std::move(rig_frames), std::move(cd_frames), F, solver), track.cameras,
                            vo, progress);
  }
  return info;
#else
  (void)mp4, (void)dim, (void)rig_frames, (void)cd_frames, (void)F, (void)title, (void)solver, (void)dt;
  std::fprintf(stdout, "note: this build has no renderer (FASTCD_BUILD_VIZ=OFF); preview.mp4 skipped\n");
  return std::nullopt;
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

/// Prints the bake's warnings not printed yet, one "warning: ..." line each on stderr.
class WarningLines {
 public:
  void print(const std::vector<std::string>& warnings) {
    for (; printed_ < warnings.size(); ++printed_) std::fprintf(stderr, "warning: %s\n", warnings[printed_].c_str());
  }

 private:
  std::size_t printed_ = 0;
};

/// The glTF outputs' line: what <name>.glb holds and the rest-space caches beside it.
void print_gltf_outputs(const Scene& scene, const GltfOutputs& g) {
  const GltfBakeReport& r = g.report;
  std::string caches;
  for (const GltfCache& k : g.caches)
    caches += (caches.empty() ? "" : ", ") + fs::path(k.pc2).stem().string() + ".pc2 / .mdd";
  std::fprintf(stdout,
               "%s.glb: %d frames as %d morph targets (%s), %.2f MB, encoding error %.1e of the size; "
               "%s: Mesh Cache above the Armature modifier in Blender\n",
               scene.name.c_str(), r.frames, r.targets, r.encoding.c_str(), static_cast<double>(r.bytes) / 1e6,
               r.max_error_relative, caches.c_str());
}

/// The output folder of a run, locked and checked before the scene is loaded (runs/<scene> by
/// default; a scene's name is its file's stem).
std::string output_folder_name(const RunSettings& st) {
  return st.out.empty() ? "runs/" + fs::path(st.scene).stem().string() : st.out;
}

/// The preview of a run of several characters: one mesh per frame, every character in file
/// units at its offset.
std::optional<PreviewInfo> write_characters_preview(Bake& bake, const fs::path& stage, const std::string& stem,
                                                    const std::string& solver) {
  const int frames = bake.frames();
  const Index dim = bake.character(0).scene.dim;
  MatrixXi F;
  std::vector<MatrixXd> rig_all(static_cast<std::size_t>(frames)), cd_all(static_cast<std::size_t>(frames));
  Index rows = 0;
  std::vector<MatrixXi> faces;
  for (Index k = 0; k < bake.size(); ++k) {
    const MatrixXi& Fk = dim == 2 ? bake.character(k).scene.T : bake.writer(k).surface().F;
    faces.push_back(Fk.array() + static_cast<int>(rows));
    rows += bake.writer(k).cd_frames[0].rows();
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
    for (Index k = 0; k < bake.size(); ++k) {
      const CharacterSpec& c = bake.character(k);
      const Scene& sc = c.scene;
      const Eigen::RowVectorXd shift = sc.center.transpose() + c.offset.transpose();
      const MatrixXd& Xr = bake.writer(k).rig_frames[static_cast<std::size_t>(f)];
      const MatrixXd& Xc = bake.writer(k).cd_frames[static_cast<std::size_t>(f)];
      R.middleRows(r, Xr.rows()) = (Xr * sc.half_extent).rowwise() + shift;
      C.middleRows(r, Xc.rows()) = (Xc * sc.half_extent).rowwise() + shift;
      r += Xr.rows();
    }
    rig_all[static_cast<std::size_t>(f)] = std::move(R);
    cd_all[static_cast<std::size_t>(f)] = std::move(C);
  }
  for (Index k = 0; k < bake.size(); ++k) bake.writer(k).rig_frames.clear(), bake.writer(k).cd_frames.clear();
  return write_preview((stage / "preview.mp4").string(), dim, std::move(rig_all), std::move(cd_all), F, stem, solver,
                       bake.character(0).scene.dt);
}

/// `fastcd run`: one scene (a scene JSON, a plain surface, a glTF character: a one-character
/// run baked into the output folder itself) or a characters file (every character in one
/// Ensemble, stepped in parallel, each baked into <out>/<name>/, one combined preview), through
/// the library's bake pipeline (bake/bake.hpp); this verb loads, reports and draws the preview.
int run(const RunSettings& st) {
  const bool several = !is_gltf_file(st.scene) && !is_surface_file(st.scene) && is_characters_file(st.scene);
  if (several && (st.gltf_option_given() || st.physical_option_given() || st.surface_option_given()))
    throw std::invalid_argument(
        "a characters file takes its settings from each character's scene: --clip, --scale, --ym, --pr, --rho, "
        "--dt, --handles, --anim, --weights, --glb-encoding and --pca-tolerance do not apply");
  if (!several && st.precision == "mixed" && st.solver != "fast")
    throw std::invalid_argument(
        "--precision mixed is a fast-solver setting (the full solver runs in double): add "
        "--solver fast");
  const auto t_all = Clock::now();
  PhaseClock clock;
  const StageLines stage_lines;
  WarningLines warning_lines;
  clock.next(several ? "loading (scenes, weights, poses, embedding)" : "loading (scene, weights, poses, embedding)");
  set_phase("loading the scene");
  // Every check of the output folder that needs no scene happens before loading it.
  OutputFolder folder(output_folder_name(st), {fs::absolute(st.scene).lexically_normal().string()}, st.force,
                      output_folder_caller());
  std::fprintf(stdout, "loading %s\n", st.scene.c_str());
  std::fflush(stdout);
  std::vector<CharacterSpec> chars;
  if (several)
    chars = load_characters(st.scene, scene_options(st));
  else
    chars.push_back(single_character(load_input(st), st.scene));
  check_interrupt("loading the scene");
  clock.next("setup (output folder, options)");
  std::vector<std::string> inputs;
  if (several) inputs.push_back(fs::absolute(st.scene).lexically_normal().string());
  for (const CharacterSpec& c : chars)
    inputs.insert(inputs.end(), c.scene.input_files.begin(), c.scene.input_files.end());
  folder.start(inputs);
  const fs::path stage = folder.stage();

  BakeSettings bs;
  bs.run.solver = solver_kind(st.solver);
  bs.run.iterations = st.iterations;
  bs.run.modes = st.modes;
  bs.run.clusters = st.clusters;
  bs.run.precision = precision_from_name(st.precision);
  bs.run.leak = st.leak;
  bs.run.gravity = st.gravity;  // m/s^2 when a scene is in physical units (scene_simulation_options converts)
  bs.run.dynamics = st.dynamics;
  bs.frames = st.frames;
  bs.cache_dir = cache_dir(st);
  bs.clip = st.clip;
  if (!st.glb_encoding.empty()) bs.gltf.encoding = st.glb_encoding;
  if (st.pca_tolerance > 0) bs.gltf.pca_tolerance = st.pca_tolerance;
  bs.keep_preview_frames = st.video;
  Bake bake(std::move(chars), bs, stage, !several);
  warning_lines.print(bake.warnings());
  const int frames = bake.frames();
  const Index dim = bake.character(0).scene.dim;
  const std::string stem = several ? fs::path(st.scene).stem().string() : bake.character(0).scene.name;
  if (several) {
    Index verts = 0, elems = 0;
    for (Index k = 0; k < bake.size(); ++k) {
      const CharacterSpec& c = bake.character(k);
      verts += c.scene.X.rows();
      elems += c.scene.T.rows();
      std::fprintf(stdout, "  %s: %ld vertices, %ld elements, %ld %s, rig %s, %zu animation frames, solver %s\n",
                   c.name.c_str(), long(c.scene.X.rows()), long(c.scene.T.rows()), long(c.scene.handles),
                   kind_name(c.scene.kind), c.scene.rig->name().c_str(), c.scene.poses.size(),
                   (c.solver.empty() ? st.solver : c.solver).c_str());
    }
    std::fprintf(stdout, "%s: %ld characters, %ldD, %ld vertices, %ld elements, %d frames\n", stem.c_str(),
                 long(bake.size()), long(dim), long(verts), long(elems), frames);
  } else {
    const Scene& scene = bake.character(0).scene;
    std::fprintf(stdout, "%s: %ldD, %ld vertices, %ld elements, %ld %s, rig %s, %d frames, solver %s\n",
                 scene.name.c_str(), long(dim), long(scene.X.rows()), long(scene.T.rows()), long(scene.handles),
                 kind_name(scene.kind), scene.rig->name().c_str(), frames, st.solver.c_str());
    if (scene.fixed.size() > 0)
      std::fprintf(stdout, "fixed region: %ld vertices held on the rig\n", long(scene.fixed.size()));
    if (scene.metres_per_normalised_unit > 0 && st.gravity != 0)
      std::fprintf(stdout, "gravity %g m/s^2 along the file's -Y\n", st.gravity);
  }

  clock.next("precompute");
  set_phase("precomputing");
  if (several)
    std::fprintf(stdout, "precomputing %ld characters (in parallel)\n", long(bake.size()));
  else
    std::fprintf(stdout, "precomputing (%s solver)\n", st.solver.c_str());
  std::fflush(stdout);
  bake.precompute();
  check_interrupt("precomputing");
  if (!several) {
    const Simulation& sim = bake.simulation(0);
    if (bake.precompute_from_cache(0))
      std::fprintf(stdout, "  leak field, modes and clusters from the cache %s (%.3f s)\n", bs.cache_dir.c_str(),
                   sim.precompute_seconds());
    const ComplementarityConstraint& cons = sim.constraint();
    std::fprintf(stdout, "constraint: rank %ld of the rig's %ld directions (%ld parameters), leak field %s\n",
                 long(cons.rank), long(cons.rig_rank), long(sim.rig().num_params()),
                 to_string(sim.leak_field_used()).c_str());
  }
  warning_lines.print(bake.warnings());

  clock.next("setup (output surfaces, OBJ pass-through)");
  bake.open_writers();
  warning_lines.print(bake.warnings());
  if (!several) {
    const Scene& scene = bake.character(0).scene;
    if (scene.render_E.rows() > 0)
      std::fprintf(
          stdout, "render mesh: %ld vertices, %ld triangles, embedded in the tets (farthest vertex %.2g outside)\n",
          long(scene.render_V.rows()), long(scene.render_F.rows()), scene.render_max_distance * scene.half_extent);
  }
#if FASTCD_HAVE_VIZ
  // A single 3D scene's preview is rendered and encoded while the simulation runs (its camera
  // comes from the rig-only frames, known now); a 2D one, or several characters', after it.
  std::optional<PreviewStream> stream;
  if (!several && st.video && dim == 3 && frames > 0) {
    clock.next("setup (preview: rig frames, camera)");
    const Scene& scene = bake.character(0).scene;
    const PreviewRate rate(scene.dt);
    std::vector<MatrixXd> rig_surface;
    for (int f = 0; f < frames; f += rate.stride)
      rig_surface.push_back(bake.writer(0).surface().E *
                            unflatten(scene.rig->positions(scene.poses[static_cast<std::size_t>(f)]), dim));
    std::fprintf(stdout, "%s, encoded while simulating\n", rate.says(static_cast<int>(rig_surface.size())).c_str());
    stream.emplace((stage / "preview.mp4").string(), std::move(rig_surface), bake.writer(0).surface().F, scene.name,
                   st.solver, rate);
  }
#endif
  clock.next(several ? "simulation loop (characters in parallel), frame outputs"
                     : "simulation loop: monitor, frame outputs (OBJ, checks)");
  set_phase("simulating");
  {
    Progress bar("simulating", frames);
    bake.simulate([&](int f) {
#if FASTCD_HAVE_VIZ
      if (stream) stream->offer(f, bake.writer(0).cd_frames.back());
#endif
      bar.update(f + 1);
    });
  }
  clock.next("writing rest.obj, animation.pc2, glTF outputs");
  if (!several) clock.split_last("simulation loop: solver steps", bake.simulation(0).stats().step_seconds);
  set_phase("writing the outputs");
  bake.finish();
  for (Index k = 0; k < bake.size(); ++k)
    if (bake.gltf_outputs(k)) print_gltf_outputs(bake.character(k).scene, *bake.gltf_outputs(k));
  warning_lines.print(bake.warnings());

  std::optional<PreviewInfo> preview;
#if FASTCD_HAVE_VIZ
  if (stream) {
    clock.next("preview.mp4 (the rest of render, encode)");
    set_phase("preview.mp4");
    preview = stream->finish();
    stream.reset();
  }
#endif
  if (st.video && !preview) {
    clock.next("preview.mp4 (render, encode)");
    set_phase("preview.mp4");
    if (several) {
      preview = write_characters_preview(bake, stage, stem, st.solver);
    } else {
      const Scene& scene = bake.character(0).scene;
      FrameWriter& w = bake.writer(0);
      preview = write_preview((stage / "preview.mp4").string(), dim, std::move(w.rig_frames), std::move(w.cd_frames),
                              dim == 2 ? scene.T : w.surface().F, scene.name, st.solver, scene.dt);
    }
  }

  clock.next("run.json");
  set_phase("writing run.json");
  RunJsonExtras extras;
  extras.input = st.scene;
  extras.preview = preview;
  clock.next("");
  extras.profile = clock.phases();
  extras.total_seconds = since(t_all);
  write_run_json(stage / "run.json", bake, extras);
  if (st.profile) print_profile(clock, since(t_all));
  check_interrupt("writing the outputs");
  folder.commit();
  double max_rel = 0.0;
  for (Index k = 0; k < bake.size(); ++k) max_rel = std::max(max_rel, bake.simulation(k).stats().max_residual);
  if (several) {
    std::printf("%s: %ld characters, %d frames, max residual %.1e -> %s\n", stem.c_str(), long(bake.size()), frames,
                max_rel, folder.target().string().c_str());
  } else {
    const Simulation& sim = bake.simulation(0);
    const double step_ms = frames ? 1e3 * sim.stats().step_seconds / frames : 0.0;
    std::printf(
        "%s: %d frames, precompute %.3f s, %.3f ms/step, max residual %.1e, constraint rank %ld/%ld, "
        "inverted frames %ld -> %s\n",
        stem.c_str(), frames, sim.precompute_seconds(), step_ms, max_rel, long(sim.constraint().rank),
        long(sim.constraint().rig_rank), long(bake.writer(0).frames_inverted), folder.target().string().c_str());
  }
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
         "momentum-leak field: auto (the 2020 paper's Poisson field, or the centroid field on a "
         "boundary-dominated mesh), poisson, diffusion (simkit), centroid, none, or a #V x 1 DMAT of values in "
         "[0, 1]")
      ->capture_default_str();
  cmd->add_option("--material", st->material,
                  "arap: run a scene that asks for another material (neo-Hookean, ...) as ARAP; without it such a "
                  "scene is refused")
      ->check(CLI::IsMember({"arap"}));
  cmd->add_option("--gravity", st->gravity,
                  "gravity along -y: m/s^2 for a glTF character or a plain surface, normalised scene units / s^2 "
                  "for a scene JSON")
      ->capture_default_str();
  cmd->add_option("--clip", st->clip, "glTF: the animation clip, by name or index (default: the first)");
  cmd->add_flag("--list-clips", st->list_clips, "glTF: list the clips and exit");
  cmd->add_option("--scale,--metres-per-unit", st->metres_per_unit,
                  "glTF / surface: metres per file unit, a character scene's \"metres_per_unit\"" +
                      default_text(defaults::metres_per_unit) + ": glTF specifies metres")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ym", st->ym, "glTF / surface: Young's modulus, Pa" + default_text(defaults::ym))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--pr", st->pr,
                  "glTF / surface: Poisson's ratio (ARAP's mu = ym / (2 (1 + pr)))" + default_text(defaults::pr))
      ->check(CLI::Range(-0.999, 0.499));
  cmd->add_option("--rho", st->rho, "glTF / surface: density, kg/m^3" + default_text(defaults::rho))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--dt", st->dt,
                  "glTF / surface: time step, s" + default_text(defaults::dt) + "; the clip is sampled at it")
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
                  std::string("glTF / surface (also a scene's surface mesh): fills the skin with tets (default ") +
                      defaults::mesher +
                      "): netgen (in process), tetgen (the TetGen program, "
                      "-pYq1.414) or voxel (a grid embedding the skin: works for open or self-intersecting skins)")
      ->check(CLI::IsMember({"netgen", "tetgen", "voxel"}));
  cmd->add_option("--voxel-resolution", st->voxel_resolution,
                  "--mesher voxel: cells along the longest side" + default_text(defaults::voxel_resolution))
      ->check(CLI::Range(2, 256));
  cmd->add_flag("!--no-cache", st->cache,
                "mesh the skin or surface again instead of reusing the tets cached in .fastcd-cache/ beside the "
                "output folder");
  cmd->add_option("--glb-encoding", st->glb_encoding,
                  std::string("glTF: the secondary motion in <name>.glb (default ") + defaults::glb_encoding +
                      "): frames (one morph target per frame, exact) or pca (a few targets, weights in [0, 1]; "
                      "smaller)")
      ->check(CLI::IsMember({"frames", "pca"}));
  cmd->add_option("--pca-tolerance", st->pca_tolerance,
                  "glTF, --glb-encoding pca: largest position error relative to the size" +
                      default_text(defaults::pca_tolerance))
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
    run(*st);
  });
}

}  // namespace fastcd::cli
