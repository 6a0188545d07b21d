#pragma once
// polar_svd: closest rotations (det +1) and the symmetric stretch, batched, 2D and 3D.
#include <Eigen/Dense>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Rotation-variant polar decomposition F = R S of one matrix, R a proper rotation (det +1)
/// closest to F in the Frobenius norm and S = R^T F symmetric. When det F < 0, S carries one
/// negative eigenvalue (its smallest singular value is negated), as in simkit.
///
/// 2x2: closed form R = rot(atan2(F10 - F01, F00 + F11)) (identity when both are 0, where
/// every rotation is equally close). 3x3: Eigen::JacobiSVD, with the last column of U negated
/// when det(U V^T) < 0. (The batched rotation-only kernels use the faster exact
/// detail::closest_rotation_3x3 and fall back to this SVD.)
template <int dim>
void polar_svd(const Eigen::Matrix<double, dim, dim>& F, Eigen::Matrix<double, dim, dim>& R,
               Eigen::Matrix<double, dim, dim>* S = nullptr);

struct PolarDecomposition {
  VectorXd R;  ///< #F*dim^2 rotations, each flattened row-major
  VectorXd S;  ///< #F*dim^2 symmetric stretches, each flattened row-major
};

/// Batched polar_svd over stacked row-major flattened matrices (the layout of G x).
/// @param F    #F*dim^2 vector.
/// @param dim  2 or 3.
/// @throws std::invalid_argument if dim is not 2/3, F.size() is not a multiple of dim^2 or an
///         entry is not finite.
PolarDecomposition polar_svd(const Eigen::Ref<const VectorXd>& F, Index dim);

/// Rotations only, written into R (resized). No allocation when R already has F's size.
void polar_rotations(const Eigen::Ref<const VectorXd>& F, Index dim, VectorXd& R);

namespace detail {
/// Closest rotation of one row-major dim x dim matrix, no checks, no threading.
template <int dim>
void closest_rotation(const double* F, double* R);

/// Solver kernel: closest rotations of `count` row-major dim x dim matrices, no checks.
/// Parallel (OpenMP) above a few thousand matrices; each result depends only on its own input,
/// so the output is independent of the thread count.
template <int dim>
void polar_rotations_unchecked(const double* F, Index count, double* R);

/// Closest rotation of one row-major 3x3 F, exactly (Horn's quaternion eigenproblem, its
/// characteristic polynomial solved by Newton; about 10x faster than a 3x3 JacobiSVD). Returns
/// false, leaving R untouched, when F is zero, not finite or its closest rotation is
/// ill-determined (the two largest eigenvalues of Horn's matrix nearly coincide); callers then
/// fall back to the SVD.
bool closest_rotation_3x3(const double* F, double* R);

/// closest_rotation<3> of `count` 3x3 matrices, several at a time in SIMD lanes (the algorithm
/// of closest_rotation_3x3, SVD fallback per matrix). Matrix c's entry (i, j) is read from
/// F[c * mat_stride + i * row_stride + j] and its rotation written to the same place in R
/// (stacked row-major matrices: mat_stride 9, row_stride 3). Results depend only on each
/// matrix, not on how the batch is split.
void closest_rotations_3x3_strided(const double* F, Index count, Index mat_stride, Index row_stride, double* R);

/// The same for up to 8 matrices stored lane-wise: entry (i, j) of matrix l at F[(3i + j)*8 + l]
/// (8 x 9 doubles), rotations written likewise to R; lanes count..7 of R are the identity.
void closest_rotations_3x3_lanes(const double* F, int count, double* R);

/// closest_rotations_3x3_lanes on two batches at once (their Newton iterations interleaved: two
/// independent latency chains), with results identical to two separate calls.
void closest_rotations_3x3_lanes2(const double* F0, int count0, const double* F1, int count1, double* R0, double* R1);
}  // namespace detail

}  // namespace fastcd
