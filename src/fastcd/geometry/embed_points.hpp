#pragma once
// embed_points: barycentric embedding of points (e.g. a render surface) in a simplicial mesh.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct Embedding {
  SparseMatrix E;     ///< #P x #V, rows of barycentric weights (sum 1): positions = E X
  VectorXi element;   ///< #P containing (or nearest) element of each point
  VectorXd distance;  ///< #P distance from the point to its element (0 when inside)
};

/// Finds for every point the simplex that contains it (barycentric coordinates >= -1e-12) or,
/// when it lies outside the mesh, the nearest simplex (ties: the lowest index), and returns the
/// point's own barycentric coordinates in that simplex — extrapolated for a point outside, so
/// E X reproduces every point exactly (a render surface is never snapped onto the tets). Moving
/// the mesh's vertices moves the points with E (linear, so it commutes with any deformation).
/// Candidates come from a uniform grid over the simplices' bounding boxes, searched in rings
/// of cells outward until no farther cell can hold a closer simplex.
/// @param X  #V x dim mesh vertices, T #T x (dim+1) simplices, P #P x dim points.
/// @throws std::invalid_argument on bad shapes, non-finite points or degenerate simplices.
Embedding embed_points(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                       const Eigen::Ref<const MatrixXd>& P);

}  // namespace fastcd
