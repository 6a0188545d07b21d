#include "fastcd/materials/arap_elements.hpp"

#include <algorithm>
#include <limits>

#include "fastcd/common/check.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/geometry/simplex.hpp"
#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

namespace {

// A parallel region costs microseconds even when it runs serially: only thread loops long enough
// to pay for it (and only when fine_threads() allows more than one).
constexpr Index kParallelElements = 4096;

/// F of elements [e0, e1).
template <int dim>
void deformation(const ArapElements& el, const double* __restrict x, double* __restrict F, Index e0, Index e1) {
  constexpr int nv = dim + 1, d2 = dim * dim;
  const int* __restrict vert = el.vertices.data();
  const double* __restrict grads = el.grads.data();
  for (Index e = e0; e < e1; ++e) {
    double f[d2] = {};
    for (int a = 0; a < nv; ++a) {
      const double* xa = x + static_cast<Index>(vert[e * nv + a]) * dim;
      const double* g = grads + (e * nv + a) * dim;
      for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c) f[r * dim + c] += xa[r] * g[c];
    }
    for (int k = 0; k < d2; ++k) F[e * d2 + k] = f[k];
  }
}

/// b = b0 + G^T AMue R for vertices [v0, v1).
template <int dim>
void elastic_rhs(const ArapElements& el, const double* __restrict R, const double* b0, double* b, Index v0, Index v1) {
  constexpr int d2 = dim * dim;
  const int* __restrict ptr = el.incidence_ptr.data();
  const int* __restrict elem = el.incidence_elem.data();
  const double* __restrict wg = el.incidence_wg.data();
  for (Index v = v0; v < v1; ++v) {
    double acc[dim];
    for (int r = 0; r < dim; ++r) acc[r] = b0[v * dim + r];
    for (int p = ptr[v]; p < ptr[v + 1]; ++p) {
      const double* Re = R + static_cast<Index>(elem[p]) * d2;
      const double* g = wg + static_cast<Index>(p) * dim;
      for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c) acc[r] += Re[r * dim + c] * g[c];
    }
    for (int r = 0; r < dim; ++r) b[v * dim + r] = acc[r];
  }
}

/// Batches [k0, k1) of the fused 3D local step: F = G x in lanes, the 8 rotations, and each
/// element's vertex contributions mu vol_e R_e grad(phi_a) into work ([k][a][lane][r]: the
/// three components of one contribution side by side, so the gather reads one cache line for
/// each, not three).
void rotated_batches(const ArapElements& el, const double* __restrict x, double* __restrict work, Index k0, Index k1) {
  using simd::load8;
  using simd::store8;
  using simd::Vec8;
  // Batch k's F = G x, lane-wise (F(r, c) in register 3r + c), into Fk.
  const auto deformation_batch = [&](Index k, double* __restrict Fk) {
    const int* __restrict vert = el.lane_vertices.data() + k * 32;
    const double* __restrict g = el.lane_grads.data() + k * 96;
    Vec8 f[9];
    for (Vec8& v : f) v = simd::splat8(0.0);
    for (int a = 0; a < 4; ++a) {  // the order of deformation<3>: identical F
      Vec8 xa[3];
      for (int l = 0; l < 8; ++l) {
        const double* xv = x + static_cast<Index>(vert[a * 8 + l]) * 3;
        xa[0][l] = xv[0];
        xa[1][l] = xv[1];
        xa[2][l] = xv[2];
      }
      for (int c = 0; c < 3; ++c) {
        const Vec8 gc = load8(g + (a * 3 + c) * 8);
        for (int r = 0; r < 3; ++r) f[r * 3 + c] += xa[r] * gc;
      }
    }
    for (int q = 0; q < 9; ++q) store8(Fk + q * 8, f[q]);
  };
  // Batch k's contributions mu vol_e R_e grad(phi_a) from its rotations Rk.
  const auto contributions = [&](Index k, const double* __restrict Rk) {
    const double* __restrict g = el.lane_grads.data() + k * 96;
    Vec8 r[9];
    for (int q = 0; q < 9; ++q) r[q] = load8(Rk + q * 8);
    const Vec8 mu = load8(el.lane_mu_vol.data() + k * 8);
    double* __restrict out = work + k * 96;
    for (int a = 0; a < 4; ++a) {
      const Vec8 g0 = load8(g + (a * 3) * 8), g1 = load8(g + (a * 3 + 1) * 8), g2 = load8(g + (a * 3 + 2) * 8);
      Vec8 c[3];
      for (int i = 0; i < 3; ++i) c[i] = (r[i * 3] * g0 + r[i * 3 + 1] * g1 + r[i * 3 + 2] * g2) * mu;
      // Lanes x components -> components within lanes: (c0[0] c1[0] c2[0] c0[1] ...), 24 doubles.
      const Vec8 ab0 = __builtin_shufflevector(c[0], c[1], 0, 8, 0, 1, 9, 1, 2, 10);
      const Vec8 ab1 = __builtin_shufflevector(c[0], c[1], 0, 3, 11, 0, 4, 12, 0, 5);
      const Vec8 ab2 = __builtin_shufflevector(c[0], c[1], 13, 0, 6, 14, 0, 7, 15, 0);
      store8(out + a * 24, __builtin_shufflevector(ab0, c[2], 0, 1, 8, 3, 4, 9, 6, 7));
      store8(out + a * 24 + 8, __builtin_shufflevector(ab1, c[2], 10, 1, 2, 11, 4, 5, 12, 7));
      store8(out + a * 24 + 16, __builtin_shufflevector(ab2, c[2], 0, 13, 2, 3, 14, 5, 6, 15));
    }
  };
  const auto lanes = [&](Index k) { return static_cast<int>(std::min<Index>(8, el.num_elements - 8 * k)); };
  alignas(64) double F[2][72], R[2][72];
  Index k = k0;
  for (; k + 1 < k1; k += 2) {  // two batches: their rotations' Newton iterations side by side
    deformation_batch(k, F[0]);
    deformation_batch(k + 1, F[1]);
    detail::closest_rotations_3x3_lanes2(F[0], lanes(k), F[1], lanes(k + 1), R[0], R[1]);
    contributions(k, R[0]);
    contributions(k + 1, R[1]);
  }
  if (k < k1) {
    deformation_batch(k, F[0]);
    detail::closest_rotations_3x3_lanes(F[0], lanes(k), R[0]);
    contributions(k, R[0]);
  }
}

/// b = b0 + the contributions of each vertex's incidences, for vertices [v0, v1).
void gather_contributions(const ArapElements& el, const double* __restrict work, const double* b0, double* b, Index v0,
                          Index v1) {
  const int* __restrict ptr = el.incidence_ptr.data();
  const int* __restrict lane = el.incidence_lane.data();
  for (Index v = v0; v < v1; ++v) {
    double a0 = b0[v * 3], a1 = b0[v * 3 + 1], a2 = b0[v * 3 + 2];
    for (int p = ptr[v]; p < ptr[v + 1]; ++p) {
      const double* c = work + lane[p];
      a0 += c[0];
      a1 += c[1];
      a2 += c[2];
    }
    b[v * 3] = a0;
    b[v * 3 + 1] = a1;
    b[v * 3 + 2] = a2;
  }
}

/// Runs f(begin, end) over [0, n) in chunks: on this thread when `parallel` is false or
/// fine_threads() is 1, else through parallel_for (each index is handled exactly as serially).
template <class Fn>
void for_chunks(Index n, bool parallel, Fn&& f) {
  const int t = parallel ? fine_threads() : 1;
  if (t <= 1) {
    f(Index{0}, n);
    return;
  }
  parallel_for(n, 1024, f, t);
}

}  // namespace

ArapElements arap_elements(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                           const Eigen::Ref<const VectorXd>& mu_vol) {
  check_mesh(X, T, "arap_elements");
  FASTCD_CHECK(mu_vol.size() == T.rows(), "arap_elements: mu_vol has ", mu_vol.size(), " entries, the mesh has ",
               T.rows(), " elements");
  FASTCD_CHECK(mu_vol.allFinite(), "arap_elements: mu_vol has non-finite entries");
  FASTCD_CHECK(T.size() < std::numeric_limits<int>::max(), "arap_elements: ", shape_of(T),
               " elements overflow the int incidence tables");
  return detail::dispatch_dim(X.cols(), "arap_elements", [&]<int dim>() {
    constexpr int nv = dim + 1;
    ArapElements el;
    el.dim = dim;
    el.num_vertices = X.rows();
    el.num_elements = T.rows();
    const auto ne = static_cast<std::size_t>(T.rows());
    el.vertices.resize(ne * nv);
    el.grads.resize(ne * nv * dim);
    el.incidence_ptr.assign(static_cast<std::size_t>(X.rows()) + 1, 0);
    for (Index e = 0; e < T.rows(); ++e) {
      const auto g = detail::shape_gradients<dim>(X, T, e, "arap_elements");
      for (int a = 0; a < nv; ++a) {
        el.vertices[e * nv + a] = T(e, a);
        ++el.incidence_ptr[static_cast<std::size_t>(T(e, a)) + 1];
        for (int c = 0; c < dim; ++c) el.grads[(e * nv + a) * dim + c] = g(a, c);
      }
    }
    for (std::size_t v = 0; v < static_cast<std::size_t>(X.rows()); ++v) el.incidence_ptr[v + 1] += el.incidence_ptr[v];
    const auto ninc = static_cast<std::size_t>(el.incidence_ptr.back());
    el.incidence_elem.resize(ninc);
    el.incidence_wg.resize(ninc * dim);
    std::vector<int> fill(el.incidence_ptr.begin(), el.incidence_ptr.end() - 1);
    for (Index e = 0; e < T.rows(); ++e)  // ascending elements per vertex: a fixed summation order
      for (int a = 0; a < nv; ++a) {
        const auto p = static_cast<std::size_t>(fill[static_cast<std::size_t>(T(e, a))]++);
        el.incidence_elem[p] = static_cast<int>(e);
        for (int c = 0; c < dim; ++c) el.incidence_wg[p * dim + c] = mu_vol(e) * el.grads[(e * nv + a) * dim + c];
      }
    if constexpr (dim == 3) {
      FASTCD_CHECK(el.num_batches() < std::numeric_limits<int>::max() / 96, "arap_elements: ", shape_of(T),
                   " elements overflow the int lane tables");
      const auto nb = static_cast<std::size_t>(el.num_batches());
      el.lane_vertices.assign(nb * 32, 0);
      el.lane_grads.assign(nb * 96, 0.0);
      el.lane_mu_vol.assign(nb * 8, 0.0);
      for (Index e = 0; e < T.rows(); ++e) {
        const auto k = static_cast<std::size_t>(e / 8), l = static_cast<std::size_t>(e % 8);
        el.lane_mu_vol[k * 8 + l] = mu_vol(e);
        for (int a = 0; a < nv; ++a) {
          el.lane_vertices[k * 32 + static_cast<std::size_t>(a) * 8 + l] = T(e, a);
          for (int c = 0; c < 3; ++c)
            el.lane_grads[k * 96 + static_cast<std::size_t>(a * 3 + c) * 8 + l] = el.grads[(e * nv + a) * 3 + c];
        }
      }
      el.incidence_lane.resize(ninc);
      for (std::size_t v = 0; v < fill.size(); ++v) fill[v] = el.incidence_ptr[v];
      for (Index e = 0; e < T.rows(); ++e)
        for (int a = 0; a < nv; ++a)
          el.incidence_lane[static_cast<std::size_t>(fill[static_cast<std::size_t>(T(e, a))]++)] =
              static_cast<int>((e / 8) * 96 + a * 24 + (e % 8) * 3);
    }
    return el;
  });
}

void arap_deformation(const ArapElements& el, const double* x, double* F) {
  for_chunks(el.num_elements, el.num_elements >= kParallelElements, [&](Index e0, Index e1) {
    el.dim == 2 ? deformation<2>(el, x, F, e0, e1) : deformation<3>(el, x, F, e0, e1);
  });
}

void arap_elastic_rhs(const ArapElements& el, const double* R, const double* b0, double* b) {
  for_chunks(el.num_vertices, el.num_elements >= kParallelElements, [&](Index v0, Index v1) {
    el.dim == 2 ? elastic_rhs<2>(el, R, b0, b, v0, v1) : elastic_rhs<3>(el, R, b0, b, v0, v1);
  });
}

void arap_rotated_rhs(const ArapElements& el, const double* x, const double* b0, double* b, double* work) {
  FASTCD_CHECK(el.dim == 3 && !el.lane_vertices.empty(), "arap_rotated_rhs: needs the 3D lane tables, got a ", el.dim,
               "D ArapElements");
  const bool parallel = el.num_elements >= kParallelElements;
  for_chunks(el.num_batches(), parallel, [&](Index k0, Index k1) { rotated_batches(el, x, work, k0, k1); });
  for_chunks(el.num_vertices, parallel, [&](Index v0, Index v1) { gather_contributions(el, work, b0, b, v0, v1); });
}

}  // namespace fastcd
