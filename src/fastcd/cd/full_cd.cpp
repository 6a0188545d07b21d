#include "fastcd/cd/full_cd.hpp"

#include <algorithm>
#include <cmath>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/stiffness_matrix.hpp"
#include "fastcd/materials/arap_elements.hpp"
#include "fastcd/solvers/kron_cholesky.hpp"
#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

/// Everything that depends on the mesh and material only (never on the rig).
struct FullCD::Factors {
  Index dim = 0;
  CDOptions options;
  ElasticOperators op;
  VectorXd D;                                          ///< #V leak field
  LeakFieldKind leak_used = LeakFieldKind::Diffusion;  ///< the kind D is
  SparseMatrix Hs;                                     ///< scalar Ks + Ms / h^2; H = L + Mv/h^2 = kron(Hs, I_dim)
  ArapElements arap;      ///< per-element tables of the local step and the elastic right-hand side
  VectorXd f_ext;         ///< Mv g (external force), empty without gravity
  KronCholesky H_factor;  ///< factor of Hs, solving with H on interleaved vectors
};

namespace {

using detail::bytes_of;

std::size_t bytes_of(const ArapElements& a) {
  return sizeof(int) * (a.vertices.size() + a.incidence_ptr.size() + a.incidence_elem.size() + a.lane_vertices.size() +
                        a.incidence_lane.size()) +
         sizeof(double) * (a.grads.size() + a.incidence_wg.size() + a.lane_grads.size() + a.lane_mu_vol.size());
}

void check_poses(Index n, Index np, const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                 const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                 const Eigen::Ref<const VectorXd>& p_next) {
  FASTCD_CHECK(s.size() == n && s_dot.size() == n, "u_c and its velocity need ", n, " entries, got ", s.size(), " and ",
               s_dot.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np, " entries, got ",
               p.size(), ", ", p_dot.size(), ", ", p_next.size());
  FASTCD_CHECK(all_finite(s) && all_finite(s_dot) && all_finite(p) && all_finite(p_dot) && all_finite(p_next),
               "non-finite input (NaN or Inf in the state or the rig pose)");
}

/// Constant parts of one step, into ws: Jp = x_rig(p+), yhat = uc + h uc_dot - (Jp - xr - h xr_dot),
/// b0 = Mv yhat / h^2 - L Jp (+ Mv g). Allocation-free once ws is sized.
void finish_step_constants(const FullCD::Factors& f, FullCD::Workspace& ws) {
  const double h = f.options.dt;
  ws.b0.resize(ws.yhat.size());
  ws.b0.noalias() = f.op.Mv * ws.yhat;
  ws.b0 /= h * h;
  ws.b0.noalias() -= f.op.L * ws.Jp;
  if (f.f_ext.size() > 0) ws.b0 += f.f_ext;
}

void step_constants(const FullCD::Factors& f, const SparseMatrix& J, const Eigen::Ref<const VectorXd>& uc,
                    const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& p,
                    const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next,
                    FullCD::Workspace& ws) {
  const double h = f.options.dt;
  ws.Jp.resize(uc.size());
  ws.yhat.resize(uc.size());
  ws.Jp.noalias() = J * p_next;
  ws.yhat = uc + h * uc_dot;
  ws.yhat.noalias() -= J * (p_next - p - h * p_dot);
  finish_step_constants(f, ws);
}

// The scalar-block correction U -= Y_s S_s^{-1} B_s U on the #V x d row-major view U of u.
// B_s and Yt = Y_s^T are stored r8 x #V (r_s rows padded with zeros to a multiple of 8), so a
// vertex's entries are contiguous SIMD registers and each matrix is streamed once, in order, with
// up to 32 rows of the r_s x d multipliers held in registers (a general product packs both).
template <int d, int NC>
void correction_rows(const double* __restrict Bs, const double* __restrict Yt, Index r8, Index nv, Index k0,
                     double* __restrict u, double* __restrict lambda, bool second) {
  using simd::Vec8;
  Vec8 acc[NC][d];
  if (!second) {
    for (auto& a : acc)
      for (Vec8& x : a) x = simd::splat8(0.0);
    for (Index v = 0; v < nv; ++v) {
      const double* b = Bs + v * r8 + k0;
      for (int j = 0; j < NC; ++j) {
        const Vec8 bj = simd::load8(b + 8 * j);
        for (int c = 0; c < d; ++c) acc[j][c] += bj * u[v * d + c];
      }
    }
    for (int j = 0; j < NC; ++j)
      for (int c = 0; c < d; ++c) simd::store8(lambda + c * r8 + k0 + 8 * j, acc[j][c]);
    return;
  }
  for (int j = 0; j < NC; ++j)
    for (int c = 0; c < d; ++c) acc[j][c] = simd::load8(lambda + c * r8 + k0 + 8 * j);
  for (Index v = 0; v < nv; ++v) {
    const double* y = Yt + v * r8 + k0;
    Vec8 s[d];
    for (int c = 0; c < d; ++c) s[c] = simd::splat8(0.0);
    for (int j = 0; j < NC; ++j) {
      const Vec8 yj = simd::load8(y + 8 * j);
      for (int c = 0; c < d; ++c) s[c] += yj * acc[j][c];
    }
    for (int c = 0; c < d; ++c) u[v * d + c] -= simd::hsum(s[c]);
  }
}

template <int d>
void correction_pass(const double* Bs, const double* Yt, Index r8, Index nv, double* u, double* lambda, bool second) {
  for (Index k0 = 0; k0 < r8; k0 += 32) {
    switch (std::min<Index>(4, (r8 - k0) / 8)) {
      case 1:
        correction_rows<d, 1>(Bs, Yt, r8, nv, k0, u, lambda, second);
        break;
      case 2:
        correction_rows<d, 2>(Bs, Yt, r8, nv, k0, u, lambda, second);
        break;
      case 3:
        correction_rows<d, 3>(Bs, Yt, r8, nv, k0, u, lambda, second);
        break;
      default:
        correction_rows<d, 4>(Bs, Yt, r8, nv, k0, u, lambda, second);
    }
  }
}

void scalar_correction(const MatrixXd& Bs8, const MatrixXd& Yt8, Index rs, const Eigen::LLT<MatrixXd>& schur, Index d,
                       Eigen::Ref<VectorXd> u, VectorXd& lambda) {
  const Index r8 = Bs8.rows(), nv = Bs8.cols();
  lambda.resize(r8 * d);
  auto pass = [&](bool second) {
    d == 2 ? correction_pass<2>(Bs8.data(), Yt8.data(), r8, nv, u.data(), lambda.data(), second)
           : correction_pass<3>(Bs8.data(), Yt8.data(), r8, nv, u.data(), lambda.data(), second);
  };
  pass(false);  // lambda = B_s U (rows rs .. r8 stay zero: B_s's padding is)
  Eigen::Map<MatrixXd, 0, Eigen::OuterStride<>> L(lambda.data(), rs, d, Eigen::OuterStride<>(r8));
  schur.solveInPlace(L);
  pass(true);  // U -= Y_s lambda
}

}  // namespace

FullCD::FullCD() = default;
FullCD::FullCD(const FullCD&) = default;
FullCD& FullCD::operator=(const FullCD&) = default;
FullCD::FullCD(FullCD&&) noexcept = default;
FullCD& FullCD::operator=(FullCD&&) noexcept = default;
FullCD::~FullCD() = default;

Index FullCD::dim() const { return f_ ? f_->dim : 0; }
Index FullCD::num_vertices() const { return f_ ? f_->op.Mv.rows() / f_->dim : 0; }
Index FullCD::state_dim() const { return f_ ? f_->op.Mv.rows() : 0; }
Index FullCD::n_rot() const { return f_ ? f_->op.vol.size() : 0; }
const CDOptions& FullCD::options() const {
  static const CDOptions none;
  return f_ ? f_->options : none;
}
const VectorXd& FullCD::D() const {
  static const VectorXd none;
  return f_ ? f_->D : none;
}
const SparseMatrix& FullCD::Mv() const { return operators().Mv; }
LeakFieldKind FullCD::leak_field_used() const { return f_ ? f_->leak_used : LeakFieldKind::Diffusion; }
const ElasticOperators& FullCD::operators() const {
  static const ElasticOperators none;
  return f_ ? f_->op : none;
}

void FullCD::factor_constraint() {
  Y_.resize(state_dim(), 0);
  Bs8_.resize(0, 0);
  scalar_constraint_ = false;
  schur_ = Eigen::LLT<MatrixXd>(MatrixXd(0, 0));  // (a default LLT has an uninitialised status)
  if (constraint_.basis.rows() == 0) return;
  const Index d = f_->dim;
  if (constraint_.basis_scalar.rows() > 0) {
    // basis = B_s (x) I: the correction on the scalar blocks.
    const MatrixXd& Bs = constraint_.basis_scalar;
    const Index nv = Bs.cols(), r8 = (Bs.rows() + 7) / 8 * 8;
    // Y_s^T and B_s padded to r8 rows: vertex v's entries are contiguous (scalar_correction).
    Y_.setZero(r8, nv);
    Bs8_.setZero(r8, nv);
    Bs8_.topRows(Bs.rows()) = Bs;
    VectorXd rhs(nv * d), sol(nv * d), scratch(f_->H_factor.scratch_size());
    for (Index k = 0; k < Bs.rows(); ++k) {
      // Hs^{-1} b_s: the kron solve on b_s (x) e_0, read back from the x components.
      rhs.setZero();
      for (Index v = 0; v < nv; ++v) rhs(v * d) = Bs(k, v);
      f_->H_factor.solve(rhs.data(), sol.data(), scratch.data());
      for (Index v = 0; v < nv; ++v) Y_(k, v) = sol(v * d);
    }
    schur_.compute(Bs * Y_.topRows(Bs.rows()).transpose());
    FASTCD_ENSURE(schur_.info() == Eigen::Success, "constraint Schur complement is not positive definite");
    scalar_constraint_ = true;
    return;
  }
  const MatrixXd Ct = constraint_.basis.transpose();
  Y_.resize(Ct.rows(), Ct.cols());
  VectorXd scratch(f_->H_factor.scratch_size());
  for (Index k = 0; k < Ct.cols(); ++k) f_->H_factor.solve(Ct.col(k).data(), Y_.col(k).data(), scratch.data());
  schur_.compute(constraint_.basis * Y_);
  FASTCD_ENSURE(schur_.info() == Eigen::Success, "constraint Schur complement is not positive definite");
}

FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options) {
  validate(options);
  FASTCD_CHECK(options.precision == Precision::Double,
               "precision \"mixed\" is a fast-solver setting; the full solver runs in double precision");
  check_mesh(X, T, "full_cd_precompute");
  check_rig_inputs(X, J, p0, "full_cd_precompute");
  auto f = std::make_shared<FullCD::Factors>();
  f->dim = X.cols();
  f->options = options;
  constexpr const char* kWork = "precompute (full order)";
  detail::report_progress(kWork, "elastic operators", 0, 4);
  f->op = elastic_operators(X, T, options.ym, options.pr, options.rho);
  // The stiffness FastCD also factors (elastic_operators' L, one construction), its scalar block.
  f->Hs =
      SparseMatrix(kron_identity_block(f->op.L, f->dim) + massmatrix(X, T, options.rho) / (options.dt * options.dt));
  detail::report_progress(kWork, "factorising the system matrix", 1, 4);
  f->H_factor.compute(f->Hs, f->dim, options.backend);
  f->arap = arap_elements(X, T, f->op.mu_vol);
  if (options.gravity.size() > 0) {
    FASTCD_CHECK(options.gravity.size() == f->dim, "gravity needs ", f->dim, " entries, got ", options.gravity.size());
    f->f_ext = f->op.Mv * options.gravity.replicate(X.rows(), 1);
  }
  detail::report_progress(kWork, "leak field and constraint", 2, 4);
  LeakedConstraint lc = leak_field_and_constraint(X, T, J, f->op.Mv, options);
  f->D = std::move(lc.D);
  f->leak_used = lc.leak_used;
  FullCD sys;
  sys.f_ = std::move(f);
  sys.J_ = J;
  sys.p0_ = p0;
  sys.constraint_ = std::move(lc.constraint);
  detail::report_progress(kWork, "factorising the constraint", 3, 4);
  sys.factor_constraint();
  return sys;
}

FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                          const CDOptions& options) {
  FASTCD_CHECK(rig.dim() == X.cols() && rig.num_vertices() == X.rows(), "the ", rig.name(), " rig drives ",
               rig.num_vertices(), " vertices in ", rig.dim(), "D, the mesh has ", X.rows(), " in ", X.cols(), "D");
  const VectorXd p0 = rig.rest_params();
  return full_cd_precompute(X, T, rig.jacobian(p0), p0, options);
}

void FullCD::set_rig_jacobian(const SparseMatrix& J) {
  FASTCD_CHECK(f_ != nullptr, "the solver is empty (build it with full_cd_precompute)");
  FASTCD_CHECK(J.rows() == state_dim() && J.cols() == J_.cols(), "rig Jacobian is ", J.rows(), " x ", J.cols(),
               ", expected ", state_dim(), " x ", J_.cols());
  J_ = J;
  const Index rig_rank = constraint_.rig_rank;
  constraint_ =
      complementarity_constraint(J, f_->op.Mv, f_->D, f_->dim, f_->options.constraint_rtol, f_->options.fixed);
  constraint_.rig_rank = rig_rank;  // (of the rest pose's J)
  factor_constraint();
}

/// The local step at u: per element the closest rotation of F(J p+ + u), and from the rotations
/// the global step's right-hand side b = b0 + G^T AMue R into ws.b.
void FullCD::local_step(const Eigen::Ref<const VectorXd>& u, Workspace& ws) const {
  const Factors& f = *f_;
  const Index nf = f.op.G.rows();
  ws.x = ws.Jp + u;
  if (f.dim == 3) {  // the 3D local step and its right-hand side in one pass (arap_rotated_rhs)
    arap_rotated_rhs(f.arap, ws.x.data(), ws.b0.data(), ws.b.data(), ws.R.data());
  } else {
    arap_deformation(f.arap, ws.x.data(), ws.F.data());
    detail::polar_rotations_unchecked<2>(ws.F.data(), nf / 4, ws.R.data());
    arap_elastic_rhs(f.arap, ws.R.data(), ws.b0.data(), ws.b.data());
  }
}

/// u = H^{-1} b under C u = 0: u0 = H^{-1} b, u = u0 - Y S^{-1} (Cb u0). u must not alias b.
void FullCD::constrained_solve(const double* b, Eigen::Ref<VectorXd> u, VectorXd& scratch, VectorXd& lambda) const {
  f_->H_factor.solve(b, u.data(), scratch.data());
  if (scalar_constraint_) {
    scalar_correction(Bs8_, Y_, constraint_.basis_scalar.rows(), schur_, f_->dim, u, lambda);
  } else if (constraint_.basis.rows() > 0) {
    lambda.noalias() = constraint_.basis * u;
    schur_.solveInPlace(lambda);
    u.noalias() -= Y_ * lambda;
  }
}

/// The global step: u = H^{-1} ws.b under C u = 0; then ws.hook, which may add a force f to b:
/// u += H^{-1} f under C u = 0 (the constrained solve is linear).
void FullCD::global_step(int iteration, Eigen::Ref<VectorXd> u, Workspace& ws) const {
  constrained_solve(ws.b.data(), u, ws.scratch, ws.lambda);
  if (ws.hook == nullptr) return;
  // What the hook sees; its solve is the constrained one.
  class Context final : public GlobalStepContext {
   public:
    Context(const FullCD& solver, int it, Eigen::Ref<VectorXd> sol, Workspace& w) : solver_(solver), ws_(w) {
      iteration_ = it;
      size_ = sol.size();
      iterate_ = w.u_prev.data();
      solution_ = sol.data();
      force_ = w.hook_force.data();
    }
    void solve(const Eigen::Ref<const VectorXd>& v, Eigen::Ref<VectorXd> out) const override {
      FASTCD_CHECK(v.size() == size_ && out.size() == size_, "the global step's solve takes and gives ", size_,
                   " entries, got ", v.size(), " and ", out.size());
      const double* b = v.data();
      if (b == out.data()) {  // (the factor's solve is not in place; hook_delta is free while the hook runs)
        ws_.hook_delta = v;
        b = ws_.hook_delta.data();
      }
      solver_.constrained_solve(b, out, ws_.scratch, ws_.lambda);
    }

   private:
    const FullCD& solver_;
    Workspace& ws_;
  };
  ws.hook_force.setZero(u.size());
  ws.hook_delta.resize(u.size());
  Context ctx(*this, iteration, u, ws);
  ws.hook->global_step(ctx);
  FASTCD_CHECK(all_finite(ws.hook_force), "the global-step hook's force has NaN or Inf entries (iteration ", iteration,
               ")");
  if (!(ws.hook_force.array() != 0.0).any()) return;  // no force: the step as without a hook, bit for bit
  constrained_solve(ws.hook_force.data(), ws.hook_delta, ws.scratch, ws.lambda);
  u += ws.hook_delta;
}

/// The local/global iterations from u = s, with ws.Jp and ws.b0 set.
void FullCD::iterate(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<VectorXd> u, Workspace& ws, int iters) const {
  const Factors& f = *f_;
  const Index n = state_dim(), nf = f.op.G.rows();
  const bool fused = f.dim == 3;  // the 3D local step and its right-hand side in one pass (arap_rotated_rhs)
  ws.x.resize(n);
  ws.F.resize(fused ? 0 : nf);
  ws.R.resize(fused ? f.arap.rotated_rhs_buffer() : nf);
  ws.b.resize(n);
  ws.u_prev.resize(n);
  ws.scratch.resize(f.H_factor.scratch_size());
  u = s;
  for (int it = 0; it < iters; ++it) {
    if ((it & 15) == 15) detail::throw_if_cancelled("a full-order step");
    local_step(u, ws);
    ws.u_prev = u;
    global_step(it, u, ws);
    if (f.options.tolerance > 0 && (u - ws.u_prev).norm() < f.options.tolerance) break;
  }
}

void FullCD::solve_global(const Eigen::Ref<const VectorXd>& b, Eigen::Ref<VectorXd> u) const {
  FASTCD_CHECK(f_ != nullptr, "the solver is empty (build it with full_cd_precompute)");
  const Index n = state_dim();
  FASTCD_CHECK(b.size() == n && u.size() == n, "b and u need ", n, " entries, got ", b.size(), " and ", u.size());
  const VectorXd rhs = b;  // (u may alias b)
  VectorXd scratch(f_->H_factor.scratch_size()), lambda;
  constrained_solve(rhs.data(), u, scratch, lambda);
}

void FullCD::step_positions(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                            const Eigen::Ref<const VectorXd>& xr, const Eigen::Ref<const VectorXd>& xr_dot,
                            const Eigen::Ref<const VectorXd>& xr_next, Eigen::Ref<VectorXd> u, Workspace& ws,
                            int iterations) const {
  FASTCD_CHECK(f_ != nullptr, "the solver is empty (build it with full_cd_precompute)");
  const Index n = state_dim();
  FASTCD_CHECK(s.size() == n && s_dot.size() == n && xr.size() == n && xr_dot.size() == n && xr_next.size() == n &&
                   u.size() == n,
               "u_c, its velocity, the rig positions, velocity, next positions and the output need ", n,
               " entries each, got ", s.size(), ", ", s_dot.size(), ", ", xr.size(), ", ", xr_dot.size(), ", ",
               xr_next.size(), ", ", u.size());
  FASTCD_CHECK(s.allFinite() && s_dot.allFinite() && xr.allFinite() && xr_dot.allFinite() && xr_next.allFinite(),
               "non-finite input (NaN or Inf in the state or the rig positions)");
  const double h = f_->options.dt;
  ws.Jp.resize(n);
  ws.yhat.resize(n);
  ws.Jp = xr_next;
  ws.yhat = s + h * s_dot - (xr_next - xr - h * xr_dot);
  finish_step_constants(*f_, ws);
  iterate(s, u, ws, iterations < 0 ? f_->options.iterations : iterations);
}

void FullCD::step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> s_out, Workspace& ws,
                  int iterations) const {
  FASTCD_CHECK(f_ != nullptr, "the solver is empty (build it with full_cd_precompute)");
  check_poses(state_dim(), J_.cols(), s, s_dot, p, p_dot, p_next);
  FASTCD_CHECK(s_out.size() == state_dim(), "output has ", s_out.size(), " entries, expected ", state_dim());
  step_constants(*f_, J_, s, s_dot, p, p_dot, p_next, ws);
  iterate(s, s_out, ws, iterations < 0 ? f_->options.iterations : iterations);
}

VectorXd FullCD::step(const Eigen::Ref<const VectorXd>& s, const Eigen::Ref<const VectorXd>& s_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) const {
  Workspace ws;
  VectorXd u(state_dim());
  step(s, s_dot, p, p_dot, p_next, u, ws, iterations);
  return u;
}

CDState FullCD::initial_state() const { return detail::rest_state(state_dim(), p0_); }

void FullCD::advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, Workspace& ws) const {
  ws.s_next.resize(state_dim());
  step(state.s, state.s_dot, state.p, state.p_dot, p_next, ws.s_next, ws);
  detail::accept_step(state, ws.s_next, p_next, f_->options.dt);
}

void FullCD::lift(const Eigen::Ref<const VectorXd>& s, Eigen::Ref<VectorXd> u) const {
  FASTCD_CHECK(s.size() == state_dim() && u.size() == state_dim(), "s and u need ", state_dim(), " entries, got ",
               s.size(), " and ", u.size());
  u = s;
}

VectorXd FullCD::lift(const Eigen::Ref<const VectorXd>& s) const {
  VectorXd u(state_dim());
  lift(s, u);
  return u;
}

MatrixXd FullCD::positions(const CDState& state) const { return unflatten(J_ * state.p + state.s, dim()); }

double FullCD::energy(const Eigen::Ref<const VectorXd>& s_c, const Eigen::Ref<const VectorXd>& s,
                      const Eigen::Ref<const VectorXd>& s_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) const {
  FASTCD_CHECK(f_ != nullptr, "the solver is empty (build it with full_cd_precompute)");
  check_poses(state_dim(), J_.cols(), s, s_dot, p, p_dot, p_next);
  FASTCD_CHECK(s_c.size() == state_dim(), "u has ", s_c.size(), " entries, expected ", state_dim());
  const Factors& f = *f_;
  Workspace t;
  step_constants(f, J_, s, s_dot, p, p_dot, p_next, t);
  const double h = f.options.dt;
  const VectorXd du = s_c - t.yhat;
  const VectorXd F = f.op.G * (t.Jp + s_c);
  VectorXd R;
  polar_rotations(F, f.dim, R);
  const VectorXd e = F - R;
  const double external = f.f_ext.size() > 0 ? -f.f_ext.dot(s_c) : 0.0;
  return 0.5 * du.dot(f.op.Mv * du) / (h * h) + 0.5 * e.dot(f.op.AMue * e) + external;
}

std::size_t FullCD::memory_bytes() const {
  if (!f_) return 0;
  const Factors& f = *f_;
  return bytes_of(J_) + bytes_of(p0_) + bytes_of(f.op.G) + bytes_of(f.op.L) + bytes_of(f.op.Mv) + bytes_of(f.op.AMue) +
         bytes_of(f.op.AMu) + bytes_of(f.op.vol) + bytes_of(f.op.mu_vol) + bytes_of(f.D) + bytes_of(f.Hs) +
         bytes_of(f.arap) + bytes_of(f.f_ext) + bytes_of(Y_) + bytes_of(Bs8_) + bytes_of(constraint_.basis_scalar) +
         bytes_of(constraint_.C) + bytes_of(constraint_.basis) +
         sizeof(double) * static_cast<std::size_t>(schur_.matrixLLT().size()) + f.H_factor.memory_bytes();
}

}  // namespace fastcd
