#pragma once
// Surfaces of several closed shells (a character's body, eyes, teeth and buttons; a cow made of
// separate parts) filled with tets shell by shell: each connected component (by shared edges)
// is checked and meshed on its own, so shells that nest (an eyeball inside a head) or cross
// each other (a jacket over a body) each become a solid of their own instead of a cavity or a
// meshing failure. The shells' tets are then one mesh on the input vertices.
#include <string>

#include "fastcd/common/types.hpp"
#include "fastcd/meshing/tetrahedralize.hpp"

namespace fastcd {

/// What tetrahedralize_shells made.
struct ShellTetMesh {
  /// Rows 0 .. #V - 1 of tets.X are the input vertices bit for bit; every shell's interior
  /// points follow, shell by shell. min_dihedral, slivers and seconds cover every shell.
  TetMesh tets;
  MatrixXi F;          ///< the surface as meshed: the input triangles, inward shells reversed
  Index shells = 0;    ///< connected components (by shared edges)
  Index reversed = 0;  ///< shells that wound inward (negative volume), reversed before meshing
  Index cached = 0;    ///< shells whose tets came from the cache
};

/// Fills every shell of the surface (V, F) with tets through tetrahedralize_cached (so each
/// shell is cached on its own, keyed by its own vertices and triangles).
/// @throws std::invalid_argument naming the shell (its index, triangle count) and what is wrong
///         with it in the input's vertex and triangle indices: open, non-manifold, inconsistently
///         oriented or self-intersecting (see check_surface; triangles of different shells may
///         cross), or a vertex used by no triangle; what tetrahedralize_cached throws.
ShellTetMesh tetrahedralize_shells(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                                   const TetrahedralizeOptions& options = {}, const std::string& cache_dir = "");

}  // namespace fastcd
