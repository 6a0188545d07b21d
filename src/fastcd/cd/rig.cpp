#include "fastcd/cd/rig.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"
#include "fastcd/geometry/biharmonic_weights.hpp"
#include "fastcd/geometry/lbs_jacobian.hpp"
#include "fastcd/rigs/cage_coordinates.hpp"
#include "fastcd/rigs/wire_deformer.hpp"
#include "fastcd/subspace/project_into_subspace.hpp"

namespace fastcd {

void check_rig_inputs(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& J, const Eigen::Ref<const VectorXd>& p0,
                      const char* where) {
  const auto check = [where](bool ok, const auto&... what) {
    if (!ok) throw std::invalid_argument(detail::concat(where, ": ", what...));
  };
  check(J.rows() == X.size(), "rig Jacobian J has ", J.rows(), " rows, the mesh has ", X.size(), " DOFs");
  check(p0.size() == J.cols(), "rest pose p0 has ", p0.size(), " entries, J has ", J.cols(), " columns");
  for (Index k = 0; k < J.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(J, k); it; ++it)
      check(std::isfinite(it.value()), "rig Jacobian J(", it.row(), ", ", it.col(), ") is ", it.value());
  check(p0.allFinite(), "rest pose p0 has NaN or Inf entries");
}

VectorXd rig_rest(const SparseMatrix& J, const SparseMatrix& Mv, const Eigen::Ref<const MatrixXd>& X) {
  FASTCD_CHECK(J.rows() == X.size(), "J has ", J.rows(), " rows for ", X.rows(), " vertices in ", X.cols(), "D (",
               X.size(), " DOFs)");
  const VectorXd x = flatten(X);
  try {
    return project_into_subspace(x, J, Mv);
  } catch (const std::runtime_error&) {
    // A redundant rig (dependent columns of J): the minimum-norm least-squares pose, through
    // the pseudo-inverse of J^T M J (eigenvalues below 1e-12 of the largest count as zero).
    FASTCD_CHECK(Mv.rows() == J.rows() && Mv.cols() == J.rows(), "Mv is ", shape_of(Mv), " but J is ", shape_of(J));
    const SparseMatrix MJ = Mv * J;
    const MatrixXd JMJ = MatrixXd(SparseMatrix(J.transpose() * MJ));
    const VectorXd JMx = MJ.transpose() * x;
    const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(JMJ);
    FASTCD_ENSURE(eig.info() == Eigen::Success, "the eigen-decomposition of J^T M J (", shape_of(JMJ), ") failed");
    const VectorXd& lambda = eig.eigenvalues();
    const double cut = 1e-12 * lambda.cwiseAbs().maxCoeff();
    VectorXd c = eig.eigenvectors().transpose() * JMx;
    for (Index k = 0; k < c.size(); ++k) c(k) = lambda(k) > cut ? c(k) / lambda(k) : 0.0;
    return eig.eigenvectors() * c;
  }
}

SparseMatrix Rig::jacobian(const Eigen::Ref<const VectorXd>& p) const { return finite_difference_jacobian(*this, p); }

MatrixXd Rig::handle_frame(const Eigen::Ref<const VectorXd>&, Index) const {
  throw std::invalid_argument("the " + name() +
                              " rig reports no handle frames (its parameters are not handles with a position and "
                              "an orientation)");
}

namespace {

/// The checks every handle_frame shares: k in range, p of the rig's size and finite.
void check_frame_query(const Rig& rig, const Eigen::Ref<const VectorXd>& p, Index k) {
  FASTCD_CHECK(k >= 0 && k < rig.num_handles(), "the ", rig.name(), " rig has ", rig.num_handles(),
               " handles, asked for the frame of handle ", k);
  FASTCD_CHECK(p.size() == rig.num_params(), rig.name(), " rig: p has ", p.size(), " entries, expected ",
               rig.num_params());
  check_finite(p, "p", "handle_frame");
}

}  // namespace

VectorXd Rig::positions(const Eigen::Ref<const VectorXd>& p) const {
  FASTCD_CHECK(p.size() == num_params(), name(), " rig: p has ", p.size(), " entries, expected ", num_params());
  check_finite(p, "p", "Rig::positions");
  VectorXd x(num_vertices() * dim());
  positions(p, x);
  return x;
}

SparseMatrix finite_difference_jacobian(const Rig& rig, const Eigen::Ref<const VectorXd>& p, double eps) {
  FASTCD_CHECK(p.size() == rig.num_params(), "finite_difference_jacobian: p has ", p.size(), " entries, the ",
               rig.name(), " rig has ", rig.num_params(), " parameters");
  FASTCD_CHECK(eps > 0, "finite_difference_jacobian: eps must be > 0, got ", eps);
  const Index n = rig.num_vertices() * rig.dim();
  VectorXd q = p, xp(n), xm(n);
  std::vector<Triplet> trip;
  for (Index k = 0; k < p.size(); ++k) {
    const double e = eps * std::max(1.0, std::abs(p(k)));
    q(k) = p(k) + e;
    rig.positions(q, xp);
    q(k) = p(k) - e;
    rig.positions(q, xm);
    q(k) = p(k);
    const VectorXd col = (xp - xm) / (2.0 * e);
    FASTCD_ENSURE(col.allFinite(), "the ", rig.name(), " rig returned non-finite positions near parameter ", k);
    const double cut = 1e-12 * col.cwiseAbs().maxCoeff();
    for (Index i = 0; i < n; ++i)
      if (std::abs(col(i)) > cut) trip.emplace_back(i, k, col(i));
  }
  SparseMatrix J(n, p.size());
  J.setFromTriplets(trip.begin(), trip.end());
  return J;
}

LinearRig::LinearRig(SparseMatrix J_, VectorXd p0_, Index dim_, std::string name_, RigParams params)
    : J(std::move(J_)), p0(std::move(p0_)), dim_(dim_), name_(std::move(name_)), params_(params) {
  FASTCD_CHECK(dim_ == 2 || dim_ == 3, "rig dimension must be 2 or 3, got ", dim_);
  FASTCD_CHECK(J.rows() % dim_ == 0, "rig Jacobian has ", J.rows(), " rows, not a multiple of dim ", dim_);
  FASTCD_CHECK(p0.size() == J.cols(), "rest pose has ", p0.size(), " entries, J has ", J.cols(), " columns");
  if (params_ == RigParams::AffineHandles)
    FASTCD_CHECK(J.cols() % (dim_ * (dim_ + 1)) == 0, "a rig of affine handles needs ", dim_ * (dim_ + 1),
                 " parameters per handle, J has ", J.cols(), " columns");
  if (params_ == RigParams::HandlePoints)
    FASTCD_CHECK(J.cols() % dim_ == 0, "a rig of handle points needs ", dim_, " parameters per handle, J has ",
                 J.cols(), " columns");
}

Index LinearRig::num_handles() const {
  switch (params_) {
    case RigParams::AffineHandles:
      return J.cols() / (dim_ * (dim_ + 1));
    case RigParams::HandlePoints:
      return J.cols() / dim_;
    case RigParams::Unspecified:
      break;
  }
  return 0;
}

MatrixXd LinearRig::handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const {
  FASTCD_CHECK(params_ != RigParams::HandlePoints, "the ", name_,
               " rig's handles are points (cage vertices): a point has a position but no orientation, so it has "
               "no frame");
  FASTCD_CHECK(params_ == RigParams::AffineHandles, "the ", name_,
               " rig was built from a bare Jacobian, without a parameter layout, so it has no handle frames "
               "(build it with lbs_rig, or give LinearRig RigParams::AffineHandles)");
  check_frame_query(*this, p, k);
  const Index n = dim_ * (dim_ + 1);
  return p.segment(k * n, n).reshaped(dim_, dim_ + 1);
}

void LinearRig::positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const {
  FASTCD_CHECK(p.size() == J.cols() && x.size() == J.rows(), name_, " rig: p has ", p.size(), " entries (expected ",
               J.cols(), "), x has ", x.size(), " (expected ", J.rows(), ")");
  x.noalias() = J * p;
}

LinearRig lbs_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& W, const SparseMatrix& Mv) {
  SparseMatrix J = lbs_jacobian(X, W);
  VectorXd p0 = rig_rest(J, Mv, X);
  return LinearRig(std::move(J), std::move(p0), X.cols(), "lbs", RigParams::AffineHandles);
}

LinearRig affine_handle_rig(const Eigen::Ref<const MatrixXd>& X, const SparseMatrix& Mv) {
  LinearRig r = lbs_rig(X, MatrixXd::Ones(X.rows(), 1), Mv);
  return LinearRig(r.J, r.p0, X.cols(), "affine handle", RigParams::AffineHandles);
}

LinearRig point_handle_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                           const std::vector<Index>& handle_vertices, const SparseMatrix& Mv) {
  FASTCD_CHECK(!handle_vertices.empty(), "point_handle_rig needs at least one handle vertex");
  std::vector<std::vector<Index>> pins;
  for (std::size_t h = 0; h < handle_vertices.size(); ++h) {
    const Index v = handle_vertices[h];
    FASTCD_CHECK(v >= 0 && v < X.rows(), "handle ", h, " is vertex ", v, ", outside [0, ", X.rows(), ")");
    for (std::size_t g = 0; g < h; ++g)
      FASTCD_CHECK(handle_vertices[g] != v, "handles ", g, " and ", h, " are the same vertex ", v);
    pins.push_back({v});
  }
  LinearRig r = lbs_rig(X, biharmonic_weights(X, T, pins), Mv);
  return LinearRig(r.J, r.p0, X.cols(), "lbs (point handles)", RigParams::AffineHandles);
}

std::vector<Index> extremity_vertices(const Eigen::Ref<const MatrixXd>& X) {
  std::vector<Index> out;
  for (Index k = 0; k < X.cols(); ++k) {
    Index lo = 0, hi = 0;
    X.col(k).minCoeff(&lo);
    X.col(k).maxCoeff(&hi);
    for (Index v : {lo, hi})
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

LinearRig cage_rig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& cage_V,
                   const Eigen::Ref<const MatrixXi>& cage_F, CageCoordinates kind, int harmonic_resolution) {
  const Index d = X.cols(), c = cage_V.rows();
  MatrixXd Wc = kind == CageCoordinates::MeanValue ? mean_value_coordinates(X, cage_V, cage_F)
                                                   : harmonic_coordinates(X, cage_V, cage_F, harmonic_resolution);
  if (kind == CageCoordinates::Harmonic) {
    // Least-norm row corrections: [cage_V^T; 1^T] dw = [x_i - cage_V^T w_i; 0].
    MatrixXd A(d + 1, c);
    A.topRows(d) = cage_V.transpose();
    A.row(d).setOnes();
    const Eigen::LDLT<MatrixXd> AAt(A * A.transpose());
    FASTCD_CHECK(AAt.info() == Eigen::Success && AAt.rcond() > 1e-12,
                 "cage_rig: the cage's vertices are degenerate "
                 "(they span no ",
                 d, "D volume)");
    for (Index i = 0; i < X.rows(); ++i) {
      VectorXd r(d + 1);
      r.head(d) = X.row(i).transpose() - cage_V.transpose() * Wc.row(i).transpose();
      r(d) = 1.0 - Wc.row(i).sum();
      Wc.row(i) += (A.transpose() * AAt.solve(r)).transpose();
    }
  }
  std::vector<Triplet> trip;
  for (Index i = 0; i < X.rows(); ++i)
    for (Index j = 0; j < c; ++j)
      if (Wc(i, j) != 0.0)
        for (Index k = 0; k < d; ++k) trip.emplace_back(i * d + k, j * d + k, Wc(i, j));
  SparseMatrix J(X.rows() * d, c * d);
  J.setFromTriplets(trip.begin(), trip.end());
  return LinearRig(std::move(J), flatten(cage_V), d,
                   kind == CageCoordinates::MeanValue ? "cage (mean value)" : "cage (harmonic)",
                   RigParams::HandlePoints);
}

struct WireRig::Impl {
  WireDeformer w;
};

WireRig::WireRig(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& handles,
                 int samples_per_segment)
    : impl_(std::make_unique<Impl>(Impl{wire_deformer_precompute(X, handles, samples_per_segment)})),
      n_(X.rows()),
      p0_(flatten(handles)) {}

WireRig::~WireRig() = default;

void WireRig::positions(const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) const {
  wire_deform(impl_->w, p, x);
}

SparseMatrix WireRig::jacobian(const Eigen::Ref<const VectorXd>& p) const { return wire_jacobian(impl_->w, p); }

MatrixXd WireRig::handle_frame(const Eigen::Ref<const VectorXd>& p, Index k) const {
  check_frame_query(*this, p, k);
  const WireDeformer& w = impl_->w;
  const Index s = k * w.samples_per_segment;  // handle k's curve sample (t = 0 of segment k, or the last)
  const MatrixXd P = p.reshaped(2, p.size() / 2).transpose();
  const Eigen::Vector2d pos = (w.basis.row(s) * P).transpose(), u = (w.basis_derivative.row(s) * P).transpose();
  const double len = u.norm();
  FASTCD_CHECK(len > 0 && std::isfinite(len), "wire rig: the curve's tangent vanishes at handle ", k,
               " (coincident handles), so its frame is undefined");
  const Eigen::Vector2d t = u / len, n(-t(1), t(0));
  Eigen::Matrix2d posed, rest;
  posed << t, n;
  rest << w.rest.T.row(s).transpose(), w.rest.N.row(s).transpose();
  const Eigen::Matrix2d R = posed * rest.transpose();
  MatrixXd frame(2, 3);
  frame << R, pos - R * w.rest.S.row(s).transpose();
  return frame;
}

VectorXd metronome_pose(const Eigen::Ref<const VectorXd>& p0, Index dim, int i, double amp, double period) {
  FASTCD_CHECK(p0.size() >= dim && dim >= 1, "pose has ", p0.size(), " entries, dim is ", dim);
  FASTCD_CHECK(period > 0, "period must be > 0, got ", period);
  VectorXd p = p0;
  p(p.size() - dim) = amp * std::sin(2.0 * std::numbers::pi * i / period);
  return p;
}

}  // namespace fastcd
