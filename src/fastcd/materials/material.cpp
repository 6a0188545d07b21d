#include "fastcd/materials/material.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <cmath>

#include "fastcd/geometry/ympr_to_lame.hpp"

namespace fastcd {

MaterialParams material_params(Index num_elements, double ym, double pr) {
  FASTCD_CHECK(num_elements >= 0, "material_params: num_elements must be >= 0, got ", num_elements);
  const auto [mu, lambda] = ympr_to_lame(ym, pr);
  return {VectorXd::Constant(num_elements, mu), VectorXd::Constant(num_elements, lambda)};
}

void check_material_params(const MaterialParams& params, Index num_elements, const char* where) {
  FASTCD_CHECK(params.mu.size() == num_elements && params.lambda.size() == num_elements, where,
               ": material parameters need mu and lambda for each of the ", num_elements, " elements, got ",
               params.mu.size(), " and ", params.lambda.size());
  for (Index e = 0; e < num_elements; ++e) {
    FASTCD_CHECK(std::isfinite(params.mu(e)) && params.mu(e) >= 0, where, ": element ", e, " has mu ", params.mu(e),
                 " (must be finite and >= 0)");
    FASTCD_CHECK(std::isfinite(params.lambda(e)), where, ": element ", e, " has lambda ", params.lambda(e),
                 " (must be finite)");
  }
}

namespace detail {
void check_stacked(const Eigen::Ref<const VectorXd>& F, const Eigen::Ref<const VectorXd>& vol,
                   const MaterialParams& params, Index dim, const char* where) {
  FASTCD_CHECK(dim == 2 || dim == 3, where, ": dimension must be 2 or 3, got ", dim);
  FASTCD_CHECK(F.size() == vol.size() * dim * dim, where, ": F has ", F.size(), " entries, expected #T*", dim * dim,
               " = ", vol.size() * dim * dim, " for ", vol.size(), " element volumes");
  check_finite(F, "F", where);
  check_finite(vol, "vol", where);
  check_material_params(params, vol.size(), where);
}
}  // namespace detail

template <int dim>
SignedSvd<dim> signed_svd(const MatD<dim>& F) {
  const Eigen::JacobiSVD<MatD<dim>> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  SignedSvd<dim> out{svd.matrixU(), svd.matrixV(), svd.singularValues()};
  if (out.U.determinant() < 0) {
    out.U.col(dim - 1) *= -1.0;
    out.sigma(dim - 1) *= -1.0;
  }
  if (out.V.determinant() < 0) {
    out.V.col(dim - 1) *= -1.0;
    out.sigma(dim - 1) *= -1.0;
  }
  return out;
}

template SignedSvd<2> signed_svd<2>(const MatD<2>&);
template SignedSvd<3> signed_svd<3>(const MatD<3>&);

template <int n>
Eigen::Matrix<double, n, n> project_to_psd(const Eigen::Matrix<double, n, n>& H) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, n, n>> eig(0.5 * (H + H.transpose()));
  const Eigen::Matrix<double, n, 1> lambda = eig.eigenvalues().cwiseMax(0.0);
  return eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose();
}

template Eigen::Matrix<double, 4, 4> project_to_psd<4>(const Eigen::Matrix<double, 4, 4>&);
template Eigen::Matrix<double, 9, 9> project_to_psd<9>(const Eigen::Matrix<double, 9, 9>&);

}  // namespace fastcd
