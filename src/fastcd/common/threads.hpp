#pragma once
// fastcd's one thread policy. Every parallel loop of the library runs through parallel_for
// (oneTBB's work-stealing scheduler, whose idle workers sleep instead of spinning); nothing
// uses OpenMP, Eigen's own GEMM threading is compiled out (EIGEN_DONT_PARALLELIZE) and
// OpenBLAS (reached through CHOLMOD) runs on the calling thread only (SingleThreadedBlas).
//
// Results are bitwise identical for every thread count: each parallel loop computes every
// index exactly as the serial loop does (no reductions across chunks), so only the order in
// which independent pieces finish changes.
//
// Where the threads go: coarse, independent pieces first (the characters of an Ensemble, the
// precomputes of many characters, output writing), and per-element loops only for large meshes.
// Fine loops inside one solver step gain ~15 % on a quiet 2-core machine and lose 3x when another
// process is busy on a core (a parallel region waits for its slowest, descheduled thread), so
// the default is chosen per grain: see threads().
#include <cstddef>
#include <functional>
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// The number of threads fastcd's parallel loops may use: the last set_threads(n) with n >= 1,
/// else the FASTCD_THREADS environment variable, else the default, which is every hardware
/// thread (std::thread::hardware_concurrency) for coarse work and 1 for the fine loops inside
/// a step (fine_threads()).
int threads();
/// Sets the thread count (n >= 1), or back to the default (n = 0).
/// @throws std::invalid_argument for n < 0 or n > 1024.
void set_threads(int n);
/// Threads for fine loops inside one step or operator (per element, per vertex): threads()
/// when the count was set explicitly (set_threads or FASTCD_THREADS), 1 by default.
int fine_threads();
/// True when the count was set explicitly (set_threads(n >= 1) or FASTCD_THREADS).
bool threads_set_explicitly();

/// Parses a thread count as FASTCD_THREADS and `--threads` take it: a decimal integer in
/// [1, 1024], or "auto" / "0" for the default (returned as 0).
/// @throws std::invalid_argument naming `what` for anything else.
int parse_thread_count(const std::string& text, const std::string& what);

/// Runs body(begin, end) over [0, n) in chunks of at least `grain` indices, on up to
/// `max_threads` threads (0: threads()). Serial, on the calling thread and in order, when one
/// thread is allowed or n <= grain. Chunks are independent: body must not depend on which
/// thread runs it or on the order of chunks. Exceptions thrown by body propagate (the first).
void parallel_for(Index n, Index grain, const std::function<void(Index, Index)>& body, int max_threads = 0);

/// For the scope of this object, OpenBLAS (which CHOLMOD calls) uses one thread: its own
/// threads would compete with fastcd's, spin while waiting, and make results depend on the
/// count. Nested and concurrent scopes are fine; the caller's setting is restored when the last
/// scope ends. A no-op when the BLAS is not OpenBLAS.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

/// OpenBLAS's current thread count (0 when the BLAS in the process is not OpenBLAS).
int blas_threads();

}  // namespace fastcd
