#pragma once
// elastic_operators: the ARAP operators of simkit tutorial 23's `elastic_operators(X, T)`.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct ElasticOperators {
  Index dim = 0;
  SparseMatrix Mv;    ///< #V*dim diagonal lumped mass kron(massmatrix(X, T, rho), I_dim)
  SparseMatrix G;     ///< deformation_jacobian(X, T): #T*dim^2 x #V*dim
  VectorXd vol;       ///< #T element |volume|
  VectorXd mu_vol;    ///< #T  mu * |vol_e|  (the diagonal of AMu)
  SparseMatrix AMu;   ///< #T x #T diag(mu * vol)
  SparseMatrix AMue;  ///< #T*dim^2 diagonal kron(AMu, I_{dim^2})
  SparseMatrix L;     ///< #V*dim ARAP stiffness G^T AMue G = stiffness_matrix(G, mu_vol, dim) (symmetric PSD)
  double mu = 0.0;    ///< first Lame parameter (the only one ARAP uses)
};

/// Builds the ARAP operators for Young's modulus `ym`, Poisson ratio `pr` (tutorial 23 uses 0) and
/// density `rho`. The ARAP energy is sum_e mu vol_e / 2 ||F_e - R_e||^2.
/// @throws std::invalid_argument for bad meshes, degenerate elements or bad material values.
ElasticOperators elastic_operators(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                                   double ym = 1e5, double pr = 0.0, double rho = 1e3);

}  // namespace fastcd
