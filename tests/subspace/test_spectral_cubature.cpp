#include <random>

#include "test_util.hpp"

namespace fastcd {
namespace test_spectral_cubature {

TEST(KMeans, Mt19937MatchesNumpyLegacySeeding) {
  std::mt19937 mt(0);
  EXPECT_EQ(mt(), 2357136044u);  // numpy.random.RandomState(0) first raw output
}

TEST(KMeans, SeparatedBlobsAreFoundAndResultIsDeterministic) {
  std::mt19937 gen(1);
  std::normal_distribution<double> N(0.0, 0.05);
  MatrixXd data(90, 2);
  const double cx[3] = {0, 5, 0}, cy[3] = {0, 0, 5};
  for (int i = 0; i < 90; ++i) data.row(i) << cx[i % 3] + N(gen), cy[i % 3] + N(gen);
  const KMeansResult a = kmeans2(data, 3), b = kmeans2(data, 3);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
  for (int i = 3; i < 90; ++i) EXPECT_EQ(a.labels(i), a.labels(i % 3));  // same blob, same label
  EXPECT_NE(a.labels(0), a.labels(1));
  EXPECT_NE(a.labels(1), a.labels(2));
  EXPECT_NE(a.labels(0), a.labels(2));
  // Centroids are the means of their members.
  for (int c = 0; c < 3; ++c) {
    Eigen::RowVector2d mean = Eigen::RowVector2d::Zero();
    int cnt = 0;
    for (int i = 0; i < 90; ++i)
      if (a.labels(i) == c) mean += data.row(i), ++cnt;
    EXPECT_LT((mean / cnt - a.centroids.row(c)).norm(), 1e-14);
  }
  test::expect_throw_with<std::invalid_argument>([&] { kmeans2(data, 91); }, "k = 91");
}

TEST(SpectralCubature, ClustersEveryElementAndSumsVolumes) {
  const Mesh m = test::mesh3d();
  const SkinningEigenmodes modes = skinning_eigenmodes(m.X, m.T, 4);
  const SpectralCubature sc = spectral_cubature(m.X, m.T, modes.W, 5);
  EXPECT_EQ(sc.labels.size(), m.T.rows());
  EXPECT_GE(sc.labels.minCoeff(), 0);
  EXPECT_LT(sc.labels.maxCoeff(), 5);
  EXPECT_NEAR(sc.mc.sum(), volume(m.X, m.T).sum(), 1e-13);
  EXPECT_EQ(sc.lI.size(), 5);
  EXPECT_EQ(spectral_cubature(m.X, m.T, modes.W, 5).labels, sc.labels);
  // Invariant to flipping the sign of a mode (as simkit's labels are).
  MatrixXd Wf = modes.W;
  Wf.col(1) *= -1.0;
  EXPECT_EQ(spectral_cubature(m.X, m.T, Wf, 5).labels, sc.labels);
}

}  // namespace test_spectral_cubature
}  // namespace fastcd
