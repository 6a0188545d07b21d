#pragma once
// cage_coordinates: generalized barycentric coordinates of points with respect to a closed cage
// (a polygon in 2D, a triangle mesh in 3D), the weights of a cage rig: x_i = sum_j W(i, j) c_j.
//
// | name   | meaning                                                        | shape          |
// |--------|----------------------------------------------------------------|----------------|
// | X      | query points (e.g. the rest vertices of the simulation mesh)   | #X x dim       |
// | cage_V | cage vertices (the rig's handles)                              | #C x dim       |
// | cage_F | cage boundary: directed edges (2D) or oriented triangles (3D) | #E x 2, #F x 3 |
// | W      | coordinates, row i = weights of point i                        | #X x #C        |
//
// The cage boundary must be closed and consistently oriented, in either direction:
//   2D: every cage vertex starts as many edges as it ends (one closed polygon such as the
//       walrus cage's 0-1, 1-2, ..., 8-0, or several disjoint loops, e.g. a polygon with holes
//       oriented opposite to the outer loop);
//   3D: every directed edge (a, b) of a triangle appears exactly once and its reverse (b, a)
//       exactly once in another triangle (a closed, oriented 2-manifold surface).
// Cage vertices that no edge/triangle uses get weight 0 everywhere.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// Mean value coordinates of points with respect to a closed cage.
///
/// 2D (Hormann & Floater 2006, "Mean value coordinates for arbitrary planar polygons"), summed
/// edge by edge so concave polygons and several loops work: for the edge (a, b) seen from x
/// under the signed angle alpha (sign = orientation of (c_a - x, c_b - x)),
///     w_a += tan(alpha / 2) / |c_a - x|,   w_b += tan(alpha / 2) / |c_b - x|,
/// then W(i, :) = w / sum(w). tan(alpha / 2) is evaluated as 2A / (r_a r_b + D) when D >= 0
/// and as (r_a r_b - D) / (2A) when D < 0 (2A = det(c_a - x, c_b - c_a), D = dot products),
/// which keeps full precision arbitrarily close to the edges.
///
/// 3D (Ju, Schaefer & Warren 2005, "Mean value coordinates for closed triangular meshes"):
/// per triangle (i, j, k) with unit vectors u = (c - x) / |c - x|, the integral of u over the
/// triangle's spherical projection is m = 1/2 (theta_ij n_ij + theta_jk n_jk + theta_ki n_ki)
/// (theta = arc length, n_ij = unit normal of the plane through x, c_i, c_j); the triangle's
/// share lambda solves [u_i u_j u_k] lambda = m and w_i += lambda_i / |c_i - x|. This is their
/// formula (exactly equal to their pseudo-code's theta/c/s expression) evaluated with cross
/// products and atan2 instead of arcsin and sqrt(1 - c^2), which loses far less precision
/// near the cage. Their robust handling is kept: a triangle whose plane contains x while x lies
/// outside it contributes nothing (its contribution tends to 0 there).
///
/// On and near the boundary: a point closer than eps = 1e-12 * (cage bounding-box diagonal)
/// to a cage vertex gets that vertex's delta row; otherwise, closer than eps to an edge (2D) or
/// triangle (3D), it gets the linear (barycentric) interpolation of the closest point of that
/// simplex. So there is never a NaN on the cage, and rows stay continuous across it.
///
/// Properties (inside the cage): rows sum to 1, linear precision sum_j W(i, j) cage_V.row(j)
/// = X.row(i) (to rounding), W = identity at the cage vertices, piecewise-linear along the
/// cage, smooth inside; non-negative for convex cages (may be negative inside concave ones).
///
/// Outside the cage: the same formulas are used and rows still sum to 1 and reproduce linear
/// functions, but weights take both signs. In 2D Hormann & Floater show the coordinates are
/// well defined in the whole plane for polygons without self-intersections. In 3D the total
/// weight can in principle vanish outside a non-convex cage; if it does for a point,
/// std::runtime_error names the point (it never happens inside a closed cage).
///
/// @param X       #X x dim query points, dim = 2 or 3.
/// @param cage_V  #C x dim cage vertices, #C >= 3.
/// @param cage_F  2D: #E x 2 directed edges; 3D: #F x 3 oriented triangles (see above).
/// @return        #X x #C coordinates W.
/// @throws std::invalid_argument naming the argument for: dim not 2/3 or X and cage_V of
///         different dims; fewer than 3 cage vertices; cage_F with the wrong number of
///         columns, too few rows, an index out of range (naming the row), an edge from a
///         vertex to itself, a zero-length edge or zero-area triangle (naming the row), or a
///         boundary that is not closed/consistently oriented; NaN or Inf in X or cage_V.
/// @throws std::runtime_error if the weights of a point (outside a 3D cage) sum to zero.
MatrixXd mean_value_coordinates(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                                const Eigen::Ref<const MatrixXi>& cage_F);

/// Harmonic coordinates (Joshi, Meyer, DeRose, Green & Sanocki 2007, "Harmonic coordinates for
/// character articulation"): W(:, j) solves Laplace's equation inside the cage with Dirichlet
/// values on the cage = the piecewise-linear hat of cage vertex j (linear along each edge in
/// 2D, barycentric on each triangle in 3D).
///
/// Discretisation: a regular grid of nodes (pixels in 2D, voxels in 3D) with spacing
/// h = (longest side of the cage's bounding box) / resolution, padded by 2 cells on every side.
/// A node is free when it lies inside the cage (winding number); every other node touching a
/// free node or a query point's cell is a Dirichlet node whose value is the hat function at its
/// closest point on the cage. The 5-point (2D) / 7-point (3D) Laplacian on the free nodes is
/// factored once (Eigen::SimplicialLDLT) and solved for all #C right-hand sides; the result is
/// interpolated bilinearly (trilinearly) at X. The boundary is thus captured to O(h): linear
/// functions are reproduced only approximately, with an error that falls like 1/resolution.
/// Measured max |W cage_V - X| / (cage bounding-box diagonal) (tests/rigs):
///     walrus (9-vertex concave cage, its 1559 mesh vertices): 5.1e-3 at resolution 64,
///         2.7e-3 at 128, 1.3e-3 at 256;
///     regular heptagon: 2.0e-2 (16), 8.9e-3 (32), 4.9e-3 (64), 2.2e-3 (128);
///     rotated, scaled box in 3D: 1.7e-2 (12), 8.6e-3 (24), 5.8e-3 (36), 4.8e-3 (64).
/// (Cages whose edges/faces pass through grid nodes, such as axis-aligned boxes, are exact.)
/// The discrete maximum principle keeps the weights in [0, 1]; rows are clamped at 0 (against
/// rounding) and divided by their sum, so they sum to 1 to rounding. Points closer than
/// 1e-12 * (bounding-box diagonal) to the cage get the hat values there directly.
///
/// Cost (Release, one core): walrus at resolution 128 (~10^4 unknowns) takes ~0.03 s, at 256
/// ~0.2 s. In 3D the direct factorisation of a resolution^3 grid grows quickly: a box cage
/// takes ~0.04 s at resolution 32 and ~3 s at 64.
///
/// @param X           #X x dim query points inside the cage (or on it).
/// @param cage_V      #C x dim cage vertices; cage_F as for mean_value_coordinates.
/// @param resolution  grid cells along the longest side of the cage's bounding box, >= 4.
/// @return            #X x #C coordinates W.
/// @throws std::invalid_argument as mean_value_coordinates, for resolution < 4, and for a
///         point outside the cage (naming the first such point).
/// @throws std::runtime_error if the grid system cannot be factored.
MatrixXd harmonic_coordinates(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                              const Eigen::Ref<const MatrixXi>& cage_F, int resolution = 64);

}  // namespace fastcd
