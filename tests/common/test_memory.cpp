// Memory estimates and refusals (issue 39, item 9): the memory available honours the process's
// address-space limit, a refusal says what needs how much and what to do, and the symbolic
// factor count matches the factorisation it stands for.
#include "fastcd/common/memory.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/SparseCholesky>
#include <cstdio>
#include <cstring>
#include <functional>

#include "test_util.hpp"

namespace fastcd {
namespace test_memory {

/// Runs `body` in a child process under an address-space limit of what is mapped now plus
/// `headroom` bytes; the child's exit code (0: every check passed).
int under_limit(double headroom, const std::function<bool()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    double mapped = 0;
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
      char line[256];
      unsigned long long kb = 0;
      while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmSize: %llu kB", &kb) == 1) mapped = static_cast<double>(kb) * 1024.0;
      std::fclose(f);
    }
    const auto cap = static_cast<rlim_t>(mapped + headroom);
    const rlimit r{cap, cap};
    if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(3);
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
      ok = false;
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The n^dim grid's graph Laplacian (+ identity), the pattern of a mesh's stiffness matrix.
SparseMatrix grid_laplacian(int n, int dim) {
  const int count = dim == 2 ? n * n : n * n * n;
  std::vector<Triplet> t;
  for (int v = 0; v < count; ++v) {
    int c[3] = {v % n, (v / n) % n, v / (n * n)};
    t.emplace_back(v, v, 2.0 * dim + 1.0);
    for (int a = 0; a < dim; ++a)
      if (c[a] + 1 < n) {
        int w = v + (a == 0 ? 1 : a == 1 ? n : n * n);
        t.emplace_back(v, w, -1.0);
        t.emplace_back(w, v, -1.0);
      }
  }
  SparseMatrix A(count, count);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

TEST(Memory, InWordsWithAFewDigits) {
  EXPECT_EQ(memory_in_words(512.0 * 1048576), "512 MiB");
  EXPECT_EQ(memory_in_words(3.2 * 1073741824), "3.2 GiB");
  EXPECT_EQ(memory_in_words(1010.0 * 1048576), "0.986 GiB");  // never "1.01e+03 MiB"
  EXPECT_EQ(memory_in_words(50.0 * 1048576), "50 MiB");
  EXPECT_EQ(memory_in_words(2.0 * 1099511627776), "2 TiB");
}

TEST(Memory, AvailableHonoursTheAddressSpaceLimit) {
  // `ulimit -v` / `prlimit --as`: what is left of the limit, however much the system has free.
  const double headroom = 256.0 * 1048576;
  EXPECT_EQ(under_limit(headroom,
                        [&] {
                          const auto avail = static_cast<double>(available_memory_bytes());
                          return avail > 0 && avail <= headroom * 1.05;
                        }),
            0);
}

TEST(Memory, ARefusalSaysWhatNeedsHowMuchAndWhatToDo) {
  EXPECT_EQ(under_limit(256.0 * 1048576,
                        [] {
                          try {
                            check_memory(8.0 * 1073741824, "baking the thing", "use a smaller thing");
                          } catch (const MemoryLimitError& e) {
                            const std::string what = e.what();
                            return what.rfind("baking the thing needs about 8 GiB, ", 0) == 0 &&
                                   what.find(" MiB available: use a smaller thing") != std::string::npos &&
                                   e.needed() == 8.0 * 1073741824 && e.available() > 0;
                          }
                          return false;
                        }),
            0);
  check_memory(1024.0, "a little", "nothing");  // (fits: no exception)
}

TEST(Memory, FactorEntriesMatchTheFactorisation) {
  const SparseMatrix A = grid_laplacian(60, 2);  // 3,600 rows
  const Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
  ASSERT_EQ(ldlt.info(), Eigen::Success);
  const double eigen_entries = static_cast<double>(SparseMatrix(ldlt.matrixL()).nonZeros());
  const double estimate = cholesky_factor_entries(A);
  EXPECT_GT(estimate, 0.75 * eigen_entries);
  EXPECT_LT(estimate, 1.33 * eigen_entries);
}

TEST(Memory, AFactorThatDoesNotFitIsRefusedBeforeItIsFormed) {
  // A 40^3 grid: a factor of tens of millions of entries, under 64 MB of headroom.
  const SparseMatrix A = grid_laplacian(40, 3);
  EXPECT_EQ(under_limit(64.0 * 1048576,
                        [&] {
                          try {
                            check_factor_memory(A, 0.0, "solving on the grid",
                                                [](double bytes) { return "less than " + memory_in_words(bytes); });
                          } catch (const MemoryLimitError& e) {
                            const std::string what = e.what();
                            return what.rfind("solving on the grid needs about ", 0) == 0 &&
                                   what.find("available: less than ") != std::string::npos;
                          }
                          return false;
                        }),
            0);
}

}  // namespace test_memory
}  // namespace fastcd
