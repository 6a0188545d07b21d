#pragma once
// Shared fixtures for the fastcd tests.
#include <gtest/gtest.h>

#include <unistd.h>
#include <Eigen/Dense>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "fastcd/fastcd.hpp"

namespace fastcd::test {

/// Small 2D mesh: a 6 x 4 triangulated grid, sheared and scaled so nothing is axis-aligned.
inline Mesh mesh2d() {
  Mesh m = triangulated_grid(6, 4);
  Eigen::Matrix2d A;
  A << 1.3, 0.2, -0.1, 0.7;
  m.X = (m.X * A.transpose()).eval();
  return m;
}

/// Small 3D tet mesh: a 4 x 3 x 3 box grid, sheared.
inline Mesh mesh3d() {
  Mesh m = tetrahedralized_grid(4, 3, 3);
  Eigen::Matrix3d A;
  A << 1.1, 0.2, 0.0, 0.1, 0.9, -0.2, 0.0, 0.3, 0.8;
  m.X = (m.X * A.transpose()).eval();
  return m;
}

inline Mesh mesh_for(int dim) { return dim == 2 ? mesh2d() : mesh3d(); }

/// For its scope, fastcd uses exactly n threads (set_threads(n)); the default comes back after.
class ThreadCount {
 public:
  explicit ThreadCount(int n) { set_threads(n); }
  ~ThreadCount() { set_threads(0); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;
};

/// Flattens #V x dim positions into the interleaved DOF vector.
inline VectorXd flat(const MatrixXd& X) {
  MatrixXd Xt = X.transpose();
  return Eigen::Map<const VectorXd>(Xt.data(), Xt.size());
}

/// Expects the callable to throw E whose what() contains `needle`.
template <class E, class F>
void expect_throw_with(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an exception mentioning '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message was: " << e.what();
  }
}

/// Scientific notation for RecordProperty values.
inline std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

/// Fixture with a fresh temporary folder, removed after the test.
class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("fastcd-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Writes raw bytes to a file in the temporary folder and returns its path.
  std::string put(const std::string& name, const std::string& bytes) const {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  /// Names of the files in the temporary folder (to check no temporary file is left).
  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }

  std::filesystem::path dir_;
};

inline double max_abs(const MatrixXd& A) { return A.size() ? A.cwiseAbs().maxCoeff() : 0.0; }

}  // namespace fastcd::test
