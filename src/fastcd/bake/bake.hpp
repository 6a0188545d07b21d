#pragma once
// The bake pipeline: characters simulated and written frame by frame, the same for every input
// kind. A single scene (a scene JSON, a plain surface, a glTF character) is a one-character run
// whose outputs go to the bake folder itself; a characters file (scene/characters.hpp) runs
// every character in one Ensemble, each into <folder>/<name>/. `fastcd run`, Python's
// fastcd.bake and the tests all go through it:
//
//   Bake bake(characters, settings, folder, /*single=*/true);  // checks the glTF outputs
//   bake.precompute();                       // every character's Simulation, in parallel
//   bake.open_writers();                     // (optional: simulate() opens them) output surfaces
//   bake.simulate([](int f) { ... });        // each frame stepped and written (FrameWriter)
//   bake.finish();                           // rest.obj, animation.pc2, <name>.glb, rest-space caches
//   write_run_json(folder / "run.json", bake, extras);   // bake/run_json.hpp
//
// The library never prints: warnings are collected in warnings() (each once; a character's
// prefixed with its name in a run of several), long work reports through set_progress_sink and
// stops at request_cancel() / a CancelToken (fastcd::Cancelled).
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastcd/bake/frame_writer.hpp"
#include "fastcd/cd/ensemble.hpp"
#include "fastcd/scene/characters.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd {

/// What a bake sets on top of each character's scene.
struct BakeSettings {
  SceneRunSettings run;              ///< solver (a character's own "solver" overrides it), iterations, modes, leak, ...
  int frames = 0;                    ///< at most this many frames (0: every frame of the longest animation)
  std::string cache_dir;             ///< tets and fast precomputes (make_simulation's cache); "" computes everything
  std::string clip;                  ///< glTF: the clip the .glb bakes ("": the scene's)
  GltfBakeOptions gltf;              ///< glTF: the .glb's encoding
  bool keep_preview_frames = false;  ///< keep FrameWriter::rig_frames / cd_frames (a preview)
};

/// A single scene as the one character of a bake: named after the scene, at no offset, with
/// `path` (the scene's file as given) as its "scene".
CharacterSpec single_character(Scene scene, const std::string& path);

class Bake {
 public:
  /// Prepares the bake of `characters` into `folder` (which must exist): `single` writes the one
  /// character's outputs into `folder` itself, otherwise each into folder/<name>. The glTF
  /// outputs of every glTF character are written once with no motion into a scratch folder
  /// (then removed), so that what write_gltf_outputs refuses fails now, not after the whole bake.
  /// @throws std::invalid_argument for no characters, or several with `single`;
  ///         std::runtime_error naming the character when its glTF outputs cannot be written.
  Bake(std::vector<CharacterSpec> characters, BakeSettings settings, std::filesystem::path folder, bool single);
  ~Bake();
  Bake(const Bake&) = delete;
  Bake& operator=(const Bake&) = delete;

  /// Every character's Simulation (in parallel; the fast solver's subspace through the cache).
  /// @throws the character's error ("character k (name): ..." in a run of several); Cancelled.
  void precompute();

  /// Every character's FrameWriter (its output surface, the input OBJ kept line by line); done
  /// by simulate() when not called before. After precompute().
  void open_writers();

  /// Steps every character through the run's frames, each frame written as it goes;
  /// `on_frame(f)` (if given) after frame f (0-based) was stepped and recorded, on this thread.
  void simulate(const std::function<void(int frame)>& on_frame = {});

  /// rest.obj, animation.pc2 and the glTF outputs; the simulations' and the checks' warnings.
  void finish();

  bool single() const { return single_; }
  const BakeSettings& settings() const { return settings_; }
  const std::filesystem::path& folder() const { return folder_; }
  /// The frames every character steps through.
  int frames() const { return frames_; }
  Index size() const { return static_cast<Index>(characters_.size()); }
  const CharacterSpec& character(Index k) const { return characters_.at(static_cast<std::size_t>(k)); }
  /// The folder of character k's outputs.
  std::filesystem::path character_folder(Index k) const;
  /// After precompute().
  const Simulation& simulation(Index k) const { return ensemble_[k]; }
  const SimulationOptions& simulation_options(Index k) const { return options_.at(static_cast<std::size_t>(k)); }
  bool precompute_from_cache(Index k) const { return from_cache_.at(static_cast<std::size_t>(k)) != 0; }
  /// After open_writers(): the writer of character k's frames.
  const FrameWriter& writer(Index k) const { return *writers_.at(static_cast<std::size_t>(k)); }
  FrameWriter& writer(Index k) { return *writers_.at(static_cast<std::size_t>(k)); }
  /// After finish(): character k's glTF outputs (empty when it wrote none).
  const std::optional<GltfOutputs>& gltf_outputs(Index k) const { return gltf_.at(static_cast<std::size_t>(k)); }
  /// Every warning so far, in order, each once.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void warn(const std::string& w);

  std::vector<CharacterSpec> characters_;
  BakeSettings settings_;
  std::filesystem::path folder_;
  bool single_ = true;
  int frames_ = 0;
  std::vector<SimulationOptions> options_;
  std::vector<char> from_cache_;
  Ensemble ensemble_;
  std::vector<std::unique_ptr<FrameWriter>> writers_;
  std::vector<std::optional<GltfOutputs>> gltf_;
  std::vector<std::string> warnings_;
};

}  // namespace fastcd
