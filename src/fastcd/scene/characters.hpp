#pragma once
// Scenes of many characters: a JSON file listing character scenes (each a Complementary Dynamics
// release scene, docs/scene-format.md) that run in one simulation without interacting (an
// Ensemble), as the Fast CD paper's aquarium:
//
//   {"characters": [
//      {"scene": "elephant/elephant.json"},
//      {"scene": "elephant/elephant.json", "name": "elephant-2", "offset": [1.5, 0, 0]},
//      {"scene": "frog/frog.json", "solver": "full"}]}
//
// "scene" (required) is relative to this file's folder; "name" (default: the scene's file name,
// numbered when repeated) names the character's output folder; "offset" (file units, default 0)
// places it in the combined preview; "solver" ("full" / "fast", default the run's) and
// "frame_offset" (>= 0: start its animation that many frames in, wrapping around) are its own.
#include <string>
#include <vector>

#include "fastcd/scene/scene.hpp"

namespace fastcd {

struct CharacterSpec {
  std::string name;        ///< unique among the characters; a safe folder name
  std::string scene_path;  ///< the character's scene JSON (resolved)
  VectorXd offset;         ///< dim entries (file units), zero by default
  std::string solver;      ///< "" (the run's), "full" or "fast"
  int frame_offset = 0;    ///< first animation frame
  Scene scene;             ///< loaded by load_characters
};

/// True when the JSON file at `path` is a scene of several characters (has "characters").
/// @throws std::runtime_error when it cannot be read or is not JSON.
bool is_characters_file(const std::string& path);

/// Reads a characters file and loads every character's scene (in parallel), with `options` for
/// each. All characters must have the same dimension and time step (they share frames).
/// @throws std::runtime_error naming the file and the character (its index and name) for an
///         unknown key, a missing or malformed entry, duplicate names, an offset of the wrong
///         size, a solver other than full/fast, differing dims or dt, or any error of its scene.
std::vector<CharacterSpec> load_characters(const std::string& path, const SceneOptions& options = {});

}  // namespace fastcd
