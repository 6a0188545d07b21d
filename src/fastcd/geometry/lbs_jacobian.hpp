#pragma once
// lbs_jacobian: Jacobian of linear blend skinning with respect to the bones' affine maps.
#include "fastcd/common/types.hpp"

namespace fastcd {

/// J with x = J p for LBS x_v = sum_b W(v, b) A_b [V_v; 1], A_b = [L_b | t_b] (d x (d+1)).
/// p stacks one block of d*(d+1) numbers per bone, each the column-major vec(A_b)
/// (2D: [A00, A10, A01, A11, tx, ty]); the identity pose is [1,0,0,1,0,0] per bone.
/// Entry rule (simkit): J(v*d + r, (b*(d+1) + c)*d + r) = W(v, b) * [V_v, 1](c).
///
/// Returned **sparse**, not dense as in simkit: every row has at most #bones*(d+1) non-zeros
/// out of #bones*d*(d+1) columns (the r-th coordinate only sees the r-th row of each A_b), and
/// bones with zero weight on a vertex add nothing. Even for dense W (skinning eigenmodes) this
/// stores d times fewer values than the dense matrix. Built directly, without Kronecker
/// products.
///
/// @param V  #V x d rest positions (d >= 1).
/// @param W  #V x #bones weights (no normalisation is applied).
/// @return   (#V*d) x (#bones*d*(d+1)) sparse matrix.
/// @throws std::invalid_argument if the row counts differ or an entry is not finite.
SparseMatrix lbs_jacobian(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXd>& W);

}  // namespace fastcd
