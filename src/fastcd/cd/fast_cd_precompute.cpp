// fast_cd_precompute in its stages: checks, elastic operators, leak field and constraint,
// eigenmodes, the orthonormal basis, clusters, the reduced operators and their factorisation,
// the step's constant part, and the operators of the iteration form that runs.
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "fastcd/cd/fast_cd_impl.hpp"
#include "fastcd/cd/rig.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/geometry/cluster_grouping_matrices.hpp"
#include "fastcd/geometry/elastic_operators.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"
#include "fastcd/subspace/orthonormalize.hpp"
#include "fastcd/subspace/skinning_eigenmodes.hpp"
#include "fastcd/subspace/spectral_cubature.hpp"

namespace fastcd {

namespace {

constexpr const char* kWork = "precompute (fast)";
constexpr int kStages = 7;

/// The inputs: options, mesh, rig Jacobian and rest pose, cluster count.
void check_inputs(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J,
                  const Eigen::Ref<const VectorXd>& p0, const CDOptions& options) {
  validate(options);
  check_mesh(X, T, "fast_cd_precompute");
  check_rig_inputs(X, J, p0, "fast_cd_precompute");
  FASTCD_CHECK(options.clusters <= T.rows(), options.clusters, " clusters requested for ", T.rows(), " elements");
}

/// A given FastCDSubspace fits the mesh and options: sizes, ranges, finite values.
void check_subspace(const FastCDSubspace& s, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                    const CDOptions& options) {
  const Index n = X.rows();
  FASTCD_CHECK(s.D.size() == n && s.W.rows() == n && s.W.cols() == options.modes && s.E.size() == options.modes &&
                   s.labels.size() == T.rows(),
               "the given subspace does not fit: D has ", s.D.size(), " entries, W is ", s.W.rows(), " x ", s.W.cols(),
               ", E has ", s.E.size(), " and labels ", s.labels.size(), ", for ", n, " vertices, ", T.rows(),
               " elements and ", options.modes, " modes");
  FASTCD_CHECK(s.D.allFinite() && s.D.minCoeff() >= 0.0 && s.D.maxCoeff() <= 1.0,
               "the given subspace's leak field has values outside [0, 1] or NaN");
  FASTCD_CHECK(s.W.allFinite() && s.E.allFinite(), "the given subspace's modes have NaN or Inf entries");
  FASTCD_CHECK(s.weight_constraint_rank >= 0, "the given subspace's weight-constraint rank is negative");
  for (Index e = 0; e < s.labels.size(); ++e)
    FASTCD_CHECK(s.labels(e) >= 0 && s.labels(e) < options.clusters, "the given subspace puts element ", e,
                 " in cluster ", s.labels(e), " of ", options.clusters);
}

/// Stage "leak field and constraint": the leak field D and C = J^T M D (given a subspace, its
/// D, checked with the rest of the subspace first).
LeakedConstraint leak_field_stage(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                  const SparseMatrix& J, const SparseMatrix& Mv, const CDOptions& options,
                                  const FastCDSubspace* subspace) {
  detail::report_progress(kWork, "leak field and constraint", 1, kStages);
  if (subspace != nullptr) check_subspace(*subspace, X, T, options);
  return subspace != nullptr ? constraint_for_leak_field(J, Mv, subspace->D, subspace->leak_used, X.cols(), options)
                             : leak_field_and_constraint(X, T, J, Mv, options);
}

/// Stage "eigenmodes" (Idea 1): rig-orthogonal skinning eigenmodes W (#V x modes), their
/// eigenvalues E and the rows of the weight-space constraint kept; a given subspace's as they are.
struct Eigenmodes {
  MatrixXd W;
  VectorXd E;
  Index weight_constraint_rank = 0;
};
Eigenmodes eigenmodes_stage(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                            const SparseMatrix& C, const CDOptions& options, const FastCDSubspace* subspace) {
  Eigenmodes out;
  if (subspace != nullptr) {
    out.weight_constraint_rank = subspace->weight_constraint_rank;
    out.W = subspace->W;
    out.E = subspace->E;
    return out;
  }
  detail::report_progress(kWork, "weight-space constraint", 2, kStages);
  const MatrixXd Aeq = lbs_weight_space_constraint(X, T, C, options.constraint_rtol);
  out.weight_constraint_rank = Aeq.rows();
  // Fixed vertices (held on the rig): every mode is zero there, so u_c = B z is too.
  const std::optional<VectorXi> bI = options.fixed.size() > 0 ? std::optional<VectorXi>(options.fixed) : std::nullopt;
  detail::report_progress(kWork, "skinning eigenmodes", 3, kStages);
  SkinningEigenmodes modes = skinning_eigenmodes(X, T, options.modes, 1.0, bI, Aeq);
  out.W = std::move(modes.W);
  out.E = std::move(modes.E);
  return out;
}

/// Stage "orthonormal basis": Phi (#V x mt), M-orthonormal on the scalar mass Ms, spanning
/// Phi_raw = [W_k x_l, W_k]; its coordinates Craw in Phi_raw and the blocked single-precision
/// weights and positions of the skinning-form lift; the dense B = Phi (x) I_dim.
struct SkinningBasis {
  MatrixXd Phi, Craw, B;
  std::vector<float> Wf, Xf;
};
SkinningBasis basis_stage(const Eigen::Ref<const MatrixXd>& X, const MatrixXd& W, Index modes, const SparseMatrix& Ms,
                          const MatrixXd& Phi_raw) {
  const Index d = X.cols(), n = X.rows();
  SkinningBasis out;
  detail::report_progress(kWork, "orthonormal basis", 4, kStages);
  out.Phi = orthonormalize(Phi_raw, Ms);
  const Index mt = out.Phi.cols(), m = mt * d;
  {
    // Phi's coordinates in Phi_raw (exact: span(Phi) is span(Phi_raw)); a least-squares solve on
    // the mass-weighted columns, rank-revealing so dependent columns get zero coefficients.
    const VectorXd sq = diagonal_of(Ms, "M", "fast_cd_precompute").cwiseSqrt();
    const MatrixXd A = sq.asDiagonal() * Phi_raw;
    Eigen::ColPivHouseholderQR<MatrixXd> qr(A);
    qr.setThreshold(1e-10);
    out.Craw = qr.solve(MatrixXd(sq.asDiagonal() * out.Phi));
    const double err = (Phi_raw * out.Craw - out.Phi).cwiseAbs().maxCoeff();
    FASTCD_ENSURE(err <= 1e-6 * std::max(1.0, out.Phi.cwiseAbs().maxCoeff()),
                  "the orthonormal basis is not in the span of the skinning modes (error ", err, ")");
    const Index nb = (n + 7) / 8;
    out.Wf.assign(static_cast<std::size_t>(nb * modes * 8), 0.0f);
    out.Xf.assign(static_cast<std::size_t>(nb * d * 8), 0.0f);
    for (Index v = 0; v < n; ++v) {
      const Index b = v / 8, lane = v % 8;
      for (Index k = 0; k < modes; ++k)
        out.Wf[static_cast<std::size_t>((b * modes + k) * 8 + lane)] = static_cast<float>(W(v, k));
      for (Index l = 0; l < d; ++l)
        out.Xf[static_cast<std::size_t>((b * d + l) * 8 + lane)] = static_cast<float>(X(v, l));
    }
  }
  out.B = MatrixXd::Zero(n * d, m);
  for (Index k = 0; k < mt; ++k)
    for (Index i = 0; i < d; ++i)
      for (Index v = 0; v < n; ++v) out.B(v * d + i, k * d + i) = out.Phi(v, k);
  return out;
}

/// ||C B|| / (||C|| ||B||), on the scalar blocks when J = J_s (x) I and Mv = Ms (x) I.
double structural_residual(const std::optional<SparseMatrix>& Js, const std::optional<SparseMatrix>& Mvs,
                           const VectorXd& D, const ComplementarityConstraint& constraint, const MatrixXd& Phi,
                           const MatrixXd& B, Index d) {
  if (Js && Mvs) {
    // C = C_s (x) I and B = Phi (x) I: |C B| / (|C| |B|) = |C_s Phi| / (sqrt(dim) |C_s| |Phi|).
    const SparseMatrix Cs = SparseMatrix(Js->transpose() * *Mvs * sparse_diagonal(D));
    return (Cs * Phi).norm() / (std::sqrt(static_cast<double>(d)) * Cs.norm() * Phi.norm());
  }
  const MatrixXd CB = constraint.C * B;
  return CB.norm() / (MatrixXd(constraint.C).norm() * B.norm());
}

/// Stage "rotation clusters" (Idea 2): one rotation per cluster of elements (#T labels); a given
/// subspace's as they are.
VectorXi clusters_stage(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const MatrixXd& W,
                        const CDOptions& options, const FastCDSubspace* subspace) {
  if (subspace != nullptr) return subspace->labels;
  detail::report_progress(kWork, "rotation clusters", 5, kStages);
  return spectral_cubature(X, T, W, options.clusters).labels;
}

/// Stage "reduced operators": tutorial 23's ReducedOperators (with Hr factorised), the scalar
/// blocks the iteration forms are built from, and the scalar system matrix Hs_r (factorised).
struct ReducedStage {
  ReducedOperators red;
  MatrixXd QT;                                  ///< c*dim x mt: rows c*dim..c*dim+dim-1 are Q_c^T, F_c = Z Q_c
  MatrixXd PhiMJ, PhiLJ, SJ;                    ///< the rig's scalar blocks (J = J_s (x) I; else empty)
  VectorXd Bf_ext;                              ///< B^T Mv g (empty without gravity)
  Eigen::LLT<MatrixXd> Hs_llt{MatrixXd(0, 0)};  ///< Hs_r = Phi^T Ls Phi + I / h^2 = Lh Lh^T
  MatrixXd MB;                                  ///< Mv B, only on the general (non-scalar) path
};
ReducedStage reduced_stage(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                           const ElasticOperators& op, const SparseMatrix& J, const std::optional<SparseMatrix>& Js,
                           const std::optional<SparseMatrix>& Mvs, const MatrixXd& Phi, const MatrixXd& B,
                           const VectorXi& labels, const CDOptions& options) {
  const Index d = X.cols(), n = X.rows(), mt = Phi.cols(), m = mt * d, c = options.clusters;
  ReducedStage out;
  ReducedOperators& red = out.red;
  const ClusterGrouping grouping = cluster_grouping_matrices(labels, X, T);
  const Index d2 = d * d;
  // Per-cluster sum of mu vol_e F_e: PAMue = kron(P AMu, I_{dim^2}) (#clusters*dim^2 x #T*dim^2).
  detail::report_progress(kWork, "reduced operators", 6, kStages);
  SparseMatrix PAMu = SparseMatrix(grouping.G * op.AMu);
  if (PAMu.rows() < c) PAMu.conservativeResize(c, PAMu.cols());  // trailing empty clusters
  const double h2 = options.dt * options.dt;
  // Scalar blocks: L = kron(Ls, I), G's rows F(0, j) on x-coordinates give the scalar gradient.
  std::vector<Triplet> pick_v, pick_g;
  for (Index v = 0; v < n; ++v) pick_v.emplace_back(v, v * d, 1.0);
  for (Index e = 0; e < T.rows(); ++e)
    for (Index j = 0; j < d; ++j) pick_g.emplace_back(e * d + j, e * d2 + j, 1.0);
  SparseMatrix Sv(n, n * d), Sg(T.rows() * d, T.rows() * d2);
  Sv.setFromTriplets(pick_v.begin(), pick_v.end());
  Sg.setFromTriplets(pick_g.begin(), pick_g.end());
  const SparseMatrix Ls = Sv * op.L * Sv.transpose();
  const SparseMatrix Gs = Sg * op.G * Sv.transpose();  // #T*dim x #V scalar gradient
  const SparseMatrix PAMu_d = kron_identity(PAMu, d);
  // Q_c^T = (kron(P AMu, I_dim) Gs Phi) rows c*dim..c*dim+dim-1: F_c = Z Q_c.
  out.QT = PAMu_d * (Gs * Phi);
  // The plain reduced operators. B = Phi (x) I, and with Mv = Ms (x) I, L = Ls (x) I (always, for
  // these operators; checked) each is the kron of an mt-sized scalar block, dim^2 .. dim^3 times
  // cheaper than the products with the dense #V*dim x m B; the rig's blocks likewise when
  // J = J_s (x) I.
  const bool scalar_ops = Mvs.has_value() && kron_identity_factor(op.L, d).has_value();
  const auto kron_dense = [d](const MatrixXd& A) {
    MatrixXd K = MatrixXd::Zero(A.rows() * d, A.cols() * d);
    for (Index col = 0; col < A.cols(); ++col)
      for (Index row = 0; row < A.rows(); ++row)
        for (Index i = 0; i < d; ++i) K(row * d + i, col * d + i) = A(row, col);
    return K;
  };
  // GB((k, i, j), (l, i')) = [i = i'] Q(k*dim + j, l), rows k*dim^2 + i*dim + j: the same
  // numbers as kron(P AMu, I_dim^2) G B.
  const auto cluster_rows = [c, d, d2](const MatrixXd& S) {
    MatrixXd R = MatrixXd::Zero(c * d2, S.cols() * d);
    for (Index k = 0; k < c; ++k)
      for (Index i = 0; i < d; ++i)
        for (Index j = 0; j < d; ++j)
          for (Index l = 0; l < S.cols(); ++l) R(k * d2 + i * d + j, l * d + i) = S(k * d + j, l);
    return R;
  };
  red.GB = cluster_rows(out.QT);
  // The rig's scalar blocks (J = J_s (x) I): Phi^T Ms J_s, Phi^T Ls J_s (mt x ns) and
  // S_J = kron(P AMu, I) Gs J_s, its part of every cluster's F.
  if (Js) {
    const SparseMatrix Ms_pick = Sv * op.Mv * Sv.transpose();
    out.PhiMJ = Phi.transpose() * (Ms_pick * *Js);
    out.PhiLJ = Phi.transpose() * (Ls * *Js);
    out.SJ = PAMu_d * (Gs * *Js);
  }
  MatrixXd& MB = out.MB;
  MatrixXd Hr_full;
  if (scalar_ops) {
    const MatrixXd MPhi = *Mvs * Phi;
    const MatrixXd PhiMPhi = Phi.transpose() * MPhi;
    red.BMB = kron_dense(PhiMPhi);
    Hr_full = kron_dense(Phi.transpose() * (Ls * Phi) + PhiMPhi / h2);
    if (Js) {
      red.GJ = cluster_rows(out.SJ);
      red.BMJ = kron_dense(out.PhiMJ);
      red.BLJ = kron_dense(out.PhiLJ);
    }
    if (options.gravity.size() > 0 && options.gravity.size() == d) {
      const VectorXd w = MPhi.colwise().sum().transpose();  // Phi^T Ms 1
      out.Bf_ext.resize(m);
      for (Index k = 0; k < mt; ++k)
        for (Index i = 0; i < d; ++i) out.Bf_ext(k * d + i) = w(k) * options.gravity(i);
    }
  } else {
    MB = op.Mv * B;
    red.BMB = B.transpose() * MB;
    Hr_full = B.transpose() * (op.L * B) + red.BMB / h2;
  }
  if (!scalar_ops || !Js) {
    const SparseMatrix PG = SparseMatrix(kron_identity(PAMu, d2) * op.G);
    if (MB.size() == 0) MB = op.Mv * B;
    red.GJ = PG * J;
    red.BMJ = MB.transpose() * J;
    red.BLJ = (op.L * B).transpose() * J;
  }
  const MatrixXd Hs_r = Phi.transpose() * (Ls * Phi) + MatrixXd::Identity(mt, mt) / h2;
  out.Hs_llt.compute(Hs_r);
  FASTCD_ENSURE(out.Hs_llt.info() == Eigen::Success, "reduced system matrix is not positive definite");
  red.Hr.compute(Hr_full);
  FASTCD_ENSURE(red.Hr.info() == Eigen::Success, "reduced system matrix is not positive definite");
  return out;
}

/// Stage "step constants": z0 = kron(Zy, I) y - Z_q q - Z_p p_next (+ z_g), the global step's
/// solution for R = 0, as operators on y = z + h z_dot, q = p_next - p - h p_dot and p_next.
/// Writes sys.Zy, Z_q, Z_p, z_g.
void step_constants_stage(FastCD::Impl& sys, const ReducedStage& rs, const CDOptions& options) {
  const Index mt = sys.basis_dim(), d = sys.dim, n = sys.n_vertices;
  const double h2 = options.dt * options.dt;
  sys.Zy = rs.Hs_llt.solve(MatrixXd::Identity(mt, mt)) / h2;
  sys.Zy = (0.5 * (sys.Zy + sys.Zy.transpose())).eval();  // exactly symmetric: step() reads it as Zy^T
  sys.Z_q = sys.red.Hr.solve(sys.red.BMJ) / h2;
  sys.Z_p = sys.red.Hr.solve(sys.red.BLJ);
  if (options.gravity.size() > 0) {
    FASTCD_CHECK(options.gravity.size() == d, "gravity needs ", d, " entries, got ", options.gravity.size());
    if (sys.Bf_ext.size() == 0) sys.Bf_ext = rs.MB.transpose() * options.gravity.replicate(n, 1);
    sys.z_g = sys.red.Hr.solve(sys.Bf_ext);
  }
}

/// The folded form's operators (small systems): F <- F0 + Sf r on the iteration's own
/// coordinates (2D: (F00 + F11, F10 - F01) per cluster; 3D: F), z = z0 + Kf r. Writes sys.Gf,
/// GJf, Kf, F_y, F_q, F_p, Sf, F_g.
void folded_stage(FastCD::Impl& sys) {
  const Index d = sys.dim, c = sys.clusters;
  // The iteration's own coordinates: P reads the rotation-relevant part of F, Q builds r.
  MatrixXd P, Q;
  if (d == 2) {
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
  const MatrixXd K = sys.red.Hr.solve(sys.red.GB.transpose());
  sys.Gf = P * sys.red.GB;
  sys.GJf = P * sys.red.GJ;
  sys.Kf = K * Q;
  const MatrixXd Z_y = kron_identity(SparseMatrix(sys.Zy.sparseView()), d);
  sys.F_y = sys.Gf * Z_y;
  sys.F_q = sys.Gf * sys.Z_q;
  sys.F_p = sys.GJf - sys.Gf * sys.Z_p;
  sys.Sf = P * (sys.red.GB * K) * Q;
  if (sys.z_g.size() > 0) sys.F_g = sys.Gf * sys.z_g;
}

/// The structured form's operators: P = Q Lh^{-T} in tiles of 8 clusters (Ptile, Prow; in single
/// precision Pf, Prowf for Precision::Mixed), Lh^T and Lh^{-T}, and the rig's part of F in the
/// same layout (FJs for a scalar rig, else GJf). Writes those fields and sys.tiles, mt16.
void structured_stage(FastCD::Impl& sys, const ReducedStage& rs, bool scalar_rig) {
  const Index d = sys.dim, c = sys.clusters, mt = sys.basis_dim(), d2 = d * d;
  const Eigen::LLT<MatrixXd>& Hs_llt = rs.Hs_llt;
  // Q_c^T = (kron(P AMu, I_dim) Gs Phi) rows c*dim..c*dim+dim-1, laid out in tiles of 8
  // clusters (see iterate).
  const Index rt = 8 * d;
  sys.tiles = (c + 7) / 8;
  const Index nrp = sys.tiles * rt;
  // Cluster k's row j sits at tile_row(k, j): lane k % 8 of block j of tile k / 8.
  const auto tile_row = [rt](Index k, Index j) { return (k / 8) * rt + j * 8 + k % 8; };
  sys.LhT = Hs_llt.matrixU();
  sys.LhInvT = Hs_llt.matrixU().solve(MatrixXd::Identity(mt, mt));
  const MatrixXd PT = Hs_llt.matrixL().solve(rs.QT.transpose());  // P^T = Lh^{-1} Q^T
  const Index mt8 = (mt + 7) / 8 * 8;
  sys.Ptile = MatrixXd::Zero(rt, mt * sys.tiles);
  sys.Prow = MatrixXd::Zero(mt8, nrp);
  for (Index k = 0; k < c; ++k)
    for (Index j = 0; j < d; ++j) {
      const Index r = tile_row(k, j);
      sys.Ptile.block(r % rt, (r / rt) * mt, 1, mt) = PT.col(k * d + j).transpose();
      sys.Prow.col(r).head(mt) = PT.col(k * d + j);
    }
  if (sys.options.precision == Precision::Mixed) {
    sys.mt16 = (mt + 15) / 16 * 16;
    sys.Pf = Eigen::VectorXf::Zero((sys.tiles + 1) / 2 * mt * d * 16);
    sys.Prowf = Eigen::VectorXf::Zero(sys.mt16 * nrp);
    for (Index t = 0; t < sys.tiles; ++t)
      for (Index k = 0; k < mt; ++k)
        for (Index r = 0; r < rt; ++r)
          sys.Pf(((t / 2 * mt + k) * d + r / 8) * 16 + (t % 2) * 8 + r % 8) =
              static_cast<float>(sys.Ptile(r, t * mt + k));
    for (Index r = 0; r < nrp; ++r)
      for (Index k = 0; k < mt; ++k) sys.Prowf(r * sys.mt16 + k) = static_cast<float>(sys.Prow(k, r));
    sys.Ptile.resize(0, 0);  // the iteration reads only the single-precision copies
    sys.Prow.resize(0, 0);
  }
  if (scalar_rig) {
    // F_c(i, j) = sum_q S_J(c*dim + j, q) p_next(q*dim + i).
    sys.FJs = MatrixXd::Zero(nrp, rs.SJ.cols());
    for (Index k = 0; k < c; ++k)
      for (Index j = 0; j < d; ++j) sys.FJs.row(tile_row(k, j)) = rs.SJ.row(k * d + j);
  } else {
    // Rig part in the same layout: entry (c, i, j) at i*nrp + tile_row(c, j).
    sys.GJf = MatrixXd::Zero(nrp * d, sys.J.cols());
    for (Index k = 0; k < c; ++k)
      for (Index i = 0; i < d; ++i)
        for (Index j = 0; j < d; ++j) sys.GJf.row(i * nrp + tile_row(k, j)) = sys.red.GJ.row(k * d2 + i * d + j);
  }
}

/// z0's rig terms on the scalar blocks (J = J_s (x) I): Z_q = -Zq_neg (x) I_dim, Z_p =
/// -Zp_neg (x) I_dim, in place of the dense Z_q, Z_p. Writes sys.scalar_rig, Zq_neg, Zp_neg.
void scalar_rig_stage(FastCD::Impl& sys, const ReducedStage& rs, double h2) {
  sys.scalar_rig = true;
  sys.Zq_neg = -rs.Hs_llt.solve(rs.PhiMJ) / h2;
  sys.Zp_neg = -rs.Hs_llt.solve(rs.PhiLJ);
  sys.Z_q.resize(0, 0);
  sys.Z_p.resize(0, 0);
}

}  // namespace

FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options,
                          const FastCDSubspace* subspace) {
  check_inputs(X, T, J, p0, options);
  auto impl = std::make_shared<FastCD::Impl>();
  FastCD::Impl& sys = *impl;
  sys.dim = X.cols();
  sys.n_vertices = X.rows();
  sys.options = options;
  sys.J = J;
  sys.p0 = p0;
  detail::report_progress(kWork, "elastic operators", 0, kStages);
  const ElasticOperators op = elastic_operators(X, T, options.ym, options.pr, options.rho);
  sys.Mv = op.Mv;

  LeakedConstraint lc = leak_field_stage(X, T, J, op.Mv, options, subspace);
  sys.D = std::move(lc.D);
  sys.leak_used = lc.leak_used;
  sys.constraint = std::move(lc.constraint);

  Eigenmodes modes = eigenmodes_stage(X, T, sys.constraint.C, options, subspace);
  sys.weight_constraint_rank = modes.weight_constraint_rank;
  sys.W = std::move(modes.W);
  sys.E = std::move(modes.E);

  // B = lbs_jacobian(X, W) = Phi (x) I_dim, so M-orthonormalising Phi on the scalar mass gives
  // the same basis as orthonormalising B. On small meshes Phi's columns can be dependent
  // (modes*(dim+1) columns, but the rig-orthogonal space has fewer dimensions): orthonormalize
  // keeps an independent basis.
  const Index d = sys.dim, n = X.rows();
  MatrixXd Phi_raw(n, options.modes * (d + 1));
  for (Index k = 0; k < options.modes; ++k) {
    for (Index l = 0; l < d; ++l) Phi_raw.col(k * (d + 1) + l) = sys.W.col(k).cwiseProduct(X.col(l));
    Phi_raw.col(k * (d + 1) + d) = sys.W.col(k);
  }
  const SparseMatrix Ms = massmatrix(X, T, options.rho);
  SkinningBasis basis = basis_stage(X, sys.W, options.modes, Ms, Phi_raw);
  sys.Phi = std::move(basis.Phi);
  sys.Craw = std::move(basis.Craw);
  sys.B = std::move(basis.B);
  sys.Wf = std::move(basis.Wf);
  sys.Xf = std::move(basis.Xf);

  // J = J_s (x) I and Mv = Ms (x) I (LBS and cage rigs; the lumped mass): operators from scalar blocks.
  const std::optional<SparseMatrix> Js = kron_identity_factor(J, d), Mvs = kron_identity_factor(op.Mv, d);
  sys.structural_residual = structural_residual(Js, Mvs, sys.D, sys.constraint, sys.Phi, sys.B, d);
  // A given subspace must be this rig's: its modes orthogonal to the constraint as computed ones are.
  FASTCD_CHECK(subspace == nullptr || !(sys.structural_residual > 1e-8),
               "the given subspace is not orthogonal to this ",
               "rig's constraint (||C B|| / (||C|| ||B||) = ", sys.structural_residual,
               "): it was made for another mesh, rig or leak field");

  sys.labels = clusters_stage(X, T, sys.W, options, subspace);
  sys.clusters = options.clusters;

  ReducedStage rs = reduced_stage(X, T, op, J, Js, Mvs, sys.Phi, sys.B, sys.labels, options);
  sys.red = std::move(rs.red);
  sys.Bf_ext = std::move(rs.Bf_ext);
  step_constants_stage(sys, rs, options);

  // Fold (F <- F0 + Sf r, nf^2 per iteration) only while it is cheaper than the structured
  // iteration's two thin products (2 nf m / dim).
  const Index m = sys.state_dim(), nf = d == 2 ? 2 * sys.clusters : d * d * sys.clusters;
  if (nf <= 2 * m)
    folded_stage(sys);
  else
    structured_stage(sys, rs, Js.has_value());
  if (Js) scalar_rig_stage(sys, rs, options.dt * options.dt);
  sys.Hs = std::move(rs.Hs_llt);  // the global step's solve (solve_global, GlobalStepHook)
  FastCD out;
  out.impl_ = std::move(impl);
  return out;
}

}  // namespace fastcd
