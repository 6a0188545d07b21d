#include "fastcd/cd/simulation.hpp"

#include <chrono>
#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"

namespace fastcd {

namespace {

using Clock = std::chrono::steady_clock;

std::size_t vector_bytes(std::initializer_list<const VectorXd*> vs) {
  std::size_t b = 0;
  for (const VectorXd* v : vs) b += sizeof(double) * static_cast<std::size_t>(v->size());
  return b;
}

}  // namespace

std::string to_string(SolverKind kind) { return kind == SolverKind::Full ? "full" : "fast"; }

SolverKind solver_kind(const std::string& name) {
  if (name == "full") return SolverKind::Full;
  if (name == "fast") return SolverKind::Fast;
  throw std::invalid_argument("solver must be 'full' or 'fast', got '" + name + "'");
}

Simulation::Simulation(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                       std::shared_ptr<const Rig> rig, const SimulationOptions& options)
    : options_(options), rig_(std::move(rig)) {
  FASTCD_CHECK(rig_ != nullptr, "Simulation needs a rig (got a null pointer)");
  build(X, T);
}

Simulation::Simulation(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J,
                       const Eigen::Ref<const VectorXd>& p0, const SimulationOptions& options)
    : options_(options) {
  FASTCD_CHECK(X.cols() == 2 || X.cols() == 3, "X must be #V x 2 or #V x 3, got ", shape_of(X));
  rig_ = std::make_shared<LinearRig>(J, p0, X.cols());
  build(X, T);
}

void Simulation::build(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T) {
  validate(options_.cd);
  check_mesh(X, T, "Simulation");
  const Rig& rig = *rig_;
  FASTCD_CHECK(rig.dim() == X.cols() && rig.num_vertices() == X.rows(), "the ", rig.name(), " rig drives ",
               rig.num_vertices(), " vertices in ", rig.dim(), "D, the mesh has ", X.rows(), " in ", X.cols(), "D");
  dim_ = X.cols();
  n_ = X.rows();
  residual_floor_ = 1e-8 * X.norm();
  const auto* linear = dynamic_cast<const LinearRig*>(&rig);
  linear_rig_ = linear != nullptr;
  const VectorXd p0 = rig.rest_params();
  FASTCD_CHECK(p0.size() == rig.num_params() && p0.allFinite(), "the ", rig.name(), " rig's rest pose has ", p0.size(),
               " entries for ", rig.num_params(), " parameters, or NaN/Inf");
  const auto t0 = Clock::now();
  if (options_.solver == SolverKind::Full) {
    full_ = full_cd_precompute(X, T, rig, options_.cd);
    state_ = full_.initial_state();
  } else {
    FASTCD_CHECK(rig.is_linear(), "the fast solver needs a linear rig (its subspace is built for one constant J); the ",
                 rig.name(), " rig is nonlinear: use the full solver");
    const SparseMatrix J = linear ? linear->J : rig.jacobian(p0);
    if (!linear) {
      // The fast step sees the rig only through J p: a linear rig must have x(p) = J p.
      const VectorXd x0 = rig.positions(p0), Jp = J * p0;
      FASTCD_CHECK((x0 - Jp).norm() <= 1e-9 * std::max(1.0, x0.norm()), "the fast solver needs x(p) = J p, but the ",
                   rig.name(), " rig's rest positions differ from J p0 by ", (x0 - Jp).norm(),
                   ": use the full solver, or fold the offset into the rig's parameters");
    }
    fast_ = fast_cd_precompute(X, T, J, p0, options_.cd, options_.fast_subspace.get());
    state_ = fast_.initial_state();
  }
  precompute_s_ = std::chrono::duration<double>(Clock::now() - t0).count();
  state_.p = p0;
  p_prev_ = p0;
  x_rig_ = rig.positions(p0);
  x_rig_prev_ = x_rig_;
  x_rig_dot_ = VectorXd::Zero(x_rig_.size());
  rig_current_ = prev_current_ = rig_dot_current_ = true;
  x_next_.resize(x_rig_.size());
  uc_ = VectorXd::Zero(n_ * dim_);
  uc_dot_ = VectorXd::Zero(n_ * dim_);
  lifted_ = true;
  Cu_.resize(rig.num_params());
  C_norm_ = constraint().C.norm();
  const SparseMatrix& Mv = options_.solver == SolverKind::Full ? full_.Mv() : fast_.Mv();
  const double extent = (X.colwise().maxCoeff() - X.colwise().minCoeff()).maxCoeff();
  // The work gravity can do on the mesh over its own size: the floor of the energy check.
  const double g = options_.cd.gravity.size() > 0 ? options_.cd.gravity.norm() : 0.0;
  const double gravity_work = 0.5 * Mv.diagonal().sum() / static_cast<double>(dim_) * g * extent;
  monitor_.emplace(Mv, extent > 0 ? extent : 1.0, options_.cd.dt, options_.cd.ym, gravity_work,
                   options_.divergence_extent_ratio, options_.divergence_energy_ratio);
  last_ = {};
  stats_ = {};
}

void Simulation::reset() {
  state_ = options_.solver == SolverKind::Full ? full_.initial_state() : fast_.initial_state();
  state_.p = rig_->rest_params();
  p_prev_ = state_.p;
  rig_->positions(state_.p, x_rig_);
  x_rig_prev_ = x_rig_;
  x_rig_dot_.setZero();
  rig_current_ = prev_current_ = rig_dot_current_ = true;
  uc_.setZero();
  uc_dot_.setZero();
  lifted_ = true;
  if (options_.solver == SolverKind::Full && !rig_->is_linear()) {
    full_.set_rig_jacobian(rig_->jacobian(state_.p));
    C_norm_ = constraint().C.norm();
  }
  monitor_->reset();
  last_ = {};
  stats_ = {};
}

void Simulation::advance(const Eigen::Ref<const VectorXd>& p_next) {
  const Rig& rig = *rig_;
  FASTCD_CHECK(p_next.size() == rig.num_params(), "the ", rig.name(), " rig has ", rig.num_params(),
               " parameters, the pose has ", p_next.size());
  FASTCD_CHECK(all_finite(p_next), "the rig pose for step ", stats_.steps + 1, " has NaN or Inf entries");
  const double dt = options_.cd.dt;
  const bool by_positions = options_.dynamics && options_.solver == SolverKind::Full && !linear_rig_;
  if (by_positions) {
    // The step sees the rig through its positions now, their velocity and the next ones.
    x_rig_dot();
    rig.positions(p_next, x_next_);
  }
  const bool had_positions = rig_current_;
  p_prev_ = state_.p;
  const auto t0 = Clock::now();
  if (!options_.dynamics) {
    state_.p_dot = (p_next - state_.p) / dt;
    state_.p = p_next;
  } else if (options_.solver == SolverKind::Fast) {
    fast_.advance(state_, p_next, fast_ws_);
  } else if (linear_rig_) {
    full_.advance(state_, p_next, full_ws_);
  } else {
    // Any rig: a nonlinear rig's constraint is J(p)^T M D for the pose it moves to.
    if (!rig.is_linear()) {
      full_.set_rig_jacobian(rig.jacobian(p_next));
      C_norm_ = full_.constraint().C.norm();
    }
    full_ws_.s_next.resize(full_.state_dim());
    full_.step_positions(state_.s, state_.s_dot, x_rig_, x_rig_dot_, x_next_, full_ws_.s_next, full_ws_);
    detail::accept_step(state_, full_ws_.s_next, p_next, dt);
  }
  last_.step_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  // The rig positions cached for the old pose become the previous ones.
  if (had_positions) x_rig_prev_.swap(x_rig_);
  prev_current_ = had_positions;
  rig_current_ = rig_dot_current_ = false;
  if (by_positions) {
    x_rig_.swap(x_next_);
    rig_current_ = true;
  }
  lifted_ = false;
  ++stats_.steps;
  stats_.step_seconds += last_.step_seconds;
  if (!options_.monitor) return;
  const VectorXd& u = uc();
  monitor_->check(stats_.steps, x_rig_dot(), u, uc_dot());
  last_.kinetic_energy = monitor_->last_kinetic();
  const double un = std::max(u.norm(), residual_floor_);  // as residual()
  if (un > 0 && C_norm_ > 0) {
    Cu_.noalias() = constraint().C * u;
    last_.residual = Cu_.norm() / (C_norm_ * un);
  } else {
    last_.residual = 0.0;
  }
  stats_.max_residual = std::max(stats_.max_residual, last_.residual);
  stats_.max_kinetic_energy = std::max(stats_.max_kinetic_energy, last_.kinetic_energy);
  stats_.sum_kinetic_energy += last_.kinetic_energy;
}

const VectorXd& Simulation::uc() const {
  if (options_.solver == SolverKind::Full) return options_.dynamics ? state_.s : uc_;
  if (!lifted_) {
    if (options_.dynamics) {
      fast_.lift(state_.s, uc_);
      fast_.lift(state_.s_dot, uc_dot_);
    }
    lifted_ = true;
  }
  return uc_;
}

const VectorXd& Simulation::uc_dot() const {
  if (options_.solver == SolverKind::Full) return options_.dynamics ? state_.s_dot : uc_dot_;
  uc();
  return uc_dot_;
}

const VectorXd& Simulation::x_rig() const {
  if (!rig_current_) {
    rig_->positions(state_.p, x_rig_);
    rig_current_ = true;
  }
  return x_rig_;
}

const VectorXd& Simulation::x_rig_dot() const {
  if (!rig_dot_current_) {
    x_rig();
    if (!prev_current_) {
      rig_->positions(p_prev_, x_rig_prev_);
      prev_current_ = true;
    }
    x_rig_dot_ = (x_rig_ - x_rig_prev_) / options_.cd.dt;
    rig_dot_current_ = true;
  }
  return x_rig_dot_;
}

MatrixXd Simulation::positions() const { return unflatten(x_rig() + uc(), dim_); }
MatrixXd Simulation::rig_positions() const { return unflatten(x_rig(), dim_); }
MatrixXd Simulation::displacement() const { return unflatten(uc(), dim_); }
MatrixXd Simulation::velocities() const { return unflatten(x_rig_dot() + uc_dot(), dim_); }

double Simulation::residual() const {
  const VectorXd& u = uc();
  // Relative to u_c, but never to less than 1e-8 of the mesh's own size: a complementary
  // displacement at rounding level would otherwise give a ratio of two rounding errors.
  const double un = std::max(u.norm(), residual_floor_);
  return un > 0 && C_norm_ > 0 ? (constraint().C * u).norm() / (C_norm_ * un) : 0.0;
}

double Simulation::kinetic_energy() const {
  const SparseMatrix& Mv = options_.solver == SolverKind::Full ? full_.Mv() : fast_.Mv();
  return 0.5 * uc_dot().cwiseAbs2().dot(Mv.diagonal());
}

const ComplementarityConstraint& Simulation::constraint() const {
  return options_.solver == SolverKind::Full ? full_.constraint() : fast_.constraint();
}

LeakFieldKind Simulation::leak_field_used() const {
  return options_.solver == SolverKind::Full ? full_.leak_field_used() : fast_.leak_field_used();
}

const VectorXd& Simulation::D() const { return options_.solver == SolverKind::Full ? full_.D() : fast_.D(); }

std::size_t Simulation::memory_bytes() const {
  const std::size_t solver = options_.solver == SolverKind::Full ? full_.memory_bytes() : fast_.memory_bytes();
  const std::size_t state = vector_bytes(
      {&state_.s, &state_.s_dot, &state_.p, &state_.p_dot, &x_rig_, &x_rig_dot_, &x_next_, &uc_, &uc_dot_, &Cu_});
  const std::size_t ws =
      vector_bytes({&full_ws_.Jp, &full_ws_.yhat, &full_ws_.b0, &full_ws_.x, &full_ws_.F, &full_ws_.R, &full_ws_.b,
                    &full_ws_.u_prev, &full_ws_.lambda, &full_ws_.scratch, &full_ws_.s_next, &fast_ws_.q, &fast_ws_.z0,
                    &fast_ws_.F0, &fast_ws_.F, &fast_ws_.r, &fast_ws_.zprev, &fast_ws_.g, &fast_ws_.s_next}) +
      sizeof(float) * static_cast<std::size_t>(fast_ws_.Vf.size() + fast_ws_.rf.size());
  return solver + state + ws;
}

}  // namespace fastcd
