#pragma once
// The complementarity constraint J^T M D u = 0 and its independent rows.
#include <string>

#include "fastcd/cd/options.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

struct ComplementarityConstraint {
  SparseMatrix C;        ///< #p x #V*dim, C = J^T M D (D lifted to DOFs)
  MatrixXd basis;        ///< rank x #V*dim orthonormal rows spanning the row space of C (and of the
                         ///< fixed vertices' DOFs, when there are any)
  Index rank = 0;        ///< numerical rank of C kept (<= #p; the fixed DOFs not counted)
  Index fixed_dofs = 0;  ///< rows of `basis` beyond C's: #fixed vertices * dim
  Index rig_rank = -1;   ///< rank of J itself (what D = 1 would give); -1 when not computed
  /// When J = J_s (x) I_dim (LBS, cages): B_s (rank/dim x #V) with basis = B_s (x) I_dim, row
  /// k*dim + i of basis being row k of B_s on coordinate i. Empty for other rigs.
  MatrixXd basis_scalar;
};

/// Builds C = J^T Mv kron(diag(D), I_dim) and an orthonormal basis of its row space, with the
/// rank decided by the mass-weighted singular values above rtol * the largest. Rigs whose
/// constraint is rank-deficient (bones whose weights live where D = 0, collinear or coplanar
/// interiors, redundant handles) keep only the independent directions.
/// With `fixed` vertices (held on the rig: u_c = 0 there), their DOFs join the basis, so one
/// constrained solve keeps both.
/// dim 1 builds the scalar blocks of a rig with J = J_s (x) I (pass J_s and the scalar mass):
/// the constraint is then C_s (x) I and its basis B_s (x) I.
/// @throws std::invalid_argument on size mismatches, D outside [0, 1] or bad fixed indices.
ComplementarityConstraint complementarity_constraint(const SparseMatrix& J, const SparseMatrix& Mv,
                                                     const Eigen::Ref<const VectorXd>& D, Index dim,
                                                     double rtol = 1e-10, const VectorXi& fixed = VectorXi());

/// The leak field and constraint of a solver's precompute: D = momentum_leak_field(X, T,
/// options.leak) and C = J^T M D (with options.fixed). With options.leak.boundary_fallback,
/// when that D constrains fewer rig directions than D = 1 would (rank(J^T M D) < rank(J): a
/// boundary-dominated mesh), the Centroid field is used instead; `leak_used` says which field
/// was kept. constraint.rig_rank is rank(J) (mass-weighted, singular values above 1e-6 of the
/// largest: the rig's well-determined directions; never less than the constraint's own rank).
/// @throws std::invalid_argument when the constraint would hold nothing of a rig that moves
///         the mesh (rank 0 while rank(J) > 0): the mesh would ignore the rig. The message says
///         what to change (leak field none, interior vertices, a painted field).
struct LeakedConstraint {
  VectorXd D;
  LeakFieldKind leak_used = LeakFieldKind::Diffusion;
  ComplementarityConstraint constraint;
};
LeakedConstraint leak_field_and_constraint(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                           const SparseMatrix& J, const SparseMatrix& Mv, const CDOptions& options);

/// The same for a field already chosen (`leak_used` is what it was made as; e.g. a cached
/// precompute's): C = J^T M D, rig_rank and the same check, without the fallback.
/// @throws as leak_field_and_constraint, and std::invalid_argument for a D of the wrong size.
LeakedConstraint constraint_for_leak_field(const SparseMatrix& J, const SparseMatrix& Mv, VectorXd D,
                                           LeakFieldKind leak_used, Index dim, const CDOptions& options);

/// "diffusion", "poisson", "none", "values" or "centroid".
std::string to_string(LeakFieldKind kind);

}  // namespace fastcd
