#include "fastcd/cd/fast_cd_solver.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "fastcd/common/check.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

namespace {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstZ = Eigen::Map<const RowMajorMatrix>;  ///< z as mt x dim (Z^T: row k holds mode column k's dim entries)

constexpr Index kLanes = 4;  ///< vertices per block of the skinning lift (one AVX2 register of doubles)

std::size_t vector_bytes(std::initializer_list<const VectorXd*> vs) {
  std::size_t b = 0;
  for (const VectorXd* v : vs) b += sizeof(double) * static_cast<std::size_t>(v->size());
  return b;
}

/// u of every vertex in skinning form, kLanes vertices at a time: A = sum_k w_k T_k per lane
/// (T_k: dim x (dim+1), column-major, at G + k * dim * (dim+1)), then u = A [x; 1].
/// W: (block * modes + k) * kLanes + lane; X: (block * dim + l) * kLanes + lane.
template <int dim>
void lift_blocks(const double* __restrict W, const double* __restrict X, const double* __restrict G, Index modes,
                 Index n, double* __restrict u) {
  using V = double __attribute__((vector_size(kLanes * sizeof(double))));
  constexpr int na = dim * (dim + 1);
  const Index blocks = (n + kLanes - 1) / kLanes;
  for (Index b = 0; b < blocks; ++b) {
    V A[na];
    for (int j = 0; j < na; ++j) A[j] = V{};
    const double* w = W + b * modes * kLanes;
    for (Index k = 0; k < modes; ++k) {
      const V wk = simd::load<V>(w + k * kLanes);
      const double* t = G + k * na;
      for (int j = 0; j < na; ++j) A[j] += wk * t[j];
    }
    const double* x = X + b * dim * kLanes;
    V out[dim];
    for (int i = 0; i < dim; ++i) {
      V acc = A[dim * dim + i];
      for (int l = 0; l < dim; ++l) acc += A[l * dim + i] * simd::load<V>(x + l * kLanes);
      out[i] = acc;
    }
    const Index v0 = b * kLanes, nv = std::min<Index>(kLanes, n - v0);
    for (Index lane = 0; lane < nv; ++lane)
      for (int i = 0; i < dim; ++i) u[(v0 + lane) * dim + i] = out[i][lane];
  }
}

/// The fast solver for a linear rig: J = the LinearRig's own, or the rig's Jacobian at p0 (then
/// x(p) = J p must hold at the rest pose: the fast step sees the rig only through J p).
FastCD fast_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                       const SimulationOptions& options) {
  const VectorXd p0 = rig.rest_params();
  const auto* linear = dynamic_cast<const LinearRig*>(&rig);
  const SparseMatrix J = linear ? linear->J : rig.jacobian(p0);
  if (!linear) {
    const VectorXd x0 = rig.positions(p0), Jp = J * p0;
    FASTCD_CHECK((x0 - Jp).norm() <= 1e-9 * std::max(1.0, x0.norm()), "the fast solver needs x(p) = J p, but the ",
                 rig.name(), " rig's rest positions differ from J p0 by ", (x0 - Jp).norm(),
                 ": use the full solver, or fold the offset into the rig's parameters");
  }
  return fast_cd_precompute(X, T, J, p0, options.cd, options.fast_subspace.get());
}

}  // namespace

struct FastCDSolver::Reduced {
  Index dim = 0, n = 0, mt = 0, modes = 0;
  // Residual: C u_c = (C B) z. When C = C_s (x) I_dim (LBS and cage rigs), C B = (C_s Phi) (x) I
  // and C u_c is the (P/dim x dim) matrix (C_s Phi) Z^T; otherwise CB is C B (P x m).
  bool scalar_constraint = false;
  MatrixXd CB;
  double C_norm = 0.0;
  MatrixXd PhiTPhi;  ///< mt x mt: |u_c|^2 = tr(Z Phi^T Phi Z^T)
  // Kinetic energy: K = B^T M B, per axis (Phi^T M_s Phi, mt x mt) when M = M_s (x) I.
  bool mass_per_axis = true, mass_identity = false;
  MatrixXd K;
  double mass_error = 0.0;  ///< max |B^T M B - I|
  // The rig's kinetic energy: 1/2 p_dot^T S p_dot, per axis (S = J_s^T M_s J_s) when J = J_s (x) I.
  bool rig_per_axis = false;
  SparseMatrix S;
  double phi_row_max = 0.0;  ///< max_v |Phi_v|: max |u_c| <= phi_row_max max_a |Z_a|
  // The lift.
  bool skinning = false;
  double representation_error = 0.0;
  std::vector<double> Wb, Xb;  ///< W and X in blocks of kLanes vertices (zero-padded)
};

FastCDSolver::FastCDSolver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                           const SimulationOptions& options)
    : fast_(fast_precompute(X, T, rig, options)) {
  auto r = std::make_shared<Reduced>();
  const Index d = fast_.dim(), n = fast_.num_vertices(), mt = fast_.basis_dim();
  const Index modes = fast_.W().cols();
  r->dim = d;
  r->n = n;
  r->mt = mt;
  r->modes = modes;
  const MatrixXd& Phi = fast_.Phi();
  const SparseMatrix& C = fast_.constraint().C;
  r->C_norm = C.norm();
  if (const std::optional<SparseMatrix> Cs = kron_identity_factor(C, d)) {
    r->scalar_constraint = true;
    r->CB = *Cs * Phi;
  } else {
    r->CB = C * fast_.B();
  }
  r->PhiTPhi = Phi.transpose() * Phi;
  const std::optional<SparseMatrix> Ms = kron_identity_factor(fast_.Mv(), d);
  r->mass_per_axis = Ms.has_value();
  r->K = Ms ? MatrixXd(Phi.transpose() * (*Ms * Phi)) : MatrixXd(fast_.B().transpose() * (fast_.Mv() * fast_.B()));
  r->mass_error = (r->K - MatrixXd::Identity(r->K.rows(), r->K.cols())).cwiseAbs().maxCoeff();
  // |z_dot^T (K - I) z_dot| <= |K - I|_2 |z_dot|^2 <= mt max |K - I| |z_dot|^2: 1e-13 relative at most.
  r->mass_identity = r->mass_error * static_cast<double>(r->K.rows()) <= 1e-13;
  const SparseMatrix& J = fast_.J();
  const std::optional<SparseMatrix> Js = kron_identity_factor(J, d);
  r->rig_per_axis = Js && Ms;
  r->S = r->rig_per_axis ? SparseMatrix(Js->transpose() * *Ms * *Js) : SparseMatrix(J.transpose() * fast_.Mv() * J);
  r->phi_row_max = Phi.rowwise().norm().maxCoeff();

  // The skinning form's exactness: how well Phi_raw Craw represents Phi, and how much more
  // rounding its sums can carry than Phi Z^T's (sum_i |Phi_raw(v, i)| |Craw_i| against sum_j
  // |Phi(v, j)|, the bounds of the two sums' rounding per unit of z).
  const MatrixXd& Craw = fast_.skinning_coordinates();
  const MatrixXd& W = fast_.W();
  if (Craw.rows() == modes * (d + 1) && Craw.cols() == mt && X.rows() == n) {
    MatrixXd Phi_raw(n, modes * (d + 1));
    for (Index k = 0; k < modes; ++k) {
      for (Index l = 0; l < d; ++l) Phi_raw.col(k * (d + 1) + l) = W.col(k).cwiseProduct(X.col(l));
      Phi_raw.col(k * (d + 1) + d) = W.col(k);
    }
    const double phi_max = std::max(r->phi_row_max, 1e-300);
    r->representation_error = (Phi_raw * Craw - Phi).rowwise().norm().maxCoeff() / phi_max;
    const VectorXd craw_rows = Craw.rowwise().norm();
    const double amplification =
        (Phi_raw.cwiseAbs() * craw_rows).maxCoeff() / std::max(Phi.cwiseAbs().rowwise().sum().maxCoeff(), 1e-300);
    r->skinning = r->representation_error <= 1e-13 && amplification <= 16.0;
  }
  if (r->skinning) {
    const Index blocks = (n + kLanes - 1) / kLanes;
    r->Wb.assign(static_cast<std::size_t>(blocks * modes * kLanes), 0.0);
    r->Xb.assign(static_cast<std::size_t>(blocks * d * kLanes), 0.0);
    for (Index v = 0; v < n; ++v) {
      const Index b = v / kLanes, lane = v % kLanes;
      for (Index k = 0; k < modes; ++k) r->Wb[static_cast<std::size_t>((b * modes + k) * kLanes + lane)] = W(v, k);
      for (Index l = 0; l < d; ++l) r->Xb[static_cast<std::size_t>((b * d + l) * kLanes + lane)] = X(v, l);
    }
    G_.resize(d, modes * (d + 1));
  }
  Cu_.resize(r->CB.rows(), r->scalar_constraint ? d : 1);
  GZ_.resize(mt, d);
  Sp_.resize(r->S.rows(), r->rig_per_axis ? d : 1);
  r_ = std::move(r);
}

void FastCDSolver::check_rig(const Rig& rig) {
  FASTCD_CHECK(rig.is_linear(), "the fast solver needs a linear rig (its subspace is built for one constant J); the ",
               rig.name(), " rig is nonlinear: use the full solver");
}

PrecomputeBytes FastCDSolver::precompute_bytes(const Eigen::Ref<const MatrixXi>& T, Index n_vertices, const Rig& rig,
                                               const SparseMatrix* J, const CDOptions& options) {
  const double n = static_cast<double>(n_vertices), d = static_cast<double>(rig.dim());
  const double P = static_cast<double>(rig.num_params());
  const detail::ConstraintBytes c = detail::constraint_bytes(n_vertices, rig, J);
  PrecomputeBytes b;
  // The elastic operators, the leak field, clusters and the rest: about 1.5 kB per element
  // (measured on tet grids of 12k and 69k vertices; the same holds the estimate below 1.6x).
  b.mesh = 1536.0 * static_cast<double>(T.rows());
  // The weight-space operator (P d (d+1) x #V) and its distinct rows (LBS: about P (d+1) / d),
  // the constrained eigenmodes under as many constraints, the dense basis B (#V*dim x
  // modes*dim*(dim+1)) with Phi and its raw copy.
  const double kept = std::min(P * (d + 1) / d, n);
  const double weight_space = 8.0 * (P * d * (d + 1) + P) * n + row_space_bytes(kept, n);
  const double eigenmodes = 8.0 * (11.0 * kept * n + 5.0 * kept * kept);
  b.mesh += 2.0 * 8.0 * n * d * static_cast<double>(options.modes) * d * (d + 1);
  b.rig = c.held + std::max({c.gram, c.constraint, weight_space, eigenmodes});
  return b;
}

std::size_t FastCDSolver::memory_bytes() const {
  const Reduced& r = *r_;
  auto bytes = [](const MatrixXd& M) { return sizeof(double) * static_cast<std::size_t>(M.size()); };
  return fast_.memory_bytes() +
         vector_bytes({&ws_.q, &ws_.z0, &ws_.F0, &ws_.F, &ws_.r, &ws_.zprev, &ws_.g, &ws_.s_next}) +
         sizeof(float) * static_cast<std::size_t>(ws_.Vf.size() + ws_.rf.size()) + bytes(r.CB) + bytes(r.PhiTPhi) +
         bytes(r.K) + (sizeof(double) + sizeof(int)) * static_cast<std::size_t>(r.S.nonZeros()) +
         sizeof(double) * (r.Wb.size() + r.Xb.size()) + bytes(G_) + bytes(Cu_) + bytes(GZ_) + bytes(Sp_);
}

void FastCDSolver::advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, RigMotion&) {
  fast_.advance(state, p_next, ws_);
}

const VectorXd& FastCDSolver::lift(const VectorXd& s, VectorXd& scratch) const {
  const Reduced& r = *r_;
  scratch.resize(r.n * r.dim);
  if (!r.skinning) {
    fast_.lift(s, scratch);
    return scratch;
  }
  FASTCD_CHECK(s.size() == fast_.state_dim(), "z has ", s.size(), " entries, expected ", fast_.state_dim());
  // G_ (dim x modes*(dim+1), column-major) = (Craw Z^T)^T: column k*(dim+1) + l is what W_k x_l
  // contributes, so mode k's transform [A_k | t_k] (column-major) is G_'s columns k*(dim+1)...
  G_.noalias() = ConstZ(s.data(), r.mt, r.dim).transpose() * fast_.skinning_coordinates().transpose();
  if (r.dim == 2)
    lift_blocks<2>(r.Wb.data(), r.Xb.data(), G_.data(), r.modes, r.n, scratch.data());
  else
    lift_blocks<3>(r.Wb.data(), r.Xb.data(), G_.data(), r.modes, r.n, scratch.data());
  return scratch;
}

double FastCDSolver::kinetic_energy(const CDState& state) const {
  const Reduced& r = *r_;
  const VectorXd& zd = state.s_dot;
  if (r.mass_identity) return 0.5 * zd.squaredNorm();
  if (r.mass_per_axis) {
    const ConstZ Zd(zd.data(), r.mt, r.dim);
    GZ_.noalias() = r.K * Zd;
    return 0.5 * GZ_.cwiseProduct(Zd).sum();
  }
  return 0.5 * zd.dot(r.K * zd);
}

double FastCDSolver::residual(const CDState& state, double floor) const {
  const Reduced& r = *r_;
  const ConstZ Z(state.s.data(), r.mt, r.dim);
  GZ_.noalias() = r.PhiTPhi * Z;
  const double un = std::max(std::sqrt(std::max(0.0, GZ_.cwiseProduct(Z).sum())), floor);  // |u_c|, as |B z|
  if (!(un > 0 && r.C_norm > 0)) return 0.0;
  if (r.scalar_constraint)
    Cu_.noalias() = r.CB * Z;
  else
    Cu_.noalias() = r.CB * state.s;
  return Cu_.norm() / (r.C_norm * un);
}

StepMeasures FastCDSolver::measure(const CDState& state, const RigMotion&) const {
  const Reduced& r = *r_;
  StepMeasures m;
  const VectorXd& pd = state.p_dot;
  if (r.rig_per_axis) {
    const ConstZ Pd(pd.data(), r.S.rows(), r.dim);
    Sp_.noalias() = r.S * Pd;
    m.rig_kinetic_energy = 0.5 * Sp_.cwiseProduct(Pd).sum();
  } else {
    Sp_.noalias() = r.S * pd;
    m.rig_kinetic_energy = 0.5 * Sp_.col(0).dot(pd);
  }
  m.finite = all_finite(state.s) && all_finite(state.s_dot);
  if (m.finite) {
    m.kinetic_energy = kinetic_energy(state);
    m.max_displacement = r.phi_row_max * ConstZ(state.s.data(), r.mt, r.dim).colwise().norm().maxCoeff();
    m.max_displacement_exact = false;
  }
  return m;
}

bool FastCDSolver::skinning_lift() const { return r_->skinning; }
double FastCDSolver::skinning_representation_error() const { return r_->representation_error; }
bool FastCDSolver::mass_orthonormal() const { return r_->mass_identity; }
double FastCDSolver::mass_orthonormality_error() const { return r_->mass_error; }

}  // namespace fastcd
