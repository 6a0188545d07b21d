#pragma once
// Vocabulary types shared by every fastcd module.
//
// | name | meaning                                   | shape                      |
// |------|-------------------------------------------|----------------------------|
// | X    | rest vertex positions                     | #V x dim                   |
// | T    | simplices (triangles in 2D, tets in 3D)   | #T x (dim+1)               |
// | J    | rig (LBS) Jacobian, x = J p               | #V*dim x #p                |
// | B    | subspace basis, u = B z                   | #V*dim x #z                |
// | W    | per-vertex weights (skinning, modes)      | #V x #k                    |
// | M    | lumped mass (vertex or DOF level)         | #V x #V or #V*dim square   |
// | L    | stiffness (ARAP / Dirichlet)              | #V*dim square              |
//
// DOF layout: vertex-interleaved vectors [x0, y0, (z0), x1, ...]; per-element deformation
// gradients stacked element-major and flattened row-major (row e*dim^2 + i*dim + j holds
// F_e(i, j)); per-bone parameters are column-major vec([A | t]).
#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace fastcd {

using Index = Eigen::Index;
using MatrixXd = Eigen::MatrixXd;
using MatrixXi = Eigen::MatrixXi;
using VectorXd = Eigen::VectorXd;
using VectorXi = Eigen::VectorXi;
using SparseMatrix = Eigen::SparseMatrix<double>;
using Triplet = Eigen::Triplet<double>;

/// A simplicial mesh: triangles in 2D, tetrahedra in 3D.
struct Mesh {
  MatrixXd X;  ///< #V x dim positions
  MatrixXi T;  ///< #T x (dim+1) simplices
};

}  // namespace fastcd
