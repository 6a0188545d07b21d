#include "fastcd/solvers/kron_cholesky.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/SparseCholesky>
#include <cstring>
#include <limits>

#include "fastcd/common/check.hpp"
#include "fastcd/common/threads.hpp"

namespace fastcd {

struct KronCholesky::Impl {
  // Either backend's factor: P As P^T = L D L^T, L unit lower (strict part stored column-wise).
  std::vector<int> Lp, Li;
  std::vector<double> Lx, Dinv;
  // Small factors only (see kRowCopyEntries): the same strict part row-wise (CSR), so the
  // forward solve is a dot product per row (loads only) instead of column updates (a
  // read-modify-write per entry).
  std::vector<int> Rp, Ri;
  std::vector<double> Rx;
  std::vector<int> perm;  ///< y[perm[i]] = b[i]
};

namespace {

/// CHOLMOD's supernodal factorisation, its factor readable.
struct CholmodFactor : Eigen::CholmodSupernodalLLT<SparseMatrix> {
  cholmod_factor* factor() { return m_cholmodFactor; }
};

/// Largest factor (strict entries) that also keeps a row-wise copy. The dot-product forward pass
/// it allows is faster in isolation (Spot, 243k entries: 367 against 472 us per solve), but
/// streams a second copy of L; within a step, where the local step's element data competes for
/// the cache, that costs more than it saves once the factor outgrows the L2 cache (Spot's step:
/// 13.1 ms with the copy, 12.4 without; a 5.5k-vertex Spot, 384k entries: 24.8 against 19.4 ms),
/// while on the 2D beams the copy still gains (200 vertices: 58.5 against 59.3 us).
constexpr std::size_t kRowCopyEntries = 65536;

/// Fills the row-wise copy (Rp, Ri, Rx) of the strict lower part held column-wise in (Lp, Li, Lx),
/// for factors of at most kRowCopyEntries entries.
void build_rows(KronCholesky::Impl& m, std::size_t n) {
  if (m.Li.size() > kRowCopyEntries) return;
  m.Rp.assign(n + 1, 0);
  for (int i : m.Li) ++m.Rp[static_cast<std::size_t>(i) + 1];
  for (std::size_t i = 0; i < n; ++i) m.Rp[i + 1] += m.Rp[i];
  m.Ri.resize(m.Li.size());
  m.Rx.resize(m.Li.size());
  std::vector<int> fill(m.Rp.begin(), m.Rp.end() - 1);
  for (std::size_t j = 0; j < n; ++j)  // ascending columns within each row
    for (int p = m.Lp[j]; p < m.Lp[j + 1]; ++p) {
      const auto q = static_cast<std::size_t>(fill[static_cast<std::size_t>(m.Li[static_cast<std::size_t>(p)])]++);
      m.Ri[q] = static_cast<int>(j);
      m.Rx[q] = m.Lx[static_cast<std::size_t>(p)];
    }
}

/// Factorises As with CHOLMOD (supernodal, its fill-reducing ordering: BLAS-3 makes this
/// 10-20x faster than a simplicial factorisation on large 3D meshes), then keeps the factor in
/// the simplicial unit LDL^T form of the fused solve: a supernodal solve runs d small dense
/// triangular solves per supernode through BLAS, whose call and packing overheads cost more
/// than the arithmetic at the few right-hand sides of a time step.
void factor_with_cholmod(const SparseMatrix& As, KronCholesky::Impl& m) {
  CholmodFactor llt;
  llt.cholmod().print = 0;                   // the library never prints (CHOLMOD warns on stderr otherwise)
  const SingleThreadedBlas one_blas_thread;  // deterministic, and no BLAS threads spinning
  // CHOLMOD tries three orderings and keeps the one it rates best (deterministic). On Spot AMD
  // leaves 243k factor entries and its nested dissection (NESDIS, on METIS partitions) 218k, on
  // a 5.5k-vertex Spot 384k and 348k: every solve streams the factor, and fewer entries made
  // the solve 8-15 % faster.
  llt.cholmod().nmethods = 3;
  llt.cholmod().method[0].ordering = CHOLMOD_AMD;
  llt.cholmod().method[1].ordering = CHOLMOD_METIS;
  llt.cholmod().method[2].ordering = CHOLMOD_NESDIS;
  llt.compute(As);
  FASTCD_ENSURE(llt.info() == Eigen::Success, "CHOLMOD: the ", shape_of(As), " matrix is not positive definite");
  cholmod_factor* L = llt.factor();
  // Supernodal LL^T -> simplicial, packed, LL^T: the same numbers, column by column.
  FASTCD_ENSURE(cholmod_change_factor(CHOLMOD_REAL, 1, 0, 1, 1, L, &llt.cholmod()) && L->is_ll && !L->is_super,
                "CHOLMOD: converting the ", shape_of(As), " factor to simplicial form failed");
  const auto n = static_cast<std::size_t>(L->n);
  const int* Lp = static_cast<const int*>(L->p);
  const int* Li = static_cast<const int*>(L->i);
  const double* Lx = static_cast<const double*>(L->x);
  const int* perm = static_cast<const int*>(L->Perm);
  m.Dinv.resize(n);
  m.perm.resize(n);
  m.Lp.assign(n + 1, 0);
  m.Li.clear();
  m.Lx.clear();
  m.Li.reserve(static_cast<std::size_t>(Lp[n]) - n);
  m.Lx.reserve(static_cast<std::size_t>(Lp[n]) - n);
  for (std::size_t j = 0; j < n; ++j) {
    // L = Lu diag(l): Lu unit lower, D = diag(l)^2. CHOLMOD keeps the diagonal first.
    FASTCD_ENSURE(Li[Lp[j]] == static_cast<int>(j) && Lx[Lp[j]] > 0, "CHOLMOD: factor column ", j,
                  " does not start with a positive diagonal");
    const double ljj = Lx[Lp[j]];
    m.Dinv[j] = 1.0 / (ljj * ljj);
    for (int p = Lp[j] + 1; p < Lp[j + 1]; ++p)
      if (Lx[p] != 0.0) {  // (supernodes store explicit zeros)
        m.Li.push_back(Li[p]);
        m.Lx.push_back(Lx[p] / ljj);
      }
    m.Lp[j + 1] = static_cast<int>(m.Li.size());
    m.perm[static_cast<std::size_t>(perm[j])] = static_cast<int>(j);  // row perm[j] of As is row j of P As P^T
  }
  build_rows(m, n);
}

}  // namespace

KronCholesky::KronCholesky() : impl_(std::make_unique<Impl>()) {}
KronCholesky::~KronCholesky() = default;
KronCholesky::KronCholesky(KronCholesky&&) noexcept = default;
KronCholesky& KronCholesky::operator=(KronCholesky&&) noexcept = default;

void KronCholesky::compute(const SparseMatrix& As, Index d, CholeskyBackend backend) {
  FASTCD_CHECK(As.rows() == As.cols(), "matrix must be square, got ", shape_of(As));
  FASTCD_CHECK(d >= 1, "d must be >= 1, got ", d);
  FASTCD_CHECK(As.rows() < std::numeric_limits<int>::max(), "matrix too large: ", shape_of(As));
  n_ = As.rows();
  d_ = d;
  used_ = backend;
  if (backend == CholeskyBackend::Auto)
    used_ = (d == 3 && n_ > 3000) ? CholeskyBackend::Cholmod : CholeskyBackend::Eigen;
  impl_ = std::make_unique<Impl>();  // (a refactorisation starts clean)
  Impl& m = *impl_;
  if (used_ == CholeskyBackend::Cholmod) {
    factor_with_cholmod(As, m);
    return;
  }
  const auto n = static_cast<std::size_t>(n_);
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(As);
  FASTCD_ENSURE(ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > 0, "the ", shape_of(As),
                " matrix is not positive definite");
  const SparseMatrix L = ldlt.matrixL();  // unit lower triangular
  m.Lp.assign(n + 1, 0);
  for (Index j = 0; j < n_; ++j) {
    for (SparseMatrix::InnerIterator it(L, j); it; ++it)
      if (it.row() > j) {
        m.Li.push_back(static_cast<int>(it.row()));
        m.Lx.push_back(it.value());
      }
    m.Lp[static_cast<std::size_t>(j) + 1] = static_cast<int>(m.Li.size());
  }
  build_rows(m, n);
  m.Dinv.resize(n);
  for (std::size_t j = 0; j < n; ++j) m.Dinv[j] = 1.0 / ldlt.vectorD()(static_cast<Index>(j));
  m.perm.resize(n);
  for (std::size_t i = 0; i < n; ++i) m.perm[i] = ldlt.permutationP().indices()(static_cast<Index>(i));
}

namespace {
/// The fused LDL^T solve of kron(As, I_d), with every vertex's d coordinates in one register of
/// W lanes (W = d, and 4 for d = 3: the fourth lane 0): y holds W n doubles, and each factor
/// entry costs one load, one FMA (and in the column pass one store) for all d coordinates. Dot
/// products keep four partial sums (a single running sum is a chain of dependent FMAs, ~4
/// cycles per entry, and it set the pace of the whole solve), combined in a fixed order. Not
/// auto-vectorised: GCC turns the indexed loads into AVX-512 gathers, slower than plain loads
/// (measured: 2.7x on the 2D beam's short rows, 15 % on Spot's).
#if defined(__GNUC__) && !defined(__clang__)
#define FASTCD_SCALAR_LOOPS __attribute__((optimize("no-tree-vectorize")))
#else
#define FASTCD_SCALAR_LOOPS
#endif
template <int W>
struct Lanes;  // (GCC takes no vector_size that depends on a template parameter)
template <>
struct Lanes<1> {
  using type = double __attribute__((vector_size(8)));
};
template <>
struct Lanes<2> {
  using type = double __attribute__((vector_size(16)));
};
template <>
struct Lanes<4> {
  using type = double __attribute__((vector_size(32)));
};

template <int D, int W = (D == 3 ? 4 : D)>
struct LaneSolve {
  using V = typename Lanes<W>::type;
  static V load(const double* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(double* p, V v) { std::memcpy(p, &v, sizeof v); }
  static V splat(double a) {
    V v = {};
    for (int c = 0; c < W; ++c) v[c] = a;
    return v;
  }

  FASTCD_SCALAR_LOOPS static V dot(const double* __restrict a, const int* __restrict idx, int p0, int p1,
                                   const double* __restrict y) {
    V acc[4] = {};
    int p = p0;
    for (; p + 4 <= p1; p += 4)
      for (int u = 0; u < 4; ++u) acc[u] += splat(a[p + u]) * load(y + W * idx[p + u]);
    for (; p < p1; ++p) acc[0] += splat(a[p]) * load(y + W * idx[p]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }

  FASTCD_SCALAR_LOOPS static void solve(const KronCholesky::Impl& m, Index n, double* __restrict y,
                                        const double* __restrict b, double* __restrict x) {
    const int* __restrict perm = m.perm.data();
    const double* __restrict Dinv = m.Dinv.data();
    const int* __restrict Lp = m.Lp.data();
    const int* __restrict Li = m.Li.data();
    const double* __restrict Lx = m.Lx.data();
    for (Index i = 0; i < n; ++i) {
      V v = {};
      for (int c = 0; c < D; ++c) v[c] = b[i * D + c];
      store(y + W * perm[i], v);
    }
    if (!m.Rp.empty()) {
      for (Index i = 0; i < n; ++i)  // L y = y by rows
        store(y + W * i, load(y + W * i) - dot(m.Rx.data(), m.Ri.data(), m.Rp[static_cast<std::size_t>(i)],
                                               m.Rp[static_cast<std::size_t>(i) + 1], y));
    } else {
      for (Index j = 0; j < n; ++j) {  // L y = y by columns
        const V yj = load(y + W * j);
        for (int p = Lp[j]; p < Lp[j + 1]; ++p) store(y + W * Li[p], load(y + W * Li[p]) - splat(Lx[p]) * yj);
      }
    }
    for (Index j = n - 1; j >= 0; --j)  // y /= D, and L^T y = y by columns of L
      store(y + W * j, load(y + W * j) * splat(Dinv[j]) -
                           dot(Lx, Li, Lp[static_cast<std::size_t>(j)], Lp[static_cast<std::size_t>(j) + 1], y));
    for (Index i = 0; i < n; ++i)
      for (int c = 0; c < D; ++c) x[i * D + c] = y[W * perm[i] + c];
  }
};
#undef FASTCD_SCALAR_LOOPS
}  // namespace

Index KronCholesky::scratch_size() const { return d_ == 3 ? 4 * n_ : n_ * d_; }

std::size_t KronCholesky::memory_bytes() const {
  const Impl& m = *impl_;
  return sizeof(int) * (m.Lp.size() + m.Li.size() + m.Rp.size() + m.Ri.size() + m.perm.size()) +
         sizeof(double) * (m.Lx.size() + m.Rx.size() + m.Dinv.size());
}

Index KronCholesky::factor_entries() const {
  const Impl& m = *impl_;
  return static_cast<Index>(m.Lx.size()) + n_;
}

void KronCholesky::solve(const double* b, double* x, double* scratch) const {
  const Impl& m = *impl_;
  switch (d_) {
    case 1:
      LaneSolve<1>::solve(m, n_, scratch, b, x);
      break;
    case 2:
      LaneSolve<2>::solve(m, n_, scratch, b, x);
      break;
    case 3:
      LaneSolve<3>::solve(m, n_, scratch, b, x);
      break;
    default:
      FASTCD_CHECK(false, "only d in {1, 2, 3} is supported, got ", d_);
  }
}

}  // namespace fastcd
