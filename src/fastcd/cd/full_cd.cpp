#include "fastcd/cd/full_cd.hpp"

#include "fastcd/cd/rig.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/dirichlet_laplacian.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

namespace {

void check_step_inputs(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                       const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                       const Eigen::Ref<const VectorXd>& p_next) {
  const Index n = sys.state_dim(), np = sys.J.cols();
  FASTCD_CHECK(uc.size() == n && uc_dot.size() == n, "u_c and its velocity need ", n, " entries, got ",
               uc.size(), " and ", uc_dot.size());
  FASTCD_CHECK(p.size() == np && p_dot.size() == np && p_next.size() == np, "rig poses need ", np,
               " entries, got ", p.size(), ", ", p_dot.size(), ", ", p_next.size());
  FASTCD_CHECK(uc.allFinite() && uc_dot.allFinite() && p.allFinite() && p_dot.allFinite() && p_next.allFinite(),
               "non-finite input (NaN or Inf in the state or the rig pose)");
}

/// Constant parts of one step, into ws: Jp = J p+, yhat = uc + h uc_dot - J (p+ - p - h p_dot),
/// b0 = Mv yhat / h^2 - L Jp (+ Mv g). Allocation-free once ws is sized.
void step_constants(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                    const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                    const Eigen::Ref<const VectorXd>& p_next, FullCDWorkspace& ws) {
  const double h = sys.options.h;
  const Index n = sys.state_dim();
  ws.Jp.resize(n);
  ws.yhat.resize(n);
  ws.b0.resize(n);
  ws.Jp.noalias() = sys.J * p_next;
  ws.yhat = uc + h * uc_dot;
  ws.yhat.noalias() -= sys.J * (p_next - p - h * p_dot);
  ws.b0.noalias() = sys.op.Mv * ws.yhat;
  ws.b0 /= h * h;
  ws.b0.noalias() -= sys.op.L * ws.Jp;
  if (sys.f_ext.size() > 0) ws.b0 += sys.f_ext;
}

/// Same constants from rig positions: Jp = xr_next, yhat = uc + h uc_dot - (xr_next - xr - h xr_dot).
void step_constants_positions(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc,
                              const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& xr,
                              const Eigen::Ref<const VectorXd>& xr_dot, const Eigen::Ref<const VectorXd>& xr_next,
                              FullCDWorkspace& ws) {
  const double h = sys.options.h;
  const Index n = sys.state_dim();
  ws.Jp.resize(n);
  ws.yhat.resize(n);
  ws.b0.resize(n);
  ws.Jp = xr_next;
  ws.yhat = uc + h * uc_dot - (xr_next - xr - h * xr_dot);
  ws.b0.noalias() = sys.op.Mv * ws.yhat;
  ws.b0 /= h * h;
  ws.b0.noalias() -= sys.op.L * ws.Jp;
  if (sys.f_ext.size() > 0) ws.b0 += sys.f_ext;
}

/// The local/global iterations from u = uc, with ws.Jp and ws.b0 set.
void iterate(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, Eigen::Ref<VectorXd> u, FullCDWorkspace& ws,
             int iters) {
  const Index n = sys.state_dim(), nf = sys.op.G.rows();
  ws.x.resize(n);
  ws.F.resize(nf);
  ws.R.resize(nf);
  ws.b.resize(n);
  ws.u_prev.resize(n);
  ws.scratch.resize(n);
  u = uc;
  for (int it = 0; it < iters; ++it) {
    // local: closest rotation per element
    ws.x = ws.Jp + u;
    arap_deformation(sys.arap, ws.x.data(), ws.F.data());
    sys.dim == 2 ? detail::polar_rotations_unchecked<2>(ws.F.data(), nf / 4, ws.R.data())
                 : detail::polar_rotations_unchecked<3>(ws.F.data(), nf / 9, ws.R.data());
    // global: constrained solve u = H^{-1} b - Y S^{-1} Cb H^{-1} b
    arap_elastic_rhs(sys.arap, ws.R.data(), ws.b0.data(), ws.b.data());
    ws.u_prev = u;
    sys.H_factor.solve(ws.b.data(), u.data(), ws.scratch.data());
    if (sys.constraint.rank > 0) {
      ws.lambda.noalias() = sys.constraint.basis * u;
      sys.schur.solveInPlace(ws.lambda);
      u.noalias() -= sys.Y * ws.lambda;
    }
    if (sys.options.tolerance > 0 && (u - ws.u_prev).norm() < sys.options.tolerance) break;
  }
}

/// Y = H^{-1} basis^T and the Schur complement basis Y for the current constraint.
void factor_constraint(FullCD& sys) {
  sys.Y.resize(sys.state_dim(), 0);
  sys.schur = Eigen::LLT<MatrixXd>(MatrixXd(0, 0));  // (a default LLT has an uninitialised status)
  if (sys.constraint.rank == 0) return;
  const MatrixXd Ct = sys.constraint.basis.transpose();
  sys.Y.resize(Ct.rows(), Ct.cols());
  VectorXd scratch(Ct.rows());
  for (Index k = 0; k < Ct.cols(); ++k) sys.H_factor.solve(Ct.col(k).data(), sys.Y.col(k).data(), scratch.data());
  sys.schur.compute(sys.constraint.basis * sys.Y);
  FASTCD_ENSURE(sys.schur.info() == Eigen::Success, "constraint Schur complement is not positive definite");
}

}  // namespace

FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                          const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0, const CDOptions& options) {
  validate(options);
  check_mesh(X, T, "full_cd_precompute");
  FullCD sys;
  sys.dim = X.cols();
  sys.options = options;
  FASTCD_CHECK(J.rows() == X.size(), "rig Jacobian J has ", J.rows(), " rows, the mesh has ", X.size(), " DOFs");
  FASTCD_CHECK(p0.size() == J.cols(), "rest pose p0 has ", p0.size(), " entries, J has ", J.cols(), " columns");
  sys.J = J;
  sys.p0 = p0;
  sys.op = elastic_operators(X, T, options.ym, options.pr, options.rho);
  sys.D = momentum_leak_field(X, T, options.leak);
  sys.constraint = complementarity_constraint(J, sys.op.Mv, sys.D, sys.dim, options.constraint_rtol);
  sys.Hs = SparseMatrix(dirichlet_laplacian(X, T, sys.op.mu) + massmatrix(X, T, options.rho) / (options.h * options.h));
  sys.H_factor.compute(sys.Hs, sys.dim, options.backend);
  sys.arap = arap_elements(X, T, sys.op.mu_vol);
  if (options.gravity.size() > 0) {
    FASTCD_CHECK(options.gravity.size() == sys.dim, "gravity needs ", sys.dim, " entries, got ", options.gravity.size());
    sys.f_ext = sys.op.Mv * options.gravity.replicate(X.rows(), 1);
  }
  factor_constraint(sys);
  return sys;
}

FullCD full_cd_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                          const CDOptions& options) {
  FASTCD_CHECK(rig.dim() == X.cols() && rig.num_vertices() == X.rows(), "the ", rig.name(), " rig drives ",
               rig.num_vertices(), " vertices in ", rig.dim(), "D, the mesh has ", X.rows(), " in ", X.cols(), "D");
  const VectorXd p0 = rig.rest_params();
  return full_cd_precompute(X, T, rig.jacobian(p0), p0, options);
}

void full_cd_update_constraint(FullCD& sys, const SparseMatrix& J) {
  FASTCD_CHECK(J.rows() == sys.state_dim() && J.cols() == sys.J.cols(), "rig Jacobian is ", J.rows(), " x ", J.cols(),
               ", expected ", sys.state_dim(), " x ", sys.J.cols());
  sys.J = J;
  sys.constraint = complementarity_constraint(J, sys.op.Mv, sys.D, sys.dim, sys.options.constraint_rtol);
  factor_constraint(sys);
}

void full_cd_step_positions(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc,
                            const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& xr,
                            const Eigen::Ref<const VectorXd>& xr_dot, const Eigen::Ref<const VectorXd>& xr_next,
                            Eigen::Ref<VectorXd> u, FullCDWorkspace& ws, int iterations) {
  const Index n = sys.state_dim();
  FASTCD_CHECK(uc.size() == n && uc_dot.size() == n && xr.size() == n && xr_dot.size() == n && xr_next.size() == n &&
                   u.size() == n,
               "u_c, its velocity, the rig positions, velocity, next positions and the output need ", n,
               " entries each, got ", uc.size(), ", ", uc_dot.size(), ", ", xr.size(), ", ", xr_dot.size(), ", ",
               xr_next.size(), ", ", u.size());
  FASTCD_CHECK(uc.allFinite() && uc_dot.allFinite() && xr.allFinite() && xr_dot.allFinite() && xr_next.allFinite(),
               "non-finite input (NaN or Inf in the state or the rig positions)");
  step_constants_positions(sys, uc, uc_dot, xr, xr_dot, xr_next, ws);
  iterate(sys, uc, u, ws, iterations < 0 ? sys.options.iterations : iterations);
}

CDState full_cd_initial_state(const FullCD& sys, const Rig& rig) {
  CDState s = rest_state(sys.state_dim(), rig.rest_params());
  s.x = rig.positions(s.p);
  s.x_dot = VectorXd::Zero(s.x.size());
  return s;
}

void full_cd_advance(FullCD& sys, const Rig& rig, CDState& state, const Eigen::Ref<const VectorXd>& p_next,
                     FullCDWorkspace& ws) {
  FASTCD_CHECK(state.x.size() == sys.state_dim(), "state has no rig positions: start it with "
               "full_cd_initial_state(sys, rig)");
  VectorXd x_next = rig.positions(p_next);
  if (!rig.is_linear()) full_cd_update_constraint(sys, rig.jacobian(p_next));
  ws.s_next.resize(sys.state_dim());
  full_cd_step_positions(sys, state.s, state.s_dot, state.x, state.x_dot, x_next, ws.s_next, ws);
  const double h = sys.options.h;
  state.x_dot = (x_next - state.x) / h;
  state.x.swap(x_next);
  accept_step(state, ws.s_next, p_next, h);
}

void full_cd_step(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                  const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                  const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> u, FullCDWorkspace& ws,
                  int iterations) {
  check_step_inputs(sys, uc, uc_dot, p, p_dot, p_next);
  FASTCD_CHECK(u.size() == sys.state_dim(), "output has ", u.size(), " entries, expected ", sys.state_dim());
  step_constants(sys, uc, uc_dot, p, p_dot, p_next, ws);
  iterate(sys, uc, u, ws, iterations < 0 ? sys.options.iterations : iterations);
}

VectorXd full_cd_step(const FullCD& sys, const Eigen::Ref<const VectorXd>& uc, const Eigen::Ref<const VectorXd>& uc_dot,
                      const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
                      const Eigen::Ref<const VectorXd>& p_next, int iterations) {
  FullCDWorkspace ws;
  VectorXd u(sys.state_dim());
  full_cd_step(sys, uc, uc_dot, p, p_dot, p_next, u, ws, iterations);
  return u;
}

CDState full_cd_initial_state(const FullCD& sys) { return rest_state(sys.state_dim(), sys.p0); }

void full_cd_advance(const FullCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next) {
  FullCDWorkspace ws;
  full_cd_advance(sys, state, p_next, ws);
}

void full_cd_advance(const FullCD& sys, CDState& state, const Eigen::Ref<const VectorXd>& p_next, FullCDWorkspace& ws) {
  ws.s_next.resize(sys.state_dim());
  full_cd_step(sys, state.s, state.s_dot, state.p, state.p_dot, p_next, ws.s_next, ws);
  accept_step(state, ws.s_next, p_next, sys.options.h);
}

MatrixXd full_cd_positions(const FullCD& sys, const CDState& state) {
  return unflatten(sys.J * state.p + state.s, sys.dim);
}

double full_cd_energy(const FullCD& sys, const Eigen::Ref<const VectorXd>& u, const Eigen::Ref<const VectorXd>& uc,
                      const Eigen::Ref<const VectorXd>& uc_dot, const Eigen::Ref<const VectorXd>& p,
                      const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next) {
  check_step_inputs(sys, uc, uc_dot, p, p_dot, p_next);
  FASTCD_CHECK(u.size() == sys.state_dim(), "u has ", u.size(), " entries, expected ", sys.state_dim());
  FullCDWorkspace t;
  step_constants(sys, uc, uc_dot, p, p_dot, p_next, t);
  const double h = sys.options.h;
  const VectorXd du = u - t.yhat;
  const VectorXd F = sys.op.G * (t.Jp + u);
  VectorXd R;
  polar_rotations(F, sys.dim, R);
  const VectorXd e = F - R;
  const double external = sys.f_ext.size() > 0 ? -sys.f_ext.dot(u) : 0.0;
  return 0.5 * du.dot(sys.op.Mv * du) / (h * h) + 0.5 * e.dot(sys.op.AMue * e) + external;
}

}  // namespace fastcd
