// libFuzzer harness: read_gltf (glTF 2.0 / GLB characters) and the clip sampling built on it.
#include <cmath>

#include "fastcd/io/gltf_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in.glb", "read_gltf", {
  const fastcd::GltfCharacter c = fastcd::read_gltf(path);
  check(!c.meshes.empty(), "read_gltf: accepted a file without a skinned mesh");
  for (const fastcd::GltfSkinnedMesh& m : c.meshes) {
    check(m.V.cols() == 3 && m.F.cols() == 3 && m.W.rows() == m.V.rows(), "read_gltf: bad mesh shapes");
    check(m.skin >= 0 && static_cast<std::size_t>(m.skin) < c.skins.size(), "read_gltf: bad skin index");
    check(static_cast<std::size_t>(m.W.cols()) == c.skins[static_cast<std::size_t>(m.skin)].joints.size(),
          "read_gltf: weight columns differ from the joint count");
    check(m.F.rows() > 0, "read_gltf: accepted a mesh without triangles");
    check_finite(m.V, "read_gltf: POSITION");
    check_indices(m.F, m.V.rows(), "read_gltf: triangles");
    check(m.W.minCoeff() >= 0, "read_gltf: negative weight");
    check((m.W.rowwise().sum().array() - 1).abs().maxCoeff() < 1e-9, "read_gltf: weights do not sum to 1");
    for (fastcd::Index f = 0; f < m.F.rows(); ++f)
      check(m.F(f, 0) != m.F(f, 1) && m.F(f, 1) != m.F(f, 2) && m.F(f, 0) != m.F(f, 2),
            "read_gltf: kept a degenerate triangle");
  }
  for (const fastcd::GltfNode& n : c.nodes)
    check(n.parent >= -1 && n.parent < static_cast<int>(c.nodes.size()), "read_gltf: bad parent");
  // Sampling never crashes and gives finite poses (sample_clip may refuse a mirrored or
  // collapsed joint with an error naming the file, which the macro checks).
  for (int mesh = 0; mesh < static_cast<int>(c.meshes.size()); ++mesh) {
    check_finite(fastcd::gltf_pose(c, mesh, -1, 0), "gltf_pose (rest)");
    for (int clip = 0; clip < static_cast<int>(c.clips.size()) && clip < 4; ++clip) {
      const double d = c.clips[static_cast<std::size_t>(clip)].duration;
      check(std::isfinite(d) && d >= 0, "read_gltf: bad clip duration");
      for (double s : {0.0, 0.31, 0.5, 1.0, 1.5}) check_finite(fastcd::gltf_pose(c, mesh, clip, s * d), "gltf_pose");
    }
  }
})
