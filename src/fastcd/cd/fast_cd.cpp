#include "fastcd/cd/fast_cd.hpp"

#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/cluster_grouping_matrices.hpp"
#include "fastcd/geometry/elastic_operators.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/solvers/polar_svd.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"
#include "fastcd/subspace/orthonormalize.hpp"
#include "fastcd/subspace/skinning_eigenmodes.hpp"
#include "fastcd/subspace/spectral_cubature.hpp"

namespace fastcd {

FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options) {
  validate(options);
  check_mesh(X, T, "fast_cd_precompute");
  FASTCD_CHECK(J.rows() == X.size(), "rig Jacobian J has ", J.rows(), " rows, the mesh has ", X.size(), " DOFs");
  FASTCD_CHECK(p0.size() == J.cols(), "rest pose p0 has ", p0.size(), " entries, J has ", J.cols(), " columns");
  FASTCD_CHECK(options.clusters <= T.rows(), options.clusters, " clusters requested for ", T.rows(), " elements");
  FastCD sys;
  sys.dim = X.cols();
  sys.n_vertices = X.rows();
  sys.options = options;
  sys.J = J;
  sys.p0 = p0;
  const ElasticOperators op = elastic_operators(X, T, options.ym, options.pr, options.rho);
  sys.Mv = op.Mv;
  sys.D = momentum_leak_field(X, T, options.leak);
  sys.constraint = complementarity_constraint(J, op.Mv, sys.D, sys.dim, options.constraint_rtol);

  // Idea 1: rig-orthogonal skinning eigenmodes.
  const MatrixXd Aeq = lbs_weight_space_constraint(X, T, sys.constraint.C, options.constraint_rtol);
  sys.weight_constraint_rank = Aeq.rows();
  const SkinningEigenmodes modes = skinning_eigenmodes(X, T, options.modes, 1.0, std::nullopt, Aeq);
  sys.W = modes.W;
  sys.E = modes.E;
  sys.B = orthonormalize(MatrixXd(modes.B), op.Mv);
  FASTCD_ENSURE(sys.B.cols() == modes.B.cols(), "the mode subspace lost rank (", modes.B.cols(), " -> ",
                sys.B.cols(), " columns)");
  const MatrixXd CB = sys.constraint.C * sys.B;
  sys.structural_residual = CB.norm() / (MatrixXd(sys.constraint.C).norm() * sys.B.norm());

  // Idea 2: one rotation per cluster of elements.
  const SpectralCubature sc = spectral_cubature(X, T, sys.W, options.clusters);
  sys.labels = sc.labels;
  sys.clusters = options.clusters;
  const ClusterGrouping grouping = cluster_grouping_matrices(sc.labels, X, T);
  const Index d2 = sys.dim * sys.dim;
  // Per-cluster sum of mu vol_e F_e: PAMue = kron(P AMu, I_{dim^2}) (#clusters*dim^2 x #T*dim^2).
  SparseMatrix PAMu = SparseMatrix(grouping.G * op.AMu);
  if (PAMu.rows() < sys.clusters) PAMu.conservativeResize(sys.clusters, PAMu.cols());  // trailing empty clusters
  const SparseMatrix PAMue = kron_identity(PAMu, d2);
  const SparseMatrix PG = SparseMatrix(PAMue * op.G);
  sys.GB = PG * sys.B;
  sys.GJ = PG * J;
  const MatrixXd LB = op.L * sys.B;
  const MatrixXd MB = op.Mv * sys.B;
  sys.BMB = sys.B.transpose() * MB;
  sys.BMJ = MB.transpose() * J;
  sys.BLJ = LB.transpose() * J;
  const double h2 = options.h * options.h;
  sys.Hr.compute(sys.B.transpose() * LB + sys.BMB / h2);
  FASTCD_ENSURE(sys.Hr.info() == Eigen::Success, "reduced system matrix is not positive definite");
  sys.K = sys.Hr.solve(sys.GB.transpose());
  sys.S = sys.GB * sys.K;
  return sys;
}

void fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCDWorkspace& ws,
                  int iterations) {
  const Index m = sys.state_dim(), np = sys.J.cols(), nf = sys.GB.rows();
  FASTCD_CHECK(z.size() == m && z_dot.size() == m && z_out.size() == m, "z, z_dot and the output need ", m,
               " entries, got ", z.size(), ", ", z_dot.size(), ", ", z_out.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np,
               " entries, got ", p.size(), ", ", p_dot.size(), ", ", p_next.size());
  const int iters = iterations < 0 ? sys.options.iterations : iterations;
  const double h = sys.options.h, h2 = h * h;
  ws.c0.resize(m);
  ws.z0.resize(m);
  ws.F0.resize(nf);
  ws.F.resize(nf);
  ws.r.resize(nf);
  // c0 = BMB y / h^2 - BMJ q / h^2 - BLJ p_next, y = z + h z_dot, q = p_next - p - h p_dot.
  ws.z0 = z + h * z_dot;
  ws.c0.noalias() = sys.BMB * ws.z0;
  ws.r.head(np) = p_next - p - h * p_dot;  // r as scratch for q
  ws.c0.noalias() -= sys.BMJ * ws.r.head(np);
  ws.c0 /= h2;
  ws.c0.noalias() -= sys.BLJ * p_next;
  // z0 = Hr^{-1} c0; F0 = GB z0 + GJ p_next; the first local step sees the warm start z.
  ws.z0 = ws.c0;
  sys.Hr.solveInPlace(ws.z0);
  ws.F0.noalias() = sys.GJ * p_next;
  ws.F.noalias() = sys.GB * z;
  ws.F += ws.F0;
  ws.F0.noalias() += sys.GB * ws.z0;
  z_out = z;
  for (int it = 0; it < iters; ++it) {
    polar_rotations(ws.F, sys.dim, ws.r);
    if (it + 1 < iters || sys.options.tolerance > 0) {
      ws.F = ws.F0;
      ws.F.noalias() += sys.S * ws.r;
    }
    if (sys.options.tolerance > 0) {
      ws.c0 = z_out;  // previous iterate
      z_out = ws.z0;
      z_out.noalias() += sys.K * ws.r;
      if ((z_out - ws.c0).norm() < sys.options.tolerance) return;
    }
  }
  if (iters > 0 && sys.options.tolerance == 0) {
    z_out = ws.z0;
    z_out.noalias() += sys.K * ws.r;
  }
}

VectorXd fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) {
  FastCDWorkspace ws;
  VectorXd out(sys.state_dim());
  fast_cd_step(sys, z, z_dot, p, p_dot, p_next, out, ws, iterations);
  return out;
}

CDState fast_cd_initial_state(const FastCD& sys) {
  CDState s;
  s.s = VectorXd::Zero(sys.state_dim());
  s.s_dot = VectorXd::Zero(sys.state_dim());
  s.p = sys.p0;
  s.p_dot = VectorXd::Zero(sys.p0.size());
  return s;
}

void fast_cd_advance(const FastCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next, FastCDWorkspace& ws) {
  VectorXd z_new(sys.state_dim());
  fast_cd_step(sys, state.s, state.s_dot, state.p, state.p_dot, p_next, z_new, ws);
  const double h = sys.options.h;
  state.s_dot = (z_new - state.s) / h;
  state.p_dot = (p_next - state.p) / h;
  state.s = z_new;
  state.p = p_next;
}

VectorXd fast_cd_lift(const FastCD& sys, const Eigen::Ref<const VectorXd>& z) {
  FASTCD_CHECK(z.size() == sys.state_dim(), "z has ", z.size(), " entries, expected ", sys.state_dim());
  return sys.B * z;
}

MatrixXd fast_cd_positions(const FastCD& sys, const CDState& state) {
  return unflatten(sys.J * state.p + fast_cd_lift(sys, state.s), sys.dim);
}

double fast_cd_energy(const FastCD& sys, const Eigen::Ref<const VectorXd>& zc, const Eigen::Ref<const VectorXd>& z,
                      const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) {
  // Up to a constant: 1/(2h^2) ||B(zc - y) + J q||_M^2 + 1/2 zc^T B^T L B zc + zc^T B^T L J p+
  //                   - sum_c R_c : (GB zc + GJ p+)_c   (the per-element ||F||^2 terms are
  // quadratic in zc and folded into B^T L B; the constant parts do not depend on zc).
  const double h = sys.options.h, h2 = h * h;
  const VectorXd y = z + h * z_dot, q = p_next - p - h * p_dot;
  const MatrixXd BLB = MatrixXd(sys.Hr.matrixL()) * MatrixXd(sys.Hr.matrixU()) - sys.BMB / h2;
  const VectorXd dz = zc - y;
  const double inertia = 0.5 * (dz.dot(sys.BMB * dz) + 2.0 * dz.dot(sys.BMJ * q)) / h2;
  const VectorXd F = sys.GB * zc + sys.GJ * p_next;
  VectorXd R;
  polar_rotations(F, sys.dim, R);
  return inertia + 0.5 * zc.dot(BLB * zc) + zc.dot(sys.BLJ * p_next) - R.dot(F);
}

}  // namespace fastcd
