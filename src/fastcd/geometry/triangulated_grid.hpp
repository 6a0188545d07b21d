#pragma once
// Structured simplicial meshes: libigl's triangulated_grid and a tetrahedralized box grid.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// libigl's triangulated_grid: nx*ny vertices, vertex x + nx*y at (x/(nx-1), y/(ny-1)); each
/// quad (sw, se, ne, nw) split into (sw, se, nw) and (se, ne, nw), counter-clockwise, quads in
/// row-major order.
/// @throws std::invalid_argument unless nx, ny >= 2.
Mesh triangulated_grid(int nx, int ny);

/// Box grid [0,1]^3 with nx*ny*nz vertices (vertex x + nx*(y + ny*z)), each cube split into
/// six positively oriented tets around its main diagonal (Kuhn triangulation, conforming).
/// @throws std::invalid_argument unless nx, ny, nz >= 2.
Mesh tetrahedralized_grid(int nx, int ny, int nz);

/// Simkit tutorial 23's beam: triangulated_grid(width, height), y scaled by `thickness`,
/// rotated by (x, y) <- (-y, x), then normalize_and_center. The default 40x5 beam has 200
/// vertices, 312 triangles, x in [-0.1, 0.1], y in [-1, 1].
Mesh beam(int width = 40, int height = 5, double thickness = 0.1);

}  // namespace fastcd
