#include "fastcd/cd/fast_cd.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/common/threads.hpp"
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

/// Everything fast_cd_precompute builds.
struct FastCD::Impl {
  Index dim = 0, n_vertices = 0;
  CDOptions options;
  SparseMatrix J;
  VectorXd p0;
  VectorXd D;
  LeakFieldKind leak_used = LeakFieldKind::Diffusion;
  SparseMatrix Mv;
  ComplementarityConstraint constraint;
  Index weight_constraint_rank = 0;
  MatrixXd W;
  VectorXd E;
  MatrixXd Phi, B;
  // Skinning-form lifting (lift_skinned): Phi = Phi_raw Craw with Phi_raw = [W_k x_l, W_k], so
  // u_v = sum_k W(v, k) T_k [X_v; 1] with T_k read from Craw Z^T. Single precision, blocked in
  // 8 vertices (SIMD lanes): Wf[(b * modes + k) * 8 + lane], Xf[(b * dim + l) * 8 + lane].
  MatrixXd Craw;  ///< modes*(dim+1) x mt
  std::vector<float> Wf, Xf;
  VectorXi labels;
  Index clusters = 0;
  ReducedOperators red;  ///< the plain form (energies, checks)
  // the iteration as run by step()
  MatrixXd Zy;        ///< mt x mt Hs_r^{-1} / h^2: Z0 = Y Zy - ... (y = z + h z_dot)
  MatrixXd Z_q, Z_p;  ///< z0 = kron(Zy) y - Z_q q - Z_p p_next  (Hr^{-1} folded in)
  MatrixXd GJf;       ///< rig part of the iterated F: F_J = GJf p_next (structured: entry
                      ///< F_c(i, j) at row i*nrp + tile_row(c, j), nrp = tiles*8*dim)
  // Structured iteration, in the coordinates V = Z Lh (Hs_r = Lh Lh^T, Z the dim x mt view of
  // z) where Hs_r^{-1} disappears: with P = Q Lh^{-T}, F = F_J + P V^T and the global step
  // Z = Z0 + (Hs_r^{-1} Q^T R)^T becomes V = Z0 Lh + (P^T R)^T. Clusters in tiles of 8 (8*dim
  // rows of P, zero rows past the last cluster): F and the rotations a tile at a time, then
  // P^T R in one pass with all of V's entries in registers.
  Index tiles = 0;
  MatrixXd Ptile;  ///< 8*dim x mt*tiles: tile t in columns t*mt..; its row j*8 + l is column j
                   ///< of P_c for cluster c = 8t + l (tile_row(c, j) = t*8*dim + j*8 + l)
  MatrixXd Prow;   ///< mt8 x nrp: the same rows of P, each contiguous, zero-padded to mt8
  // Precision::Mixed: the same P in single precision, in place of Ptile and Prow (then empty).
  // Pf: tiles in pairs, column k of pair u holding its two tiles' row blocks b as 16 lanes
  // (tile 2u in lanes 0-7, tile 2u+1 in 8-15) at ((u*mt + k)*dim + b)*16; Prowf: Prow's rows
  // zero-padded to mt16 floats.
  Eigen::VectorXf Pf, Prowf;
  Index mt16 = 0;
  MatrixXd LhT, LhInvT;  ///< mt x mt: Lh^T (V^T = Lh^T Z^T) and Lh^{-T} (Z^T = Lh^{-T} V^T), Hs_r = Lh Lh^T
  // A rig with J = J_s (x) I_dim (LBS, cages) enters z0 and F_J through its scalar blocks
  // (dim^2 times smaller than Z_q, Z_p and GJf); ns = J.cols() / dim.
  bool scalar_rig = false;
  MatrixXd Zq_neg, Zp_neg;  ///< mt x ns: Z0^T = Zy Y^T + Zq_neg Q^T + Zp_neg Pn^T (Q, Pn: dim x ns views of q, p_next)
  MatrixXd FJs;             ///< structured: nrp x ns, F_J = FJs Pn^T (Pn: p_next; rows as Ptile's)
  MatrixXd Gf;              ///< folded: F(z) = Gf z + GJf p_next (warm start)
  MatrixXd F_y, F_q, F_p;   ///< folded: F0 = F_y y - F_q q + F_p p_next
  MatrixXd Sf, Kf;          ///< folded: F <- F0 + Sf r, z = z0 + Kf r (empty when structured)
  VectorXd z_g, F_g;        ///< constant shifts of z0 and (folded) F0 from gravity (empty without)
  VectorXd Bf_ext;          ///< B^T Mv g (empty without gravity)
  double structural_residual = 0.0;
  Index state_dim() const { return B.cols(); }
  Index basis_dim() const { return Phi.cols(); }
  bool folded() const { return Sf.size() > 0; }
};

namespace {

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

}  // namespace

FastCD fast_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options,
                          const FastCDSubspace* subspace) {
  validate(options);
  check_mesh(X, T, "fast_cd_precompute");
  FASTCD_CHECK(J.rows() == X.size(), "rig Jacobian J has ", J.rows(), " rows, the mesh has ", X.size(), " DOFs");
  FASTCD_CHECK(p0.size() == J.cols(), "rest pose p0 has ", p0.size(), " entries, J has ", J.cols(), " columns");
  for (Index k = 0; k < J.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(J, k); it; ++it)
      FASTCD_CHECK(std::isfinite(it.value()), "rig Jacobian J(", it.row(), ", ", it.col(), ") is ", it.value());
  FASTCD_CHECK(p0.allFinite(), "rest pose p0 has NaN or Inf entries");
  FASTCD_CHECK(options.clusters <= T.rows(), options.clusters, " clusters requested for ", T.rows(), " elements");
  auto impl = std::make_shared<FastCD::Impl>();
  FastCD::Impl& sys = *impl;
  sys.dim = X.cols();
  sys.n_vertices = X.rows();
  sys.options = options;
  sys.J = J;
  sys.p0 = p0;
  constexpr const char* kWork = "precompute (fast)";
  constexpr int kStages = 7;
  detail::report_progress(kWork, "elastic operators", 0, kStages);
  const ElasticOperators op = elastic_operators(X, T, options.ym, options.pr, options.rho);
  sys.Mv = op.Mv;
  detail::report_progress(kWork, "leak field and constraint", 1, kStages);
  if (subspace != nullptr) check_subspace(*subspace, X, T, options);
  LeakedConstraint lc = subspace != nullptr
                            ? constraint_for_leak_field(J, op.Mv, subspace->D, subspace->leak_used, X.cols(), options)
                            : leak_field_and_constraint(X, T, J, op.Mv, options);
  sys.D = std::move(lc.D);
  sys.leak_used = lc.leak_used;
  sys.constraint = std::move(lc.constraint);

  // Idea 1: rig-orthogonal skinning eigenmodes.
  if (subspace != nullptr) {
    sys.weight_constraint_rank = subspace->weight_constraint_rank;
    sys.W = subspace->W;
    sys.E = subspace->E;
  } else {
    detail::report_progress(kWork, "weight-space constraint", 2, kStages);
    const MatrixXd Aeq = lbs_weight_space_constraint(X, T, sys.constraint.C, options.constraint_rtol);
    sys.weight_constraint_rank = Aeq.rows();
    // Fixed vertices (held on the rig): every mode is zero there, so u_c = B z is too.
    const std::optional<VectorXi> bI = options.fixed.size() > 0 ? std::optional<VectorXi>(options.fixed) : std::nullopt;
    detail::report_progress(kWork, "skinning eigenmodes", 3, kStages);
    SkinningEigenmodes modes = skinning_eigenmodes(X, T, options.modes, 1.0, bI, Aeq);
    sys.W = std::move(modes.W);
    sys.E = std::move(modes.E);
  }
  const Index d = sys.dim, n = X.rows();
  // B = lbs_jacobian(X, W) = Phi (x) I_dim, so M-orthonormalising Phi on the scalar mass gives
  // the same basis as orthonormalising B. On small meshes Phi's columns can be dependent
  // (modes*(dim+1) columns, but the rig-orthogonal space has fewer dimensions): orthonormalize
  // keeps an independent basis.
  MatrixXd Phi_raw(n, options.modes * (d + 1));
  for (Index k = 0; k < options.modes; ++k) {
    for (Index l = 0; l < d; ++l) Phi_raw.col(k * (d + 1) + l) = sys.W.col(k).cwiseProduct(X.col(l));
    Phi_raw.col(k * (d + 1) + d) = sys.W.col(k);
  }
  const SparseMatrix Ms = massmatrix(X, T, options.rho);
  detail::report_progress(kWork, "orthonormal basis", 4, kStages);
  sys.Phi = orthonormalize(Phi_raw, Ms);
  const Index mt = sys.Phi.cols(), m = mt * d;
  {
    // Phi's coordinates in Phi_raw (exact: span(Phi) is span(Phi_raw)); a least-squares solve on
    // the mass-weighted columns, rank-revealing so dependent columns get zero coefficients.
    const VectorXd sq = diagonal_of(Ms, "M", "fast_cd_precompute").cwiseSqrt();
    const MatrixXd A = sq.asDiagonal() * Phi_raw;
    Eigen::ColPivHouseholderQR<MatrixXd> qr(A);
    qr.setThreshold(1e-10);
    sys.Craw = qr.solve(MatrixXd(sq.asDiagonal() * sys.Phi));
    const double err = (Phi_raw * sys.Craw - sys.Phi).cwiseAbs().maxCoeff();
    FASTCD_ENSURE(err <= 1e-6 * std::max(1.0, sys.Phi.cwiseAbs().maxCoeff()),
                  "the orthonormal basis is not in the span of the skinning modes (error ", err, ")");
    const Index nb = (n + 7) / 8, modes = options.modes;
    sys.Wf.assign(static_cast<std::size_t>(nb * modes * 8), 0.0f);
    sys.Xf.assign(static_cast<std::size_t>(nb * d * 8), 0.0f);
    for (Index v = 0; v < n; ++v) {
      const Index b = v / 8, lane = v % 8;
      for (Index k = 0; k < modes; ++k)
        sys.Wf[static_cast<std::size_t>((b * modes + k) * 8 + lane)] = static_cast<float>(sys.W(v, k));
      for (Index l = 0; l < d; ++l)
        sys.Xf[static_cast<std::size_t>((b * d + l) * 8 + lane)] = static_cast<float>(X(v, l));
    }
  }
  sys.B = MatrixXd::Zero(n * d, m);
  for (Index k = 0; k < mt; ++k)
    for (Index i = 0; i < d; ++i)
      for (Index v = 0; v < n; ++v) sys.B(v * d + i, k * d + i) = sys.Phi(v, k);
  // J = J_s (x) I and Mv = Ms (x) I (LBS and cage rigs; the lumped mass): operators from scalar blocks.
  const std::optional<SparseMatrix> Js = kron_identity_factor(J, d), Mvs = kron_identity_factor(op.Mv, d);
  if (Js && Mvs) {
    // C = C_s (x) I and B = Phi (x) I: |C B| / (|C| |B|) = |C_s Phi| / (sqrt(dim) |C_s| |Phi|).
    const SparseMatrix Cs = SparseMatrix(Js->transpose() * *Mvs * sparse_diagonal(sys.D));
    sys.structural_residual = (Cs * sys.Phi).norm() / (std::sqrt(static_cast<double>(d)) * Cs.norm() * sys.Phi.norm());
  } else {
    const MatrixXd CB = sys.constraint.C * sys.B;
    sys.structural_residual = CB.norm() / (MatrixXd(sys.constraint.C).norm() * sys.B.norm());
  }
  // A given subspace must be this rig's: its modes orthogonal to the constraint as computed ones are.
  FASTCD_CHECK(subspace == nullptr || !(sys.structural_residual > 1e-8),
               "the given subspace is not orthogonal to this ",
               "rig's constraint (||C B|| / (||C|| ||B||) = ", sys.structural_residual,
               "): it was made for another mesh, rig or leak field");

  // Idea 2: one rotation per cluster of elements.
  if (subspace != nullptr) {
    sys.labels = subspace->labels;
  } else {
    detail::report_progress(kWork, "rotation clusters", 5, kStages);
    sys.labels = spectral_cubature(X, T, sys.W, options.clusters).labels;
  }
  sys.clusters = options.clusters;
  const Index c = sys.clusters;
  const ClusterGrouping grouping = cluster_grouping_matrices(sys.labels, X, T);
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
  const MatrixXd QT = PAMu_d * (Gs * sys.Phi);
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
  sys.red.GB = cluster_rows(QT);
  // The rig's scalar blocks (J = J_s (x) I): Phi^T Ms J_s, Phi^T Ls J_s (mt x ns) and
  // S_J = kron(P AMu, I) Gs J_s, its part of every cluster's F.
  MatrixXd PhiMJ, PhiLJ, SJ;
  if (Js) {
    const SparseMatrix Ms_pick = Sv * op.Mv * Sv.transpose();
    PhiMJ = sys.Phi.transpose() * (Ms_pick * *Js);
    PhiLJ = sys.Phi.transpose() * (Ls * *Js);
    SJ = PAMu_d * (Gs * *Js);
  }
  MatrixXd MB, Hr_full;  // MB = Mv B only on the general path
  if (scalar_ops) {
    const MatrixXd MPhi = *Mvs * sys.Phi;
    const MatrixXd PhiMPhi = sys.Phi.transpose() * MPhi;
    sys.red.BMB = kron_dense(PhiMPhi);
    Hr_full = kron_dense(sys.Phi.transpose() * (Ls * sys.Phi) + PhiMPhi / h2);
    if (Js) {
      sys.red.GJ = cluster_rows(SJ);
      sys.red.BMJ = kron_dense(PhiMJ);
      sys.red.BLJ = kron_dense(PhiLJ);
    }
    if (options.gravity.size() > 0 && options.gravity.size() == d) {
      const VectorXd w = MPhi.colwise().sum().transpose();  // Phi^T Ms 1
      sys.Bf_ext.resize(m);
      for (Index k = 0; k < mt; ++k)
        for (Index i = 0; i < d; ++i) sys.Bf_ext(k * d + i) = w(k) * options.gravity(i);
    }
  } else {
    MB = op.Mv * sys.B;
    sys.red.BMB = sys.B.transpose() * MB;
    Hr_full = sys.B.transpose() * (op.L * sys.B) + sys.red.BMB / h2;
  }
  if (!scalar_ops || !Js) {
    const SparseMatrix PG = SparseMatrix(kron_identity(PAMu, d2) * op.G);
    if (MB.size() == 0) MB = op.Mv * sys.B;
    sys.red.GJ = PG * J;
    sys.red.BMJ = MB.transpose() * J;
    sys.red.BLJ = (op.L * sys.B).transpose() * J;
  }
  const MatrixXd Hs_r = sys.Phi.transpose() * (Ls * sys.Phi) + MatrixXd::Identity(mt, mt) / h2;
  const Eigen::LLT<MatrixXd> Hs_llt(Hs_r);
  FASTCD_ENSURE(Hs_llt.info() == Eigen::Success, "reduced system matrix is not positive definite");
  sys.red.Hr.compute(Hr_full);
  FASTCD_ENSURE(sys.red.Hr.info() == Eigen::Success, "reduced system matrix is not positive definite");
  sys.Zy = Hs_llt.solve(MatrixXd::Identity(mt, mt)) / h2;
  sys.Zy = (0.5 * (sys.Zy + sys.Zy.transpose())).eval();  // exactly symmetric: step() reads it as Zy^T
  sys.Z_q = sys.red.Hr.solve(sys.red.BMJ) / h2;
  sys.Z_p = sys.red.Hr.solve(sys.red.BLJ);
  if (options.gravity.size() > 0) {
    FASTCD_CHECK(options.gravity.size() == d, "gravity needs ", d, " entries, got ", options.gravity.size());
    if (sys.Bf_ext.size() == 0) sys.Bf_ext = MB.transpose() * options.gravity.replicate(n, 1);
    sys.z_g = sys.red.Hr.solve(sys.Bf_ext);
  }

  // Fold (F <- F0 + Sf r, nf^2 per iteration) only while it is cheaper than the structured
  // iteration's two thin products (2 nf m / dim).
  const Index nf = d == 2 ? 2 * c : d2 * c;
  if (nf <= 2 * m) {
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
  } else {
    // Q_c^T = (kron(P AMu, I_dim) Gs Phi) rows c*dim..c*dim+dim-1, laid out in tiles of 8
    // clusters (see iterate).
    const Index rt = 8 * d;
    sys.tiles = (c + 7) / 8;
    const Index nrp = sys.tiles * rt;
    // Cluster k's row j sits at tile_row(k, j): lane k % 8 of block j of tile k / 8.
    const auto tile_row = [rt](Index k, Index j) { return (k / 8) * rt + j * 8 + k % 8; };
    sys.LhT = Hs_llt.matrixU();
    sys.LhInvT = Hs_llt.matrixU().solve(MatrixXd::Identity(mt, mt));
    const MatrixXd PT = Hs_llt.matrixL().solve(QT.transpose());  // P^T = Lh^{-1} Q^T
    const Index mt8 = (mt + 7) / 8 * 8;
    sys.Ptile = MatrixXd::Zero(rt, mt * sys.tiles);
    sys.Prow = MatrixXd::Zero(mt8, nrp);
    for (Index k = 0; k < c; ++k)
      for (Index j = 0; j < d; ++j) {
        const Index r = tile_row(k, j);
        sys.Ptile.block(r % rt, (r / rt) * mt, 1, mt) = PT.col(k * d + j).transpose();
        sys.Prow.col(r).head(mt) = PT.col(k * d + j);
      }
    if (options.precision == Precision::Mixed) {
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
    if (Js) {
      // F_c(i, j) = sum_q S_J(c*dim + j, q) p_next(q*dim + i).
      sys.FJs = MatrixXd::Zero(nrp, SJ.cols());
      for (Index k = 0; k < c; ++k)
        for (Index j = 0; j < d; ++j) sys.FJs.row(tile_row(k, j)) = SJ.row(k * d + j);
    } else {
      // Rig part in the same layout: entry (c, i, j) at i*nrp + tile_row(c, j).
      sys.GJf = MatrixXd::Zero(nrp * d, J.cols());
      for (Index k = 0; k < c; ++k)
        for (Index i = 0; i < d; ++i)
          for (Index j = 0; j < d; ++j) sys.GJf.row(i * nrp + tile_row(k, j)) = sys.red.GJ.row(k * d2 + i * d + j);
    }
  }
  if (Js) {
    // z0's rig terms on the scalar blocks: Z_q = -Zq_neg (x) I_dim, Z_p = -Zp_neg (x) I_dim.
    sys.scalar_rig = true;
    sys.Zq_neg = -Hs_llt.solve(PhiMJ) / h2;
    sys.Zp_neg = -Hs_llt.solve(PhiLJ);
    sys.Z_q.resize(0, 0);
    sys.Z_p.resize(0, 0);
  }
  FastCD out;
  out.impl_ = std::move(impl);
  return out;
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

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// C = C0 + A B for a column-major M x K matrix A and a K x N matrix B (N = 2 or 3), B and
/// C addressed through strides: B(k, i) = B[k*bk + i*bi], C(r, i) = C[r*cr + i*ci]. A thin
/// product like this is where a general GEMM loses most of its time packing A; here A (already
/// laid out column by column) is streamed once, RB rows at a time, with N*RB accumulators kept
/// in registers.
template <int N, int RB>
Index thin_product_blocks(const double* A, Index M, Index K, const double* B, Index bk, Index bi, const double* C0,
                          double* C, Index cr, Index ci, Index r0) {
  for (; r0 + RB <= M; r0 += RB) {
    double acc[N][RB] = {};
    for (Index k = 0; k < K; ++k) {
      const double* a = A + k * M + r0;
      for (int i = 0; i < N; ++i) {
        const double b = B[k * bk + i * bi];
#pragma omp simd
        for (int t = 0; t < RB; ++t) acc[i][t] += a[t] * b;
      }
    }
    for (int i = 0; i < N; ++i)
      for (int t = 0; t < RB; ++t) C[(r0 + t) * cr + i * ci] = C0[(r0 + t) * cr + i * ci] + acc[i][t];
  }
  return r0;
}

template <int N>
void thin_product(const double* A, Index M, Index K, const double* B, Index bk, Index bi, const double* C0, double* C,
                  Index cr, Index ci) {
  // 32-row blocks (3 x 4 AVX-512 accumulators), then 8-row blocks, then single rows.
  Index r0 = thin_product_blocks<N, 32>(A, M, K, B, bk, bi, C0, C, cr, ci, 0);
  r0 = thin_product_blocks<N, 8>(A, M, K, B, bk, bi, C0, C, cr, ci, r0);
  for (Index r = r0; r < M; ++r) {
    double acc[N] = {};
    for (Index k = 0; k < K; ++k)
      for (int i = 0; i < N; ++i) acc[i] += A[k * M + r] * B[k * bk + i * bi];
    for (int i = 0; i < N; ++i) C[r * cr + i * ci] = C0[r * cr + i * ci] + acc[i];
  }
}

using simd::load8;
using simd::pin;
using simd::splat8;
using simd::store8;
using simd::Vec8;

/// Column k of a tile (8*dim rows) into dim registers, kept there: the compiler would otherwise
/// fold each load into every one of the dim FMAs that use it, and the loads would set the pace.
template <int dim>
void load_tile_column(const double* Pt, Index k, Vec8 (&a)[dim]) {
  for (int b = 0; b < dim; ++b) {
    a[b] = load8(Pt + k * 8 * dim + b * 8);
    pin(a[b]);
  }
}

/// One tile's F = P_t V^T + F_J: Fb(r, i) at Fb[i*rt + r] (rt = 8*dim) from the column-major
/// rt x mt tile Pt, V(k, i) at V[k*dim + i] and F_J(r, i) at FJ[i*fj_col + r].
template <int dim>
void tile_forward(const double* __restrict Pt, Index mt, const double* __restrict V, const double* __restrict FJ,
                  Index fj_col, double* __restrict Fb) {
  constexpr int rt = 8 * dim;
  Vec8 acc[dim][dim];  // acc[i][b]: rows b*8.. of column i
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) acc[i][b] = load8(FJ + i * fj_col + b * 8);
  for (Index k = 0; k < mt; ++k) {
    Vec8 a[dim];
    load_tile_column<dim>(Pt, k, a);
    for (int i = 0; i < dim; ++i) {
      const Vec8 v = splat8(V[k * dim + i]);
      for (int b = 0; b < dim; ++b) acc[i][b] += a[b] * v;
    }
  }
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) store8(Fb + i * rt + b * 8, acc[i][b]);
}

// Single precision (Precision::Mixed): 16 floats per AVX-512 register, twice the lanes of a
// double one, so half the FMA instructions.
using Vec16f = float __attribute__((vector_size(64)));
using Vec8f = float __attribute__((vector_size(32)));

/// One 512-bit register of S.
template <class S>
struct Reg;
template <>
struct Reg<double> {
  using type = Vec8;
};
template <>
struct Reg<float> {
  using type = Vec16f;
};

/// x in every lane. (Not Vec{} + x: adding +0 is not an identity for -0, so the compiler keeps
/// a scalar add in front of every broadcast.)
inline Vec8 splat(double x) { return splat8(x); }
inline Vec16f splat(float x) { return Vec16f{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }
inline Vec8f splat_half(float x) { return Vec8f{x, x, x, x, x, x, x, x}; }

/// V(i, k) = C0(i, k) + sum_r P(r, k) R(r, i) for columns k0 .. k0 + L*NB of Prow (P's nrp
/// rows, each contiguous, ld entries apart; L = 8 doubles or 16 floats per 512-bit register),
/// all dim*NB sums held in registers across the whole pass; R as tile_rotations writes it, tile
/// after tile, in P's scalar type. (dim = 3, NB = 8: 24 accumulators.) Sums in S (single
/// precision for Precision::Mixed), added to C0 in double.
template <class S, int dim, int NB>
void rows_block(const S* __restrict Prow, Index ld, Index mt, Index nrp, const S* __restrict R,
                const double* __restrict C0, double* __restrict V, Index k0) {
  using Vs = typename Reg<S>::type;
  constexpr int L = 64 / sizeof(S);
  constexpr Index rt = 8 * dim;
  Vs acc[dim][NB];
  for (auto& a : acc)
    for (Vs& x : a) x = Vs{};
  for (Index t = 0; t < nrp / rt; ++t)
    for (Index rr = 0; rr < rt; ++rr) {
      const S* p = Prow + (t * rt + rr) * ld + k0;
      const S* Rt = R + t * rt * dim + rr;
      Vs rb[dim];
      for (int i = 0; i < dim; ++i) rb[i] = splat(Rt[i * rt]);
      for (int b = 0; b < NB; ++b) {
        const Vs a = simd::load<Vs>(p + L * b);
        for (int i = 0; i < dim; ++i) acc[i][b] += a * rb[i];
      }
    }
  for (int b = 0; b < NB; ++b)
    for (int l = 0; l < L; ++l) {
      const Index k = k0 + L * b + l;
      if (k >= mt) return;
      for (int i = 0; i < dim; ++i) V[k * dim + i] = C0[k * dim + i] + static_cast<double>(acc[i][b][l]);
    }
}

/// V = C0 + (P^T R)^T over all columns of Prow (ld a multiple of L), in passes of up to 8
/// registers of columns.
template <class S, int dim>
void rows_transpose_product(const S* Prow, Index ld, Index mt, Index nrp, const S* R, const double* C0, double* V) {
  constexpr Index L = 64 / sizeof(S);
  Index k0 = 0;
  for (; k0 + 8 * L <= ld; k0 += 8 * L) rows_block<S, dim, 8>(Prow, ld, mt, nrp, R, C0, V, k0);
  if (k0 + 4 * L <= ld) rows_block<S, dim, 4>(Prow, ld, mt, nrp, R, C0, V, k0), k0 += 4 * L;
  if (k0 + 2 * L <= ld) rows_block<S, dim, 2>(Prow, ld, mt, nrp, R, C0, V, k0), k0 += 2 * L;
  if (k0 + L <= ld) rows_block<S, dim, 1>(Prow, ld, mt, nrp, R, C0, V, k0);
}

// ---- Precision::Mixed: F in single precision.

template <class V>
V splat_v(float x) {
  if constexpr (std::is_same_v<V, Vec16f>)
    return splat(x);
  else
    return splat_half(x);
}

/// F of the tile pair starting at Pu (layout of Impl::Pf), in single precision: the tiles'
/// P V^T (Vf: V(k, i) at Vf[k*dim + i]) plus their F_J rows (double, as in tile_forward) into
/// Fb0 and Fb1 (tile_forward's layout). With L = 8 only the pair's first tile (the last, odd
/// tile) is computed.
template <int dim, int L>
void tile_pair_forward(const float* __restrict Pu, Index mt, const float* __restrict Vf, const double* __restrict FJ0,
                       Index fj_col, double* __restrict Fb0, double* __restrict Fb1) {
  using V = std::conditional_t<L == 16, Vec16f, Vec8f>;
  constexpr int rt = 8 * dim;
  V acc[dim][dim];
  for (auto& a : acc)
    for (V& x : a) x = V{};
  for (Index k = 0; k < mt; ++k) {
    V a[dim];
    for (int b = 0; b < dim; ++b) {
      a[b] = simd::load<V>(Pu + (k * dim + b) * 16);
      simd::pin(a[b]);
    }
    for (int i = 0; i < dim; ++i) {
      const V v = splat_v<V>(Vf[k * dim + i]);
      for (int b = 0; b < dim; ++b) acc[i][b] += a[b] * v;
    }
  }
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) {
      const double* fj = FJ0 + i * fj_col + b * 8;
      if constexpr (L == 16) {
        const Vec8f lo = __builtin_shufflevector(acc[i][b], acc[i][b], 0, 1, 2, 3, 4, 5, 6, 7);
        const Vec8f hi = __builtin_shufflevector(acc[i][b], acc[i][b], 8, 9, 10, 11, 12, 13, 14, 15);
        store8(Fb0 + i * rt + b * 8, load8(fj) + __builtin_convertvector(lo, Vec8));
        store8(Fb1 + i * rt + b * 8, load8(fj + rt) + __builtin_convertvector(hi, Vec8));
      } else {
        store8(Fb0 + i * rt + b * 8, load8(fj) + __builtin_convertvector(acc[i][b], Vec8));
      }
    }
}

/// Closest rotations of a tile's first `count` clusters, F_c(i, j) at Fb[(i*dim + j)*8 + c]
/// (lane c of SIMD register i*dim + j).
template <int dim>
void tile_rotations(const double* Fb, Index count, double* Rb) {
  if constexpr (dim == 3) {
    detail::closest_rotations_3x3_lanes(Fb, static_cast<int>(count), Rb);
  } else {
    for (Index c = 0; c < count; ++c) {
      double f[dim * dim], r[dim * dim];
      for (int k = 0; k < dim * dim; ++k) f[k] = Fb[k * 8 + c];
      detail::closest_rotation<dim>(f, r);
      for (int k = 0; k < dim * dim; ++k) Rb[k * 8 + c] = r[k];
    }
  }
}

/// tile_rotations of two tiles at once (3D: their Newton iterations interleaved).
template <int dim>
void tile_pair_rotations(const double* Fb0, Index count0, const double* Fb1, Index count1, double* Rb0, double* Rb1) {
  if constexpr (dim == 3) {
    detail::closest_rotations_3x3_lanes2(Fb0, static_cast<int>(count0), Fb1, static_cast<int>(count1), Rb0, Rb1);
  } else {
    tile_rotations<dim>(Fb0, count0, Rb0);
    tile_rotations<dim>(Fb1, count1, Rb1);
  }
}

template <int dim>
void iterate(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
             const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
             const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCD::Workspace& ws, int iters) {
  const double h = sys.options.dt;
  const Index m = sys.state_dim(), mt = sys.basis_dim(), np = sys.J.cols(), c = sys.clusters;
  const bool folded = sys.folded();
  const Index nf = folded ? sys.Gf.rows() : c * dim * dim;
  ws.q.resize(np);
  ws.z0.resize(m);
  ws.zprev.resize(m);
  ws.F0.resize(nf);
  ws.F.resize(nf);
  ws.r.resize(nf);
  ws.zprev = z + h * z_dot;  // y
  ws.q = p_next - p - h * p_dot;
  // z0 = kron(Zy, I) y - Z_q q - Z_p p_next (+ z_g), as Z0^T = Zy Y^T + ... with Y, Z0 the
  // dim x mt views (thin products: a GEMM would spend longer packing than multiplying).
  ws.z0.setZero();
  thin_product<dim>(sys.Zy.data(), mt, mt, ws.zprev.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
  if (sys.scalar_rig) {
    const Index ns = np / dim;
    thin_product<dim>(sys.Zq_neg.data(), mt, ns, ws.q.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
    thin_product<dim>(sys.Zp_neg.data(), mt, ns, p_next.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
  } else {
    ws.z0.noalias() -= sys.Z_q * ws.q;
    ws.z0.noalias() -= sys.Z_p * p_next;
  }
  if (sys.z_g.size() > 0) ws.z0 += sys.z_g;
  const bool check = sys.options.tolerance > 0;
  z_out = z;
  if (folded) {
    ws.F0.noalias() = sys.F_y * ws.zprev;  // F0 = Gf z0 + GJf p_next
    ws.F0.noalias() -= sys.F_q * ws.q;
    ws.F0.noalias() += sys.F_p * p_next;
    if (sys.F_g.size() > 0) ws.F0 += sys.F_g;
    ws.F.noalias() = sys.Gf * z;
    ws.F.noalias() += sys.GJf * p_next;
    for (int it = 0; it < iters; ++it) {
      if ((it & 255) == 255) detail::throw_if_cancelled("a fast step");
      local_rotations<dim>(ws.F, ws.r);
      if (check) {
        ws.zprev = z_out;
        z_out = ws.z0;
        z_out.noalias() += sys.Kf * ws.r;
        if ((z_out - ws.zprev).norm() < sys.options.tolerance) return;
      }
      if (it + 1 < iters) {
        ws.F = ws.F0;
        ws.F.noalias() += sys.Sf * ws.r;
      }
    }
    if (iters > 0 && !check) {
      z_out = ws.z0;
      z_out.noalias() += sys.Kf * ws.r;
    }
    return;
  }
  // Structured, in the coordinates V = Z Lh (see Impl): a tile of 8 clusters at a time (rt =
  // 8*dim rows; nrp = tiles*rt), the tile's F (column-major rt x dim: F_c(i, j) at i*rt + j*8 +
  // c) = P_t V^T + F_J rows and its rotations R; then V = Z0 Lh + (P^T R)^T in one pass over P.
  constexpr Index rt = 8 * dim;
  const Index tiles = sys.tiles, nrp = tiles * rt;
  ws.F0.resize(nrp * dim);
  if (sys.scalar_rig) {
    ws.F0.setZero();
    thin_product<dim>(sys.FJs.data(), nrp, sys.FJs.cols(), p_next.data(), dim, 1, ws.F0.data(), ws.F0.data(), 1, nrp);
  } else {
    ws.F0.noalias() = sys.GJf * p_next;
  }
  if (iters <= 0) return;
  ws.F.resize(2 * rt * dim);  // two tiles: the mixed iteration computes F a tile pair at a time
  ws.r.setZero(nrp * dim);    // padded clusters of the last tile: R finite, their P rows are 0
  ws.g.resize(2 * mt * dim);
  double* V = ws.g.data();
  double* C0 = ws.g.data() + mt * dim;
  std::fill(V, V + 2 * mt * dim, 0.0);
  thin_product<dim>(sys.LhT.data(), mt, mt, z_out.data(), dim, 1, V, V, dim, 1);  // V = Z Lh
  thin_product<dim>(sys.LhT.data(), mt, mt, ws.z0.data(), dim, 1, C0, C0, dim, 1);
  const auto to_z = [&] {  // Z = V Lh^{-1}
    z_out.setZero();
    thin_product<dim>(sys.LhInvT.data(), mt, mt, V, dim, 1, z_out.data(), z_out.data(), dim, 1);
  };
  const bool mixed = sys.Pf.size() > 0;
  if (mixed) {
    ws.Vf.resize(mt * dim);
    ws.rf.resize(nrp * dim);
  }
  // F of two tiles (or of the last, odd one) into ws.F and F1, in the iteration's precision.
  double* F1 = ws.F.data() + rt * dim;
  const auto forward = [&](Index t, bool pair) {
    if (mixed) {
      const float* Pu = sys.Pf.data() + t / 2 * mt * dim * 16;
      if (pair)
        tile_pair_forward<dim, 16>(Pu, mt, ws.Vf.data(), ws.F0.data() + t * rt, nrp, ws.F.data(), F1);
      else
        tile_pair_forward<dim, 8>(Pu, mt, ws.Vf.data(), ws.F0.data() + t * rt, nrp, ws.F.data(), nullptr);
      return;
    }
    tile_forward<dim>(sys.Ptile.data() + t * rt * mt, mt, V, ws.F0.data() + t * rt, nrp, ws.F.data());
    if (pair) tile_forward<dim>(sys.Ptile.data() + (t + 1) * rt * mt, mt, V, ws.F0.data() + (t + 1) * rt, nrp, F1);
  };
  for (int it = 0; it < iters; ++it) {
    if ((it & 255) == 255) detail::throw_if_cancelled("a fast step");
    if (mixed)
      for (Index k = 0; k < mt * dim; ++k) ws.Vf[k] = static_cast<float>(V[k]);
    Index t = 0;
    for (; t + 1 < tiles; t += 2) {  // two tiles' F, then their rotations side by side
      forward(t, true);
      tile_pair_rotations<dim>(ws.F.data(), 8, F1, std::min<Index>(8, c - 8 * (t + 1)), ws.r.data() + t * rt * dim,
                               ws.r.data() + (t + 1) * rt * dim);
    }
    if (t < tiles) {
      forward(t, false);
      tile_rotations<dim>(ws.F.data(), std::min<Index>(8, c - 8 * t), ws.r.data() + t * rt * dim);
    }
    if (mixed) {
      for (Index k = 0; k < nrp * dim; ++k) ws.rf[k] = static_cast<float>(ws.r[k]);
      rows_transpose_product<float, dim>(sys.Prowf.data(), sys.mt16, mt, nrp, ws.rf.data(), C0, V);
    } else {
      rows_transpose_product<double, dim>(sys.Prow.data(), sys.Prow.rows(), mt, nrp, ws.r.data(), C0, V);
    }
    if (check) {
      ws.zprev = z_out;
      to_z();
      if ((z_out - ws.zprev).norm() < sys.options.tolerance) return;
    }
  }
  if (!check) to_z();
}

}  // namespace

FastCD::FastCD() = default;
FastCD::FastCD(const FastCD&) = default;
FastCD& FastCD::operator=(const FastCD&) = default;
FastCD::FastCD(FastCD&&) noexcept = default;
FastCD& FastCD::operator=(FastCD&&) noexcept = default;
FastCD::~FastCD() = default;

const FastCD::Impl& FastCD::impl() const {
  static const Impl none;
  return impl_ ? *impl_ : none;
}
Index FastCD::dim() const { return impl().dim; }
Index FastCD::num_vertices() const { return impl().n_vertices; }
Index FastCD::state_dim() const { return impl().state_dim(); }
Index FastCD::basis_dim() const { return impl().basis_dim(); }
Index FastCD::n_rot() const { return impl().clusters; }
const CDOptions& FastCD::options() const { return impl().options; }
const SparseMatrix& FastCD::J() const { return impl().J; }
const VectorXd& FastCD::p0() const { return impl().p0; }
const VectorXd& FastCD::D() const { return impl().D; }
LeakFieldKind FastCD::leak_field_used() const { return impl().leak_used; }
const SparseMatrix& FastCD::Mv() const { return impl().Mv; }
const ComplementarityConstraint& FastCD::constraint() const { return impl().constraint; }
Index FastCD::weight_constraint_rank() const { return impl().weight_constraint_rank; }
const MatrixXd& FastCD::W() const { return impl().W; }
const VectorXd& FastCD::eigenvalues() const { return impl().E; }
const MatrixXd& FastCD::Phi() const { return impl().Phi; }
const MatrixXd& FastCD::B() const { return impl().B; }
const VectorXi& FastCD::labels() const { return impl().labels; }
FastCDSubspace FastCD::subspace() const {
  const Impl& sys = impl();
  return FastCDSubspace{sys.D, sys.leak_used, sys.W, sys.E, sys.labels, sys.weight_constraint_rank};
}
double FastCD::structural_residual() const { return impl().structural_residual; }
const ReducedOperators& FastCD::reduced_operators() const { return impl().red; }
bool FastCD::folded() const { return impl().folded(); }
bool FastCD::scalar_rig() const { return impl().scalar_rig; }

void FastCD::step(const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, Workspace& ws,
                  int iterations) const {
  FASTCD_CHECK(impl_ != nullptr, "the solver is empty (build it with fast_cd_precompute)");
  const Impl& sys = *impl_;
  const Index m = sys.state_dim(), np = sys.J.cols();
  FASTCD_CHECK(z.size() == m && z_dot.size() == m && z_out.size() == m, "z, z_dot and the output need ", m,
               " entries, got ", z.size(), ", ", z_dot.size(), ", ", z_out.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np, " entries, got ",
               p.size(), ", ", p_dot.size(), ", ", p_next.size());
  const int iters = iterations < 0 ? sys.options.iterations : iterations;
  if (sys.dim == 2)
    iterate<2>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
  else
    iterate<3>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
  // Every input enters z0 through dense products, so a NaN or Inf anywhere reaches z_out: one
  // check of the output (m numbers) stands for five checks of the inputs on the hot path; the
  // inputs are examined only to say which one was bad (and when no iteration ran).
  if (!all_finite(z_out) || iters == 0)
    FASTCD_CHECK(all_finite(z) && all_finite(z_dot) && all_finite(p) && all_finite(p_dot) && all_finite(p_next),
                 "non-finite input (NaN or Inf in the state or the rig pose)");
}

VectorXd FastCD::step(const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) const {
  Workspace ws;
  VectorXd out(state_dim());
  step(z, z_dot, p, p_dot, p_next, out, ws, iterations);
  return out;
}

CDState FastCD::initial_state() const { return detail::rest_state(state_dim(), p0()); }

void FastCD::advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, Workspace& ws) const {
  ws.s_next.resize(state_dim());
  step(state.s, state.s_dot, state.p, state.p_dot, p_next, ws.s_next, ws);
  detail::accept_step(state, ws.s_next, p_next, options().dt);
}

void FastCD::lift(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<VectorXd> u) const {
  const Impl& sys = impl();
  FASTCD_CHECK(z.size() == sys.state_dim(), "z has ", z.size(), " entries, expected ", sys.state_dim());
  FASTCD_CHECK(u.size() == sys.n_vertices * sys.dim, "u has ", u.size(), " entries, expected ",
               sys.n_vertices * sys.dim);
  // U (#V x dim, row-major = vertex-interleaved) = Phi Z^T.
  Eigen::Map<RowMajorMatrix>(u.data(), sys.n_vertices, sys.dim).noalias() =
      sys.Phi * Eigen::Map<const RowMajorMatrix>(z.data(), sys.basis_dim(), sys.dim);
}

void FastCD::mode_transforms(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<MatrixXd> T) const {
  const Impl& sys = impl();
  FASTCD_CHECK(z.size() == sys.state_dim(), "z has ", z.size(), " entries, expected ", sys.state_dim());
  const Index d = sys.dim, modes = sys.options.modes;
  FASTCD_CHECK(T.rows() == modes && T.cols() == d * (d + 1), "T is ", T.rows(), " x ", T.cols(), ", expected ", modes,
               " x ", d * (d + 1));
  // G = Craw Z^T: row k*(d+1) + l is what W_k x_l contributes to u (l = d: W_k itself).
  const MatrixXd G = sys.Craw * Eigen::Map<const RowMajorMatrix>(z.data(), sys.basis_dim(), d);
  for (Index k = 0; k < modes; ++k)
    for (Index l = 0; l <= d; ++l)
      for (Index i = 0; i < d; ++i) T(k, l * d + i) = G(k * (d + 1) + l, i);
}

namespace {
/// u of vertex blocks [b0, b1) (8 vertices each): A = sum_k w_k T_k per lane, then u = A [x; 1].
template <int dim>
void lift_blocks(const float* __restrict W, const float* __restrict X, const float* __restrict T, Index modes, Index n,
                 Index b0, Index b1, float* __restrict u) {
  constexpr int na = dim * (dim + 1);
  for (Index b = b0; b < b1; ++b) {
    float A[na][8] = {};
    const float* w = W + b * modes * 8;
    for (Index k = 0; k < modes; ++k) {
      const float* t = T + k * na;
      for (int j = 0; j < na; ++j) {
        const float tj = t[j];
#pragma omp simd
        for (int lane = 0; lane < 8; ++lane) A[j][lane] += w[k * 8 + lane] * tj;
      }
    }
    const float* x = X + b * dim * 8;
    float out[dim][8];
    for (int i = 0; i < dim; ++i) {
#pragma omp simd
      for (int lane = 0; lane < 8; ++lane) {
        float acc = A[dim * dim + i][lane];
        for (int l = 0; l < dim; ++l) acc += A[l * dim + i][lane] * x[l * 8 + lane];
        out[i][lane] = acc;
      }
    }
    const Index v0 = b * 8, nv = std::min<Index>(8, n - v0);
    for (Index lane = 0; lane < nv; ++lane)
      for (int i = 0; i < dim; ++i) u[(v0 + lane) * dim + i] = out[i][lane];
  }
}
}  // namespace

void FastCD::lift_skinned(const Eigen::Ref<const VectorXd>& z, Eigen::Ref<Eigen::VectorXf> u, int max_threads) const {
  const Impl& sys = impl();
  const Index d = sys.dim, modes = sys.options.modes, n = sys.n_vertices;
  FASTCD_CHECK(u.size() == n * d, "u has ", u.size(), " entries, expected ", n * d);
  MatrixXd T(modes, d * (d + 1));
  mode_transforms(z, T);
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Tf = T.cast<float>();
  const Index nb = (n + 7) / 8;
  parallel_for(
      nb, 512,
      [&](Index b0, Index b1) {
        d == 2 ? lift_blocks<2>(sys.Wf.data(), sys.Xf.data(), Tf.data(), modes, n, b0, b1, u.data())
               : lift_blocks<3>(sys.Wf.data(), sys.Xf.data(), Tf.data(), modes, n, b0, b1, u.data());
      },
      max_threads > 0 ? max_threads : 1);
}

VectorXd FastCD::lift(const Eigen::Ref<const VectorXd>& z) const {
  VectorXd u(num_vertices() * dim());
  lift(z, u);
  return u;
}

MatrixXd FastCD::positions(const CDState& state) const { return unflatten(J() * state.p + lift(state.s), dim()); }

double FastCD::energy(const Eigen::Ref<const VectorXd>& zc, const Eigen::Ref<const VectorXd>& z,
                      const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) const {
  FASTCD_CHECK(impl_ != nullptr, "the solver is empty (build it with fast_cd_precompute)");
  const Impl& sys = *impl_;
  const ReducedOperators& red = sys.red;
  // Up to a constant: 1/(2h^2) ||B(zc - y) + J q||_M^2 + 1/2 zc^T B^T L B zc + zc^T B^T L J p+
  //                   - sum_c R_c : (GB zc + GJ p+)_c   (the per-element ||F||^2 terms are
  // quadratic in zc and folded into B^T L B; the constant parts do not depend on zc).
  const double h = sys.options.dt, h2 = h * h;
  const VectorXd y = z + h * z_dot, q = p_next - p - h * p_dot;
  const MatrixXd BLB = MatrixXd(red.Hr.matrixL()) * MatrixXd(red.Hr.matrixU()) - red.BMB / h2;
  const VectorXd dz = zc - y;
  const double inertia = 0.5 * (dz.dot(red.BMB * dz) + 2.0 * dz.dot(red.BMJ * q)) / h2;
  const VectorXd F = red.GB * zc + red.GJ * p_next;
  VectorXd R;
  polar_rotations(F, sys.dim, R);
  const double external = sys.Bf_ext.size() > 0 ? -sys.Bf_ext.dot(zc) : 0.0;
  return inertia + 0.5 * zc.dot(BLB * zc) + zc.dot(red.BLJ * p_next) - R.dot(F) + external;
}

std::size_t FastCD::step_memory_bytes() const {
  const Impl& f = impl();
  return detail::bytes_of(f.Zy) + detail::bytes_of(f.Z_q) + detail::bytes_of(f.Z_p) + detail::bytes_of(f.GJf) +
         detail::bytes_of(f.Ptile) + detail::bytes_of(f.Prow) + detail::bytes_of(f.LhT) + detail::bytes_of(f.LhInvT) +
         detail::bytes_of(f.Zq_neg) + detail::bytes_of(f.Zp_neg) + detail::bytes_of(f.FJs) + detail::bytes_of(f.Gf) +
         detail::bytes_of(f.F_y) + detail::bytes_of(f.F_q) + detail::bytes_of(f.F_p) + detail::bytes_of(f.Sf) +
         detail::bytes_of(f.Kf) + detail::bytes_of(f.Pf) + detail::bytes_of(f.Prowf);
}

std::size_t FastCD::memory_bytes() const {
  const Impl& f = impl();
  return step_memory_bytes() + detail::bytes_of(f.J) + detail::bytes_of(f.Mv) + detail::bytes_of(f.W) +
         detail::bytes_of(f.Phi) + detail::bytes_of(f.B) + detail::bytes_of(f.Craw) +
         sizeof(float) * (f.Wf.size() + f.Xf.size()) + detail::bytes_of(f.red.GB) + detail::bytes_of(f.red.GJ) +
         detail::bytes_of(f.red.BMB) + detail::bytes_of(f.red.BMJ) + detail::bytes_of(f.red.BLJ) +
         sizeof(double) * static_cast<std::size_t>(f.red.Hr.rows() * f.red.Hr.cols()) +
         detail::bytes_of(f.constraint.C) + detail::bytes_of(f.constraint.basis) +
         detail::bytes_of(f.constraint.basis_scalar) +
         sizeof(double) * static_cast<std::size_t>(f.D.size() + f.E.size() + f.p0.size()) +
         sizeof(int) * static_cast<std::size_t>(f.labels.size());
}

}  // namespace fastcd

namespace fastcd {

const MatrixXd& FastCD::skinning_coordinates() const { return impl().Craw; }

}  // namespace fastcd
