#include "fastcd/common/hash.hpp"

#include <cstdio>

namespace fastcd {

void Hash64::add_sparse(const SparseMatrix& m) {
  const Index shape[3] = {m.rows(), m.cols(), m.nonZeros()};
  add(shape, sizeof shape);
  for (Index k = 0; k < m.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(m, k); it; ++it) {
      const Index at[2] = {it.row(), it.col()};
      const double v = it.value();
      add(at, sizeof at);
      add(&v, sizeof v);
    }
}

std::string Hash64::hex() const {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h_));
  return s;
}

}  // namespace fastcd
