#pragma once
#include "test_util.hpp"
// Shared helpers of the fastcd::io reader/writer tests: a per-test temporary folder, raw file
// writing, and the shared data folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fastcd::test {

/// Path of a file under ../shared/data/.
inline std::string shared_data(const std::string& rel) { return std::string(FASTCD_SHARED_DIR) + "/data/" + rel; }

/// Fixture with a fresh temporary folder (test::TempDir).
using IoTempDir = TempDir;

/// Exact equality of two matrices (shape and every entry), with a readable failure.
template <class A, class B>
::testing::AssertionResult same_matrix(const A& a, const B& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return ::testing::AssertionFailure() << "shapes differ: " << a.rows() << " x " << a.cols() << " vs " << b.rows()
                                         << " x " << b.cols();
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      if (!(a(i, j) == b(i, j)))
        return ::testing::AssertionFailure()
               << "entry (" << i << ", " << j << ") differs: " << a(i, j) << " vs " << b(i, j);
  return ::testing::AssertionSuccess();
}

/// Number of distinct undirected edges of a triangle list.
inline long long count_edges(const Eigen::MatrixXi& F) {
  std::set<std::pair<int, int>> E;
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int a = 0; a < 3; ++a) {
      int u = F(f, a), v = F(f, (a + 1) % 3);
      E.insert({std::min(u, v), std::max(u, v)});
    }
  return static_cast<long long>(E.size());
}

/// Number of distinct vertices referenced by an index matrix.
inline long long count_used(const Eigen::MatrixXi& F) {
  std::set<int> s(F.data(), F.data() + F.size());
  return static_cast<long long>(s.size());
}

/// Random matrix with entries of mixed magnitudes (exercises the shortest round-trip text).
inline Eigen::MatrixXd awkward_values(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-30, 30);
  Eigen::MatrixXd M(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) M(i, j) = u(rng) * std::pow(10.0, e(rng));
  if (rows > 0 && cols > 0) M(0, 0) = 0.1;  // not exactly representable
  if (rows > 1 && cols > 0) M(1, 0) = -0.0;
  return M;
}

}  // namespace fastcd::test
