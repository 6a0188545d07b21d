#pragma once
// Settings shared by the full-order and fast complementary-dynamics solvers, and the state
// they advance. Names follow docs/vocabulary.md (the same in C++, Python, the CLI and JSON).
#include <string>

#include "fastcd/cd/leak_field.hpp"
#include "fastcd/solvers/kron_cholesky.hpp"

namespace fastcd {

/// Arithmetic of the fast solver's iteration. Double: every product in double precision (the
/// default; agrees with simkit to rounding). Mixed: the structured iteration's two products per
/// iteration, F = F_J + P V^T and P^T R, in single precision with double F_J, rotations, state
/// and everything else: about 1.3x faster on Spot-sized steps, with differences from Double
/// below the single-precision rounding of the files fastcd writes (measured on the Fox: 6e-8
/// of the model's size over 200 frames). Small (folded) systems and the full solver always run
/// in double; full_cd_precompute refuses Mixed rather than ignore it.
enum class Precision { Double, Mixed };

struct CDOptions {
  double dt = 1e-2;        ///< time step (s); "h" in the formulas
  double ym = 1e5;         ///< Young's modulus (Pa)
  double pr = 0.0;         ///< Poisson ratio (ARAP uses only mu)
  double rho = 1e3;        ///< density (kg / m^dim)
  int iterations = 10;     ///< local/global iterations per step (simkit tutorial 23: 10)
  double tolerance = 0.0;  ///< stop early when the update is smaller (0 = always `iterations`)
  int modes = 10;          ///< fast: skinning eigenmodes (subspace size modes*dim*(dim+1))
  int clusters = 20;       ///< fast: rotation clusters
  LeakFieldOptions leak;
  VectorXd gravity;                ///< external acceleration (dim entries, e.g. (0, -9.8)); empty = none,
                                   ///< as in the tutorial and the 2020 release
  VectorXi fixed;                  ///< vertices held on the rig (u_c = 0 there): a release scene's fixed region
  double constraint_rtol = 1e-10;  ///< relative singular-value cut-off of the constraint rank
  CholeskyBackend backend = CholeskyBackend::Auto;
  Precision precision = Precision::Double;  ///< fast: arithmetic of the iteration's products
};

/// "double" / "mixed", the names the CLI, Python and JSON use.
const char* precision_name(Precision p);
/// @throws std::invalid_argument for a name other than "double" or "mixed".
Precision precision_from_name(const std::string& name);

/// @throws std::invalid_argument naming the first bad setting.
void validate(const CDOptions& o);

/// The state the solvers advance: complementary coordinates s (u_c in full order, z in fast
/// order, u_c = B z), their velocity, and the rig pose p and its velocity.
struct CDState {
  VectorXd s, s_dot, p, p_dot;
};

namespace detail {
/// Rest state: s = 0 at rest (state_dim entries), rig at p0 at rest.
CDState rest_state(Index state_dim, const Eigen::Ref<const VectorXd>& p0);

/// Moves `state` to (s_new, p_next), with velocities by finite differences over dt (as the
/// tutorial's roll-out does). s_new is swapped into the state and comes back holding the
/// previous s, so a caller that keeps it as scratch allocates nothing per step.
void accept_step(CDState& state, VectorXd& s_new, const Eigen::Ref<const VectorXd>& p_next, double dt);
}  // namespace detail

}  // namespace fastcd
