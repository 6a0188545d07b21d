#include "fastcd/geometry/volume.hpp"

#include <Eigen/Geometry>

#include "fastcd/common/check.hpp"

namespace fastcd {

VectorXd volume(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F) {
  FASTCD_CHECK(F.cols() >= 2 && F.cols() <= 4, "F must have 2 (edges), 3 (triangles) or 4 (tets) columns, got ",
               shape_of(F));
  FASTCD_CHECK(V.cols() >= 1 && V.cols() <= 3, "V must be #V x 1, 2 or 3, got ", shape_of(V));
  FASTCD_CHECK(F.cols() != 4 || V.cols() == 3, "tetrahedra need 3D vertices, V is ", shape_of(V));
  FASTCD_CHECK(F.cols() != 3 || V.cols() >= 2, "triangles need 2D or 3D vertices, V is ", shape_of(V));
  for (Index e = 0; e < F.rows(); ++e)
    for (Index a = 0; a < F.cols(); ++a)
      FASTCD_CHECK(F(e, a) >= 0 && F(e, a) < V.rows(), "F(", e, ", ", a, ") = ", F(e, a), " is out of range [0, ",
                   V.rows(), ")");
  VectorXd vol(F.rows());
  auto p3 = [&](Index v) {
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    p.head(V.cols()) = V.row(v).transpose();
    return p;
  };
  for (Index e = 0; e < F.rows(); ++e) {
    switch (F.cols()) {
      case 2:
        vol(e) = (V.row(F(e, 1)) - V.row(F(e, 0))).norm();
        break;
      case 3:
        vol(e) = 0.5 * (p3(F(e, 1)) - p3(F(e, 0))).cross(p3(F(e, 2)) - p3(F(e, 0))).norm();
        break;
      default: {
        Eigen::Matrix3d D;
        for (int a = 0; a < 3; ++a) D.row(a) = V.row(F(e, a + 1)) - V.row(F(e, 0));
        vol(e) = D.determinant() / 6.0;
      }
    }
  }
  return vol;
}

}  // namespace fastcd
