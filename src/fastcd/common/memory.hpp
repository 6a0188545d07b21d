#pragma once
// Memory: what this process may still allocate, refusing work that would not fit before it
// allocates (with the estimate and what to do), and the bytes held by Eigen objects (the
// solvers' memory_bytes() reports).
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Memory this process can still allocate: the least of the memory the system reports as
/// available (MemAvailable), what a cgroup's memory limit leaves, and what the process's own
/// limits leave (RLIMIT_AS and RLIMIT_DATA, as set by `ulimit -v` / `prlimit --as`, minus the
/// address space already mapped). 0 when none is known.
std::size_t available_memory_bytes();

/// A byte count for people, with two or three significant digits: "850 MiB", "3.2 GiB".
std::string memory_in_words(double bytes);

/// Thrown before work that would need more memory than this process can allocate.
/// what(): "<the work> needs about X, Y available: <what to do>".
class MemoryLimitError : public std::runtime_error {
 public:
  MemoryLimitError(const std::string& message, double needed, double available)
      : std::runtime_error(message), needed_(needed), available_(available) {}
  double needed() const { return needed_; }        ///< bytes the work was estimated to need
  double available() const { return available_; }  ///< bytes available_memory_bytes() reported

 private:
  double needed_, available_;
};

/// Refuses work that would not fit, before it allocates: throws MemoryLimitError
/// "<what> needs about X, Y available: <advice>" when `bytes` exceeds 90 % of
/// available_memory_bytes() (the rest is left for what the estimate does not count). Nothing
/// happens when the available memory is unknown.
/// @param what   the work in the user's terms ("the automatic weights of 1,094,000 vertices")
/// @param advice what to do instead ("use a coarser mesh, or ...")
void check_memory(double bytes, const std::string& what, const std::string& advice);

/// The size of a problem that would fit in 90 % of the available memory, when size `size` needs
/// `bytes` and the need grows as size^exponent (for advice: "about N vertices would fit").
double size_to_fit(double size, double bytes, double exponent);

/// Advice for work on a mesh of `vertices` vertices that needs `bytes`, growing about as
/// #V^1.5 (sparse factors of 3D meshes): "use a coarser mesh (with voxel tets, a lower voxel
/// resolution: about N vertices would fit)".
std::string coarser_mesh_advice(Index vertices, double bytes);

/// Entries of the sparse Cholesky factor L (diagonal included) of the symmetric n x n A (its
/// upper triangle is read) under CHOLMOD's AMD fill-reducing ordering: a symbolic analysis in
/// O(nnz(A)) time and memory that never forms the factor. Eigen's SimplicialLDLT (Eigen's port
/// of AMD) fills alike; supernodal or nested-dissection factors are usually smaller. Infinite
/// when not even the analysis fits in memory.
double cholesky_factor_entries(const SparseMatrix& A);

/// Refuses a simplicial sparse LDL^T factorisation of the symmetric A (Eigen::SimplicialLDLT)
/// that would not fit, before it runs: check_memory with the factorisation's peak (a double and
/// an index per factor entry, the ordering's and the permuted copies of A) plus `other_bytes`
/// held beside it, and MemoryLimitError too when the factor would have more entries than int
/// indices reach (it would overflow). Matrices below 2,000 rows are not analysed (their factor
/// fits in 25 MB whatever the ordering).
/// @param advice  what to do, given the bytes needed (for a size that would fit)
void check_factor_memory(const SparseMatrix& A, double other_bytes, const std::string& what,
                         const std::function<std::string(double bytes)>& advice);

}  // namespace fastcd

namespace fastcd::detail {

template <class Scalar, int R, int C, int O, int MR, int MC>
std::size_t bytes_of(const Eigen::Matrix<Scalar, R, C, O, MR, MC>& A) {
  return sizeof(Scalar) * static_cast<std::size_t>(A.size());
}

inline std::size_t bytes_of(const SparseMatrix& A) {
  return (sizeof(double) + sizeof(SparseMatrix::StorageIndex)) * static_cast<std::size_t>(A.nonZeros()) +
         sizeof(SparseMatrix::StorageIndex) * static_cast<std::size_t>(A.outerSize() + 1);
}

}  // namespace fastcd::detail
