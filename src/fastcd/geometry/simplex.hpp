#pragma once
// Per-element (fixed-size) kernels shared by the assembled operators. Internal header.
#include <Eigen/Dense>
#include <cmath>

#include "fastcd/common/types.hpp"

namespace fastcd::detail {

/// Rest edge matrix D_m = [x1 - x0, ..., x_dim - x0] (columns) of element e.
template <int dim>
Eigen::Matrix<double, dim, dim> edge_matrix(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                            Index e) {
  Eigen::Matrix<double, dim, dim> Dm;
  for (int a = 0; a < dim; ++a) Dm.col(a) = (X.row(T(e, a + 1)) - X.row(T(e, 0))).transpose();
  return Dm;
}

/// Longest edge of element e (for scale-relative degeneracy tests).
template <int dim>
double longest_edge(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, Index e) {
  double h = 0.0;
  for (int a = 0; a <= dim; ++a)
    for (int b = a + 1; b <= dim; ++b) h = std::max(h, (X.row(T(e, a)) - X.row(T(e, b))).norm());
  return h;
}

/// Whether a simplex with rest edge-matrix determinant `det` and longest edge `h` is
/// degenerate: |det| <= 1e-12 h^dim (scale-relative; also true for zero-size elements and NaN).
template <int dim>
bool is_degenerate(double det, double h) {
  return !(std::abs(det) > 1e-12 * std::pow(h, dim));
}

/// Shape-function gradients of a linear simplex: row a holds grad(phi_a) (a = 0..dim).
/// Throws std::invalid_argument naming the element when it is degenerate
/// (|det D_m| <= 1e-12 * longest_edge^dim, including zero-size elements).
template <int dim>
Eigen::Matrix<double, dim + 1, dim> shape_gradients(const Eigen::Ref<const MatrixXd>& X,
                                                    const Eigen::Ref<const MatrixXi>& T, Index e, const char* where);

/// Signed measure of element e: area (2D, positive for CCW) or volume (3D, positive when
/// det[x1-x0, x2-x0, x3-x0] > 0).
template <int dim>
double signed_measure(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T, Index e) {
  double f = (dim == 2) ? 0.5 : 1.0 / 6.0;
  return f * edge_matrix<dim>(X, T, e).determinant();
}

/// Calls f.template operator()<dim>() with dim = X.cols() in {2, 3}; throws otherwise.
template <class F>
decltype(auto) dispatch_dim(Index dim, const char* where, F&& f) {
  if (dim == 2) return f.template operator()<2>();
  if (dim == 3) return f.template operator()<3>();
  throw std::invalid_argument(std::string(where) + ": dimension must be 2 or 3, got " + std::to_string(dim));
}

}  // namespace fastcd::detail
