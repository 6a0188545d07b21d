#pragma once
// block_coord: alternating local/global minimisation (simkit.solvers.block_coord).
#include <functional>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// x = x0; repeat at most max_iter times: x_prev = x; r = local_step(x); x = global_step(x, r);
/// stop when ||x - x_prev|| < tolerance (strict, so tolerance 0 runs exactly max_iter
/// iterations, as tutorial 23 does). max_iter = 0 returns x0.
///
/// @param iterations  if given, receives the number of iterations run.
/// @throws std::invalid_argument if max_iter < 0 or tolerance is negative/NaN; whatever the
///         step functions throw.
VectorXd block_coord(const Eigen::Ref<const VectorXd>& x0,
                     const std::function<VectorXd(const VectorXd& x, const VectorXd& r)>& global_step,
                     const std::function<VectorXd(const VectorXd& x)>& local_step, double tolerance = 1e-6,
                     int max_iter = 1, int* iterations = nullptr);

}  // namespace fastcd
