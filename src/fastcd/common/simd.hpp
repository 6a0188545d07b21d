#pragma once
// Eight doubles in one SIMD register, as a GCC / Clang vector extension: arithmetic, comparisons
// (lane masks of all ones / zeros) and selects compile to whole-register instructions (one
// AVX-512 register, two AVX2 or four SSE2 ones), where Eigen's bool arrays fall back to lane by
// lane branches. For the solvers' innermost kernels only (closest rotations, the fast step's
// tiles); everything else uses Eigen.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fastcd::simd {

using Vec8 = double __attribute__((vector_size(64)));
using Mask8 = std::int64_t __attribute__((vector_size(64)));  ///< -1 (true) or 0 per lane

inline Vec8 load8(const double* p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(double* p, Vec8 v) { std::memcpy(p, &v, sizeof v); }
inline Vec8 splat8(double s) { return Vec8{s, s, s, s, s, s, s, s}; }

/// Lane-wise m ? a : b.
inline Vec8 select(Mask8 m, Vec8 a, Vec8 b) { return m ? a : b; }
inline bool any(Mask8 m) {
  std::int64_t r = 0;
  for (int l = 0; l < 8; ++l) r |= m[l];
  return r != 0;
}
inline bool all(Mask8 m) {
  std::int64_t r = -1;
  for (int l = 0; l < 8; ++l) r &= m[l];
  return r != 0;
}
inline Vec8 abs8(Vec8 v) { return v < splat8(0.0) ? -v : v; }
/// Lane-wise correctly rounded square root (IEEE sqrt, never an approximation).
inline Vec8 sqrt8(Vec8 v) {
  Vec8 r;
  for (int l = 0; l < 8; ++l) r[l] = std::sqrt(v[l]);
  return r;
}
/// The sum of the 8 lanes, as a fixed tree ((0+4) + (2+6)) + ((1+5) + (3+7)).
inline double hsum(Vec8 v) {
  using Vec4 = double __attribute__((vector_size(32)));
  using Vec2 = double __attribute__((vector_size(16)));
  const Vec4 a = __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  const Vec2 b = __builtin_shufflevector(a, a, 0, 1) + __builtin_shufflevector(a, a, 2, 3);
  return b[0] + b[1];
}
/// Lanes holding a finite number.
inline Mask8 finite8(Vec8 v) { return abs8(v) <= splat8(1.7976931348623157e308); }

/// A register of any vector type V read from / written to memory of its scalars (unaligned).
template <class V, class S>
inline V load(const S* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V, class S>
inline void store(S* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

/// Keeps v (any vector type) in a register: the compiler would otherwise fold its load into
/// every instruction that uses it, and in load-bound loops the loads, not the arithmetic, set
/// the pace.
template <class V>
inline void pin(V& v) {
#if defined(__GNUC__) && defined(__AVX512F__)
  asm("" : "+v"(v));
#else
  (void)v;
#endif
}

}  // namespace fastcd::simd
