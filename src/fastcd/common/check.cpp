#include "fastcd/common/check.hpp"

#include <cmath>

namespace fastcd {

void check_dim(Eigen::Index dim, const char* where) {
  if (dim != 2 && dim != 3) throw std::invalid_argument(detail::concat(where, ": dimension must be 2 or 3, got ", dim));
}

void check_finite(const Eigen::Ref<const Eigen::MatrixXd>& A, const char* what, const char* where) {
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      if (!std::isfinite(A(i, j)))
        throw std::invalid_argument(
            detail::concat(where, ": ", what, "(", i, ", ", j, ") is not finite (", A(i, j), ")"));
}

void check_indices(const Eigen::Ref<const Eigen::VectorXi>& idx, Eigen::Index n, const char* what, const char* where) {
  for (Eigen::Index i = 0; i < idx.size(); ++i)
    if (idx(i) < 0 || idx(i) >= n)
      throw std::invalid_argument(
          detail::concat(where, ": ", what, "[", i, "] = ", idx(i), " is out of range [0, ", n, ")"));
}

void check_mesh(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::MatrixXi>& T,
                const char* where, Eigen::Index simplex_size) {
  check_dim(X.cols(), where);
  const Eigen::Index s = simplex_size == 0 ? X.cols() + 1 : simplex_size;
  if (T.cols() != s)
    throw std::invalid_argument(
        detail::concat(where, ": T must be #T x ", s, " for ", X.cols(), "D vertices, got ", shape_of(T)));
  if (T.rows() == 0) throw std::invalid_argument(detail::concat(where, ": T is empty"));
  check_finite(X, "X", where);
  for (Eigen::Index e = 0; e < T.rows(); ++e)
    for (Eigen::Index a = 0; a < T.cols(); ++a)
      if (T(e, a) < 0 || T(e, a) >= X.rows())
        throw std::invalid_argument(
            detail::concat(where, ": T(", e, ", ", a, ") = ", T(e, a), " is out of range [0, ", X.rows(), ")"));
}

std::string printable(std::string text) {
  for (char& ch : text)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return text;
}

}  // namespace fastcd
