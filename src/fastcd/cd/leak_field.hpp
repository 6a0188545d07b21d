#pragma once
// The momentum-leak field D of complementary dynamics.
#include "fastcd/common/types.hpp"

namespace fastcd {

enum class LeakFieldKind {
  Diffusion,  ///< simkit / tutorial 23: D = 1 - diffuse_field(boundary -> 1, dt), min-max normalised
  Poisson,    ///< the 2020 paper: K phi = M 1 inside, phi = 0 on the boundary, D = phi / max(phi)
  None,       ///< D = 1: momentum conserved everywhere
  Values,     ///< per-vertex values given by the user (e.g. read from a file), each in [0, 1]
};

struct LeakFieldOptions {
  LeakFieldKind kind = LeakFieldKind::Diffusion;
  double dt = 1.0;  ///< diffusion time of the Diffusion kind (tutorial 23 uses 1)
  VectorXd values;  ///< #V values of the Values kind
};

/// Per-vertex D in [0, 1]: 0 where tissue follows the rig (momentum leaks), 1 where momentum
/// is conserved against it.
/// @throws std::invalid_argument for bad meshes or dt <= 0.
VectorXd momentum_leak_field(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                             const LeakFieldOptions& options = {});

}  // namespace fastcd
