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
  // On small meshes the modes' LBS columns can be dependent (k*dim*(dim+1) columns, but the
  // rig-orthogonal space has fewer dimensions): keep an independent M-orthonormal basis.
  sys.B = orthonormalize(MatrixXd(modes.B), op.Mv);
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

  // The iteration's own coordinates: P reads the rotation-relevant part of F, Q builds r.
  MatrixXd P, Q;
  const Index c = sys.clusters;
  if (sys.dim == 2) {
    P = MatrixXd::Zero(2 * c, 4 * c);
    Q = MatrixXd::Zero(4 * c, 2 * c);
    for (Index k = 0; k < c; ++k) {
      P(2 * k, 4 * k) = P(2 * k, 4 * k + 3) = 1.0;  // F00 + F11
      P(2 * k + 1, 4 * k + 2) = 1.0;                // F10 - F01
      P(2 * k + 1, 4 * k + 1) = -1.0;
      Q(4 * k, 2 * k) = Q(4 * k + 3, 2 * k) = 1.0;  // R = [c, -s; s, c]
      Q(4 * k + 2, 2 * k + 1) = 1.0;
      Q(4 * k + 1, 2 * k + 1) = -1.0;
    }
  } else {
    P = MatrixXd::Identity(9 * c, 9 * c);
    Q = P;
  }
  sys.Z_y = sys.Hr.solve(sys.BMB) / h2;
  sys.Z_q = sys.Hr.solve(sys.BMJ) / h2;
  sys.Z_p = sys.Hr.solve(sys.BLJ);
  sys.Gf = P * sys.GB;
  sys.GJf = P * sys.GJ;
  sys.Kf = sys.K * Q;
  // Fold (F <- F0 + Sf r, nf^2 per iteration) only while it is cheaper than the two thin
  // products of the plain iteration (z = z0 + Kf r, F = Gf z + GJf p: 2 nf m).
  if (sys.Gf.rows() <= 2 * sys.state_dim()) {
    sys.F_y = sys.Gf * sys.Z_y;
    sys.F_q = sys.Gf * sys.Z_q;
    sys.F_p = sys.GJf - sys.Gf * sys.Z_p;
    sys.Sf = P * sys.S * Q;
  }
  if (options.gravity.size() > 0) {
    FASTCD_CHECK(options.gravity.size() == sys.dim, "gravity needs ", sys.dim, " entries, got ", options.gravity.size());
    sys.Bf_ext = MB.transpose() * options.gravity.replicate(X.rows(), 1);
    sys.z_g = sys.Hr.solve(sys.Bf_ext);
    if (sys.folded()) sys.F_g = sys.Gf * sys.z_g;
  }
  return sys;
}

namespace {

/// Local step on the iteration's coordinates: 2D (x, y) -> (cos, sin); 3D F -> R.
template <int dim>
void local_rotations(const VectorXd& F, VectorXd& r) {
  if constexpr (dim == 2) {
    const Index c = F.size() / 2;
    for (Index k = 0; k < c; ++k) {
      const double x = F(2 * k), y = F(2 * k + 1), n2 = x * x + y * y;
      if (n2 > 0) {
        const double inv = 1.0 / std::sqrt(n2);
        r(2 * k) = x * inv;
        r(2 * k + 1) = y * inv;
      } else {
        r(2 * k) = 1.0;
        r(2 * k + 1) = 0.0;
      }
    }
  } else {
    detail::polar_rotations_unchecked<3>(F.data(), F.size() / 9, r.data());
  }
}

template <int dim>
void iterate(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
             const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
             const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCDWorkspace& ws, int iters) {
  const double h = sys.options.h;
  const Index m = sys.state_dim(), np = sys.J.cols(), nf = sys.Gf.rows();
  const bool folded = sys.folded();
  ws.q.resize(np);
  ws.z0.resize(m);
  ws.zprev.resize(m);
  ws.F0.resize(nf);
  ws.F.resize(nf);
  ws.r.resize(nf);
  ws.zprev = z + h * z_dot;  // y
  ws.q = p_next - p - h * p_dot;
  ws.z0.noalias() = sys.Z_y * ws.zprev;
  ws.z0.noalias() -= sys.Z_q * ws.q;
  ws.z0.noalias() -= sys.Z_p * p_next;
  if (sys.z_g.size() > 0) ws.z0 += sys.z_g;
  if (folded) {  // F0 = Gf z0 + GJf p_next
    ws.F0.noalias() = sys.F_y * ws.zprev;
    ws.F0.noalias() -= sys.F_q * ws.q;
    ws.F0.noalias() += sys.F_p * p_next;
    if (sys.F_g.size() > 0) ws.F0 += sys.F_g;
  } else {  // F0 = GJf p_next only
    ws.F0.noalias() = sys.GJf * p_next;
  }
  ws.F.noalias() = sys.Gf * z;
  ws.F.noalias() += sys.GJf * p_next;
  z_out = z;
  const bool check = sys.options.tolerance > 0;
  for (int it = 0; it < iters; ++it) {
    local_rotations<dim>(ws.F, ws.r);
    if (check || !folded) {
      if (check) ws.zprev = z_out;
      z_out = ws.z0;
      z_out.noalias() += sys.Kf * ws.r;
      if (check && (z_out - ws.zprev).norm() < sys.options.tolerance) return;
    }
    if (it + 1 < iters) {
      ws.F = ws.F0;
      if (folded) ws.F.noalias() += sys.Sf * ws.r;
      else ws.F.noalias() += sys.Gf * z_out;
    }
  }
  if (iters > 0 && folded && !check) {
    z_out = ws.z0;
    z_out.noalias() += sys.Kf * ws.r;
  }
}

}  // namespace

void fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCDWorkspace& ws,
                  int iterations) {
  const Index m = sys.state_dim(), np = sys.J.cols();
  FASTCD_CHECK(z.size() == m && z_dot.size() == m && z_out.size() == m, "z, z_dot and the output need ", m,
               " entries, got ", z.size(), ", ", z_dot.size(), ", ", z_out.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np,
               " entries, got ", p.size(), ", ", p_dot.size(), ", ", p_next.size());
  const int iters = iterations < 0 ? sys.options.iterations : iterations;
  if (sys.dim == 2) iterate<2>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
  else iterate<3>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
}

VectorXd fast_cd_step(const FastCD& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) {
  FastCDWorkspace ws;
  VectorXd out(sys.state_dim());
  fast_cd_step(sys, z, z_dot, p, p_dot, p_next, out, ws, iterations);
  return out;
}

CDState fast_cd_initial_state(const FastCD& sys) { return rest_state(sys.state_dim(), sys.p0); }

void fast_cd_advance(const FastCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next, FastCDWorkspace& ws) {
  ws.s_next.resize(sys.state_dim());
  fast_cd_step(sys, state.s, state.s_dot, state.p, state.p_dot, p_next, ws.s_next, ws);
  accept_step(state, ws.s_next, p_next, sys.options.h);
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
  const double external = sys.Bf_ext.size() > 0 ? -sys.Bf_ext.dot(zc) : 0.0;
  return inertia + 0.5 * zc.dot(BLB * zc) + zc.dot(sys.BLJ * p_next) - R.dot(F) + external;
}

}  // namespace fastcd
