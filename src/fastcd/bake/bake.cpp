#include "fastcd/bake/bake.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/scene/precompute_cache.hpp"

namespace fastcd {

namespace fs = std::filesystem;

CharacterSpec single_character(Scene scene, const std::string& path) {
  CharacterSpec c;
  c.name = scene.name;
  c.scene_path = path;
  c.offset = VectorXd::Zero(scene.dim);
  c.scene = std::move(scene);
  return c;
}

Bake::Bake(std::vector<CharacterSpec> characters, BakeSettings settings, fs::path folder, bool single)
    : characters_(std::move(characters)), settings_(std::move(settings)), folder_(std::move(folder)), single_(single) {
  FASTCD_CHECK(!characters_.empty(), "no characters to bake");
  FASTCD_CHECK(!single_ || characters_.size() == 1, "a single scene is one character, got ", characters_.size());
  for (const CharacterSpec& c : characters_) {
    FASTCD_CHECK(!c.scene.poses.empty(), "the character '", c.name, "' has no animation");
    for (const std::string& w : c.scene.warnings) warn((single_ ? "" : c.name + ": ") + w);
    frames_ = std::max(frames_, static_cast<int>(c.scene.poses.size()) - c.frame_offset);
  }
  frames_ = std::max(frames_, 1);
  if (settings_.frames > 0) frames_ = std::min(frames_, settings_.frames);
  gltf_.resize(characters_.size());
  for (std::size_t k = 0; k < characters_.size(); ++k) {
    const CharacterSpec& c = characters_[k];
    if (c.scene.layout != "gltf" || c.frame_offset != 0) continue;
    const fs::path dir = character_folder(static_cast<Index>(k)) / ".gltf-check";
    fs::create_directories(dir);
    try {
      (void)write_gltf_outputs(c.scene, settings_.clip, {MatrixXd::Zero(c.scene.render_V.rows(), 3)}, dir.string());
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& e) {
      throw std::runtime_error((single_ ? "" : c.name + ": ") +
                               "nothing was simulated: the glTF outputs cannot be written (" + e.what() + ")");
    }
    fs::remove_all(dir);
  }
}

Bake::~Bake() = default;

fs::path Bake::character_folder(Index k) const {
  return single_ ? folder_ : folder_ / characters_.at(static_cast<std::size_t>(k)).name;
}

void Bake::warn(const std::string& w) {
  if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) warnings_.push_back(w);
}

void Bake::precompute() {
  const std::size_t n = characters_.size();
  options_.clear();
  for (const CharacterSpec& c : characters_) {
    SceneRunSettings run = settings_.run;
    if (!c.solver.empty()) run.solver = solver_kind(c.solver);
    options_.push_back(scene_simulation_options(c.scene, run));
  }
  std::vector<std::optional<Simulation>> built(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::vector<std::string>> cache_warnings(n);
  from_cache_.assign(n, 0);
  parallel_for(static_cast<Index>(n), 1, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) {
      const auto k = static_cast<std::size_t>(i);
      try {
        bool cached = false;
        built[k].emplace(
            make_simulation(characters_[k].scene, options_[k], settings_.cache_dir, &cached, &cache_warnings[k]));
        from_cache_[k] = cached ? 1 : 0;
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  });
  for (std::size_t k = 0; k < n; ++k) {
    if (!errors[k]) continue;
    if (single_) std::rethrow_exception(errors[k]);
    try {
      std::rethrow_exception(errors[k]);
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& ex) {
      throw std::runtime_error("character " + std::to_string(k) + " (" + characters_[k].name + "): " + ex.what());
    }
  }
  for (const auto& list : cache_warnings)  // the precompute cache's, each once (the tets' may have said it)
    for (const std::string& w : list) warn(w);
  detail::throw_if_cancelled("precomputing");
  for (std::size_t k = 0; k < n; ++k) {
    const Simulation& sim = *built[k];
    const ComplementarityConstraint& cons = sim.constraint();
    if (options_[k].dynamics && cons.rig_rank >= 0 && cons.rank < cons.rig_rank)
      warn((single_ ? "" : characters_[k].name + ": ") + "the complementarity constraint holds " +
           std::to_string(cons.rank) + " of the rig's " + std::to_string(cons.rig_rank) +
           " directions: the dynamics may add motion the rig can make (leak field " + to_string(sim.leak_field_used()) +
           ")");
    ensemble_.add(characters_[k].name, std::move(*built[k]));
  }
}

void Bake::open_writers() {
  FASTCD_CHECK(ensemble_.size() == size(), "precompute() first");
  writers_.clear();
  for (std::size_t k = 0; k < characters_.size(); ++k)
    writers_.push_back(std::make_unique<FrameWriter>(characters_[k].scene, character_folder(static_cast<Index>(k)),
                                                     warnings_, single_ ? "" : characters_[k].name + ": ",
                                                     settings_.keep_preview_frames));
}

void Bake::simulate(const std::function<void(int frame)>& on_frame) {
  FASTCD_CHECK(ensemble_.size() == size(), "precompute() first");
  if (writers_.empty()) open_writers();
  BackgroundWriter writer;
  std::vector<VectorXd> poses(characters_.size());
  for (int f = 0; f < frames_; ++f) {
    detail::throw_if_cancelled("simulating");
    for (std::size_t k = 0; k < characters_.size(); ++k) {
      const auto& clip = characters_[k].scene.poses;  // after its last frame, a character holds its last pose
      poses[k] = clip[std::min(clip.size() - 1, static_cast<std::size_t>(f + characters_[k].frame_offset))];
    }
    ensemble_.advance(poses);
    for (std::size_t k = 0; k < characters_.size(); ++k)
      writers_[k]->record(f, ensemble_[static_cast<Index>(k)], writer);
    if (on_frame) on_frame(f);
  }
  writer.finish();
}

void Bake::finish() {
  FASTCD_CHECK(writers_.size() == characters_.size(), "precompute() first");
  for (std::size_t k = 0; k < characters_.size(); ++k) {
    const std::string prefix = single_ ? "" : characters_[k].name + ": ";
    for (const std::string& w : ensemble_[static_cast<Index>(k)].warnings()) warn(prefix + w);
    writers_[k]->finish();
  }
  for (std::size_t k = 0; k < characters_.size(); ++k) {
    const CharacterSpec& c = characters_[k];
    if (c.scene.layout != "gltf" || writers_[k]->displacements().empty()) continue;
    if (c.frame_offset != 0) {  // the .glb's clip starts at its first key
      warn(c.name + ": frame_offset " + std::to_string(c.frame_offset) +
           ": no <name>.glb or rest-space caches (their clip starts at its first frame)");
      continue;
    }
    detail::throw_if_cancelled("writing the glTF outputs");
    gltf_[k] = writers_[k]->write_gltf(settings_.clip, settings_.gltf);
  }
}

}  // namespace fastcd
