#pragma once
// Always-on precondition checks that throw with a readable message.
#include <sstream>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

namespace fastcd {

namespace detail {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

/// Throws std::invalid_argument("<function>: <message>") when `cond` is false.
/// Usage: FASTCD_CHECK(X.cols() == 2, "X must be #V x 2, got ", X.rows(), " x ", X.cols());
#define FASTCD_CHECK(cond, ...)                                                                      \
  do {                                                                                               \
    if (!(cond)) throw std::invalid_argument(::fastcd::detail::concat(__func__, ": ", __VA_ARGS__)); \
  } while (0)

/// Throws std::runtime_error("<function>: <message>") when `cond` is false (numerical failure).
#define FASTCD_ENSURE(cond, ...)                                                                  \
  do {                                                                                            \
    if (!(cond)) throw std::runtime_error(::fastcd::detail::concat(__func__, ": ", __VA_ARGS__)); \
  } while (0)

/// "r x c" of any Eigen object, for messages.
template <class Derived>
std::string shape_of(const Eigen::EigenBase<Derived>& m) {
  return detail::concat(m.rows(), " x ", m.cols());
}

/// `text` with every control character (newline, tab, ...) replaced by '?', so that an error
/// message naming a strange file stays on one line.
std::string printable(std::string text);

/// dim must be 2 or 3.
void check_dim(Eigen::Index dim, const char* where);

/// X (#V x dim, dim in {2,3}, finite) and T (#T x (dim+1), indices in [0, #V)).
/// `simplex_size` is the required number of columns of T (0 = dim + 1).
void check_mesh(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::MatrixXi>& T,
                const char* where, Eigen::Index simplex_size = 0);

/// Every index in `idx` lies in [0, n).
void check_indices(const Eigen::Ref<const Eigen::VectorXi>& idx, Eigen::Index n, const char* what, const char* where);

/// True when every entry of v is finite: sum(v * 0) is 0 exactly for finite entries and NaN as
/// soon as one is NaN or infinite (IEEE arithmetic, no -ffast-math). One vectorised pass: cheap
/// enough for the per-step input checks of the solvers.
inline bool all_finite(const Eigen::Ref<const Eigen::VectorXd>& v) { return (v.array() * 0.0).sum() == 0.0; }

/// Every entry is finite.
void check_finite(const Eigen::Ref<const Eigen::MatrixXd>& A, const char* what, const char* where);

}  // namespace fastcd
