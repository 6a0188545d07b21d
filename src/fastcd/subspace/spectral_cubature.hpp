#pragma once
// spectral_cubature: cluster elements by their mode weights (simkit.spectral_cubature), with a
// bit-faithful port of scipy's kmeans2(seed=0, minit="++").
#include <cstdint>

#include "fastcd/common/types.hpp"

namespace fastcd {

struct KMeansResult {
  MatrixXd centroids;  ///< k x p
  VectorXi labels;     ///< #points cluster of each point
};

/// scipy.cluster.vq.kmeans2(data, k, iter, seed=seed, minit="++") reproduced exactly:
/// k-means++ seeding drawn from numpy's legacy RandomState(seed) (MT19937, masked-rejection
/// randint for the first centre, 53-bit uniforms for the rest, squared distances, numpy
/// pairwise summation, searchsorted-left), then exactly `iter` Lloyd iterations (nearest
/// centre with ties to the lowest index; mean update; an empty cluster keeps its centre).
/// Labels are those of the last assignment, centroids the means after it.
/// @throws std::invalid_argument unless 1 <= k <= #points, iter >= 1 and data is finite.
KMeansResult kmeans2(const Eigen::Ref<const MatrixXd>& data, int k, int iter = 10, std::uint32_t seed = 0);

/// simkit.spectral_clustering: kmeans2 on the rows of W (each multiplied by D(row) if given).
KMeansResult spectral_clustering(const Eigen::Ref<const MatrixXd>& W, int k,
                                 const Eigen::Ref<const VectorXd>& D = VectorXd(), std::uint32_t seed = 0);

struct SpectralCubature {
  VectorXi lI;         ///< #C element nearest (in feature space) to each centroid, lowest index on ties
  VectorXd mc;         ///< max(label)+1 total |volume| per cluster
  VectorXi labels;     ///< #T cluster of each element
  MatrixXd centroids;  ///< #C x k cluster centres in feature space
};

/// Clusters elements by the per-element mean of the vertex weights W (features #T x k) into
/// `k` clusters (simkit.spectral_cubature with return_labels and return_centroids).
/// @param X  #V x dim, T #T x (dim+1), W #V x p (e.g. skinning eigenmodes, M-orthonormal).
/// @throws std::invalid_argument for bad shapes or k outside [1, #T].
SpectralCubature spectral_cubature(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                   const Eigen::Ref<const MatrixXd>& W, int k);

}  // namespace fastcd
