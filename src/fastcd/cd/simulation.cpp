#include "fastcd/cd/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/volume.hpp"
#include "fastcd/geometry/ympr_to_lame.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

namespace {

using Clock = std::chrono::steady_clock;

std::size_t vector_bytes(std::initializer_list<const VectorXd*> vs) {
  std::size_t b = 0;
  for (const VectorXd* v : vs) b += sizeof(double) * static_cast<std::size_t>(v->size());
  return b;
}

/// A measured number with three significant digits.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// A fraction as a percentage with two significant digits ("33 %").
std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g %%", 100.0 * fraction);
  return buf;
}

/// The material's settings as the user gave them, for messages.
std::string settings_words(const CDOptions& o) {
  return "YM = " + number(o.ym) + ", rho = " + number(o.rho) + ", dt = " + number(o.dt);
}

/// "12 handles (144 parameters)" for a rig of affine handles, else "30 parameters".
std::string rig_words(const Rig& rig) {
  const Index P = rig.num_params(), per = rig.dim() * (rig.dim() + 1);
  const std::string name = rig.name();
  if ((name.rfind("lbs", 0) == 0 || name.rfind("affine", 0) == 0) && P % per == 0)
    return std::to_string(P / per) + " handles (" + std::to_string(P) + " parameters)";
  return std::to_string(P) + " parameters";
}

/// How much stiffer than its inertia over one time step a typical element is: mu dt^2 / (rho l^2),
/// l = the mean element's volume^(1/dim) (the ratio of a vertex's stiffness to its mass / dt^2,
/// up to a factor of order one). Beyond ~1e13 the system matrix L + M / dt^2 keeps no digit of
/// its mass term: its factorisation fails, or its solutions are noise.
double stiffness_ratio(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, const CDOptions& o) {
  const double mean_volume = volume(X, T).cwiseAbs().mean();
  const double l = std::pow(mean_volume, 1.0 / static_cast<double>(X.cols()));
  const double mu = ympr_to_lame(o.ym, o.pr).first;
  return l > 0 ? mu * o.dt * o.dt / (o.rho * l * l) : 0.0;
}

constexpr double kStiffnessLimit = 1e13;
/// Above this stiffness ratio the material is stiff for its inertia: a stiffer one changes little.
constexpr double kStiff = 1e3;

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

/// Roughly the bytes each solver's precompute needs at its peak for this mesh and rig (see
/// check_precompute_memory): what scales with the mesh (operators, the full solver's factor, the
/// fast solver's basis) and what scales with the rig's parameters times the vertices (the
/// constraint's dense basis and its orthonormalisation, the fast solver's weight-space work).
struct PrecomputeBytes {
  double mesh_full = 0, mesh_fast = 0, rig_full = 0, rig_fast = 0;
  double full() const { return mesh_full + rig_full; }
  double fast() const { return mesh_fast + rig_fast; }
};

PrecomputeBytes precompute_bytes(const Eigen::Ref<const MatrixXi>& T, Index n_vertices, const Rig& rig,
                                 const SparseMatrix* J, const CDOptions& o, bool full) {
  const double n = static_cast<double>(n_vertices), d = static_cast<double>(rig.dim());
  const double P = static_cast<double>(rig.num_params()), E = static_cast<double>(T.rows());
  // J = J_s (x) I (LBS and cage rigs): the constraint is orthonormalised on scalar blocks.
  const bool scalar = rig.is_linear() && rig.num_params() % rig.dim() == 0;
  const double rows = scalar ? P / d : P, cols = scalar ? n : n * d;
  const double nnz_J = J != nullptr ? static_cast<double>(J->nonZeros()) : n * d * P;
  // Held throughout: the rig Jacobian twice (the solver's copy, C = J^T M D) and the
  // constraint's dense basis (P x #V*dim, and its scalar block).
  const double held = 2.0 * 12.0 * nnz_J + 8.0 * P * n * d + (scalar ? 8.0 * rows * n : 0.0);
  const double gram = 3.0 * 8.0 * P * P;  // the rig's rank: J^T M J and its eigenvalues
  const double constraint = 8.0 * rows * cols + row_space_bytes(std::min(rows, cols), cols);
  PrecomputeBytes b;
  // The elastic operators, the leak field, clusters and the rest: about 1.5 kB per element
  // (measured on tet grids of 12k and 69k vertices; the same holds the estimate below 1.6x).
  b.mesh_full = b.mesh_fast = 1536.0 * E;
  if (full) {
    // (Below 20,000 vertices the factor holds a few hundred entries per vertex at most.)
    const double entries = n_vertices >= 20000 ? adjacency_factor_entries(T, n_vertices) : 300.0 * n;
    // CHOLMOD's supernodal factor, then its simplicial copy; its ordering leaves about half the
    // entries AMD's does on 3D meshes.
    b.mesh_full += 20.0 * entries;
    b.rig_full = held + std::max({gram, constraint, 2.0 * 8.0 * rows * cols});  // (Y and the padded basis)
  }
  // Fast: the weight-space operator (P d (d+1) x #V) and its distinct rows (LBS: about
  // P (d+1) / d), the constrained eigenmodes under as many constraints, the dense basis B
  // (#V*dim x modes*dim*(dim+1)) with Phi and its raw copy.
  const double kept = std::min(P * (d + 1) / d, n);
  const double weight_space = 8.0 * (P * d * (d + 1) + P) * n + row_space_bytes(kept, n);
  const double eigenmodes = 8.0 * (11.0 * kept * n + 5.0 * kept * kept);
  b.mesh_fast += 2.0 * 8.0 * n * d * static_cast<double>(o.modes) * d * (d + 1);
  b.rig_fast = held + std::max({gram, constraint, weight_space, eigenmodes});
  return b;
}

/// Refuses a precompute that would not fit in memory, before any of it is allocated, with the
/// estimate and what to change: fewer handles when the rig's part dominates, a coarser mesh when
/// the mesh's does, and (fast solver) the full solver when that would fit.
void check_precompute_memory(const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig, const SparseMatrix* J,
                             const SimulationOptions& options) {
  const auto avail = static_cast<double>(available_memory_bytes());
  if (!(avail > 0)) return;
  const bool fast = options.solver == SolverKind::Fast;
  // (The full solver's factor is analysed only for it, or when the fast solver does not fit.)
  PrecomputeBytes b = precompute_bytes(T, n, rig, J, options.cd, !fast);
  const double need = fast ? b.fast() : b.full();
  if (need <= 0.9 * avail) return;
  if (fast) b = precompute_bytes(T, n, rig, J, options.cd, true);
  const double rig_part = fast ? b.rig_fast : b.rig_full;
  std::string advice = rig_part > 0.5 * need ? "use a rig with fewer handles (bones)" : coarser_mesh_advice(n, need);
  if (fast && b.full() <= 0.9 * avail) advice += ", or the full solver (about " + memory_in_words(b.full()) + ")";
  check_memory(need,
               "the " + to_string(options.solver) + " solver's precompute for a rig of " + rig_words(rig) + " on " +
                   std::to_string(n) + " vertices and " + std::to_string(T.rows()) + " elements",
               advice);
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
  if (options_.solver == SolverKind::Fast)
    FASTCD_CHECK(rig.is_linear(), "the fast solver needs a linear rig (its subspace is built for one constant J); the ",
                 rig.name(), " rig is nonlinear: use the full solver");
  // Settings outside the method's range, refused before the work: a material so stiff for its
  // inertia at this time step that the system matrix keeps no digit of its mass term.
  const double stiffness = stiffness_ratio(X, T, options_.cd);
  stiffness_ratio_ = stiffness;
  if (stiffness > kStiffnessLimit)
    throw std::invalid_argument(
        "the material is " + number(stiffness) + " times stiffer than its inertia over one time step (" +
        settings_words(options_.cd) + "), beyond the " + number(kStiffnessLimit) +
        " double precision can simulate: use a softer material (YM below about " +
        number(options_.cd.ym * kStiffnessLimit / stiffness) + "), a larger density or a shorter time step");
  check_precompute_memory(T, X.rows(), rig, linear != nullptr ? &linear->J : nullptr, options_);
  const auto t0 = Clock::now();
  try {
    if (options_.solver == SolverKind::Full) {
      full_ = full_cd_precompute(X, T, rig, options_.cd);
      state_ = full_.initial_state();
    } else {
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
  } catch (const MemoryLimitError&) {
    throw;
  } catch (const Cancelled&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw MemoryLimitError("the " + to_string(options_.solver) + " solver's precompute for a rig of " + rig_words(rig) +
                               " on " + std::to_string(X.rows()) + " vertices ran out of memory (" +
                               memory_in_words(static_cast<double>(available_memory_bytes())) +
                               " available now): use a rig with fewer handles (bones) or a coarser mesh",
                           0.0, static_cast<double>(available_memory_bytes()));
  } catch (const std::runtime_error& e) {
    // A factorisation or an eigen-solve failed: what it was about in the user's terms first,
    // the solver's own words after.
    throw std::runtime_error("the " + to_string(options_.solver) + " solver's precompute failed for this mesh (" +
                             std::to_string(X.rows()) + " vertices, " + std::to_string(T.rows()) + " elements), rig (" +
                             rig_words(rig) + ") and material (" + settings_words(options_.cd) +
                             "): check the mesh for flat or sliver elements and the rig for handles that move no "
                             "vertex, and bring an extreme material nearer real values (the solver said: " +
                             e.what() + ")");
  }
  precompute_s_ = std::chrono::duration<double>(Clock::now() - t0).count();
  state_.p = p0;
  p_prev_ = p0;
  x_rig_ = rig.positions(p0);
  x_rig_rest_ = x_rig_;
  boundary_ = boundary_vertices(T);
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
  const Eigen::RowVectorXd lo = X.colwise().minCoeff(), hi = X.colwise().maxCoeff();
  extent_ = (hi - lo).maxCoeff();
  corners_.resize(Index{1} << dim_, dim_);
  for (Index c = 0; c < corners_.rows(); ++c)
    for (Index a = 0; a < dim_; ++a) corners_(c, a) = ((c >> a) & 1) != 0 ? hi(a) : lo(a);
  // The work gravity can do on the mesh over its own size: the floor of the energy check.
  const double g = options_.cd.gravity.size() > 0 ? options_.cd.gravity.norm() : 0.0;
  const double gravity_work = 0.5 * Mv.diagonal().sum() / static_cast<double>(dim_) * g * extent_;
  monitor_.emplace(Mv, extent_ > 0 ? extent_ : 1.0, options_.cd.dt, options_.cd.ym, gravity_work,
                   options_.divergence_extent_ratio, options_.divergence_energy_ratio);
  monitor_->set_stiff(stiffness > kStiff);  // (then "a stiffer material" is no advice for a divergence)
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
  const VectorXd& xr = x_rig();
  double rig_travel = 0, travel = 0;
  for (Index k = 0; k < boundary_.size(); ++k)
    for (Index a = 0, i = boundary_[k] * dim_; a < dim_; ++a, ++i) {
      rig_travel = std::max(rig_travel, std::abs(xr[i] - x_rig_rest_[i]));
      travel = std::max(travel, std::abs(xr[i] + u[i] - x_rig_rest_[i]));
    }
  stats_.max_rig_travel = std::max(stats_.max_rig_travel, rig_travel);
  stats_.max_travel = std::max(stats_.max_travel, travel);
  stats_.max_displacement = std::max(stats_.max_displacement, u.cwiseAbs().maxCoeff());
  // A rig that moves the mesh by half its size or more in one step: the animation jumps.
  const double jump = dt * x_rig_dot().cwiseAbs().maxCoeff();
  if (jump >= 0.5 * extent_) monitor_->note_rig_jump(stats_.steps, jump, describe_jump(jump));
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

std::string Simulation::describe_jump(double jump) const {
  // Affine handles ([A | t] per handle, column-major): the handle whose change of transform
  // moves a corner of the rest bounding box the most.
  const Index d = dim_, per = d * (d + 1), P = rig_->num_params();
  const std::string name = rig_->name();
  if (linear_rig_ && (name.rfind("lbs", 0) == 0 || name.rfind("affine", 0) == 0) && P % per == 0) {
    Index worst = 0;
    double most = -1;
    for (Index h = 0; h < P / per; ++h) {
      const Eigen::Map<const MatrixXd> now(state_.p.data() + h * per, d, d + 1),
          before(p_prev_.data() + h * per, d, d + 1);
      const MatrixXd delta = now - before;
      for (Index c = 0; c < corners_.rows(); ++c) {
        const double m = (delta.leftCols(d) * corners_.row(c).transpose() + delta.col(d)).cwiseAbs().maxCoeff();
        if (m > most) most = m, worst = h;
      }
    }
    return "handle " + std::to_string(worst + 1) + " of " + std::to_string(P / per) + " (counted from 1) moves " +
           number(most / extent_) + " times the mesh's size";
  }
  return "the rig moves a vertex " + number(jump / extent_) + " times the mesh's size";
}

std::vector<std::string> Simulation::warnings() const {
  std::vector<std::string> out;
  if (monitor_ && !monitor_->rig_jump().empty())
    out.push_back("the animation jumps: " + monitor_->rig_jump() +
                  " (a teleport, e.g. a cut or a missing key); the secondary motion after it is the material's "
                  "response to the jump");
  if (!options_.dynamics || !options_.monitor || stats_.steps < 2 || !(extent_ > 0)) return out;
  const double rig = stats_.max_rig_travel / extent_;
  if (rig < 1e-3) return out;  // the rig barely moves: nothing to measure the dynamics against
  const double moved = stats_.max_travel / extent_, uc = stats_.max_displacement / extent_;
  if (moved <= 1e-3 * rig) {
    out.push_back("the simulated mesh's surface never moves more than " + number(moved) +
                  " of its size from its rest shape while the rig moves it up to " + percent(rig) +
                  " of its size: the material's stiffness is only " + number(stiffness_ratio_) +
                  " of its inertia over one time step (" + settings_words(options_.cd) +
                  "), so the secondary motion cancels the rig's. The material is too soft or too dense, or the "
                  "time step too short, for the rig to carry the mesh: use values nearer the real material's, and "
                  "the animation's real frame time as the step");
  } else if (uc <= 1e-6 * rig) {
    const std::string cause =
        stiffness_ratio_ > kStiff
            ? "the material (YM = " + number(options_.cd.ym) +
                  ") being stiff enough at dt = " + number(options_.cd.dt) +
                  " that nothing shows; a softer material gives visible secondary motion"
            : "its motion leaving the dynamics nothing to add (a rigid motion, for example); motions that bend the "
              "mesh give secondary motion";
    out.push_back("the secondary motion stays below " + number(uc) +
                  " of the mesh's size while the rig moves it up to " + percent(rig) +
                  " of its size: the bake is the rig's motion alone, " + cause);
  }
  return out;
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
