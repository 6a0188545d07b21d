#pragma once
// The settings of a Simulation: which solver, its options, and what the simulation watches.
#include <memory>
#include <string>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/options.hpp"

namespace fastcd {

/// The two solvers: full order (every element rotates, the constraint is solved exactly) and
/// fast (skinning-eigenmode subspace, clustered rotations; the Python `ReducedCD`).
enum class SolverKind { Full, Fast };

/// "full" or "fast".
std::string to_string(SolverKind kind);
/// Parses "full" or "fast". @throws std::invalid_argument otherwise.
SolverKind solver_kind(const std::string& name);

struct SimulationOptions {
  SolverKind solver = SolverKind::Full;
  CDOptions cd;                           ///< time step, material, iterations, modes, clusters, leak field, gravity
  bool dynamics = true;                   ///< false: the rig alone (u_c = 0), e.g. to bake the rig's own motion
  bool monitor = true;                    ///< per step: divergence check, constraint residual, kinetic energy
                                          ///< (false: advance is the solver step alone, for benchmarks)
  double divergence_extent_ratio = 10.0;  ///< see DivergenceMonitor
  double divergence_energy_ratio = 1e4;
  /// Fast solver: the leak field, modes and clusters of an earlier precompute of the same mesh,
  /// rig and settings (FastCD::subspace, e.g. from a precompute cache); null computes them.
  std::shared_ptr<const FastCDSubspace> fast_subspace;
};

}  // namespace fastcd
