#pragma once
// Tetrahedral meshes filling a closed triangle surface, its vertices kept exactly as the first
// tet vertices (so skin weights copy over and rendering the skin needs no interpolation).
// The default mesher is Netgen's nglib (Debian libnglib-dev, LGPL-2.1, linked dynamically).
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Tet sizes follow the surface's edge lengths (the surface is never refined; Netgen adds
/// interior points only where the surface's sizes call for them).
struct TetrahedralizeOptions {
  /// Netgen's grading, 0 (uniform) .. 1 (grows fast away from fine surface detail).
  double grading = 0.3;
  /// Netgen's volume optimisation passes (improve the worst angles; the surface never moves).
  int optimize_steps = 3;
};

/// A tet mesh of a surface's interior.
struct TetMesh {
  MatrixXd X;                  ///< #X x 3; rows 0 .. surface_vertices - 1 are the input vertices, bit for bit
  MatrixXi T;                  ///< #T x 4, positively oriented (det(b - a, c - a, d - a) > 0)
  Index surface_vertices = 0;  ///< the input surface's vertex count
  double min_dihedral = 0;     ///< smallest dihedral angle of any tet (degrees)
  Index slivers = 0;           ///< tets with a dihedral angle under 5 degrees
  double seconds = 0;          ///< meshing wall time
  std::string mesher;          ///< "netgen"
};

/// Fills the closed, outward-oriented, edge-manifold, self-intersection-free surface (V, F)
/// with tets. Every vertex of V must be used by F. Calls are serialised (Netgen keeps global
/// state); Netgen's own output is silenced.
/// @throws std::invalid_argument naming what is wrong with the surface (open, non-manifold,
///         inconsistently oriented or self-intersecting: the first edges or triangles, see
///         check_surface; inward orientation; unused vertices), or std::runtime_error when the
///         mesher fails or returns a mesh that does not keep the surface.
TetMesh tetrahedralize(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                       const TetrahedralizeOptions& options = {});

}  // namespace fastcd
