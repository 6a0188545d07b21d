#include "fastcd/solvers/block_coord.hpp"

#include "fastcd/common/check.hpp"

namespace fastcd {

VectorXd block_coord(const Eigen::Ref<const VectorXd>& x0,
                     const std::function<VectorXd(const VectorXd&, const VectorXd&)>& global_step,
                     const std::function<VectorXd(const VectorXd&)>& local_step, double tolerance, int max_iter,
                     int* iterations) {
  FASTCD_CHECK(max_iter >= 0, "max_iter must be >= 0, got ", max_iter);
  FASTCD_CHECK(tolerance >= 0, "tolerance must be >= 0, got ", tolerance);
  VectorXd x = x0;
  int it = 0;
  while (it < max_iter) {
    ++it;
    VectorXd r = local_step(x);
    VectorXd xn = global_step(x, r);
    FASTCD_CHECK(xn.size() == x.size(), "global_step returned ", xn.size(), " entries for a ", x.size(), "-vector");
    const double change = (xn - x).norm();
    x = std::move(xn);
    if (change < tolerance) break;
  }
  if (iterations) *iterations = it;
  return x;
}

}  // namespace fastcd
