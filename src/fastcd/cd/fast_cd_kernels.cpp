// The fast solver's step kernels: tutorial 23's ReducedCD iteration in its two forms (folded
// for small systems, structured in tiles of 8 clusters otherwise), each in double and (the
// structured one) mixed precision, for 2D and 3D (template <int dim>), and the one global step
// they share, where a GlobalStepHook adds its correction. Also the skinning-form lift's kernel.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "fastcd/cd/fast_cd_impl.hpp"
#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/solvers/polar_svd.hpp"

namespace fastcd {

namespace {

/// Local step on the iteration's coordinates: 2D (x, y) -> (cos, sin); 3D F -> R.
template <int dim>
void local_rotations(const VectorXd& F, VectorXd& r) {
  if constexpr (dim == 2) {
    const Index c = F.size() / 2;
    for (Index k = 0; k < c; ++k) {
      const double x = F(2 * k), y = F(2 * k + 1), n2 = x * x + y * y;
      if (n2 > 0) {
        const double inv = 1.0 / std::sqrt(n2);
        r(2 * k) = x * inv;
        r(2 * k + 1) = y * inv;
      } else {
        r(2 * k) = 1.0;
        r(2 * k + 1) = 0.0;
      }
    }
  } else {
    detail::polar_rotations_unchecked<3>(F.data(), F.size() / 9, r.data());
  }
}

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// C = C0 + A B for a column-major M x K matrix A and a K x N matrix B (N = 2 or 3), B and
/// C addressed through strides: B(k, i) = B[k*bk + i*bi], C(r, i) = C[r*cr + i*ci]. A thin
/// product like this is where a general GEMM loses most of its time packing A; here A (already
/// laid out column by column) is streamed once, RB rows at a time, with N*RB accumulators kept
/// in registers.
template <int N, int RB>
Index thin_product_blocks(const double* A, Index M, Index K, const double* B, Index bk, Index bi, const double* C0,
                          double* C, Index cr, Index ci, Index r0) {
  for (; r0 + RB <= M; r0 += RB) {
    double acc[N][RB] = {};
    for (Index k = 0; k < K; ++k) {
      const double* a = A + k * M + r0;
      for (int i = 0; i < N; ++i) {
        const double b = B[k * bk + i * bi];
#pragma omp simd
        for (int t = 0; t < RB; ++t) acc[i][t] += a[t] * b;
      }
    }
    for (int i = 0; i < N; ++i)
      for (int t = 0; t < RB; ++t) C[(r0 + t) * cr + i * ci] = C0[(r0 + t) * cr + i * ci] + acc[i][t];
  }
  return r0;
}

template <int N>
void thin_product(const double* A, Index M, Index K, const double* B, Index bk, Index bi, const double* C0, double* C,
                  Index cr, Index ci) {
  // 32-row blocks (3 x 4 AVX-512 accumulators), then 8-row blocks, then single rows.
  Index r0 = thin_product_blocks<N, 32>(A, M, K, B, bk, bi, C0, C, cr, ci, 0);
  r0 = thin_product_blocks<N, 8>(A, M, K, B, bk, bi, C0, C, cr, ci, r0);
  for (Index r = r0; r < M; ++r) {
    double acc[N] = {};
    for (Index k = 0; k < K; ++k)
      for (int i = 0; i < N; ++i) acc[i] += A[k * M + r] * B[k * bk + i * bi];
    for (int i = 0; i < N; ++i) C[r * cr + i * ci] = C0[r * cr + i * ci] + acc[i];
  }
}

using simd::load8;
using simd::pin;
using simd::splat8;
using simd::store8;
using simd::Vec8;

/// Column k of a tile (8*dim rows) into dim registers, kept there: the compiler would otherwise
/// fold each load into every one of the dim FMAs that use it, and the loads would set the pace.
template <int dim>
void load_tile_column(const double* Pt, Index k, Vec8 (&a)[dim]) {
  for (int b = 0; b < dim; ++b) {
    a[b] = load8(Pt + k * 8 * dim + b * 8);
    pin(a[b]);
  }
}

/// One tile's F = P_t V^T + F_J: Fb(r, i) at Fb[i*rt + r] (rt = 8*dim) from the column-major
/// rt x mt tile Pt, V(k, i) at V[k*dim + i] and F_J(r, i) at FJ[i*fj_col + r].
template <int dim>
void tile_forward(const double* __restrict Pt, Index mt, const double* __restrict V, const double* __restrict FJ,
                  Index fj_col, double* __restrict Fb) {
  constexpr int rt = 8 * dim;
  Vec8 acc[dim][dim];  // acc[i][b]: rows b*8.. of column i
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) acc[i][b] = load8(FJ + i * fj_col + b * 8);
  for (Index k = 0; k < mt; ++k) {
    Vec8 a[dim];
    load_tile_column<dim>(Pt, k, a);
    for (int i = 0; i < dim; ++i) {
      const Vec8 v = splat8(V[k * dim + i]);
      for (int b = 0; b < dim; ++b) acc[i][b] += a[b] * v;
    }
  }
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) store8(Fb + i * rt + b * 8, acc[i][b]);
}

// Single precision (Precision::Mixed): 16 floats per AVX-512 register, twice the lanes of a
// double one, so half the FMA instructions.
using Vec16f = float __attribute__((vector_size(64)));
using Vec8f = float __attribute__((vector_size(32)));

/// One 512-bit register of S.
template <class S>
struct Reg;
template <>
struct Reg<double> {
  using type = Vec8;
};
template <>
struct Reg<float> {
  using type = Vec16f;
};

/// x in every lane. (Not Vec{} + x: adding +0 is not an identity for -0, so the compiler keeps
/// a scalar add in front of every broadcast.)
inline Vec8 splat(double x) { return splat8(x); }
inline Vec16f splat(float x) { return Vec16f{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }
inline Vec8f splat_half(float x) { return Vec8f{x, x, x, x, x, x, x, x}; }

/// V(i, k) = C0(i, k) + sum_r P(r, k) R(r, i) for columns k0 .. k0 + L*NB of Prow (P's nrp
/// rows, each contiguous, ld entries apart; L = 8 doubles or 16 floats per 512-bit register),
/// all dim*NB sums held in registers across the whole pass; R as tile_rotations writes it, tile
/// after tile, in P's scalar type. (dim = 3, NB = 8: 24 accumulators.) Sums in S (single
/// precision for Precision::Mixed), added to C0 in double.
template <class S, int dim, int NB>
void rows_block(const S* __restrict Prow, Index ld, Index mt, Index nrp, const S* __restrict R,
                const double* __restrict C0, double* __restrict V, Index k0) {
  using Vs = typename Reg<S>::type;
  constexpr int L = 64 / sizeof(S);
  constexpr Index rt = 8 * dim;
  Vs acc[dim][NB];
  for (auto& a : acc)
    for (Vs& x : a) x = Vs{};
  for (Index t = 0; t < nrp / rt; ++t)
    for (Index rr = 0; rr < rt; ++rr) {
      const S* p = Prow + (t * rt + rr) * ld + k0;
      const S* Rt = R + t * rt * dim + rr;
      Vs rb[dim];
      for (int i = 0; i < dim; ++i) rb[i] = splat(Rt[i * rt]);
      for (int b = 0; b < NB; ++b) {
        const Vs a = simd::load<Vs>(p + L * b);
        for (int i = 0; i < dim; ++i) acc[i][b] += a * rb[i];
      }
    }
  for (int b = 0; b < NB; ++b)
    for (int l = 0; l < L; ++l) {
      const Index k = k0 + L * b + l;
      if (k >= mt) return;
      for (int i = 0; i < dim; ++i) V[k * dim + i] = C0[k * dim + i] + static_cast<double>(acc[i][b][l]);
    }
}

/// V = C0 + (P^T R)^T over all columns of Prow (ld a multiple of L), in passes of up to 8
/// registers of columns.
template <class S, int dim>
void rows_transpose_product(const S* Prow, Index ld, Index mt, Index nrp, const S* R, const double* C0, double* V) {
  constexpr Index L = 64 / sizeof(S);
  Index k0 = 0;
  for (; k0 + 8 * L <= ld; k0 += 8 * L) rows_block<S, dim, 8>(Prow, ld, mt, nrp, R, C0, V, k0);
  if (k0 + 4 * L <= ld) rows_block<S, dim, 4>(Prow, ld, mt, nrp, R, C0, V, k0), k0 += 4 * L;
  if (k0 + 2 * L <= ld) rows_block<S, dim, 2>(Prow, ld, mt, nrp, R, C0, V, k0), k0 += 2 * L;
  if (k0 + L <= ld) rows_block<S, dim, 1>(Prow, ld, mt, nrp, R, C0, V, k0);
}

// ---- Precision::Mixed: F in single precision.

template <class V>
V splat_v(float x) {
  if constexpr (std::is_same_v<V, Vec16f>)
    return splat(x);
  else
    return splat_half(x);
}

/// F of the tile pair starting at Pu (layout of Impl::Pf), in single precision: the tiles'
/// P V^T (Vf: V(k, i) at Vf[k*dim + i]) plus their F_J rows (double, as in tile_forward) into
/// Fb0 and Fb1 (tile_forward's layout). With L = 8 only the pair's first tile (the last, odd
/// tile) is computed.
template <int dim, int L>
void tile_pair_forward(const float* __restrict Pu, Index mt, const float* __restrict Vf, const double* __restrict FJ0,
                       Index fj_col, double* __restrict Fb0, double* __restrict Fb1) {
  using V = std::conditional_t<L == 16, Vec16f, Vec8f>;
  constexpr int rt = 8 * dim;
  V acc[dim][dim];
  for (auto& a : acc)
    for (V& x : a) x = V{};
  for (Index k = 0; k < mt; ++k) {
    V a[dim];
    for (int b = 0; b < dim; ++b) {
      a[b] = simd::load<V>(Pu + (k * dim + b) * 16);
      simd::pin(a[b]);
    }
    for (int i = 0; i < dim; ++i) {
      const V v = splat_v<V>(Vf[k * dim + i]);
      for (int b = 0; b < dim; ++b) acc[i][b] += a[b] * v;
    }
  }
  for (int i = 0; i < dim; ++i)
    for (int b = 0; b < dim; ++b) {
      const double* fj = FJ0 + i * fj_col + b * 8;
      if constexpr (L == 16) {
        const Vec8f lo = __builtin_shufflevector(acc[i][b], acc[i][b], 0, 1, 2, 3, 4, 5, 6, 7);
        const Vec8f hi = __builtin_shufflevector(acc[i][b], acc[i][b], 8, 9, 10, 11, 12, 13, 14, 15);
        store8(Fb0 + i * rt + b * 8, load8(fj) + __builtin_convertvector(lo, Vec8));
        store8(Fb1 + i * rt + b * 8, load8(fj + rt) + __builtin_convertvector(hi, Vec8));
      } else {
        store8(Fb0 + i * rt + b * 8, load8(fj) + __builtin_convertvector(acc[i][b], Vec8));
      }
    }
}

/// Closest rotations of a tile's first `count` clusters, F_c(i, j) at Fb[(i*dim + j)*8 + c]
/// (lane c of SIMD register i*dim + j).
template <int dim>
void tile_rotations(const double* Fb, Index count, double* Rb) {
  if constexpr (dim == 3) {
    detail::closest_rotations_3x3_lanes(Fb, static_cast<int>(count), Rb);
  } else {
    for (Index c = 0; c < count; ++c) {
      double f[dim * dim], r[dim * dim];
      for (int k = 0; k < dim * dim; ++k) f[k] = Fb[k * 8 + c];
      detail::closest_rotation<dim>(f, r);
      for (int k = 0; k < dim * dim; ++k) Rb[k * 8 + c] = r[k];
    }
  }
}

/// tile_rotations of two tiles at once (3D: their Newton iterations interleaved).
template <int dim>
void tile_pair_rotations(const double* Fb0, Index count0, const double* Fb1, Index count1, double* Rb0, double* Rb1) {
  if constexpr (dim == 3) {
    detail::closest_rotations_3x3_lanes2(Fb0, static_cast<int>(count0), Fb1, static_cast<int>(count1), Rb0, Rb1);
  } else {
    tile_rotations<dim>(Fb0, count0, Rb0);
    tile_rotations<dim>(Fb1, count1, Rb1);
  }
}

/// The global step both iteration forms share, and the one place a GlobalStepHook runs. Each
/// form solves the global step in its own coordinates (folded: z = z0 + Kf r; structured: V =
/// Z0 Lh + (P^T R)^T, z = V Lh^{-1}); with a hook it hands the result z_free to `correct`, which
/// runs the hook and, when the hook added a force f, makes z = z_free + Hr^{-1} f and keeps the
/// correction dz = Hr^{-1} f. The form then carries dz into the coordinates it iterates on, exactly,
/// since both are linear in z: the folded F = Gf z + GJf p_next gains Gf dz, the structured V =
/// Z Lh gains dZ Lh. (So the folded form never forms z per iteration without a hook, and with
/// one it forms z once per iteration, for the hook to read.)
class GlobalStep final : public GlobalStepContext {
 public:
  GlobalStep(const FastCD::Impl& sys, FastCD::Workspace& ws) : sys_(sys), ws_(ws) {}
  bool hooked() const { return ws_.hook != nullptr; }
  /// Runs the hook on iteration `iteration` (z_iter: the iterate the local step used; z: the
  /// global step's result). True when it added a force: z is corrected and correction() is dz.
  bool correct(int iteration, const VectorXd& z_iter, Eigen::Ref<VectorXd> z) {
    const Index m = z.size();
    ws_.hook_force.setZero(m);
    iteration_ = iteration;
    size_ = m;
    iterate_ = z_iter.data();
    solution_ = z.data();
    force_ = ws_.hook_force.data();
    ws_.hook->global_step(*this);
    const VectorXd& f = ws_.hook_force;
    FASTCD_CHECK(all_finite(f), "the global-step hook's force has NaN or Inf entries (iteration ", iteration, ")");
    if (!(f.array() != 0.0).any()) return false;  // no force: the step as without a hook, bit for bit
    ws_.hook_delta.resize(m);
    detail::fast_cd_solve_global(sys_, f, ws_.hook_delta);
    z += ws_.hook_delta;
    return true;
  }
  const VectorXd& correction() const { return ws_.hook_delta; }
  void solve(const Eigen::Ref<const VectorXd>& v, Eigen::Ref<VectorXd> out) const override {
    FASTCD_CHECK(v.size() == size_ && out.size() == size_, "the global step's solve takes and gives ", size_,
                 " entries, got ", v.size(), " and ", out.size());
    detail::fast_cd_solve_global(sys_, v, out);
  }

 private:
  const FastCD::Impl& sys_;
  FastCD::Workspace& ws_;
};

/// Folded iterations (small systems): the local step on a few numbers per cluster, F <- F0 + Sf r
/// in place of the global step and the next F; z = z0 + Kf r formed only when read (a tolerance,
/// a hook) and at the end. ws.z0, ws.zprev (y) and ws.q hold the step's constants.
template <int dim>
void iterate_folded(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& z,
                    const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCD::Workspace& ws,
                    int iters, GlobalStep& global) {
  const bool check = sys.options.tolerance > 0, hooked = global.hooked();
  ws.F0.noalias() = sys.F_y * ws.zprev;  // F0 = Gf z0 + GJf p_next
  ws.F0.noalias() -= sys.F_q * ws.q;
  ws.F0.noalias() += sys.F_p * p_next;
  if (sys.F_g.size() > 0) ws.F0 += sys.F_g;
  ws.F.noalias() = sys.Gf * z;
  ws.F.noalias() += sys.GJf * p_next;
  for (int it = 0; it < iters; ++it) {
    if ((it & 255) == 255) detail::throw_if_cancelled("a fast step");
    local_rotations<dim>(ws.F, ws.r);
    bool corrected = false;
    if (check || hooked) {  // the global step's z, for whoever reads it
      ws.zprev = z_out;
      z_out = ws.z0;
      z_out.noalias() += sys.Kf * ws.r;
      if (hooked) corrected = global.correct(it, ws.zprev, z_out);
      if (check && (z_out - ws.zprev).norm() < sys.options.tolerance) return;
    }
    if (it + 1 < iters) {
      ws.F = ws.F0;
      ws.F.noalias() += sys.Sf * ws.r;
      if (corrected) ws.F.noalias() += sys.Gf * global.correction();
    }
  }
  if (iters > 0 && !check && !hooked) {
    z_out = ws.z0;
    z_out.noalias() += sys.Kf * ws.r;
  }
}

/// Structured iterations, in the coordinates V = Z Lh (see Impl): a tile of 8 clusters at a
/// time (rt = 8*dim rows; nrp = tiles*rt), the tile's F (column-major rt x dim: F_c(i, j) at
/// i*rt + j*8 + c) = P_t V^T + F_J rows and its rotations R; then the global step V = Z0 Lh +
/// (P^T R)^T in one pass over P. In double or (sys.Pf set) mixed precision.
template <int dim>
void iterate_structured(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out,
                        FastCD::Workspace& ws, int iters, GlobalStep& global) {
  const bool check = sys.options.tolerance > 0, hooked = global.hooked();
  const Index mt = sys.basis_dim(), c = sys.clusters;
  constexpr Index rt = 8 * dim;
  const Index tiles = sys.tiles, nrp = tiles * rt;
  ws.F0.resize(nrp * dim);
  if (sys.scalar_rig) {
    ws.F0.setZero();
    thin_product<dim>(sys.FJs.data(), nrp, sys.FJs.cols(), p_next.data(), dim, 1, ws.F0.data(), ws.F0.data(), 1, nrp);
  } else {
    ws.F0.noalias() = sys.GJf * p_next;
  }
  if (iters <= 0) return;
  ws.F.resize(2 * rt * dim);  // two tiles: the mixed iteration computes F a tile pair at a time
  ws.r.setZero(nrp * dim);    // padded clusters of the last tile: R finite, their P rows are 0
  ws.g.resize(2 * mt * dim);
  double* V = ws.g.data();
  double* C0 = ws.g.data() + mt * dim;
  std::fill(V, V + 2 * mt * dim, 0.0);
  thin_product<dim>(sys.LhT.data(), mt, mt, z_out.data(), dim, 1, V, V, dim, 1);  // V = Z Lh
  thin_product<dim>(sys.LhT.data(), mt, mt, ws.z0.data(), dim, 1, C0, C0, dim, 1);
  const auto to_z = [&] {  // Z = V Lh^{-1}
    z_out.setZero();
    thin_product<dim>(sys.LhInvT.data(), mt, mt, V, dim, 1, z_out.data(), z_out.data(), dim, 1);
  };
  const bool mixed = sys.Pf.size() > 0;
  if (mixed) {
    ws.Vf.resize(mt * dim);
    ws.rf.resize(nrp * dim);
  }
  // F of two tiles (or of the last, odd one) into ws.F and F1, in the iteration's precision.
  double* F1 = ws.F.data() + rt * dim;
  const auto forward = [&](Index t, bool pair) {
    if (mixed) {
      const float* Pu = sys.Pf.data() + t / 2 * mt * dim * 16;
      if (pair)
        tile_pair_forward<dim, 16>(Pu, mt, ws.Vf.data(), ws.F0.data() + t * rt, nrp, ws.F.data(), F1);
      else
        tile_pair_forward<dim, 8>(Pu, mt, ws.Vf.data(), ws.F0.data() + t * rt, nrp, ws.F.data(), nullptr);
      return;
    }
    tile_forward<dim>(sys.Ptile.data() + t * rt * mt, mt, V, ws.F0.data() + t * rt, nrp, ws.F.data());
    if (pair) tile_forward<dim>(sys.Ptile.data() + (t + 1) * rt * mt, mt, V, ws.F0.data() + (t + 1) * rt, nrp, F1);
  };
  for (int it = 0; it < iters; ++it) {
    if ((it & 255) == 255) detail::throw_if_cancelled("a fast step");
    if (mixed)
      for (Index k = 0; k < mt * dim; ++k) ws.Vf[k] = static_cast<float>(V[k]);
    Index t = 0;
    for (; t + 1 < tiles; t += 2) {  // two tiles' F, then their rotations side by side
      forward(t, true);
      tile_pair_rotations<dim>(ws.F.data(), 8, F1, std::min<Index>(8, c - 8 * (t + 1)), ws.r.data() + t * rt * dim,
                               ws.r.data() + (t + 1) * rt * dim);
    }
    if (t < tiles) {
      forward(t, false);
      tile_rotations<dim>(ws.F.data(), std::min<Index>(8, c - 8 * t), ws.r.data() + t * rt * dim);
    }
    // The global step, V = Z0 Lh + (P^T R)^T.
    if (mixed) {
      for (Index k = 0; k < nrp * dim; ++k) ws.rf[k] = static_cast<float>(ws.r[k]);
      rows_transpose_product<float, dim>(sys.Prowf.data(), sys.mt16, mt, nrp, ws.rf.data(), C0, V);
    } else {
      rows_transpose_product<double, dim>(sys.Prow.data(), sys.Prow.rows(), mt, nrp, ws.r.data(), C0, V);
    }
    if (check || hooked) {  // the global step's z, for whoever reads it
      ws.zprev = z_out;
      to_z();
      if (hooked && global.correct(it, ws.zprev, z_out))  // V = Z Lh gains dZ Lh
        thin_product<dim>(sys.LhT.data(), mt, mt, global.correction().data(), dim, 1, V, V, dim, 1);
      if (check && (z_out - ws.zprev).norm() < sys.options.tolerance) return;
    }
  }
  if (!check && !hooked) to_z();
}

/// One step's iterations: the step's constants (y, q, z0), then the system's iteration form.
template <int dim>
void iterate(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& z, const Eigen::Ref<const VectorXd>& z_dot,
             const Eigen::Ref<const VectorXd>& p, const Eigen::Ref<const VectorXd>& p_dot,
             const Eigen::Ref<const VectorXd>& p_next, Eigen::Ref<VectorXd> z_out, FastCD::Workspace& ws, int iters) {
  const double h = sys.options.dt;
  const Index m = sys.state_dim(), mt = sys.basis_dim(), np = sys.J.cols(), c = sys.clusters;
  const bool folded = sys.folded();
  const Index nf = folded ? sys.Gf.rows() : c * dim * dim;
  ws.q.resize(np);
  ws.z0.resize(m);
  ws.zprev.resize(m);
  ws.F0.resize(nf);
  ws.F.resize(nf);
  ws.r.resize(nf);
  ws.zprev = z + h * z_dot;  // y
  ws.q = p_next - p - h * p_dot;
  // z0 = kron(Zy, I) y - Z_q q - Z_p p_next (+ z_g), as Z0^T = Zy Y^T + ... with Y, Z0 the
  // dim x mt views (thin products: a GEMM would spend longer packing than multiplying).
  ws.z0.setZero();
  thin_product<dim>(sys.Zy.data(), mt, mt, ws.zprev.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
  if (sys.scalar_rig) {
    const Index ns = np / dim;
    thin_product<dim>(sys.Zq_neg.data(), mt, ns, ws.q.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
    thin_product<dim>(sys.Zp_neg.data(), mt, ns, p_next.data(), dim, 1, ws.z0.data(), ws.z0.data(), dim, 1);
  } else {
    ws.z0.noalias() -= sys.Z_q * ws.q;
    ws.z0.noalias() -= sys.Z_p * p_next;
  }
  if (sys.z_g.size() > 0) ws.z0 += sys.z_g;
  z_out = z;
  GlobalStep global(sys, ws);
  if (folded)
    iterate_folded<dim>(sys, z, p_next, z_out, ws, iters, global);
  else
    iterate_structured<dim>(sys, p_next, z_out, ws, iters, global);
}

/// u of vertex blocks [b0, b1) (8 vertices each): A = sum_k w_k T_k per lane, then u = A [x; 1].
template <int dim>
void lift_blocks(const float* __restrict W, const float* __restrict X, const float* __restrict T, Index modes, Index n,
                 Index b0, Index b1, float* __restrict u) {
  constexpr int na = dim * (dim + 1);
  for (Index b = b0; b < b1; ++b) {
    float A[na][8] = {};
    const float* w = W + b * modes * 8;
    for (Index k = 0; k < modes; ++k) {
      const float* t = T + k * na;
      for (int j = 0; j < na; ++j) {
        const float tj = t[j];
#pragma omp simd
        for (int lane = 0; lane < 8; ++lane) A[j][lane] += w[k * 8 + lane] * tj;
      }
    }
    const float* x = X + b * dim * 8;
    float out[dim][8];
    for (int i = 0; i < dim; ++i) {
#pragma omp simd
      for (int lane = 0; lane < 8; ++lane) {
        float acc = A[dim * dim + i][lane];
        for (int l = 0; l < dim; ++l) acc += A[l * dim + i][lane] * x[l * 8 + lane];
        out[i][lane] = acc;
      }
    }
    const Index v0 = b * 8, nv = std::min<Index>(8, n - v0);
    for (Index lane = 0; lane < nv; ++lane)
      for (int i = 0; i < dim; ++i) u[(v0 + lane) * dim + i] = out[i][lane];
  }
}
}  // namespace

namespace detail {

void fast_cd_iterate(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& z,
                     const Eigen::Ref<const VectorXd>& z_dot, const Eigen::Ref<const VectorXd>& p,
                     const Eigen::Ref<const VectorXd>& p_dot, const Eigen::Ref<const VectorXd>& p_next,
                     Eigen::Ref<VectorXd> z_out, FastCD::Workspace& ws, int iters) {
  if (sys.dim == 2)
    iterate<2>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
  else
    iterate<3>(sys, z, z_dot, p, p_dot, p_next, z_out, ws, iters);
}

void fast_cd_solve_global(const FastCD::Impl& sys, const Eigen::Ref<const VectorXd>& v, Eigen::Ref<VectorXd> out) {
  if (out.data() != v.data()) out = v;
  // Hr = Hs_r (x) I_dim on z(k*dim + i) = Z(i, k): Hr^{-1} v is Hs_r^{-1} on the mt x dim view.
  Eigen::Map<RowMajorMatrix> Zt(out.data(), sys.basis_dim(), sys.dim);
  sys.Hs.solveInPlace(Zt);
}

void fast_cd_lift_blocks(Index dim, const float* W, const float* X, const float* T, Index modes, Index n, Index b0,
                         Index b1, float* u) {
  dim == 2 ? lift_blocks<2>(W, X, T, modes, n, b0, b1, u) : lift_blocks<3>(W, X, T, modes, n, b0, b1, u);
}

}  // namespace detail
}  // namespace fastcd
