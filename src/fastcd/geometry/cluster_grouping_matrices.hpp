#pragma once
// cluster_grouping_matrices: sum / volume-weighted-average operators from elements to clusters.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct ClusterGrouping {
  SparseMatrix G;   ///< #C x #T, G(l_e, e) = 1 (sums element quantities per cluster)
  SparseMatrix Gm;  ///< #C x #T, diag(1/mc) G diag(mt): volume-weighted average per cluster
  VectorXd mc;      ///< #C total |volume| per cluster
  VectorXd mt;      ///< #T |volume| per element
  VectorXd fe;      ///< #T mt_e / mc_{l_e}
};

/// simkit.cluster_grouping_matrices with #C = max(l) + 1.
/// Unlike simkit, a cluster id with no elements gets a zero row in Gm (simkit divides by 0).
///
/// @param l  #T cluster label per element, in [0, #C).
/// @param V  #V x dim vertices, T #T x (dim+1) simplices (volumes weight Gm).
/// @throws std::invalid_argument for mismatched sizes or negative labels.
ClusterGrouping cluster_grouping_matrices(const Eigen::Ref<const VectorXi>& l, const Eigen::Ref<const MatrixXd>& V,
                                          const Eigen::Ref<const MatrixXi>& T);

}  // namespace fastcd
