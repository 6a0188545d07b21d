#include "fastcd/cd/skeleton.hpp"

#include <unordered_map>
#include <vector>

#include "fastcd/common/check.hpp"

namespace fastcd {

VectorXi bone_parents(const Eigen::Ref<const MatrixXi>& BE) {
  FASTCD_CHECK(BE.cols() == 2, "BE must be #B x 2, got ", shape_of(BE));
  const Index nb = BE.rows();
  // The bone ending at each joint (-2 where two bones end there): O(#B), so a skeleton of
  // tens of thousands of bones loads at once.
  std::unordered_map<int, Index> ender;
  ender.reserve(static_cast<std::size_t>(nb));
  for (Index q = 0; q < nb; ++q) {
    auto [it, fresh] = ender.emplace(BE(q, 1), q);
    if (!fresh) it->second = -2 - it->second;  // remember one of them for the message
  }
  VectorXi P = VectorXi::Constant(nb, -1);
  for (Index b = 0; b < nb; ++b) {
    const auto it = ender.find(BE(b, 0));
    if (it == ender.end() || it->second == b) continue;
    FASTCD_CHECK(it->second >= 0, "bone ", b, " starts at joint ", BE(b, 0), ", where two bones end (bone ",
                 -2 - it->second, " and another): it has two parents");
    P(b) = static_cast<int>(it->second);
  }
  return P;
}

namespace detail {

std::vector<Index> parents_first_order(const Eigen::Ref<const VectorXi>& P) {
  const Index nb = P.size();
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(nb));
  std::vector<char> state(static_cast<std::size_t>(nb), 0);  // 0 new, 1 on the current chain, 2 placed
  std::vector<Index> chain;
  for (Index b = 0; b < nb; ++b) {
    // Walk up from b to the first placed bone (or a root), without recursion: a chain of any
    // length takes no stack.
    for (Index q = b; q >= 0 && state[static_cast<std::size_t>(q)] != 2; q = P(q)) {
      FASTCD_CHECK(P(q) < nb, "bone ", q, " has parent ", P(q), ", out of range for ", nb, " bones");
      FASTCD_CHECK(state[static_cast<std::size_t>(q)] != 1, "the skeleton has a cycle through bone ", q);
      state[static_cast<std::size_t>(q)] = 1;
      chain.push_back(q);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[static_cast<std::size_t>(*it)] = 2;
      order.push_back(*it);
    }
    chain.clear();
  }
  return order;
}

}  // namespace detail

VectorXd pack_affine_pose(const std::vector<MatrixXd>& A) {
  FASTCD_CHECK(!A.empty(), "no handles");
  const Index d = A[0].rows();
  VectorXd p(static_cast<Index>(A.size()) * d * (d + 1));
  for (std::size_t b = 0; b < A.size(); ++b) {
    FASTCD_CHECK(A[b].rows() == d && A[b].cols() == d + 1, "handle ", b, " transform is ", shape_of(A[b]),
                 ", expected ", d, " x ", d + 1);
    p.segment(static_cast<Index>(b) * d * (d + 1), d * (d + 1)) = A[b].reshaped();
  }
  return p;
}

VectorXd identity_pose(Index handles, Index d) {
  MatrixXd I = MatrixXd::Zero(d, d + 1);
  I.leftCols(d).setIdentity();
  return pack_affine_pose(std::vector<MatrixXd>(static_cast<std::size_t>(handles), I));
}

Eigen::Matrix<double, 2, 3> rotation_about_2d(double theta, const Eigen::Vector2d& c) {
  const Eigen::Matrix2d R = Eigen::Rotation2Dd(theta).toRotationMatrix();
  Eigen::Matrix<double, 2, 3> T;
  T << R, c - R * c;
  return T;
}

std::vector<MatrixXd> forward_kinematics_2d(const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& BE,
                                            const Eigen::Ref<const VectorXi>& P,
                                            const Eigen::Ref<const VectorXd>& theta_deg,
                                            const Eigen::Ref<const MatrixXd>& root_offset) {
  const Index nb = BE.rows();
  FASTCD_CHECK(C.cols() == 2, "C must be #joints x 2, got ", shape_of(C));
  FASTCD_CHECK(P.size() == nb && theta_deg.size() == nb && root_offset.rows() == nb && root_offset.cols() == 2,
               "per-bone inputs must have ", nb, " rows");
  std::vector<Eigen::Matrix3d> T(static_cast<std::size_t>(nb));
  const double d2r = EIGEN_PI / 180.0;
  for (const Index b : detail::parents_first_order(P)) {
    Eigen::Matrix3d local = Eigen::Matrix3d::Identity();
    local.topRows<2>() = rotation_about_2d(theta_deg(b) * d2r, C.row(BE(b, 0)).transpose());
    T[b] = P(b) < 0 ? local : Eigen::Matrix3d(T[P(b)] * local);
  }
  std::vector<MatrixXd> out(static_cast<std::size_t>(nb));
  for (Index b = 0; b < nb; ++b) {
    out[b] = T[b].topRows<2>();
    if (P(b) < 0) out[b].col(2) += root_offset.row(b).transpose();
  }
  return out;
}

std::vector<MatrixXd> forward_kinematics_3d(const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& BE,
                                            const Eigen::Ref<const VectorXi>& P,
                                            const std::vector<Eigen::Quaterniond>& dQ,
                                            const std::vector<Eigen::Vector3d>& dT) {
  const Index nb = BE.rows();
  FASTCD_CHECK(C.cols() == 3, "C must be #joints x 3, got ", shape_of(C));
  FASTCD_CHECK(P.size() == nb && static_cast<Index>(dQ.size()) == nb && static_cast<Index>(dT.size()) == nb,
               "per-bone inputs must have ", nb, " entries");
  std::vector<Eigen::Quaterniond> Q(static_cast<std::size_t>(nb));
  std::vector<Eigen::Vector3d> t(static_cast<std::size_t>(nb));
  for (const Index b : detail::parents_first_order(P)) {
    const Eigen::Vector3d r = C.row(BE(b, 0)).transpose();
    if (P(b) < 0) {
      Q[b] = dQ[b];
      t[b] = r - (dQ[b] * r) + dT[b];
    } else {
      const Index p = P(b);
      Q[b] = Q[p] * dQ[b];
      t[b] = t[p] - (Q[b] * r) + Q[p] * (r + dT[b]);
    }
  }
  std::vector<MatrixXd> out(static_cast<std::size_t>(nb));
  for (Index b = 0; b < nb; ++b) {
    out[b].resize(3, 4);
    out[b] << Q[b].toRotationMatrix(), t[b];
  }
  return out;
}

Eigen::Quaterniond euler_about_axes(const Eigen::Vector3d& e, const Eigen::Matrix3d& axes) {
  return Eigen::Quaterniond(Eigen::AngleAxisd(e(2), axes.col(2)) * Eigen::AngleAxisd(e(1), axes.col(1)) *
                            Eigen::AngleAxisd(e(0), axes.col(0)));
}

MatrixXd normalize_affine(const Eigen::Ref<const MatrixXd>& At, const Eigen::Ref<const VectorXd>& c, double s) {
  const Index d = At.rows();
  FASTCD_CHECK(At.cols() == d + 1 && c.size() == d && s > 0, "bad affine/normalisation shapes");
  MatrixXd out = At;
  out.col(d) = (At.leftCols(d) * c + At.col(d) - c) / s;
  return out;
}

}  // namespace fastcd
