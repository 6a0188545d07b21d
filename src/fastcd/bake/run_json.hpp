#pragma once
// run.json: what a bake did and measured, written by this one piece for every input kind.
//
// Every run.json has the same keys. The top level: "scene" (the input as given), "characters"
// (one record per character, below), "dim", "vertices", "elements", "frames", "settings",
// "max_constraint_residual_relative", "warnings", "preview", "profile" and "timings". A run of a
// single scene (a scene JSON, a plain surface, a glTF character: a one-character run) also has
// its one character's record at the top level, as it always had. A character's record: "name",
// "scene", "folder", "layout", "solver", "dim", "vertices", "elements", "handles",
// "fixed_vertices", "rig", "frames", "frames_declared", "animation_frames", "frame_offset",
// "offset", "settings", "precompute_s", "ms_per_step", "timings", "constraint_rank", "rig_rank",
// "leak_field", "max_constraint_residual_relative", "structural_residual_relative",
// "complementary_kinetic_energy", "complementary_motion_max_relative", "inverted_elements" and
// "gltf". "settings": "dt", "ym" (Young's modulus as given, Pa), "ym_normalised" (what the
// solvers took: ym / metres_per_normalised_unit^2 for a scene in physical units, else ym), "pr",
// "rho", "iterations", "modes", "clusters", "precision", "leak", "gravity", "dynamics",
// "material_requested", "material_simulated" (and, at the top level, "threads"). A key that does not apply is null (no
// glTF outputs, no preview, the full solver's structural residual, a setting the characters of a run do not share).
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/bake/bake.hpp"

namespace fastcd {

/// The preview a program rendered beside the bake (fastcd run's preview.mp4).
struct PreviewInfo {
  int frames = 0, fps = 0, stride = 1;
  std::string camera;  ///< 3D: "follow" or "fixed"; "" in 2D
  bool encoded_during_simulation = false;
};

/// What the caller adds to a bake's run.json.
struct RunJsonExtras {
  std::string input;                                    ///< the input file as given ("scene")
  std::optional<PreviewInfo> preview;                   ///< none: "preview" is null
  std::vector<std::pair<std::string, double>> profile;  ///< wall time per phase, in order
  double total_seconds = 0;
};

/// run.json's text (2-space indented JSON, a newline at the end) for a finished bake.
std::string run_json(const Bake& bake, const RunJsonExtras& extras);

/// Writes run_json(bake, extras) to `path` atomically.
void write_run_json(const std::filesystem::path& path, const Bake& bake, const RunJsonExtras& extras);

}  // namespace fastcd
