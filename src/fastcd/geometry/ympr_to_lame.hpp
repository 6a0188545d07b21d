#pragma once
// ympr_to_lame: Young's modulus and Poisson ratio to Lame parameters.
#include <utility>

namespace fastcd {

/// mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)). Returns {mu, lambda}.
/// @throws std::invalid_argument unless E > 0 is finite and -1 < nu < 0.5 (simkit divides by
///         zero at nu = 0.5).
std::pair<double, double> ympr_to_lame(double ym, double pr);

}  // namespace fastcd
