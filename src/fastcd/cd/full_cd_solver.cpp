#include "fastcd/cd/full_cd_solver.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fastcd/common/memory.hpp"

namespace fastcd {

namespace {

std::size_t vector_bytes(std::initializer_list<const VectorXd*> vs) {
  std::size_t b = 0;
  for (const VectorXd* v : vs) b += sizeof(double) * static_cast<std::size_t>(v->size());
  return b;
}

/// Entries of a sparse Cholesky factor of a matrix with the mesh's vertex adjacency (the full
/// solver's L + M / dt^2, scalar blocks), from the pattern alone.
double adjacency_factor_entries(const Eigen::Ref<const MatrixXi>& T, Index n) {
  std::vector<std::uint64_t> keys;
  keys.reserve(static_cast<std::size_t>(T.rows() * T.cols() * (T.cols() + 1) / 2));
  for (Index e = 0; e < T.rows(); ++e)
    for (Index a = 0; a < T.cols(); ++a)
      for (Index b = 0; b < T.cols(); ++b) {
        const auto i = static_cast<std::uint64_t>(T(e, a)), j = static_cast<std::uint64_t>(T(e, b));
        if (i <= j) keys.push_back(j << 32 | i);  // column j, row i <= j: the upper triangle
      }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  SparseMatrix A(n, n);
  A.reserve(static_cast<Index>(keys.size()));
  for (const std::uint64_t k : keys) A.insert(static_cast<Index>(k & 0xffffffffu), static_cast<Index>(k >> 32)) = 1.0;
  A.makeCompressed();
  return cholesky_factor_entries(A);
}

}  // namespace

FullCDSolver::FullCDSolver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const Rig& rig,
                           const SimulationOptions& options)
    : full_(full_cd_precompute(X, T, rig, options.cd)),
      dt_(options.cd.dt),
      by_positions_(dynamic_cast<const LinearRig*>(&rig) == nullptr),
      m_(full_.Mv().diagonal()) {
  C_norm_ = full_.constraint().C.norm();
  Cu_.resize(full_.constraint().C.rows());
}

PrecomputeBytes FullCDSolver::precompute_bytes(const Eigen::Ref<const MatrixXi>& T, Index n_vertices, const Rig& rig,
                                               const SparseMatrix* J, const CDOptions&) {
  const double n = static_cast<double>(n_vertices);
  const detail::ConstraintBytes c = detail::constraint_bytes(n_vertices, rig, J);
  PrecomputeBytes b;
  // The elastic operators, the leak field and the rest: about 1.5 kB per element (measured on
  // tet grids of 12k and 69k vertices; the same holds the estimate below 1.6x).
  b.mesh = 1536.0 * static_cast<double>(T.rows());
  // (Below 20,000 vertices the factor holds a few hundred entries per vertex at most.)
  const double entries = n_vertices >= 20000 ? adjacency_factor_entries(T, n_vertices) : 300.0 * n;
  // CHOLMOD's supernodal factor, then its simplicial copy; its ordering leaves about half the
  // entries AMD's does on 3D meshes.
  b.mesh += 20.0 * entries;
  b.rig = c.held + std::max({c.gram, c.constraint, 2.0 * 8.0 * c.rows * c.cols});  // (Y and the padded basis)
  return b;
}

std::size_t FullCDSolver::memory_bytes() const {
  return full_.memory_bytes() + vector_bytes({&ws_.Jp, &ws_.yhat, &ws_.b0, &ws_.x, &ws_.F, &ws_.R, &ws_.b, &ws_.u_prev,
                                              &ws_.lambda, &ws_.scratch, &ws_.s_next, &m_, &Cu_});
}

void FullCDSolver::reset(const RigMotion& rig) {
  if (rig.rig().is_linear()) return;
  full_.set_rig_jacobian(rig.rig().jacobian(rig.p()));
  C_norm_ = full_.constraint().C.norm();
}

void FullCDSolver::prepare(const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) {
  if (!by_positions_) return;
  // The step sees the rig through its positions now, their velocity and the next ones.
  rig.x_dot();
  rig.next(p_next);
}

void FullCDSolver::advance(CDState& state, const Eigen::Ref<const VectorXd>& p_next, RigMotion& rig) {
  if (!by_positions_) {
    full_.advance(state, p_next, ws_);
    return;
  }
  // Any rig: a nonlinear rig's constraint is J(p)^T M D for the pose it moves to.
  if (!rig.rig().is_linear()) {
    full_.set_rig_jacobian(rig.rig().jacobian(p_next));
    C_norm_ = full_.constraint().C.norm();
  }
  ws_.s_next.resize(full_.state_dim());
  full_.step_positions(state.s, state.s_dot, rig.x(), rig.x_dot(), rig.x_next(), ws_.s_next, ws_);
  detail::accept_step(state, ws_.s_next, p_next, dt_);
}

const VectorXd& FullCDSolver::lift(const VectorXd& s, VectorXd&) const { return s; }

double FullCDSolver::kinetic_energy(const CDState& state) const { return 0.5 * state.s_dot.cwiseAbs2().dot(m_); }

double FullCDSolver::residual(const CDState& state, double floor) const {
  const VectorXd& u = state.s;
  // Relative to u_c, but never to less than `floor` (1e-8 of the mesh's size): a complementary
  // displacement at rounding level would otherwise give a ratio of two rounding errors.
  const double un = std::max(u.norm(), floor);
  if (!(un > 0 && C_norm_ > 0)) return 0.0;
  Cu_.noalias() = full_.constraint().C * u;
  return Cu_.norm() / (C_norm_ * un);
}

StepMeasures FullCDSolver::measure(const CDState& state, const RigMotion& rig) const {
  StepMeasures m;
  m.rig_kinetic_energy = 0.5 * rig.x_dot().cwiseAbs2().dot(m_);
  m.finite = state.s.allFinite() && state.s_dot.allFinite();
  if (m.finite) {
    m.kinetic_energy = kinetic_energy(state);
    m.max_displacement = state.s.cwiseAbs().maxCoeff();
  }
  return m;
}

}  // namespace fastcd
