#pragma once
// normalize_and_center: translate to the vertex centroid, scale the largest extent to 2.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct NormalizedPositions {
  MatrixXd X;            ///< s * (X + t)
  Eigen::RowVectorXd t;  ///< translation applied first (= -vertex centroid)
  double s = 1.0;        ///< scale applied second (= 2 / largest bounding-box extent)
};

/// simkit.normalize_and_center (which works in place; here the input is left untouched):
/// t = -mean of the vertices (not the box centre), s = 2 / max_axis(max - min).
/// @throws std::invalid_argument for an empty X, non-finite entries or a single point
///         (zero extent).
NormalizedPositions normalize_and_center(const Eigen::Ref<const MatrixXd>& X);

}  // namespace fastcd
