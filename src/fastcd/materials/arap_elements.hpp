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
  // 3D only: the same tables lane-wise, 8 elements per batch (SIMD lanes), for arap_rotated_rhs.
  // Batch k holds elements 8k .. 8k+7; the last batch is padded with vertex 0, zero gradients.
  std::vector<int> lane_vertices;   ///< batches*4*8: [k][a][lane]
  std::vector<double> lane_grads;   ///< batches*12*8: [k][a][c][lane], grad(phi_a)_c
  std::vector<double> lane_mu_vol;  ///< batches*8: mu vol_e
  std::vector<int> incidence_lane;  ///< per incidence: its contribution's offset in arap_rotated_rhs's buffer
  Index num_entries() const { return num_elements * dim * dim; }
  Index num_batches() const { return (num_elements + 7) / 8; }
  /// Doubles of arap_rotated_rhs's work buffer (3D).
  Index rotated_rhs_buffer() const { return num_batches() * 96; }
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

/// One local step and the right-hand side it makes, fused (3D): b = b0 + G^T AMue R(G x), R(F)
/// the closest rotation of each element's F (closest_rotation<3>). Element batches run in SIMD
/// lanes: F, R and each element's dim+1 vertex contributions stay in registers / L1, and vertex v
/// then sums its incidences' contributions (ascending elements: a fixed order, so results do
/// not depend on the thread count). `work` holds el.rotated_rhs_buffer() doubles. b may not
/// alias x; it may alias b0.
void arap_rotated_rhs(const ArapElements& el, const double* x, const double* b0, double* b, double* work);

}  // namespace fastcd
