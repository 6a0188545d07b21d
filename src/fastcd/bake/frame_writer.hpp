#pragma once
// FrameWriter: the one piece that writes a character's baked frames, whatever the input kind:
// the OBJ sequence (obj/frame_NNNNN.obj, on a background thread while the next frames simulate;
// the input OBJ kept line by line when the baked surface came from one), rest.obj,
// animation.pc2 and, for a glTF character, <name>.glb and the rest-space PC2 / MDD caches. It
// also keeps the checks run.json reports (inverted elements, the size of the complementary
// motion) and, when asked, the frames a preview draws.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fastcd/bake/background_writer.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd {

class ObjPassThrough;

class FrameWriter {
 public:
  /// Writes into `dir` (created). Warnings are appended to `warnings`, each prefixed with
  /// `prefix` ("" or "frog #2: "); `keep_preview` keeps rig_frames / cd_frames.
  FrameWriter(const Scene& scene, std::filesystem::path dir, std::vector<std::string>& warnings, std::string prefix,
              bool keep_preview);
  ~FrameWriter();
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  /// Positions (normalised simulation coordinates) of the baked surface in the file's units.
  MatrixXd file_units(const MatrixXd& Xs) const;

  /// After the simulation stepped to frame f (0-based): the checks, the frame's OBJ (queued on
  /// `writer`), its PC2 sample and its preview frames.
  void record(int f, const Simulation& sim, BackgroundWriter& writer);

  /// rest.obj and animation.pc2, and the warnings about inversions and the motion's size.
  void finish();

  /// A glTF character's <name>.glb and rest-space caches (write_gltf_outputs) from the recorded
  /// frames, for clip `clip` ("": the scene's); a warning when a PCA encoding misses its tolerance.
  /// @throws std::invalid_argument for a scene not loaded from glTF, or nothing recorded.
  GltfOutputs write_gltf(const std::string& clip, const GltfBakeOptions& options);

  const OutputSurface& surface() const { return surf_; }
  /// Per frame, the glTF render vertices' complementary displacements (simulated minus rig),
  /// file units; empty for other scenes.
  const std::vector<MatrixXd>& displacements() const { return displacements_; }

  std::vector<MatrixXd> rig_frames, cd_frames;  ///< preview frames (the baked surface in 3D), normalised units
  std::vector<Index> inverted;                  ///< inverted elements per frame
  Index rig_inverted = 0;                       ///< the most the rig alone inverts in a frame (LBS artefacts)
  Index frames_inverted = 0, most_inverted = 0;
  double uc_rel = 0.0;  ///< max |u_c| over the mesh size

 private:
  void warn(const std::string& w);

  const Scene& scene_;
  std::filesystem::path dir_;
  std::vector<std::string>& warnings_;
  std::string prefix_;
  bool keep_preview_ = false;
  OutputSurface surf_;
  bool whole_mesh_ = false;
  std::unique_ptr<ObjPassThrough> obj_;
  VectorXd rest_measure_;
  SparseMatrix render_J_;  ///< glTF: LBS Jacobian of the render vertices with their own weights
  double extent_ = 0.0, max_uc_ = 0.0;
  MatrixXd Xr_, Xc_, Uc_;  ///< the frame's rig, simulated and complementary positions (#V x dim, reused)
  VectorXd measure_;       ///< the frame's signed element measures (reused)
  std::vector<MatrixXd> baked_;
  std::vector<MatrixXd> displacements_;
};

}  // namespace fastcd
