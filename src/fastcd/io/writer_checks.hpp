#pragma once
// Internal argument checks of the fastcd::io writers (std::invalid_argument "<fn>: ...").
#include <Eigen/Core>
#include <cmath>
#include <stdexcept>
#include <string>

#include "fastcd/common/check.hpp"

namespace fastcd::detail {

/// X must have min_cols..max_cols columns and finite entries.
inline void check_positions(const char* fn, const char* name, const Eigen::Ref<const Eigen::MatrixXd>& X,
                            Eigen::Index min_cols, Eigen::Index max_cols) {
  if (X.cols() < min_cols || X.cols() > max_cols)
    throw std::invalid_argument(fastcd::detail::concat(
        fn, ": ", name, " must be #V x ", min_cols,
        (min_cols == max_cols ? std::string() : " or #V x " + std::to_string(max_cols)), ", got ", shape_of(X)));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      if (!std::isfinite(X(i, j)))
        throw std::invalid_argument(
            fastcd::detail::concat(fn, ": ", name, "(", i, ", ", j, ") is not finite (", X(i, j), ")"));
}

/// Every entry of E lies in [0, n).
inline void check_index_range(const char* fn, const char* name, const Eigen::Ref<const Eigen::MatrixXi>& E,
                              Eigen::Index n) {
  for (Eigen::Index j = 0; j < E.cols(); ++j)
    for (Eigen::Index i = 0; i < E.rows(); ++i)
      if (E(i, j) < 0 || E(i, j) >= n)
        throw std::invalid_argument(
            fastcd::detail::concat(fn, ": ", name, "(", i, ", ", j, ") = ", E(i, j), " is out of range [0, ", n, ")"));
}

/// T is #T x cols with indices in [0, n).
inline void check_simplices(const char* fn, const char* name, const Eigen::Ref<const Eigen::MatrixXi>& T,
                            Eigen::Index n, Eigen::Index cols) {
  if (T.cols() != cols)
    throw std::invalid_argument(fastcd::detail::concat(fn, ": ", name, " must be #T x ", cols, ", got ", shape_of(T)));
  check_index_range(fn, name, T, n);
}

/// F is #F x k with k >= min_cols (or empty) and indices in [0, n).
inline void check_polygons(const char* fn, const char* name, const Eigen::Ref<const Eigen::MatrixXi>& F, Eigen::Index n,
                           Eigen::Index min_cols) {
  if (F.rows() > 0 && F.cols() < min_cols)
    throw std::invalid_argument(
        fastcd::detail::concat(fn, ": ", name, " must be #F x k with k >= ", min_cols, ", got ", shape_of(F)));
  check_index_range(fn, name, F, n);
}

}  // namespace fastcd::detail
