// Hash64: FNV-1a 64, and Sha256: FIPS 180-4 (the published test vectors of both), and matrix
// keys that see shapes and values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "fastcd/common/hash.hpp"

namespace fastcd {
namespace test_hash {

TEST(Hash64, MatchesTheFnv1aTestVectors) {
  Hash64 empty;
  EXPECT_EQ(empty.value(), 0xcbf29ce484222325ULL);
  EXPECT_EQ(empty.hex(), "cbf29ce484222325");
  Hash64 a;
  a.add("a");
  EXPECT_EQ(a.value(), 0xaf63dc4c8601ec8cULL);
  Hash64 foobar;
  foobar.add("foobar");
  EXPECT_EQ(foobar.value(), 0x85944171f73967e8ULL);
}

TEST(Hash64, MatrixKeysSeeShapeValuesAndSparsity) {
  const auto key = [](const auto& m) {
    Hash64 h;
    h.add_matrix(m);
    return h.value();
  };
  MatrixXd A(2, 3);
  A << 1, 2, 3, 4, 5, 6;
  const MatrixXd A_reshaped = A.reshaped(3, 2);
  EXPECT_NE(key(A), key(A_reshaped));  // same bytes, other shape
  MatrixXd B = A;
  EXPECT_EQ(key(A), key(B));
  B(1, 2) = std::nextafter(6.0, 7.0);  // one bit
  EXPECT_NE(key(A), key(B));
  EXPECT_EQ(key(A.block(0, 0, 2, 2)), key(MatrixXd(A.block(0, 0, 2, 2))));  // expressions hash as values
  const auto skey = [](const SparseMatrix& m) {
    Hash64 h;
    h.add_sparse(m);
    return h.value();
  };
  SparseMatrix S = A.sparseView(), T = A.sparseView();
  EXPECT_EQ(skey(S), skey(T));
  T.coeffRef(0, 0) = 0.0;
  T.prune(0.0);
  EXPECT_NE(skey(S), skey(T));
}

TEST(Sha256, MatchesTheFips180TestVectors) {
  const auto hex = [](std::string_view s) {
    Sha256 h;
    h.add(s);
    return h.hex();
  };
  EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrst"
          "nopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  // A million 'a's in pieces of every size up to 130 bytes (across the 64-byte blocks).
  Sha256 million;
  const std::string a(130, 'a');
  std::size_t added = 0;
  for (std::size_t piece = 0; added < 1000000; piece = (piece + 1) % 131) {
    const std::size_t n = std::min(piece, 1000000 - added);
    million.add(a.data(), n);
    added += n;
  }
  EXPECT_EQ(million.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // The digest so far, then more: the same as the whole at once.
  Sha256 parts;
  parts.add("ab");
  EXPECT_EQ(parts.hex(), hex("ab"));
  parts.add("c");
  EXPECT_EQ(parts.hex(), hex("abc"));
  EXPECT_EQ(parts.digest()[0], 0xba);
}

TEST(Sha256, MatrixKeysSeeShapeValuesAndSparsity) {
  MatrixXd A(2, 3);
  A << 1, 2, 3, 4, 5, 6;
  const auto key = [](const auto& m) {
    Sha256 h;
    h.add_matrix(m);
    return h.hex();
  };
  const MatrixXd A_reshaped = A.reshaped(3, 2);
  EXPECT_NE(key(A), key(A_reshaped));
  MatrixXd B = A;
  B(1, 2) = std::nextafter(6.0, 7.0);
  EXPECT_NE(key(A), key(B));
  Sha256 s, t;
  s.add_sparse(A.sparseView());
  SparseMatrix S = A.sparseView();
  S.coeffRef(0, 0) = 0.0;
  t.add_sparse(S);  // an explicit zero is an entry
  EXPECT_NE(s.hex(), t.hex());
}

}  // namespace test_hash
}  // namespace fastcd
