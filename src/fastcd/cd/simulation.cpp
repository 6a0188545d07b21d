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

/// Refuses a precompute that would not fit in memory, before any of it is allocated, with the
/// estimate and what to change: fewer handles when the rig's part dominates, a coarser mesh when
/// the mesh's does, and the full solver (which takes any rig) when that would fit.
void check_precompute_memory(const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig, const SparseMatrix* J,
                             const SimulationOptions& options) {
  const auto avail = static_cast<double>(available_memory_bytes());
  if (!(avail > 0)) return;
  const PrecomputeBytes b = precompute_bytes(options.solver, T, n, rig, J, options.cd);
  const double need = b.total();
  if (need <= 0.9 * avail) return;
  std::string advice = b.rig > 0.5 * need ? "use a rig with fewer handles (bones)" : coarser_mesh_advice(n, need);
  if (options.solver != SolverKind::Full) {
    // (The full solver's factor is analysed only now: for it, or when another does not fit.)
    const PrecomputeBytes full = precompute_bytes(SolverKind::Full, T, n, rig, J, options.cd);
    if (full.total() <= 0.9 * avail) advice += ", or the full solver (about " + memory_in_words(full.total()) + ")";
  }
  check_memory(need,
               "the " + to_string(options.solver) + " solver's precompute for a rig of " + rig_words(rig) + " on " +
                   std::to_string(n) + " vertices and " + std::to_string(T.rows()) + " elements",
               advice);
}

}  // namespace

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

Simulation::Simulation(const Simulation& o)
    : options_(o.options_),
      rig_(o.rig_),
      dim_(o.dim_),
      n_(o.n_),
      solver_(o.solver_ ? o.solver_->clone() : nullptr),
      state_(o.state_),
      rig_motion_(o.rig_motion_),
      uc_(o.uc_),
      uc_dot_(o.uc_dot_),
      uc_current_(o.uc_current_),
      uc_dot_current_(o.uc_dot_current_),
      uc_is_state_(o.uc_is_state_),
      uc_dot_is_state_(o.uc_dot_is_state_),
      travel_pending_(o.travel_pending_),
      monitor_(o.monitor_),
      residual_floor_(o.residual_floor_),
      extent_(o.extent_),
      stiffness_ratio_(o.stiffness_ratio_),
      x_rig_rest_(o.x_rig_rest_),
      boundary_mask_(o.boundary_mask_),
      corners_(o.corners_),
      precompute_s_(o.precompute_s_),
      last_(o.last_),
      stats_(o.stats_) {
  if (solver_) solver_->set_global_step_hook(nullptr);  // (a hook serves one simulation)
}

Simulation& Simulation::operator=(const Simulation& o) {
  if (this != &o) {
    Simulation copy(o);
    *this = std::move(copy);
  }
  return *this;
}

Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

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
  const VectorXd p0 = rig.rest_params();
  FASTCD_CHECK(p0.size() == rig.num_params() && p0.allFinite(), "the ", rig.name(), " rig's rest pose has ", p0.size(),
               " entries for ", rig.num_params(), " parameters, or NaN/Inf");
  check_solver_rig(options_.solver, rig);
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
    solver_ = make_cd_solver(X, T, rig, options_);
    state_ = solver_->initial_state();
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
  rig_motion_ = RigMotion(rig_, options_.cd.dt);
  rig_motion_.reset(p0);
  x_rig_rest_ = rig_motion_.x();
  boundary_mask_ = VectorXd::Zero(n_ * dim_);
  const VectorXi boundary = boundary_vertices(T);
  for (Index k = 0; k < boundary.size(); ++k) boundary_mask_.segment(boundary[k] * dim_, dim_).setOnes();
  uc_ = VectorXd::Zero(n_ * dim_);
  uc_dot_ = VectorXd::Zero(n_ * dim_);
  uc_current_ = uc_dot_current_ = false;
  const SparseMatrix& Mv = solver_->Mv();
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
  travel_pending_ = false;
}

void Simulation::reset() {
  state_ = solver_->initial_state();
  state_.p = rig_->rest_params();
  rig_motion_.reset(state_.p);
  solver_->reset(rig_motion_);
  if (!options_.dynamics) {
    uc_.setZero();
    uc_dot_.setZero();
  }
  uc_current_ = uc_dot_current_ = false;
  monitor_->reset();
  last_ = {};
  stats_ = {};
  travel_pending_ = false;
}

void Simulation::set_global_step_hook(GlobalStepHook* hook) { solver_->set_global_step_hook(hook); }

void Simulation::advance(const Eigen::Ref<const VectorXd>& p_next) {
  const Rig& rig = *rig_;
  FASTCD_CHECK(p_next.size() == rig.num_params(), "the ", rig.name(), " rig has ", rig.num_params(),
               " parameters, the pose has ", p_next.size());
  FASTCD_CHECK(all_finite(p_next), "the rig pose for step ", stats_.steps + 1, " has NaN or Inf entries");
  count_travel();  // the last step, before its state is replaced
  const double dt = options_.cd.dt;
  if (options_.dynamics) solver_->prepare(p_next, rig_motion_);
  const auto t0 = Clock::now();
  if (!options_.dynamics) {
    state_.p_dot = (p_next - state_.p) / dt;
    state_.p = p_next;
  } else {
    solver_->advance(state_, p_next, rig_motion_);
  }
  last_.step_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  rig_motion_.move_to(p_next);
  uc_current_ = uc_dot_current_ = false;
  ++stats_.steps;
  stats_.step_seconds += last_.step_seconds;
  if (!options_.monitor) return;
  travel_pending_ = true;
  StepMeasures m = solver_->measure(state_, rig_motion_);
  if (m.finite && !m.max_displacement_exact && !(m.max_displacement <= monitor_->max_displacement())) {
    // The solver's bound of max |u_c| does not settle the check: measure u_c itself.
    const VectorXd& u = uc();
    m.finite = u.allFinite() && uc_dot().allFinite();
    m.max_displacement = m.finite ? u.cwiseAbs().maxCoeff() : 0.0;
    m.max_displacement_exact = true;
  }
  const std::string diverged = monitor_->diverged(m);
  if (!diverged.empty()) {
    count_travel();  // (a jump of the rig in this step is the advice's first suspect)
    monitor_->fail(stats_.steps, diverged);
  }
  last_.kinetic_energy = monitor_->last_kinetic();
  last_.residual = solver_->residual(state_, residual_floor_);
  stats_.max_residual = std::max(stats_.max_residual, last_.residual);
  stats_.max_kinetic_energy = std::max(stats_.max_kinetic_energy, last_.kinetic_energy);
  stats_.sum_kinetic_energy += last_.kinetic_energy;
}

void Simulation::count_travel() const {
  if (!travel_pending_) return;
  travel_pending_ = false;
  const VectorXd& u = uc();
  const VectorXd& xr = rig_motion_.x();
  const VectorXd& xp = rig_motion_.x_prev();
  // One pass over every coordinate (boundary_mask_ is 1 on the boundary's, 0 elsewhere).
  const double *pu = u.data(), *px = xr.data(), *pp = xp.data(), *pr = x_rig_rest_.data(), *pm = boundary_mask_.data();
  double rig_travel = 0, travel = 0, umax = 0, moved = 0;
  const Index N = u.size();
#pragma omp simd reduction(max : rig_travel, travel, umax, moved)
  for (Index i = 0; i < N; ++i) {
    umax = std::max(umax, std::abs(pu[i]));
    moved = std::max(moved, std::abs(px[i] - pp[i]));
    rig_travel = std::max(rig_travel, pm[i] * std::abs(px[i] - pr[i]));
    travel = std::max(travel, pm[i] * std::abs(px[i] + pu[i] - pr[i]));
  }
  stats_.max_rig_travel = std::max(stats_.max_rig_travel, rig_travel);
  stats_.max_travel = std::max(stats_.max_travel, travel);
  stats_.max_displacement = std::max(stats_.max_displacement, umax);
  // A rig that moves the mesh by half its size or more in one step: the animation jumps. (dt
  // times the largest velocity (x - x_prev) / dt: the division is monotone, so dividing the
  // largest change once gives the same number.)
  const double dt = options_.cd.dt, jump = dt * (moved / dt);
  if (jump >= 0.5 * extent_) monitor_->note_rig_jump(stats_.steps, jump, describe_jump(jump));
}

std::string Simulation::describe_jump(double jump) const {
  // Affine handles ([A | t] per handle, column-major): the handle whose change of transform
  // moves a corner of the rest bounding box the most.
  const Index d = dim_, per = d * (d + 1), P = rig_->num_params();
  const std::string name = rig_->name();
  if (rig_motion_.linear_rig() && (name.rfind("lbs", 0) == 0 || name.rfind("affine", 0) == 0) && P % per == 0) {
    Index worst = 0;
    double most = -1;
    for (Index h = 0; h < P / per; ++h) {
      const Eigen::Map<const MatrixXd> now(state_.p.data() + h * per, d, d + 1),
          before(rig_motion_.p_prev().data() + h * per, d, d + 1);
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
  count_travel();
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
  if (!options_.dynamics) return uc_;
  if (!uc_current_) {
    uc_is_state_ = &solver_->lift(state_.s, uc_) == &state_.s;
    uc_current_ = true;
  }
  return uc_is_state_ ? state_.s : uc_;
}

const VectorXd& Simulation::uc_dot() const {
  if (!options_.dynamics) return uc_dot_;
  if (!uc_dot_current_) {
    uc_dot_is_state_ = &solver_->lift(state_.s_dot, uc_dot_) == &state_.s_dot;
    uc_dot_current_ = true;
  }
  return uc_dot_is_state_ ? state_.s_dot : uc_dot_;
}

void Simulation::check_buffer(const Eigen::Ref<MatrixXd>& x, const char* what) const {
  FASTCD_CHECK(x.rows() == n_ && x.cols() == dim_, "Simulation::", what, ": the buffer x is ", x.rows(), " x ",
               x.cols(), ", the mesh has ", n_, " vertices in ", dim_, "D (x must be ", n_, " x ", dim_, ")");
}

void Simulation::positions(Eigen::Ref<MatrixXd> x) const {
  check_buffer(x, "positions");
  const VectorXd& xr = rig_motion_.x();
  const VectorXd& u = uc();
  for (Index a = 0; a < dim_; ++a)
    for (Index v = 0; v < n_; ++v) x(v, a) = xr[v * dim_ + a] + u[v * dim_ + a];
  count_travel();  // (its u_c and rig positions are lifted now)
}

MatrixXd Simulation::positions() const {
  MatrixXd x(n_, dim_);
  positions(x);
  return x;
}

void Simulation::rig_positions(Eigen::Ref<MatrixXd> x) const {
  check_buffer(x, "rig_positions");
  const VectorXd& xr = rig_motion_.x();
  for (Index a = 0; a < dim_; ++a)
    for (Index v = 0; v < n_; ++v) x(v, a) = xr[v * dim_ + a];
  count_travel();
}

MatrixXd Simulation::rig_positions() const {
  MatrixXd x(n_, dim_);
  rig_positions(x);
  return x;
}

MatrixXd Simulation::displacement() const {
  MatrixXd u = unflatten(uc(), dim_);
  count_travel();
  return u;
}

MatrixXd Simulation::velocities() const { return unflatten(rig_motion_.x_dot() + uc_dot(), dim_); }

double Simulation::residual() const { return solver_->residual(state_, residual_floor_); }

double Simulation::kinetic_energy() const { return solver_->kinetic_energy(state_); }

const ComplementarityConstraint& Simulation::constraint() const { return solver_->constraint(); }

LeakFieldKind Simulation::leak_field_used() const { return solver_->leak_field_used(); }

const VectorXd& Simulation::D() const { return solver_->D(); }

std::size_t Simulation::memory_bytes() const {
  return solver_->memory_bytes() + rig_motion_.memory_bytes() +
         vector_bytes(
             {&state_.s, &state_.s_dot, &state_.p, &state_.p_dot, &uc_, &uc_dot_, &x_rig_rest_, &boundary_mask_});
}

}  // namespace fastcd
