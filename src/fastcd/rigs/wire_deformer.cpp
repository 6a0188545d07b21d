#include "fastcd/rigs/wire_deformer.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/common/layout.hpp"

namespace fastcd {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// Hermite weights of the release's Catmull-Rom samples: positions = basis * P and
/// derivatives d/dt = derivative * P (both #S x #H).
void catmull_rom_basis(Index nh, Index n, RowSparse& basis, RowSparse& derivative) {
  const Index ns = (nh - 1) * n + 1;
  std::vector<Triplet> tp, td;
  tp.reserve(static_cast<std::size_t>(ns) * 6);
  td.reserve(static_cast<std::size_t>(ns) * 6);
  // Adds weight * M_k (the scaled tangent at handle k) to row s of `out`.
  const auto add_tangent = [nh](std::vector<Triplet>& out, Index s, Index k, double weight) {
    if (k == 0) {
      out.emplace_back(s, 1, weight);
      out.emplace_back(s, 0, -weight);
    } else if (k == nh - 1) {
      out.emplace_back(s, nh - 1, weight);
      out.emplace_back(s, nh - 2, -weight);
    } else {
      out.emplace_back(s, k + 1, 0.5 * weight);
      out.emplace_back(s, k - 1, -0.5 * weight);
    }
  };
  for (Index s = 0; s < ns; ++s) {
    const Index k = std::min(s / n, nh - 2);
    const double t = static_cast<double>(s - k * n) / static_cast<double>(n);
    const double t2 = t * t, t3 = t2 * t;
    tp.emplace_back(s, k, 2 * t3 - 3 * t2 + 1);
    tp.emplace_back(s, k + 1, -2 * t3 + 3 * t2);
    add_tangent(tp, s, k, t3 - 2 * t2 + t);
    add_tangent(tp, s, k + 1, t3 - t2);
    td.emplace_back(s, k, 6 * t2 - 6 * t);
    td.emplace_back(s, k + 1, -6 * t2 + 6 * t);
    add_tangent(td, s, k, 3 * t2 - 4 * t + 1);
    add_tangent(td, s, k + 1, 3 * t2 - 2 * t);
  }
  basis.resize(ns, nh);
  derivative.resize(ns, nh);
  basis.setFromTriplets(tp.begin(), tp.end());
  derivative.setFromTriplets(td.begin(), td.end());
}

/// Segment and local parameter of sample s, for messages.
std::string describe_sample(Index s, Index n, Index nh) {
  const Index k = std::min(s / n, nh - 2);
  return detail::concat("sample ", s, " (segment ", k, ", t = ", s - k * n, "/", n, ")");
}

/// Samples, unit tangents and normals of the curve through the #H x 2 handles P; throws if a
/// tangent vanishes (`what` names the argument to blame).
CatmullRomSamples evaluate(const RowSparse& basis, const RowSparse& derivative, const MatrixXd& P, Index n,
                           const char* what, const char* where) {
  CatmullRomSamples c;
  c.S = basis * P;
  c.T = derivative * P;
  c.N.resize(c.T.rows(), 2);
  for (Index s = 0; s < c.T.rows(); ++s) {
    const double len = c.T.row(s).norm();
    if (!(len > 0))
      throw std::invalid_argument(detail::concat(where, ": ", what, ": the curve's tangent vanishes at ",
                                                 describe_sample(s, n, P.rows()),
                                                 "; do neighbouring handles coincide?"));
    c.T.row(s) /= len;
    c.N(s, 0) = -c.T(s, 1);
    c.N(s, 1) = c.T(s, 0);
  }
  return c;
}

void check_handles(const Eigen::Ref<const MatrixXd>& handles, int samples_per_segment, const char* where) {
  if (handles.cols() != 2 || handles.rows() < 2)
    throw std::invalid_argument(
        detail::concat(where, ": handles must be #H x 2 with #H >= 2, got ", shape_of(handles)));
  if (samples_per_segment < 1)
    throw std::invalid_argument(detail::concat(where, ": samples_per_segment must be >= 1, got ", samples_per_segment));
  check_finite(handles, "handles", where);
}

/// Checks p and returns it as #H x 2 positions.
MatrixXd handle_positions(const WireDeformer& w, const Eigen::Ref<const VectorXd>& p, const char* where) {
  const Index nh = w.rest_handles.rows();
  if (p.size() != 2 * nh)
    throw std::invalid_argument(detail::concat(where, ": p must have #H*2 = ", 2 * nh, " entries (", nh,
                                               " handles, interleaved), got ", p.size()));
  check_finite(p, "p", where);
  return unflatten(p, 2);
}

/// Per sample: position S, derivative U and its length under handle positions P; throws if the
/// tangent vanishes at a sample some vertex uses.
struct Frames {
  MatrixXd S, U;
  VectorXd len;
};

Frames frames(const WireDeformer& w, const MatrixXd& P, const char* where) {
  Frames f;
  f.S = w.basis * P;
  f.U = w.basis_derivative * P;
  f.len = f.U.rowwise().norm();
  for (Index i = 0; i < w.closest.size(); ++i) {
    const Index s = w.closest(i);
    if (!(f.len(s) > 0))
      throw std::invalid_argument(detail::concat(where, ": p: the curve's tangent vanishes at ",
                                                 describe_sample(s, w.samples_per_segment, P.rows()),
                                                 ", used by vertex ", i, "; do neighbouring handles coincide?"));
  }
  return f;
}

}  // namespace

CatmullRomSamples catmull_rom_samples(const Eigen::Ref<const MatrixXd>& handles, int samples_per_segment) {
  const char* where = "catmull_rom_samples";
  check_handles(handles, samples_per_segment, where);
  RowSparse basis, derivative;
  catmull_rom_basis(handles.rows(), samples_per_segment, basis, derivative);
  return evaluate(basis, derivative, MatrixXd(handles), samples_per_segment, "handles", where);
}

WireDeformer wire_deformer_precompute(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& handles,
                                      int samples_per_segment) {
  const char* where = "wire_deformer_precompute";
  if (X.cols() != 2) throw std::invalid_argument(detail::concat(where, ": X must be #V x 2, got ", shape_of(X)));
  check_handles(handles, samples_per_segment, where);
  check_finite(X, "X", where);
  WireDeformer w;
  w.samples_per_segment = samples_per_segment;
  w.rest_handles = handles;
  catmull_rom_basis(handles.rows(), samples_per_segment, w.basis, w.basis_derivative);
  w.rest = evaluate(w.basis, w.basis_derivative, w.rest_handles, samples_per_segment, "handles", where);
  const Index nv = X.rows();
  w.closest.resize(nv);
  w.local.resize(nv, 2);
  for (Index i = 0; i < nv; ++i) {
    Index best = 0;
    (w.rest.S.rowwise() - X.row(i)).rowwise().squaredNorm().minCoeff(&best);  // first minimum
    w.closest(i) = static_cast<int>(best);
    const Eigen::RowVector2d d = X.row(i) - w.rest.S.row(best);
    w.local(i, 0) = d.dot(w.rest.T.row(best));
    w.local(i, 1) = d.dot(w.rest.N.row(best));
  }
  return w;
}

void wire_deform(const WireDeformer& w, const Eigen::Ref<const VectorXd>& p, Eigen::Ref<VectorXd> x) {
  const char* where = "wire_deform";
  const MatrixXd P = handle_positions(w, p, where);
  const Index nv = w.closest.size();
  if (x.size() != 2 * nv)
    throw std::invalid_argument(detail::concat(where, ": x must have #V*2 = ", 2 * nv, " entries, got ", x.size()));
  const Frames f = frames(w, P, where);
  for (Index i = 0; i < nv; ++i) {
    const Index s = w.closest(i);
    const Eigen::Vector2d t = f.U.row(s).transpose() / f.len(s);
    const Eigen::Vector2d n(-t.y(), t.x());
    x.segment<2>(2 * i) = f.S.row(s).transpose() + w.local(i, 0) * t + w.local(i, 1) * n;
  }
}

SparseMatrix wire_jacobian(const WireDeformer& w, const Eigen::Ref<const VectorXd>& p) {
  const char* where = "wire_jacobian";
  const MatrixXd P = handle_positions(w, p, where);
  const Frames f = frames(w, P, where);
  const Index nv = w.closest.size(), nh = P.rows();
  std::vector<Triplet> trip;
  trip.reserve(static_cast<std::size_t>(nv) * 16);
  for (Index i = 0; i < nv; ++i) {
    const Index s = w.closest(i);
    const Eigen::Vector2d t = f.U.row(s).transpose() / f.len(s);
    const Eigen::Vector2d n(-t.y(), t.x());
    // dx/du = (a n - b t) n^T / |u|
    const Eigen::Matrix2d G = (w.local(i, 0) * n - w.local(i, 1) * t) * n.transpose() / f.len(s);
    // Both rows share one sparsity pattern (the <= 4 handles of the sample's segment).
    RowSparse::InnerIterator ic(w.basis, s), id(w.basis_derivative, s);
    for (; ic && id; ++ic, ++id) {
      assert(ic.col() == id.col() && "position and derivative weights share their pattern");
      const Index k = ic.col();
      const Eigen::Matrix2d block = ic.value() * Eigen::Matrix2d::Identity() + id.value() * G;
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
          if (block(r, c) != 0) trip.emplace_back(2 * i + r, 2 * k + c, block(r, c));
    }
  }
  SparseMatrix J(2 * nv, 2 * nh);
  J.setFromTriplets(trip.begin(), trip.end());
  return J;
}

}  // namespace fastcd
