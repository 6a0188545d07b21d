#include "fastcd/cd/cd_solver.hpp"

#include <algorithm>
#include <stdexcept>

#include "fastcd/cd/fast_cd_solver.hpp"
#include "fastcd/cd/full_cd_solver.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/subspace/lbs_weight_space_constraint.hpp"

namespace fastcd {

namespace {

/// What the factory knows of each solver: its name, the rigs it takes, its precompute's
/// estimate and its adapter. A new solver is one more row.
struct SolverEntry {
  SolverKind kind;
  const char* name;
  void (*check_rig)(const Rig&);
  PrecomputeBytes (*precompute_bytes)(const Eigen::Ref<const MatrixXi>&, Index, const Rig&, const SparseMatrix*,
                                      const CDOptions&);
  std::unique_ptr<CDSolver> (*make)(const Eigen::Ref<const MatrixXd>&, const Eigen::Ref<const MatrixXi>&, const Rig&,
                                    const SimulationOptions&);
};

template <class Adapter>
std::unique_ptr<CDSolver> make_adapter(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                       const Rig& rig, const SimulationOptions& options) {
  return std::make_unique<Adapter>(X, T, rig, options);
}

const SolverEntry kSolvers[] = {
    {SolverKind::Full, "full", &FullCDSolver::check_rig, &FullCDSolver::precompute_bytes, &make_adapter<FullCDSolver>},
    {SolverKind::Fast, "fast", &FastCDSolver::check_rig, &FastCDSolver::precompute_bytes, &make_adapter<FastCDSolver>},
};

const SolverEntry& entry(SolverKind kind) {
  for (const SolverEntry& e : kSolvers)
    if (e.kind == kind) return e;
  throw std::invalid_argument("unknown solver kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace

std::string to_string(SolverKind kind) { return entry(kind).name; }

SolverKind solver_kind(const std::string& name) {
  for (const SolverEntry& e : kSolvers)
    if (name == e.name) return e.kind;
  throw std::invalid_argument("solver must be 'full' or 'fast', got '" + name + "'");
}

const std::vector<SolverKind>& solver_kinds() {
  static const std::vector<SolverKind> kinds = [] {
    std::vector<SolverKind> k;
    for (const SolverEntry& e : kSolvers) k.push_back(e.kind);
    return k;
  }();
  return kinds;
}

void check_solver_rig(SolverKind kind, const Rig& rig) { entry(kind).check_rig(rig); }

PrecomputeBytes precompute_bytes(SolverKind kind, const Eigen::Ref<const MatrixXi>& T, Index n, const Rig& rig,
                                 const SparseMatrix* J, const CDOptions& options) {
  return entry(kind).precompute_bytes(T, n, rig, J, options);
}

std::unique_ptr<CDSolver> make_cd_solver(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                         const Rig& rig, const SimulationOptions& options) {
  const SolverEntry& e = entry(options.solver);
  e.check_rig(rig);
  return e.make(X, T, rig, options);
}

namespace detail {

ConstraintBytes constraint_bytes(Index n_vertices, const Rig& rig, const SparseMatrix* J) {
  const double n = static_cast<double>(n_vertices), d = static_cast<double>(rig.dim());
  const double P = static_cast<double>(rig.num_params());
  // J = J_s (x) I (LBS and cage rigs): the constraint is orthonormalised on scalar blocks.
  const bool scalar = rig.is_linear() && rig.num_params() % rig.dim() == 0;
  ConstraintBytes c;
  c.rows = scalar ? P / d : P;
  c.cols = scalar ? n : n * d;
  const double nnz_J = J != nullptr ? static_cast<double>(J->nonZeros()) : n * d * P;
  // Held throughout: the rig Jacobian twice (the solver's copy, C = J^T M D) and the
  // constraint's dense basis (P x #V*dim, and its scalar block).
  c.held = 2.0 * 12.0 * nnz_J + 8.0 * P * n * d + (scalar ? 8.0 * c.rows * n : 0.0);
  c.gram = 3.0 * 8.0 * P * P;  // the rig's rank: J^T M J and its eigenvalues
  c.constraint = 8.0 * c.rows * c.cols + row_space_bytes(std::min(c.rows, c.cols), c.cols);
  return c;
}

}  // namespace detail

}  // namespace fastcd
