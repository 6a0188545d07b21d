#include "fastcd/solvers/polar_svd.hpp"

#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

template <>
void polar_svd<2>(const Eigen::Matrix2d& F, Eigen::Matrix2d& R, Eigen::Matrix2d* S) {
  const double x = F(0, 0) + F(1, 1), y = F(1, 0) - F(0, 1);
  const double r = std::hypot(x, y);
  const double c = r > 0 ? x / r : 1.0, s = r > 0 ? y / r : 0.0;
  R << c, -s, s, c;
  if (S) {
    *S = R.transpose() * F;
    const double off = 0.5 * ((*S)(0, 1) + (*S)(1, 0));  // symmetric up to rounding; make it exact
    (*S)(0, 1) = (*S)(1, 0) = off;
  }
}

template <>
void polar_svd<3>(const Eigen::Matrix3d& F, Eigen::Matrix3d& R, Eigen::Matrix3d* S) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d U = svd.matrixU();
  const Eigen::Matrix3d& V = svd.matrixV();
  Eigen::Vector3d sigma = svd.singularValues();
  if ((U * V.transpose()).determinant() < 0) {
    U.col(2) = -U.col(2);
    sigma(2) = -sigma(2);
  }
  R = U * V.transpose();
  if (S) *S = V * sigma.asDiagonal() * V.transpose();
}

namespace {
template <int dim>
void check_batch(const Eigen::Ref<const VectorXd>& F, const char* where) {
  FASTCD_CHECK(F.size() % (dim * dim) == 0, "F has ", F.size(), " entries, not a multiple of ",
               dim * dim, " (", where, ")");
  check_finite(F, "F", where);
}
}  // namespace

namespace detail {

template <>
void polar_rotations_unchecked<2>(const double* F, Index count, double* R) {
#pragma omp parallel for if (count > 8192) schedule(static)
  for (Index e = 0; e < count; ++e) {
    const double* f = F + 4 * e;
    const double x = f[0] + f[3], y = f[2] - f[1];
    const double r2 = x * x + y * y;
    double c = 1.0, s = 0.0;
    if (r2 > 0) {
      const double inv = 1.0 / std::sqrt(r2);
      c = x * inv;
      s = y * inv;
    }
    double* o = R + 4 * e;
    o[0] = c;
    o[1] = -s;
    o[2] = s;
    o[3] = c;
  }
}

template <>
void polar_rotations_unchecked<3>(const double* F, Index count, double* R) {
  using Mat = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
#pragma omp parallel for if (count > 2048) schedule(static)
  for (Index e = 0; e < count; ++e) {
    Eigen::Matrix3d Fe = Eigen::Map<const Mat>(F + 9 * e), Re;
    polar_svd<3>(Fe, Re);
    Eigen::Map<Mat>(R + 9 * e) = Re;
  }
}

}  // namespace detail

void polar_rotations(const Eigen::Ref<const VectorXd>& F, Index dim, VectorXd& R) {
  detail::dispatch_dim(dim, "polar_rotations", [&]<int d>() {
    check_batch<d>(F, "polar_rotations");
    R.resize(F.size());
    detail::polar_rotations_unchecked<d>(F.data(), F.size() / (d * d), R.data());
  });
}

PolarDecomposition polar_svd(const Eigen::Ref<const VectorXd>& F, Index dim) {
  return detail::dispatch_dim(dim, "polar_svd", [&]<int d>() {
    check_batch<d>(F, "polar_svd");
    PolarDecomposition out;
    out.R.resize(F.size());
    out.S.resize(F.size());
    using Mat = Eigen::Matrix<double, d, d, Eigen::RowMajor>;
    for (Index e = 0; e < F.size() / (d * d); ++e) {
      Eigen::Matrix<double, d, d> Fe = Eigen::Map<const Mat>(F.data() + e * d * d), Re, Se;
      polar_svd<d>(Fe, Re, &Se);
      Eigen::Map<Mat>(out.R.data() + e * d * d) = Re;
      Eigen::Map<Mat>(out.S.data() + e * d * d) = Se;
    }
    return out;
  });
}

}  // namespace fastcd
