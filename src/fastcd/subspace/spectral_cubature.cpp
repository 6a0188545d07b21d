#include "fastcd/subspace/spectral_cubature.hpp"

#include <algorithm>
#include <limits>
#include <random>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/geometry/volume.hpp"

namespace fastcd {

namespace {

/// numpy's pairwise summation of a contiguous double array (add.reduce).
double numpy_pairwise_sum(const double* a, Index n) {
  if (n < 8) {
    double res = 0.0;
    for (Index i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    Index i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  Index n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise_sum(a, n2) + numpy_pairwise_sum(a + n2, n - n2);
}

/// numpy legacy RandomState on MT19937.
class LegacyRandomState {
 public:
  explicit LegacyRandomState(std::uint32_t seed) : mt_(seed) {}
  /// randint(0, n): masked rejection sampling on 32-bit draws (n - 1 < 2^32).
  Index randint(Index n) {
    const std::uint64_t rng = static_cast<std::uint64_t>(n - 1);
    if (rng == 0) return 0;
    std::uint64_t mask = rng;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    std::uint64_t v;
    do v = static_cast<std::uint64_t>(mt_()) & mask;
    while (v > rng);
    return static_cast<Index>(v);
  }
  /// random_sample(): 53-bit double in [0, 1).
  double uniform() {
    const std::uint32_t a = static_cast<std::uint32_t>(mt_()) >> 5, b = static_cast<std::uint32_t>(mt_()) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

 private:
  std::mt19937 mt_;
};

double sqdist(const Eigen::Ref<const MatrixXd>& A, Index i, const Eigen::Ref<const MatrixXd>& B, Index j) {
  double s = 0.0;
  for (Index c = 0; c < A.cols(); ++c) {
    const double d = A(i, c) - B(j, c);
    s += d * d;
  }
  return s;
}

/// out(j) = ||data.row(j) - centre||^2 for every row j, each sum taken over the columns in order
/// (as scipy's per-pair loop does), computed column by column so the loop over rows vectorises.
void sqdist_to(const Eigen::Ref<const MatrixXd>& data, const double* centre, Index centre_stride, double* out) {
  const Index N = data.rows();
  for (Index j = 0; j < N; ++j) out[j] = 0.0;
  for (Index c = 0; c < data.cols(); ++c) {
    const double* col = data.col(c).data();
    const double x = centre[c * centre_stride];
    for (Index j = 0; j < N; ++j) {
      const double d = col[j] - x;
      out[j] += d * d;
    }
  }
}

}  // namespace

KMeansResult kmeans2(const Eigen::Ref<const MatrixXd>& data, int k, int iter, std::uint32_t seed) {
  const Index N = data.rows(), p = data.cols();
  FASTCD_CHECK(N > 0 && p > 0, "data is empty (", shape_of(data), ")");
  FASTCD_CHECK(k >= 1 && k <= N, "k = ", k, " must lie in [1, #points = ", N, "]");
  FASTCD_CHECK(iter >= 1, "iter must be >= 1, got ", iter);
  check_finite(data, "data", "kmeans2");

  // k-means++ seeding (scipy.cluster.vq._kpp).
  LegacyRandomState rng(seed);
  MatrixXd C(k, p);
  C.row(0) = data.row(rng.randint(N));
  // D2(j) = min over the centres so far of the squared distance: updated with each new
  // centre (the same minimum as recomputing it over all of them).
  VectorXd D2 = VectorXd::Constant(N, std::numeric_limits<double>::infinity()), cum(N), dist(N);
  for (int i = 1; i < k; ++i) {
    detail::throw_if_cancelled("kmeans2 (k-means++ seeding)");
    sqdist_to(data, C.row(i - 1).data(), k, dist.data());
    D2 = D2.cwiseMin(dist);
    const double total = numpy_pairwise_sum(D2.data(), N);
    double acc = 0.0;
    for (Index j = 0; j < N; ++j) cum(j) = (acc += D2(j) / total);
    const double r = rng.uniform();
    const Index pick = std::lower_bound(cum.data(), cum.data() + N, r) - cum.data();
    C.row(i) = data.row(std::min(pick, N - 1));
  }

  // Lloyd iterations: each point goes to the first centroid at the smallest distance.
  KMeansResult out;
  out.labels.resize(N);
  VectorXi count(k);
  MatrixXd sums(k, p);
  VectorXd best(N);
  for (int it = 0; it < iter; ++it) {
    detail::throw_if_cancelled("kmeans2");
    best.setConstant(std::numeric_limits<double>::infinity());
    out.labels.setZero();
    for (int c = 0; c < k; ++c) {
      sqdist_to(data, C.row(c).data(), k, dist.data());
      for (Index j = 0; j < N; ++j)
        if (dist(j) < best(j)) {
          best(j) = dist(j);
          out.labels(j) = c;
        }
    }
    count.setZero();
    sums.setZero();
    for (Index j = 0; j < N; ++j) {
      ++count(out.labels(j));
      sums.row(out.labels(j)) += data.row(j);
    }
    for (int c = 0; c < k; ++c)
      if (count(c) > 0) C.row(c) = sums.row(c) / static_cast<double>(count(c));
  }
  out.centroids = C;
  return out;
}

KMeansResult spectral_clustering(const Eigen::Ref<const MatrixXd>& W, int k, const Eigen::Ref<const VectorXd>& D,
                                 std::uint32_t seed) {
  if (D.size() == 0) return kmeans2(W, k, 10, seed);
  FASTCD_CHECK(D.size() == W.rows(), "D has ", D.size(), " entries for ", W.rows(), " rows of W");
  return kmeans2(D.asDiagonal() * W, k, 10, seed);
}

SpectralCubature spectral_cubature(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                   const Eigen::Ref<const MatrixXd>& W, int k) {
  check_mesh(X, T, "spectral_cubature");
  FASTCD_CHECK(W.rows() == X.rows(), "W must have one row per vertex: X is ", shape_of(X), ", W is ", shape_of(W));
  FASTCD_CHECK(k >= 1 && k <= T.rows(), "k = ", k, " clusters must lie in [1, #T = ", T.rows(), "]");
  const Index t = T.rows(), s = T.cols();
  MatrixXd Wt(t, W.cols());
  for (Index e = 0; e < t; ++e) {
    Wt.row(e) = W.row(T(e, 0));
    for (Index a = 1; a < s; ++a) Wt.row(e) += W.row(T(e, a));
    Wt.row(e) /= static_cast<double>(s);
  }
  const KMeansResult km = spectral_clustering(Wt, k);
  SpectralCubature out;
  out.labels = km.labels;
  out.centroids = km.centroids;
  out.lI.resize(k);
  for (int c = 0; c < k; ++c) {
    double best = std::numeric_limits<double>::infinity();
    for (Index e = 0; e < t; ++e) {
      const double d = sqdist(km.centroids, c, Wt, e);
      if (d < best) {
        best = d;
        out.lI(c) = static_cast<int>(e);
      }
    }
  }
  const VectorXd vol = volume(X, T).cwiseAbs();
  out.mc = VectorXd::Zero(out.labels.maxCoeff() + 1);
  for (Index e = 0; e < t; ++e) out.mc(out.labels(e)) += vol(e);
  return out;
}

}  // namespace fastcd
