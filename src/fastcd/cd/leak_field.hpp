#pragma once
// The momentum-leak field D of complementary dynamics.
#include "fastcd/common/types.hpp"

namespace fastcd {

enum class LeakFieldKind {
  Diffusion,  ///< simkit / tutorial 23: D = 1 - diffuse_field(boundary -> 1, dt), min-max normalised
  Poisson,    ///< the 2020 paper: K phi = M 1 inside, phi = 0 on the boundary, D = phi / max(phi)
  None,       ///< D = 1: momentum conserved everywhere
  Values,     ///< per-vertex values given by the user (e.g. read from a file), each in [0, 1]
  Centroid,   ///< for boundary-dominated meshes: each element's centroid distance to the boundary
              ///< surface over the largest such distance (the mesh's own half-thickness),
              ///< volume-averaged to the vertices; nonzero even where every vertex is on the
              ///< boundary (a skin tetrahedralised without interior points, a thin strip)
};

struct LeakFieldOptions {
  LeakFieldKind kind = LeakFieldKind::Diffusion;
  double dt = 1.0;  ///< diffusion time of the Diffusion kind (tutorial 23 uses 1)
  VectorXd values;  ///< #V values of the Values kind
  /// When the field leaves the rig less constrained than D = 1 would (rank(J^T M D) < rank(J):
  /// a mesh with no or few interior vertices, where the Diffusion and Poisson fields vanish),
  /// use the Centroid field instead (decided with the rig: leak_field_and_constraint).
  bool boundary_fallback = false;
};

/// Per-vertex D in [0, 1]: 0 where tissue follows the rig (momentum leaks), 1 where momentum
/// is conserved against it.
/// @throws std::invalid_argument for bad meshes or dt <= 0.
VectorXd momentum_leak_field(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                             const LeakFieldOptions& options = {});

}  // namespace fastcd
