#pragma once
// biharmonic_weights: smooth, partition-of-unity skinning weights for handles given without
// weights.
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Unconstrained biharmonic weights (Jacobson et al. 2011 without the bound constraints; what
/// libigl's harmonic(k = 2) computes): for each handle j, minimise w^T K M^{-1} K w with w = 1
/// on handle j's vertices and w = 0 on every other handle's vertices. K is the cotangent
/// stiffness and M the lumped mass. Because constants lie in the kernel, the weights sum to
/// 1 at every vertex (partition of unity; each row is divided by its sum after the solve, so it
/// holds to rounding, not to the solver's 1e-11); they are smooth but, unlike bounded
/// biharmonic weights, may leave [0, 1] slightly far from the handles.
///
/// @param X        #V x dim rest positions, T #T x (dim+1) simplices.
/// @param handles  per handle, the vertex indices it pins (non-empty, disjoint).
/// @return         #V x #handles weights.
/// @throws std::invalid_argument for empty or overlapping handle sets or bad indices.
MatrixXd biharmonic_weights(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                            const std::vector<std::vector<Index>>& handles);

/// The vertices a handle pins: the nearest vertex of a point handle, or the vertices nearest
/// to `samples` points spread along a bone from a to b (duplicates removed).
std::vector<Index> nearest_vertices_on_segment(const Eigen::Ref<const MatrixXd>& X, const Eigen::VectorXd& a,
                                               const Eigen::VectorXd& b, int samples);

}  // namespace fastcd
