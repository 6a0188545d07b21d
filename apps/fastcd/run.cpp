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

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct RunSettings {
  std::string scene, out, solver = "full";
  int frames = 0, modes = 16, clusters = 100, iterations = 10;
  std::string leak = "auto", rig = "auto", material;
  double gravity = 0.0;
  bool dynamics = true, video = true, force = false, profile = false;
};

/// Runs jobs in order on one background thread (the frame OBJs, written while the next frames
/// simulate). The first job's exception is rethrown by finish(); the destructor drops what is
/// left and joins, so an error or interrupt in the caller unwinds without waiting for writes.
class BackgroundWriter {
 public:
  BackgroundWriter() : thread_([this] { loop(); }) {}
  ~BackgroundWriter() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
      jobs_.clear();
    }
    cv_.notify_all();
    thread_.join();
  }
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  void push(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (error_) std::rethrow_exception(error_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_all();
  }
  /// Waits for every job; rethrows the first failure.
  void finish() {
    std::unique_lock<std::mutex> lock(m_);
    done_cv_.wait(lock, [&] { return (jobs_.empty() && !busy_) || error_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
      lock.unlock();
      std::exception_ptr e;
      try {
        job();
      } catch (...) {
        e = std::current_exception();
      }
      lock.lock();
      busy_ = false;
      if (e && !error_) {
        error_ = e;
        jobs_.clear();
      }
      done_cv_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false, busy_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

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

void warn(std::vector<std::string>& warnings, const std::string& w) {
  std::fprintf(stderr, "warning: %s\n", w.c_str());
  warnings.push_back(w);
}

// Signed measure of every simplex (triangle area in 2D, tet volume in 3D).
VectorXd signed_measures(const MatrixXd& X, const MatrixXi& T) {
  return detail::dispatch_dim(X.cols(), "signed_measures", [&]<int dim>() {
    VectorXd m(T.rows());
    for (Index e = 0; e < T.rows(); ++e) m(e) = detail::signed_measure<dim>(X, T, e);
    return m;
  });
}

// Elements whose orientation flipped from the rest shape (or collapsed to nothing).
Index count_inverted(const VectorXd& rest, const VectorXd& now) {
  Index k = 0;
  for (Index e = 0; e < rest.size(); ++e)
    if (rest(e) * now(e) <= 0.0) ++k;
  return k;
}

// The baked OBJ of a scene whose output surface came from an OBJ: every frame is that file
// with new positions (and, in 3D, normals turned by each render vertex's tet: n' = F^-T n), so
// UVs, normals, groups and materials survive; rest.obj is the file itself.
class ObjPassThrough {
 public:
  ObjPassThrough(const Scene& scene, Index rows) : scene_(scene), doc_(read_obj_document(scene.output_obj)) {
    if (static_cast<Index>(doc_.v_lines.size()) != rows) {
      mismatch_ = "the OBJ '" + scene.output_obj + "' has " + std::to_string(doc_.v_lines.size()) +
                  " vertex records, the baked surface " + std::to_string(rows) +
                  " (unused vertices?): the frames are written as plain OBJs without its UVs, normals and materials";
      return;
    }
    if (scene.dim == 3 && doc_.N.rows() > 0 && scene.render_element.size() == rows) {
      // The tets that carry a normal (through the render vertex it is paired with), and their
      // rest edge matrices inverted.
      normal_slot_ = VectorXi::Constant(doc_.N.rows(), -1);
      std::map<int, int> slot_of_tet;
      for (Index k = 0; k < doc_.N.rows(); ++k) {
        const int v = doc_.normal_vertex(k);
        if (v < 0) continue;
        const int t = scene.render_element(v);
        const auto [it, fresh] = slot_of_tet.emplace(t, static_cast<int>(tets_.size()));
        if (fresh) {
          tets_.push_back(t);
          rest_inv_.push_back(detail::edge_matrix<3>(scene.X, scene.T, t).inverse());
        }
        normal_slot_(k) = it->second;
      }
    }
  }

  /// Empty when the document fits the baked surface; otherwise why it cannot be kept.
  const std::string& mismatch() const { return mismatch_; }

  /// Writes frame positions V (file units) with simulated mesh positions Xs (normalised).
  void write(const std::string& path, const MatrixXd& V, const MatrixXd& Xs, const std::string& mtllib_prefix) const {
    if (tets_.empty()) {
      write_obj_document(path, doc_, V, MatrixXd(), mtllib_prefix);
      return;
    }
    std::vector<Eigen::Matrix3d> turn(tets_.size());  // F^-T of each tet, F = D(x) D(X)^-1
    for (std::size_t i = 0; i < tets_.size(); ++i)
      turn[i] = (detail::edge_matrix<3>(Xs, scene_.T, tets_[i]) * rest_inv_[i]).inverse().transpose();
    MatrixXd N = doc_.N;
    for (Index k = 0; k < N.rows(); ++k) {
      if (normal_slot_(k) < 0) continue;
      const Eigen::Vector3d n = turn[static_cast<std::size_t>(normal_slot_(k))] * N.row(k).transpose();
      if (n.allFinite() && n.norm() > 0) N.row(k) = n.normalized().transpose();
    }
    write_obj_document(path, doc_, V, N, mtllib_prefix);
  }

  /// Copies the input OBJ as rest.obj, and its material libraries and their textures (those
  /// named by relative paths inside the input's folder) to the same relative places in `stage`.
  void copy_inputs(const fs::path& stage) const {
    const fs::path dir = fs::path(scene_.output_obj).parent_path();
    write_file_contents((stage / "rest.obj").string(), read_regular_file(scene_.output_obj, "fastcd run"),
                        "fastcd run");
    for (const auto& lib : doc_.mtllibs) copy_relative(dir, lib, stage, true);
  }

 private:
  // Copies dir/name to stage/name when name is a relative path that stays inside dir (an
  // absolute or "../" name still resolves from the copy as it did); for a material library,
  // also the texture maps it names.
  void copy_relative(const fs::path& dir, const std::string& name, const fs::path& stage, bool is_mtl) const {
    const fs::path rel = fs::path(name).lexically_normal();
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") return;
    const fs::path src = dir / rel;
    if (!fs::is_regular_file(src)) return;  // read_obj already warned nothing; a missing .mtl is the user's
    fs::create_directories((stage / rel).parent_path());
    const std::string bytes = read_regular_file(src.string(), "fastcd run");
    write_file_contents((stage / rel).string(), bytes, "fastcd run");
    if (!is_mtl) return;
    // A texture map's file name is the last token of its statement (options come before it).
    detail::LineReader reader(bytes, src.string(), "fastcd run", "MTL");
    std::string_view line;
    while (reader.next_content(line, '#')) {
      detail::Tokens tokens(line);
      std::string_view key, tok, last;
      tokens.next(key);
      if (key.rfind("map_", 0) != 0 && key != "bump" && key != "disp" && key != "decal" && key != "refl") continue;
      while (tokens.next(tok)) last = tok;
      if (!last.empty()) copy_relative(dir, (rel.parent_path() / std::string(last)).string(), stage, false);
    }
  }

  const Scene& scene_;
  ObjDocument doc_;
  std::string mismatch_;
  std::vector<int> tets_;                  ///< tets that turn a normal (3D), in first-use order
  std::vector<Eigen::Matrix3d> rest_inv_;  ///< D(X)^-1 of each of tets_
  VectorXi normal_slot_;                   ///< #vn: index into tets_, -1 for a normal no face uses
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
  const OutputSurface surf = output_surface(scene);
  if (scene.render_E.rows() > 0)
    std::fprintf(stdout,
                 "render mesh: %ld vertices, %ld triangles, embedded in the tets (farthest vertex %.2g outside)\n",
                 long(scene.render_V.rows()), long(scene.render_F.rows()), scene.render_max_distance * scene.scale);
  // A 2D scene's OBJ is the simulation mesh itself (all its vertices); a 3D render OBJ is the
  // embedded surface.
  const bool whole_mesh = dim == 2 && !scene.output_obj.empty();
  std::optional<ObjPassThrough> obj;
  if (!scene.output_obj.empty()) {
    obj.emplace(scene, whole_mesh ? n : surf.E.rows());
    if (!obj->mismatch().empty()) {
      warn(warnings, obj->mismatch());
      obj.reset();
    }
  }
  auto file_units = [&](const MatrixXd& Xs) -> MatrixXd {
    if (whole_mesh && obj) return (Xs * scene.scale).rowwise() + scene.center.transpose();
    return to_file_units(scene, surf, Xs);
  };

  const VectorXd rest_measure = signed_measures(scene.X, scene.T);
  const double extent = (scene.X.colwise().maxCoeff() - scene.X.colwise().minCoeff()).norm();
  std::vector<Index> inverted(static_cast<std::size_t>(frames), 0);
  Index rig_inverted = 0;  // the most elements the rig alone inverts in a frame (LBS artefacts)
  double max_uc = 0.0;
  std::vector<MatrixXd> baked, rig_frames, cd_frames;
  nlohmann::json preview_info;  ///< run.json "preview": frames, fps, stride
  clock.next("simulation loop: monitor, frame outputs (OBJ, checks)");
  set_phase("simulating");
  Progress bar("simulating", frames);
  BackgroundWriter writer;
  for (int f = 0; f < frames; ++f) {
    sim.advance(scene.poses[static_cast<std::size_t>(f)]);
    const MatrixXd Xr = sim.rig_positions(), Xc = sim.positions();
    max_uc = std::max(max_uc, (Xc - Xr).rowwise().norm().maxCoeff());
    inverted[static_cast<std::size_t>(f)] = count_inverted(rest_measure, signed_measures(Xc, scene.T));
    rig_inverted = std::max(rig_inverted, count_inverted(rest_measure, signed_measures(Xr, scene.T)));
    const MatrixXd V = file_units(Xc);
    char name[64];
    std::snprintf(name, sizeof name, "frame_%05d.obj", f + 1);
    writer.push([&obj, &surf, path = (stage / "obj" / name).string(), V, Xc] {
      if (obj)
        obj->write(path, V, Xc, "../");
      else
        write_obj(path, V, surf.F);
    });
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
  writer.finish();
  const SimulationStats& stats = sim.stats();
  const double step_s = stats.step_seconds, max_rel = stats.max_residual;
  clock.next("writing rest.obj, animation.pc2");
  clock.split_last("simulation loop: solver steps", step_s);
  set_phase("writing the outputs");
  if (obj)
    obj->copy_inputs(stage);
  else
    write_obj((stage / "rest.obj").string(), file_units(scene.X), surf.F);
  write_pc2((stage / "animation.pc2").string(), baked, 1.0, 1.0);

  // What the run did that the user should know about.
  const Index frames_inverted = std::count_if(inverted.begin(), inverted.end(), [](Index k) { return k > 0; });
  const Index most_inverted = frames ? *std::max_element(inverted.begin(), inverted.end()) : 0;
  if (frames_inverted > 0) {
    const auto first = std::find_if(inverted.begin(), inverted.end(), [](Index k) { return k > 0; });
    warn(warnings, "inverted elements in " + std::to_string(frames_inverted) + " of " + std::to_string(frames) +
                       " frames (up to " + std::to_string(most_inverted) + " of " + std::to_string(scene.T.rows()) +
                       ", first at frame " + std::to_string(first - inverted.begin() + 1) + "; the rig alone inverts " +
                       (rig_inverted > 0 ? "up to " + std::to_string(rig_inverted) : std::string("none")) +
                       "): a smaller dt, more iterations or a stiffer YM reduce those the dynamics add");
  }
  const double uc_rel = extent > 0 ? max_uc / extent : 0.0;
  if (so_sim.dynamics && frames > 1 && uc_rel < 1e-6)
    warn(warnings, "the complementary motion stays below 1e-6 of the mesh size (" + std::to_string(uc_rel) +
                       "): the rig's motion leaves nothing for the dynamics to add");
  if (uc_rel > 1.0)
    warn(warnings, "the complementary motion reaches " + std::to_string(uc_rel) +
                       " times the mesh size: the material is too soft for this motion, or dt too large");

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
                              {{rig_frames, surf.F, "rig", rgb_from_hex("#d62728")},
                               {cd_frames, surf.F, "rig + CD (" + st.solver + ")", rgb_from_hex("#1f77b4")}},
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
  report["complementary_motion_max_relative"] = uc_rel;
  report["inverted_elements"] = {{"frames_with_inversions", frames_inverted},
                                 {"max_per_frame", most_inverted},
                                 {"rig_max_per_frame", rig_inverted},
                                 {"per_frame", inverted}};
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
      long(rig_rank), long(frames_inverted), folder.target().string().c_str());
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
