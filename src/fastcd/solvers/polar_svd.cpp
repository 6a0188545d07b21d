#include "fastcd/solvers/polar_svd.hpp"

#include <algorithm>
#include <cmath>

#include "fastcd/common/check.hpp"
#include "fastcd/common/simd.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/geometry/simplex.hpp"

namespace fastcd {

template <>
void polar_svd<2>(const Eigen::Matrix2d& F, Eigen::Matrix2d& R, Eigen::Matrix2d* S) {
  const double x = F(0, 0) + F(1, 1), y = F(1, 0) - F(0, 1);
  const double r = std::hypot(x, y);
  const double c = r > 0 ? x / r : 1.0, s = r > 0 ? y / r : 0.0;
  R << c, -s, s, c;
  if (S) {
    *S = R.transpose() * F;
    const double off = 0.5 * ((*S)(0, 1) + (*S)(1, 0));  // symmetric up to rounding; make it exact
    (*S)(0, 1) = (*S)(1, 0) = off;
  }
}

template <>
void polar_svd<3>(const Eigen::Matrix3d& F, Eigen::Matrix3d& R, Eigen::Matrix3d* S) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d U = svd.matrixU();
  const Eigen::Matrix3d& V = svd.matrixV();
  Eigen::Vector3d sigma = svd.singularValues();
  if ((U * V.transpose()).determinant() < 0) {
    U.col(2) = -U.col(2);
    sigma(2) = -sigma(2);
  }
  R = U * V.transpose();
  if (S) *S = V * sigma.asDiagonal() * V.transpose();
}

namespace detail {

namespace {
/// Row-major R(q) of a unit quaternion (w, x, y, z); T is double or a SIMD lane array.
template <class T>
void quaternion_rotation(const T& w, const T& x, const T& y, const T& z, T* R) {
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

inline double det3(double a, double b, double c, double d, double e, double f, double g, double h, double i) {
  return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}
}  // namespace

bool closest_rotation_3x3(const double* F, double* R) {
  // Horn (1987): max_R tr(R^T F) = the largest eigenvalue of the traceless symmetric 4x4 N
  // below, attained at R(q) for its unit eigenvector q = (w, x, y, z). With S = F^T (Horn's
  // correlation), det(N - l I) = l^4 + c2 l^2 + c1 l + c0, c2 = -2 |F|^2, c1 = -8 det F,
  // c0 = det N. The largest root is found by Newton from l0 = sqrt(3) |F| >= sigma1 + sigma2 +
  // sigma3 >= l_max, monotone from above since every root is real; q is the column of adj(N - l I)
  // with the largest diagonal (the 4D cross product of the other three rows).
  const double Sxx = F[0], Syx = F[1], Szx = F[2], Sxy = F[3], Syy = F[4], Szy = F[5], Sxz = F[6], Syz = F[7],
               Szz = F[8];
  const double n2 =
      Sxx * Sxx + Sxy * Sxy + Sxz * Sxz + Syx * Syx + Syy * Syy + Syz * Syz + Szx * Szx + Szy * Szy + Szz * Szz;
  if (!(n2 > 0) || !std::isfinite(n2)) return false;
  double N[4][4] = {{Sxx + Syy + Szz, Syz - Szy, Szx - Sxz, Sxy - Syx},
                    {Syz - Szy, Sxx - Syy - Szz, Sxy + Syx, Szx + Sxz},
                    {Szx - Sxz, Sxy + Syx, -Sxx + Syy - Szz, Syz + Szy},
                    {Sxy - Syx, Szx + Sxz, Syz + Szy, -Sxx - Syy + Szz}};
  const double detF = det3(F[0], F[1], F[2], F[3], F[4], F[5], F[6], F[7], F[8]);
  const double c2 = -2.0 * n2, c1 = -8.0 * detF;
  // det N by cofactor expansion along the first row.
  const double c0 = N[0][0] * det3(N[1][1], N[1][2], N[1][3], N[2][1], N[2][2], N[2][3], N[3][1], N[3][2], N[3][3]) -
                    N[0][1] * det3(N[1][0], N[1][2], N[1][3], N[2][0], N[2][2], N[2][3], N[3][0], N[3][2], N[3][3]) +
                    N[0][2] * det3(N[1][0], N[1][1], N[1][3], N[2][0], N[2][1], N[2][3], N[3][0], N[3][1], N[3][3]) -
                    N[0][3] * det3(N[1][0], N[1][1], N[1][2], N[2][0], N[2][1], N[2][2], N[3][0], N[3][1], N[3][2]);
  const double scale = std::sqrt(3.0 * n2);
  double l = scale;
  for (int it = 0; it < 60; ++it) {
    const double l2 = l * l;
    const double p = (l2 + c2) * l2 + c1 * l + c0;
    const double dp = 4.0 * l2 * l + 2.0 * c2 * l + c1;
    if (!(dp > 0)) break;  // at (or past) a multiple root: stop where we are
    const double step = p / dp;
    l -= step;
    if (std::abs(step) <= 1e-15 * scale) break;
  }
  for (int k = 0; k < 4; ++k) N[k][k] -= l;
  // Principal 3x3 minors of A = N - l I: the diagonal of adj A = prod_j (l_j - l) q q^T (<= 0).
  auto minor = [&](int r0, int r1, int r2, int k0, int k1, int k2) {
    return det3(N[r0][k0], N[r0][k1], N[r0][k2], N[r1][k0], N[r1][k1], N[r1][k2], N[r2][k0], N[r2][k1], N[r2][k2]);
  };
  const double d[4] = {minor(1, 2, 3, 1, 2, 3), minor(0, 2, 3, 0, 2, 3), minor(0, 1, 3, 0, 1, 3),
                       minor(0, 1, 2, 0, 1, 2)};
  int k = 0;
  for (int j = 1; j < 4; ++j)
    if (std::abs(d[j]) > std::abs(d[k])) k = j;
  // d[k] is the product of the gaps l_max - l_j (j = 2..4). The root's rounding error grows like
  // eps / gap and the eigenvector's like eps / gap^2 (relative), so below a relative gap of
  // about 1e-3 (including the ill-determined case of coinciding top eigenvalues, e.g. rank-1 F)
  // the SVD is the more accurate choice.
  if (!(std::abs(d[k]) > 1e-3 * scale * scale * scale)) return false;
  int rows[3], r = 0;
  for (int j = 0; j < 4; ++j)
    if (j != k) rows[r++] = j;
  double q[4];
  for (int j = 0; j < 4; ++j) {  // column k of adj(A): (-1)^(j+k) * minor without row k, column j
    int cols[3], c = 0;
    for (int t = 0; t < 4; ++t)
      if (t != j) cols[c++] = t;
    const double m = minor(rows[0], rows[1], rows[2], cols[0], cols[1], cols[2]);
    q[j] = ((j + k) % 2 == 0) ? m : -m;
  }
  const double qn = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const double w = q[0] / qn, x = q[1] / qn, y = q[2] / qn, z = q[3] / qn;
  quaternion_rotation(w, x, y, z, R);
  return true;
}

}  // namespace detail

namespace {
template <int dim>
void check_batch(const Eigen::Ref<const VectorXd>& F, const char* where) {
  FASTCD_CHECK(F.size() % (dim * dim) == 0, "F has ", F.size(), " entries, not a multiple of ", dim * dim, " (", where,
               ")");
  check_finite(F, "F", where);
}
}  // namespace

namespace detail {

namespace {
/// The closest rotation to each of `count` consecutive row-major 2x2 matrices: the rotation by
/// atan2(F10 - F01, F00 + F11), the identity where that angle is undefined. Written without
/// branches so the compiler runs several matrices in SIMD lanes.
void closest_rotations_2x2(const double* __restrict F, Index count, double* __restrict R) {
  for (Index e = 0; e < count; ++e) {
    const double* f = F + 4 * e;
    const double x = f[0] + f[3], y = f[2] - f[1];
    const double r2 = x * x + y * y;
    const bool ok = r2 > 0;
    const double inv = 1.0 / std::sqrt(ok ? r2 : 1.0);
    const double c = ok ? x * inv : 1.0, s = ok ? y * inv : 0.0;
    double* o = R + 4 * e;
    o[0] = c;
    o[1] = -s;
    o[2] = s;
    o[3] = c;
  }
}

}  // namespace

template <>
void closest_rotation<2>(const double* f, double* o) {
  closest_rotations_2x2(f, 1, o);
}

template <>
void closest_rotation<3>(const double* f, double* o) {
  if (closest_rotation_3x3(f, o)) return;
  using Mat = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
  Eigen::Matrix3d Fe = Eigen::Map<const Mat>(f), Re;
  polar_svd<3>(Fe, Re);
  Eigen::Map<Mat> out(o);
  out = Re;
}

namespace {
using simd::Mask8;
using simd::Vec8;
/// Lanes of the batched 3x3 kernel: one AVX-512 register (two AVX2 / four SSE2 ones).
constexpr int kLanes = 8;

/// 2x2 minors of rows (0, 1) and (2, 3) of a symmetric 4x4 matrix given by its 10 entries,
/// and from them the determinant and the adjugate (Laplace expansion along row pairs); b[j][k]
/// (column k) uses only the rows other than k.
struct Adjugate4 {
  Vec8 b[4][4];
  Vec8 det;
  Adjugate4(Vec8 a00, Vec8 a01, Vec8 a02, Vec8 a03, Vec8 a11, Vec8 a12, Vec8 a13, Vec8 a22, Vec8 a23, Vec8 a33,
            bool full) {
    // a10 = a01, a20 = a02, a21 = a12, a30 = a03, a31 = a13, a32 = a23.
    const Vec8 s0 = a00 * a11 - a01 * a01, s1 = a00 * a12 - a01 * a02, s2 = a00 * a13 - a01 * a03,
               s3 = a01 * a12 - a11 * a02, s4 = a01 * a13 - a11 * a03, s5 = a02 * a13 - a12 * a03;
    const Vec8 c5 = a22 * a33 - a23 * a23, c4 = a12 * a33 - a13 * a23, c3 = a12 * a23 - a13 * a22,
               c2 = a02 * a33 - a03 * a23, c1 = a02 * a23 - a03 * a22, c0 = a02 * a13 - a03 * a12;
    det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if (!full) return;
    b[0][0] = a11 * c5 - a12 * c4 + a13 * c3;
    b[0][1] = -a01 * c5 + a02 * c4 - a03 * c3;
    b[0][2] = a13 * s5 - a23 * s4 + a33 * s3;
    b[0][3] = -a12 * s5 + a22 * s4 - a23 * s3;
    b[1][1] = a00 * c5 - a02 * c2 + a03 * c1;
    b[1][2] = -a03 * s5 + a23 * s2 - a33 * s1;
    b[1][3] = a02 * s5 - a22 * s2 + a23 * s1;
    b[2][2] = a03 * s4 - a13 * s2 + a33 * s0;
    b[2][3] = -a02 * s4 + a12 * s2 - a23 * s0;
    b[3][3] = a02 * s3 - a12 * s1 + a22 * s0;
    // The lower triangle equals the upper one only in exact arithmetic. Column k of the
    // adjugate (the eigenvector candidate) must come from the rows other than k alone, as in
    // closest_rotation_3x3: near the eigenvalue, borrowing row k from the transposed entry
    // costs about three digits.
    b[1][0] = -a01 * c5 + a12 * c2 - a13 * c1;
    b[2][0] = a01 * c4 - a11 * c2 + a13 * c0;
    b[3][0] = -a01 * c3 + a11 * c1 - a12 * c0;
    b[2][1] = -a00 * c4 + a01 * c2 - a03 * c0;
    b[3][1] = a00 * c3 - a01 * c1 + a02 * c0;
    b[3][2] = -a03 * s3 + a13 * s1 - a23 * s0;
  }
};

/// rotation_lanes in three phases, so that two batches can run their Newton iterations side by
/// side (two independent chains of dependent divisions: the loop is latency-bound).
struct NewtonLanes {
  Vec8 c2, c1, cdet, scale, tol, lam;
  Mask8 usable, active;
};

/// Horn's symmetric 4x4 matrix N of F (f[3i + j] = F(i, j)), its 10 distinct entries.
struct Horn {
  Vec8 n00, n01, n02, n03, n11, n12, n13, n22, n23, n33;
  explicit Horn(const Vec8 (&f)[9]) {
    const Vec8 &Sxx = f[0], &Syx = f[1], &Szx = f[2], &Sxy = f[3], &Syy = f[4], &Szy = f[5], &Sxz = f[6], &Syz = f[7],
               &Szz = f[8];
    n00 = Sxx + Syy + Szz, n01 = Syz - Szy, n02 = Szx - Sxz, n03 = Sxy - Syx, n11 = Sxx - Syy - Szz;
    n12 = Sxy + Syx, n13 = Szx + Sxz, n22 = -Sxx + Syy - Szz, n23 = Syz + Szy, n33 = -Sxx - Syy + Szz;
  }
};

NewtonLanes newton_setup(const Vec8 (&f)[9]) {
  using simd::splat8;
  const Vec8 &Sxx = f[0], &Syx = f[1], &Szx = f[2], &Sxy = f[3], &Syy = f[4], &Szy = f[5], &Sxz = f[6], &Syz = f[7],
             &Szz = f[8];
  const Vec8 n2 =
      Sxx * Sxx + Sxy * Sxy + Sxz * Sxz + Syx * Syx + Syy * Syy + Syz * Syz + Szx * Szx + Szy * Szy + Szz * Szz;
  const Horn N(f);
  const Vec8 detF = Sxx * (Syy * Szz - Szy * Syz) - Syx * (Sxy * Szz - Szy * Sxz) + Szx * (Sxy * Syz - Syy * Sxz);
  NewtonLanes s;
  s.c2 = -2.0 * n2;
  s.c1 = -8.0 * detF;
  s.cdet = Adjugate4(N.n00, N.n01, N.n02, N.n03, N.n11, N.n12, N.n13, N.n22, N.n23, N.n33, false).det;
  s.scale = simd::sqrt8(3.0 * n2);
  s.usable = (n2 > splat8(0.0)) & simd::finite8(n2);
  s.lam = s.scale;
  s.active = s.usable;  // lanes still iterating
  s.tol = 1e-15 * s.scale;
  return s;
}

/// One Newton step on det(N - l I) for the lanes still iterating (a stopped lane never moves).
inline void newton_step(NewtonLanes& s) {
  const Vec8 l2 = s.lam * s.lam;
  const Vec8 p = (l2 + s.c2) * l2 + s.c1 * s.lam + s.cdet;
  const Vec8 dp = 4.0 * l2 * s.lam + 2.0 * s.c2 * s.lam + s.c1;
  const Mask8 moving = s.active & (dp > simd::splat8(0.0));  // at (or past) a multiple root: stop
  const Vec8 step = p / dp;
  s.lam = simd::select(moving, s.lam - step, s.lam);
  s.active = moving & (simd::abs8(step) > s.tol);
}

Mask8 rotation_finish(const Vec8 (&f)[9], const NewtonLanes& s, Vec8 (&r)[9]) {
  const Horn N(f);
  const Vec8 lam = s.lam;
  const Adjugate4 adj(N.n00 - lam, N.n01, N.n02, N.n03, N.n11 - lam, N.n12, N.n13, N.n22 - lam, N.n23, N.n33 - lam,
                      true);
  Vec8 best = simd::abs8(adj.b[0][0]), q[4] = {adj.b[0][0], adj.b[1][0], adj.b[2][0], adj.b[3][0]};
  for (int k = 1; k < 4; ++k) {
    const Vec8 cand = simd::abs8(adj.b[k][k]);
    const Mask8 better = cand > best;
    best = simd::select(better, cand, best);
    for (int j = 0; j < 4; ++j) q[j] = simd::select(better, adj.b[j][k], q[j]);
  }
  const Mask8 good = s.usable & (best > 1e-3 * s.scale * s.scale * s.scale);
  const Vec8 qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  const Vec8 inv = 1.0 / simd::sqrt8(qq);
  quaternion_rotation(q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv, r);
  return ~good;
}

/// The algorithm of closest_rotation_3x3 on 8 matrices in SIMD lanes (f[3i + j] holds entry
/// (i, j) of every lane's matrix): Horn's matrix N, Newton on det(N - l I) from sqrt(3)|F|
/// (each lane stops where the scalar code would), the eigenvector as the column of
/// adj(N - l I) with the largest diagonal entry. Returns the lanes the scalar kernel would
/// refuse (zero or non-finite F, relative gap below 1e-3): their r is meaningless and the
/// caller redoes them with closest_rotation<3> (SVD).
Mask8 rotation_lanes(const Vec8 (&f)[9], Vec8 (&r)[9]) {
  NewtonLanes s = newton_setup(f);
  for (int it = 0; it < 60 && simd::any(s.active); ++it) newton_step(s);
  return rotation_finish(f, s, r);
}

/// rotation_lanes of two batches, their Newton iterations interleaved: lane for lane the same
/// arithmetic (a batch that has stopped takes masked steps that leave it unchanged).
void rotation_lanes2(const Vec8 (&f0)[9], const Vec8 (&f1)[9], Vec8 (&r0)[9], Vec8 (&r1)[9], Mask8& refused0,
                     Mask8& refused1) {
  NewtonLanes s0 = newton_setup(f0), s1 = newton_setup(f1);
  for (int it = 0; it < 60 && simd::any(s0.active | s1.active); ++it) {
    newton_step(s0);
    newton_step(s1);
  }
  refused0 = rotation_finish(f0, s0, r0);
  refused1 = rotation_finish(f1, s1, r1);
}

/// closest_rotation<3> of lane l's matrix (the SVD fallback of rotation_lanes).
void fallback_lane(const Vec8 (&f)[9], int l, double* rl) {
  double fl[9];
  for (int k = 0; k < 9; ++k) fl[k] = f[k][l];
  closest_rotation<3>(fl, rl);
}
}  // namespace

void closest_rotations_3x3_strided(const double* F, Index count, Index mat_stride, Index row_stride, double* R) {
  for (Index c0 = 0; c0 < count; c0 += kLanes) {
    const int nl = static_cast<int>(std::min<Index>(kLanes, count - c0));
    Vec8 f[9], r[9];
    for (int k = 0; k < 9; ++k) f[k] = simd::splat8(k % 4 == 0 ? 1.0 : 0.0);  // padding: identity
    for (int l = 0; l < nl; ++l) {
      const double* Fl = F + (c0 + l) * mat_stride;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) f[3 * i + j][l] = Fl[i * row_stride + j];
    }
    const Mask8 refused = rotation_lanes(f, r);
    for (int l = 0; l < nl; ++l) {
      double* Rl = R + (c0 + l) * mat_stride;
      double rl[9];
      if (refused[l]) {
        fallback_lane(f, l, rl);
      } else {
        for (int k = 0; k < 9; ++k) rl[k] = r[k][l];
      }
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Rl[i * row_stride + j] = rl[3 * i + j];
    }
  }
}

namespace {
/// A lane-wise batch of `count` matrices, lanes count..7 set to the identity.
void load_lanes(const double* F, int count, Vec8 (&f)[9]) {
  for (int k = 0; k < 9; ++k) f[k] = simd::load8(F + k * kLanes);
  for (int l = count; l < kLanes; ++l)  // padding: identity
    for (int k = 0; k < 9; ++k) f[k][l] = (k % 4 == 0) ? 1.0 : 0.0;
}
/// The batch's rotations into R, the refused lanes redone by the SVD.
void store_lanes(const Vec8 (&f)[9], const Vec8 (&r)[9], Mask8 refused, int count, double* R) {
  for (int k = 0; k < 9; ++k) simd::store8(R + k * kLanes, r[k]);
  if (!simd::any(refused)) return;
  for (int l = 0; l < count; ++l) {
    if (!refused[l]) continue;
    double rl[9];
    fallback_lane(f, l, rl);
    for (int k = 0; k < 9; ++k) R[k * kLanes + l] = rl[k];
  }
}
}  // namespace

void closest_rotations_3x3_lanes(const double* F, int count, double* R) {
  Vec8 f[9], r[9];
  load_lanes(F, count, f);
  const Mask8 refused = rotation_lanes(f, r);
  store_lanes(f, r, refused, count, R);
}

void closest_rotations_3x3_lanes2(const double* F0, int count0, const double* F1, int count1, double* R0, double* R1) {
  Vec8 f0[9], f1[9], r0[9], r1[9];
  load_lanes(F0, count0, f0);
  load_lanes(F1, count1, f1);
  Mask8 refused0, refused1;
  rotation_lanes2(f0, f1, r0, r1, refused0, refused1);
  store_lanes(f0, r0, refused0, count0, R0);
  store_lanes(f1, r1, refused1, count1, R1);
}

template <int dim>
void polar_rotations_unchecked(const double* F, Index count, double* R) {
  constexpr int d2 = dim * dim;
  // A fine loop inside a step (fine_threads: serial unless threads were set). Chunks are whole
  // SIMD batches (multiples of 64 matrices), so every matrix is computed as serially.
  const int t = fine_threads();
  if constexpr (dim == 3) {
    if (count < 2048 || t <= 1) {
      closest_rotations_3x3_strided(F, count, d2, dim, R);
      return;
    }
    const Index blocks = (count + 63) / 64;
    parallel_for(
        blocks, 16,
        [&](Index b0, Index b1) {
          closest_rotations_3x3_strided(F + 64 * d2 * b0, std::min<Index>(64 * (b1 - b0), count - 64 * b0), d2, dim,
                                        R + 64 * d2 * b0);
        },
        t);
  } else {
    if (count < 8192 || t <= 1) {
      closest_rotations_2x2(F, count, R);
      return;
    }
    const Index blocks = (count + 255) / 256;
    parallel_for(
        blocks, 8,
        [&](Index b0, Index b1) {
          closest_rotations_2x2(F + 256 * d2 * b0, std::min<Index>(256 * (b1 - b0), count - 256 * b0),
                                R + 256 * d2 * b0);
        },
        t);
  }
}
template void polar_rotations_unchecked<2>(const double*, Index, double*);
template void polar_rotations_unchecked<3>(const double*, Index, double*);

}  // namespace detail

void polar_rotations(const Eigen::Ref<const VectorXd>& F, Index dim, VectorXd& R) {
  detail::dispatch_dim(dim, "polar_rotations", [&]<int d>() {
    check_batch<d>(F, "polar_rotations");
    R.resize(F.size());
    detail::polar_rotations_unchecked<d>(F.data(), F.size() / (d * d), R.data());
  });
}

PolarDecomposition polar_svd(const Eigen::Ref<const VectorXd>& F, Index dim) {
  return detail::dispatch_dim(dim, "polar_svd", [&]<int d>() {
    check_batch<d>(F, "polar_svd");
    PolarDecomposition out;
    out.R.resize(F.size());
    out.S.resize(F.size());
    using Mat = Eigen::Matrix<double, d, d, Eigen::RowMajor>;
    for (Index e = 0; e < F.size() / (d * d); ++e) {
      Eigen::Matrix<double, d, d> Fe = Eigen::Map<const Mat>(F.data() + e * d * d), Re, Se;
      polar_svd<d>(Fe, Re, &Se);
      Eigen::Map<Mat>(out.R.data() + e * d * d) = Re;
      Eigen::Map<Mat>(out.S.data() + e * d * d) = Se;
    }
    return out;
  });
}

}  // namespace fastcd
