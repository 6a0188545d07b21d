#pragma once
// Benchmark cases shared by the Google Benchmark suite and `fastcd bench`: the Spot tet mesh
// (4,447 vertices, 18,098 tets; tetgen -pYq1.414 of Keenan Crane's Spot, see
// shared/data/SOURCES.md) rigged with point handles at its six extreme vertices and
// biharmonic weights — a character-sized LBS rig.
#include <string>
#include <vector>

#include "fastcd/fastcd.hpp"
#include "fastcd/io/mesh_io.hpp"

namespace fastcd::bench {

struct RiggedMesh {
  std::string name;
  Mesh mesh;  ///< normalised (centred, largest extent 2)
  LinearRig rig;
};

/// Point handles at the vertices of smallest and largest x, y and z (deduplicated), each an
/// affine bone with biharmonic weights.
inline LinearRig extremity_handle_rig(const Mesh& m, const SparseMatrix& Mv) {
  std::vector<std::vector<Index>> handles;
  for (Index k = 0; k < m.X.cols(); ++k) {
    Index lo, hi;
    m.X.col(k).minCoeff(&lo);
    m.X.col(k).maxCoeff(&hi);
    for (Index v : {lo, hi}) {
      bool seen = false;
      for (const auto& h : handles) seen = seen || h[0] == v;
      if (!seen) handles.push_back({v});
    }
  }
  return lbs_rig(m.X, biharmonic_weights(m.X, m.T, handles), Mv);
}

/// The Spot case, or an empty name when the data folder does not have it.
inline RiggedMesh spot_case(const std::string& shared_dir, double rho = 1e3) {
  const std::string stem = shared_dir + "/data/derived-tetgen/spot_pYq1.414";
  RiggedMesh c;
  try {
    c.mesh = io::read_tetgen(stem + ".node", stem + ".ele");
  } catch (const std::exception&) {
    return c;
  }
  c.mesh.X = normalize_and_center(c.mesh.X).X;
  c.name = "spot";
  c.rig = extremity_handle_rig(c.mesh, kron_identity(massmatrix(c.mesh.X, c.mesh.T, rho), 3));
  return c;
}

}  // namespace fastcd::bench
