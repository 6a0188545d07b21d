#pragma once
// ViewerModel: everything `fastcd view` shows and does, without any graphics: the scene, a live
// simulation stepping frame by frame, playback (play, pause, scrub, loop), direct manipulation of
// the rig's handles on top of the animation, parameter changes (a rebuild in the background
// while the old simulation keeps running), the method's fields as colours (rotation clusters,
// skinning eigenmodes, the leak field D, |u_c|) and the per-frame statistics. The window and the
// offscreen renderer (apps/fastcd/view) only draw what it gives them, so every behaviour here is
// tested without a display.
#include <atomic>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd {

/// What the mesh is coloured by.
enum class ViewField { Shaded, Clusters, Mode, Leak, Displacement };

/// "shaded", "clusters", "mode", "leak" or "displacement".
std::string to_string(ViewField f);
/// Parses the names above. @throws std::invalid_argument otherwise.
ViewField view_field(const std::string& name);

struct ViewerSettings {
  SceneRunSettings run;       ///< solver, iterations, modes, clusters, leak, gravity (as fastcd run)
  std::string cache_dir;      ///< precompute cache folder ("" = none)
  bool loop = true;           ///< after the last frame, start again from rest
  std::size_t history = 600;  ///< frames of statistics kept for the plots
};

class ViewerModel {
 public:
  /// Builds the simulation of `scene` (its first precompute runs here, on the caller's thread).
  /// @throws what make_simulation throws.
  ViewerModel(std::shared_ptr<const Scene> scene, const ViewerSettings& settings);
  ~ViewerModel();
  ViewerModel(const ViewerModel&) = delete;
  ViewerModel& operator=(const ViewerModel&) = delete;

  const Scene& scene() const { return *scene_; }
  const ViewerSettings& settings() const { return settings_; }
  const Simulation& simulation() const { return *sim_; }

  // ---- time
  int frames() const { return static_cast<int>(scene_->poses.size()); }
  int frame() const { return frame_; }  ///< the frame shown (0 = the start, at rest)
  bool playing() const { return playing_; }
  void set_playing(bool on) { playing_ = on; }
  void set_loop(bool on) { settings_.loop = on; }
  /// One frame on (when playing): the simulation steps to the next pose; past the last frame it
  /// starts again from rest (loop) or stops. Also swaps in a finished rebuild.
  void tick();
  /// Steps one frame whether playing or not.
  void step();
  /// Shows frame f: the simulation restarts from rest and replays to f (with the current
  /// manipulation), as a timeline scrub does. @throws std::invalid_argument outside [0, frames).
  void seek(int f);

  // ---- direct manipulation (LBS rigs: bones or point handles)
  bool manipulable() const;  ///< the rig has affine handles the user can move
  Index handles() const { return scene_->handles; }
  /// Handle j's position now (the animation's pose with the user's transform on top), in the
  /// scene's normalised coordinates. A handle's rest position is the scene's handle point (joints,
  /// point handles), or, for bones the scene gives no points for, its weight's centroid.
  VectorXd handle_position(Index j) const;
  /// Moves handle j by `delta` (dim entries, normalised coordinates) on top of the animation,
  /// from the next step on.
  void translate_handle(Index j, const Eigen::Ref<const VectorXd>& delta);
  /// Turns handle j by `angle` (radians) about `axis` (3D; ignored in 2D) through its current position.
  void rotate_handle(Index j, const Eigen::Ref<const VectorXd>& axis, double angle);
  void clear_manipulation();
  /// The pose the simulation steps to at frame f: the animation's with the user's transforms.
  VectorXd pose(int f) const;

  // ---- parameters: applied by a rebuild in the background; the current simulation keeps
  // running until the new one is ready, then the new one replays to the current frame.
  void set_run_settings(const SceneRunSettings& run, double ym, double rho);
  double ym() const { return ym_; }
  double rho() const { return rho_; }
  bool rebuilding() const;
  /// Waits for a running rebuild and swaps it in (tests, offscreen rendering).
  void finish_rebuild();
  const std::string& last_error() const { return error_; }  ///< a failed rebuild's message

  // ---- what is drawn (the output surface: render vertices, or the tets' boundary)
  const MatrixXi& faces() const { return faces_; }
  Index output_vertices() const { return E_.rows(); }
  MatrixXd positions() const;      ///< output surface now (#out x dim, normalised)
  MatrixXd rig_positions() const;  ///< the rig alone
  /// Per output vertex, the colour field in [0, 1] (clusters: a category index / clusters;
  /// mode: 0.5 + W_k / (2 max|W_k|)); empty for Shaded. Mode needs the fast solver.
  VectorXd field(ViewField f, int mode = 0) const;
  int modes() const;     ///< fast solver: skinning eigenmodes (0 in full order)
  int clusters() const;  ///< fast solver: rotation clusters

  // ---- skinning-form lifting (what a GPU skinning shader computes): x_v = sum_b w_vb M_b [X_v; 1]
  // over the rig's handles (M_b: the pose's [A | t]) and the skinning eigenmodes (M_k: the fast
  // state's mode transforms, FastCD::mode_transforms), so only the transforms change per frame.
  /// Available for the fast solver in 3D under an LBS rig when every output vertex is a tet vertex.
  bool skinning_form() const;
  Eigen::MatrixXf skinning_rest() const;     ///< #out x 3 rest positions X_v (normalised)
  Eigen::MatrixXf skinning_weights() const;  ///< #out x (handles + modes): [rig weights | mode weights]
  /// (handles + modes) x 12: each transform's column-major 3x4; `dynamics` false zeroes the modes'
  /// (the rig alone). @throws std::invalid_argument when !skinning_form().
  Eigen::MatrixXf skinning_transforms(bool dynamics = true) const;

  // ---- statistics, newest last
  const std::deque<double>& step_ms() const { return step_ms_; }
  const std::deque<double>& residuals() const { return residuals_; }
  const std::deque<double>& kinetic_energies() const { return kinetic_; }

 private:
  void advance_to(int f);
  void advance_one();  ///< one step to the next frame's pose, checked (throws on divergence)
  void record();
  SimulationOptions options_for(const SceneRunSettings& run, double ym, double rho) const;
  std::shared_ptr<const Scene> scene_;
  ViewerSettings settings_;
  double ym_ = 0, rho_ = 0;
  std::unique_ptr<Simulation> sim_;
  std::future<std::unique_ptr<Simulation>> rebuild_;
  std::string error_;
  int frame_ = 0;
  bool playing_ = true;
  std::vector<MatrixXd> user_;  ///< per handle, a (dim) x (dim+1) affine applied after the animation
  MatrixXd rest_handles_;       ///< #handles x dim: the scene's handle points, else each weight's centroid
  SparseMatrix E_;              ///< output vertices from tet vertices
  MatrixXi faces_;
  VectorXi out_element_;  ///< per output vertex, an element it lies in (clusters view)
  std::deque<double> step_ms_, residuals_, kinetic_;
  double last_residual_ = 0, last_kinetic_ = 0;  ///< the last step's, from the simulation's monitor
};

}  // namespace fastcd
