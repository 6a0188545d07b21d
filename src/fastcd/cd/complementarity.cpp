#include "fastcd/cd/complementarity.hpp"

#include <optional>
#include <vector>

#include <Eigen/Eigenvalues>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

ComplementarityConstraint complementarity_constraint(const SparseMatrix& J, const SparseMatrix& Mv,
                                                     const Eigen::Ref<const VectorXd>& D, Index dim, double rtol,
                                                     const VectorXi& fixed) {
  FASTCD_CHECK(dim >= 1 && dim <= 3, "complementarity_constraint: dimension must be 1 (scalar blocks), 2 or 3, got ",
               dim);
  FASTCD_CHECK(Mv.rows() == J.rows() && Mv.cols() == J.rows(), "Mv is ", shape_of(Mv), " but J is ", shape_of(J));
  FASTCD_CHECK(D.size() * dim == J.rows(), "D has ", D.size(), " entries for ", J.rows() / dim, " vertices");
  for (Index v = 0; v < D.size(); ++v)
    FASTCD_CHECK(D(v) >= 0.0 && D(v) <= 1.0, "D(", v, ") = ", D(v), " is outside [0, 1]");
  ComplementarityConstraint c;
  c.C = SparseMatrix(J.transpose() * Mv * kron_identity(sparse_diagonal(D), dim));
  if (dim > 1) {
    const std::optional<SparseMatrix> Js = kron_identity_factor(J, dim), Ms = kron_identity_factor(Mv, dim);
    if (Js && Ms) {
      // C = C_s (x) I: C_s's singular values dim times over (the same rank decision) and
      // basis = B_s (x) I, from a QR dim^3 times cheaper.
      ComplementarityConstraint cs = complementarity_constraint(*Js, *Ms, D, 1, rtol, fixed);
      const Index n = D.size(), rs = cs.basis.rows();
      c.basis = MatrixXd::Zero(rs * dim, n * dim);
      for (Index k = 0; k < rs; ++k)
        for (Index i = 0; i < dim; ++i)
          for (Index v = 0; v < n; ++v) c.basis(k * dim + i, v * dim + i) = cs.basis(k, v);
      c.rank = cs.rank * dim;
      c.fixed_dofs = cs.fixed_dofs * dim;
      c.basis_scalar = std::move(cs.basis);
      return c;
    }
  }
  c.basis = row_space_basis(MatrixXd(c.C), Mv.diagonal(), rtol);
  c.rank = c.basis.rows();
  if (fixed.size() > 0) {
    const Index n = D.size();
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (Index k = 0; k < fixed.size(); ++k) {
      FASTCD_CHECK(fixed(k) >= 0 && fixed(k) < n, "fixed vertex ", fixed(k), " is out of range [0, ", n, ")");
      FASTCD_CHECK(!seen[static_cast<std::size_t>(fixed(k))], "fixed vertex ", fixed(k), " is listed twice");
      seen[static_cast<std::size_t>(fixed(k))] = 1;
    }
    // [C's basis; the fixed DOFs' unit rows], orthonormalised together (the unit rows are
    // independent of each other; C's rows may overlap them).
    MatrixXd rows(c.rank + fixed.size() * dim, n * dim);
    rows.topRows(c.rank) = c.basis;
    rows.bottomRows(fixed.size() * dim).setZero();
    for (Index k = 0; k < fixed.size(); ++k)
      for (Index i = 0; i < dim; ++i) rows(c.rank + k * dim + i, fixed(k) * dim + i) = 1.0;
    c.basis = row_space_basis(rows, VectorXd::Ones(n * dim), rtol);
    c.fixed_dofs = c.basis.rows() - c.rank;
  }
  return c;
}

namespace {

/// rank(J) in the mass inner product: singular values of M^{1/2} J from the small Gram matrix
/// J^T M J, above 1e-6 of the largest (the directions the rig determines well).
Index rig_rank(const SparseMatrix& J, const SparseMatrix& Mv) {
  if (J.cols() == 0) return 0;
  const MatrixXd G = MatrixXd(SparseMatrix(J.transpose() * Mv * J));
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(G, Eigen::EigenvaluesOnly);
  const VectorXd& lambda = eig.eigenvalues();
  const double top = lambda.cwiseAbs().maxCoeff();
  if (!(top > 0)) return 0;
  Index r = 0;
  for (Index k = 0; k < lambda.size(); ++k) r += lambda(k) > 1e-12 * top ? 1 : 0;
  return r;
}

void check_holds_rig(const LeakedConstraint& out, Index full) {
  FASTCD_CHECK(out.constraint.rank > 0 || full == 0, "the complementarity constraint J^T M D holds none of the rig's ",
               full, " directions: the leak field D (", to_string(out.leak_used), ", max ", out.D.maxCoeff(),
               ") is zero wherever the rig moves the mesh, so the simulated mesh would ignore the rig. Use no leak "
               "field (leak none), a mesh with interior vertices, or a painted leak field");
}

}  // namespace

std::string to_string(LeakFieldKind kind) {
  switch (kind) {
    case LeakFieldKind::Diffusion:
      return "diffusion";
    case LeakFieldKind::Poisson:
      return "poisson";
    case LeakFieldKind::None:
      return "none";
    case LeakFieldKind::Values:
      return "values";
    case LeakFieldKind::Centroid:
      return "centroid";
  }
  return "unknown";
}

LeakedConstraint leak_field_and_constraint(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                           const SparseMatrix& J, const SparseMatrix& Mv, const CDOptions& options) {
  const Index dim = X.cols();
  LeakedConstraint out;
  out.D = momentum_leak_field(X, T, options.leak);
  out.leak_used = options.leak.kind;
  out.constraint = complementarity_constraint(J, Mv, out.D, dim, options.constraint_rtol, options.fixed);
  // The Gram matrix resolves singular values down to 1e-6 of the largest, the constraint's
  // basis down to rtol: a rig with directions in between has at least the constraint's rank.
  const Index full = std::max(rig_rank(J, Mv), out.constraint.rank);
  out.constraint.rig_rank = full;
  if (options.leak.boundary_fallback && out.leak_used != LeakFieldKind::Centroid && out.constraint.rank < full) {
    LeakFieldOptions centroid = options.leak;
    centroid.kind = LeakFieldKind::Centroid;
    VectorXd D = momentum_leak_field(X, T, centroid);
    ComplementarityConstraint c = complementarity_constraint(J, Mv, D, dim, options.constraint_rtol, options.fixed);
    if (c.rank > out.constraint.rank) {
      out.D = std::move(D);
      out.leak_used = LeakFieldKind::Centroid;
      out.constraint = std::move(c);
      out.constraint.rig_rank = std::max(full, out.constraint.rank);
    }
  }
  check_holds_rig(out, full);
  return out;
}

LeakedConstraint constraint_for_leak_field(const SparseMatrix& J, const SparseMatrix& Mv, VectorXd D,
                                           LeakFieldKind leak_used, Index dim, const CDOptions& options) {
  FASTCD_CHECK(dim > 0 && D.size() * dim == J.rows(), "leak field D has ", D.size(), " entries for a rig of ", J.rows(),
               " DOFs (dim ", dim, ")");
  LeakedConstraint out;
  out.D = std::move(D);
  out.leak_used = leak_used;
  out.constraint = complementarity_constraint(J, Mv, out.D, dim, options.constraint_rtol, options.fixed);
  const Index full = std::max(rig_rank(J, Mv), out.constraint.rank);
  out.constraint.rig_rank = full;
  check_holds_rig(out, full);
  return out;
}

}  // namespace fastcd
