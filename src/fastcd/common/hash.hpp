#pragma once
// Hashes of bytes: Sha256 (FIPS 180-4, computed by OpenSSL), the full key and the payload checksum every cache file
// carries (io/cache_file), so a file renamed, copied or damaged is told apart from the entry it
// claims to be; and Hash64, a 64-bit FNV-1a (fast, not cryptographic) for keys that stay in
// memory.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fastcd/common/types.hpp"

namespace fastcd {

namespace detail {

/// What the hashes below take besides raw bytes (Derived::add(data, bytes)): strings, dense
/// matrices (shape, then the values column by column, bit for bit) and sparse matrices (shape,
/// then every stored entry's row, column and value in storage order).
template <class Derived>
class HashFeed {
 public:
  void add(std::string_view s) { self().add(s.data(), s.size()); }
  template <typename M>
  void add_matrix(const Eigen::DenseBase<M>& m) {
    const Index shape[2] = {m.rows(), m.cols()};
    self().add(shape, sizeof shape);
    const Eigen::Matrix<typename M::Scalar, Eigen::Dynamic, Eigen::Dynamic> c = m;
    self().add(c.data(), sizeof(typename M::Scalar) * static_cast<std::size_t>(c.size()));
  }
  void add_sparse(const SparseMatrix& m) {
    const Index shape[3] = {m.rows(), m.cols(), m.nonZeros()};
    self().add(shape, sizeof shape);
    for (Index k = 0; k < m.outerSize(); ++k)
      for (SparseMatrix::InnerIterator it(m, k); it; ++it) {
        const Index at[2] = {it.row(), it.col()};
        const double v = it.value();
        self().add(at, sizeof at);
        self().add(&v, sizeof v);
      }
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace detail

class Hash64 : public detail::HashFeed<Hash64> {
 public:
  using HashFeed::add;
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
  }
  std::uint64_t value() const { return h_; }
  std::string hex() const;  ///< 16 lower-case hex digits

 private:
  std::uint64_t h_ = 14695981039346656037ULL;  // the FNV-1a 64 offset basis
};

/// SHA-256 of everything added so far (OpenSSL's libcrypto: its SHA-NI / AVX2 kernels, and a
/// well-kept implementation of a function whose every bit matters); digest() and hex() may be
/// asked at any point (adding more afterwards continues the same message). Copies continue
/// independently.
class Sha256 : public detail::HashFeed<Sha256> {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  using HashFeed::add;
  void add(const void* data, std::size_t bytes);
  std::array<std::uint8_t, 32> digest() const;
  std::string hex() const;  ///< 64 lower-case hex digits

 private:
  void* ctx_ = nullptr;  ///< OpenSSL's EVP_MD_CTX (kept out of this header)
};

}  // namespace fastcd
