#pragma once
// The fallback mesher that always works: a voxel grid embedding the skin. Cells are kept when
// the surface's generalised winding number at their centre is >= 1/2 (inside, even for open or
// self-intersecting skins) or when they hold a surface vertex (so thin parts are never lost and
// every vertex embeds inside the tets); each cell is split into the six Kuhn tets. The surface is
// not kept as tet vertices: it is embedded (embed_points) and its weights fitted (harmonic_fit).
#include "fastcd/common/defaults.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

struct VoxelOptions {
  int resolution =
      defaults::voxel_resolution;  ///< cells along the longest side of the surface's bounding box, in [2, 256]
};

struct VoxelMesh {
  MatrixXd X;               ///< #X x 3 grid vertices of the kept cells
  MatrixXi T;               ///< #T x 4 positively oriented tets (6 per cell, conforming)
  Index cells = 0;          ///< kept cells
  Index inside_cells = 0;   ///< of those, kept for their winding number
  Index dropped_cells = 0;  ///< inside cells dropped: in a component holding no surface vertex
  double cell_size = 0;     ///< edge length of a cell
  double seconds = 0;       ///< meshing wall time
};

/// Generalised winding number of the triangles (V, F) at points P (#P x 3): the sum of the
/// triangles' signed solid angles over 4 pi (1 inside a closed outward surface, 0 outside,
/// fractional near holes).
VectorXd winding_numbers(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                         const Eigen::Ref<const MatrixXd>& P);

/// Voxel tets for the surface (V, F): any triangle soup, open, non-manifold or self-intersecting.
/// @throws std::invalid_argument for bad shapes, out-of-range indices, non-finite positions, a
///         surface with no extent, or a resolution outside [2, 256].
VoxelMesh voxel_mesh(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                     const VoxelOptions& options = {});

}  // namespace fastcd
