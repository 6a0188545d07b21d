// Hash64: FNV-1a 64 (the published test vectors), and matrix keys that see shapes and values.
#include <gtest/gtest.h>

#include "fastcd/common/hash.hpp"

namespace fastcd {
namespace {

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

}  // namespace
}  // namespace fastcd
