#include "fastcd/geometry/simplex.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"

namespace fastcd::detail {

template <int dim>
Eigen::Matrix<double, dim + 1, dim> shape_gradients(const Eigen::Ref<const MatrixXd>& X,
                                                    const Eigen::Ref<const MatrixXi>& T, Index e, const char* where) {
  const Eigen::Matrix<double, dim, dim> Dm = edge_matrix<dim>(X, T, e);
  const double det = Dm.determinant();
  const double h = longest_edge<dim>(X, T, e);
  if (is_degenerate<dim>(det, h))
    throw std::invalid_argument(concat(where, ": element ", e, " is degenerate (rest ", dim == 2 ? "area " : "volume ",
                                       det / (dim == 2 ? 2.0 : 6.0), ", longest edge ", h, ")"));
  const Eigen::Matrix<double, dim, dim> Dinv = Dm.inverse();
  Eigen::Matrix<double, dim + 1, dim> grads;
  grads.template bottomRows<dim>() = Dinv;
  grads.row(0) = -Dinv.colwise().sum();
  return grads;
}

template Eigen::Matrix<double, 3, 2> shape_gradients<2>(const Eigen::Ref<const MatrixXd>&,
                                                        const Eigen::Ref<const MatrixXi>&, Index, const char*);
template Eigen::Matrix<double, 4, 3> shape_gradients<3>(const Eigen::Ref<const MatrixXd>&,
                                                        const Eigen::Ref<const MatrixXi>&, Index, const char*);

}  // namespace fastcd::detail
