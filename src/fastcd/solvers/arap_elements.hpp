#pragma once
// ArapElements: the full-order local step and elastic right-hand side, element by element.
//
// One local/global iteration needs F = G x, R = polar(F) and the right-hand side
// b = b0 + G^T AMue R. As sparse products these read an index per matrix entry (dim+1 of them
// per F entry). Here the same arithmetic runs on per-element tables: element e's F is
// sum_a x_{v_a} grad(phi_a)^T over its dim+1 vertices, and vertex v gathers
// sum_{(e, a) incident} R_e (mu vol_e grad(phi_a)) from its incident elements. Both loops write
// only their own element / vertex, so they run in parallel with results independent of the
// thread count (each sum has a fixed order).
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

struct ArapElements {
  Index dim = 0;
  Index num_vertices = 0;
  Index num_elements = 0;
  std::vector<int> vertices;         ///< #T*(dim+1): element e's vertices
  std::vector<double> grads;         ///< #T*(dim+1)*dim: grad(phi_a) of element e's vertex a
  std::vector<int> incidence_ptr;    ///< #V+1: vertex v's incidences are [ptr[v], ptr[v+1])
  std::vector<int> incidence_elem;   ///< element of each incidence
  std::vector<double> incidence_wg;  ///< dim per incidence: mu vol_e grad(phi_a)
  Index num_entries() const { return num_elements * dim * dim; }
};

/// Tables for mesh (X, T) with per-element weights mu_vol (#T, the ARAP energy's mu |vol_e|).
/// Entries equal those of deformation_jacobian(X, T) and G^T kron(diag(mu_vol), I).
/// @throws std::invalid_argument for bad meshes or degenerate elements.
ArapElements arap_elements(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                           const Eigen::Ref<const VectorXd>& mu_vol);

/// F = G x (#T*dim^2, row-major per element) for interleaved x (#V*dim).
void arap_deformation(const ArapElements& el, const double* x, double* F);

/// b = b0 + G^T AMue R for per-element matrices R (#T*dim^2, row-major). b may alias b0.
void arap_elastic_rhs(const ArapElements& el, const double* R, const double* b0, double* b);

}  // namespace fastcd
