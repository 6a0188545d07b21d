#pragma once
// The one DOF layout: vertex-interleaved vectors [x0, y0, (z0), x1, ...].
#include "fastcd/common/types.hpp"

namespace fastcd {

/// #V x dim positions -> #V*dim interleaved vector.
inline VectorXd flatten(const Eigen::Ref<const MatrixXd>& X) {
  VectorXd x(X.size());
  for (Index v = 0; v < X.rows(); ++v) x.segment(v * X.cols(), X.cols()) = X.row(v).transpose();
  return x;
}

/// #V*dim interleaved vector -> #V x dim positions.
inline MatrixXd unflatten(const Eigen::Ref<const VectorXd>& x, Index dim) {
  MatrixXd X(x.size() / dim, dim);
  for (Index v = 0; v < X.rows(); ++v) X.row(v) = x.segment(v * dim, dim).transpose();
  return X;
}

}  // namespace fastcd
