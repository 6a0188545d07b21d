#include "fastcd/common/memory.hpp"

#include <cholmod.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

namespace fastcd {

namespace {

/// The value (in bytes) of "<key> <number> kB" in a /proc file, or of "<key> <number>" when
/// `kilobytes` is false.
std::optional<double> proc_value(const char* path, const char* key, bool kilobytes = true) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return std::nullopt;
  std::optional<double> out;
  char line[256];
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, n) != 0) continue;
    unsigned long long v = 0;
    if (std::sscanf(line + n, " %llu", &v) == 1) out = static_cast<double>(v) * (kilobytes ? 1024.0 : 1.0);
    break;
  }
  std::fclose(f);
  return out;
}

/// A number alone in a file (cgroup limits); nullopt for "max" or a missing file.
std::optional<double> file_number(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long v = 0;
  const bool ok = std::fscanf(f, "%llu", &v) == 1;
  std::fclose(f);
  return ok ? std::optional<double>(static_cast<double>(v)) : std::nullopt;
}

/// What the resource limit `which` leaves beside `used` bytes (nullopt when unlimited).
std::optional<double> limit_left(int which, std::optional<double> used) {
  rlimit r{};
  if (::getrlimit(which, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return std::max(0.0, static_cast<double>(r.rlim_cur) - used.value_or(0.0));
}

}  // namespace

std::size_t available_memory_bytes() {
  double best = std::numeric_limits<double>::infinity();
  const auto take = [&best](std::optional<double> v) {
    if (v) best = std::min(best, *v);
  };
  // MemAvailable counts reclaimable caches, which sysconf(_SC_AVPHYS_PAGES) does not.
  if (const auto avail = proc_value("/proc/meminfo", "MemAvailable:")) {
    take(avail);
  } else {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) take(static_cast<double>(pages) * static_cast<double>(page));
  }
  // A container's limit (cgroup v2, else v1): the limit less what is charged, page cache that
  // can be dropped not counted as charged.
  if (const auto max = file_number("/sys/fs/cgroup/memory.max")) {
    const double used = file_number("/sys/fs/cgroup/memory.current").value_or(0.0) -
                        proc_value("/sys/fs/cgroup/memory.stat", "inactive_file", false).value_or(0.0);
    take(std::max(0.0, *max - std::max(0.0, used)));
  } else if (const auto max1 = file_number("/sys/fs/cgroup/memory/memory.limit_in_bytes"); max1 && *max1 < 1e18) {
    take(std::max(0.0, *max1 - file_number("/sys/fs/cgroup/memory/memory.usage_in_bytes").value_or(0.0)));
  }
  // The process's own limits count address space, not memory in use: VmSize and VmData.
  take(limit_left(RLIMIT_AS, proc_value("/proc/self/status", "VmSize:")));
  take(limit_left(RLIMIT_DATA, proc_value("/proc/self/status", "VmData:")));
  if (!std::isfinite(best)) return 0;
  return static_cast<std::size_t>(best);
}

std::string memory_in_words(double bytes) {
  const double mib = bytes / 1048576.0, gib = mib / 1024.0;
  char buf[64];
  if (gib >= 1000.0)
    std::snprintf(buf, sizeof buf, "%.3g TiB", gib / 1024.0);
  else if (mib >= 1000.0)
    std::snprintf(buf, sizeof buf, "%.3g GiB", gib);
  else
    std::snprintf(buf, sizeof buf, mib >= 100.0 ? "%.0f MiB" : "%.2g MiB", std::max(mib, 0.01));
  return buf;
}

void check_memory(double bytes, const std::string& what, const std::string& advice) {
  const auto avail = static_cast<double>(available_memory_bytes());
  if (!(avail > 0) || bytes <= 0.9 * avail) return;
  // (Between 90 % and all of it, say why it is refused.)
  const std::string available = bytes <= avail ? "more than the " + memory_in_words(0.9 * avail) +
                                                     " fastcd may use of the " + memory_in_words(avail) + " available"
                                               : memory_in_words(avail) + " available";
  throw MemoryLimitError(what + " needs about " + memory_in_words(bytes) + ", " + available + ": " + advice, bytes,
                         avail);
}

double size_to_fit(double size, double bytes, double exponent) {
  const auto avail = static_cast<double>(available_memory_bytes());
  if (!(avail > 0 && bytes > 0 && size > 0 && exponent > 0)) return 0.0;
  return std::floor(size * std::pow(std::min(1.0, 0.9 * avail / bytes), 1.0 / exponent));
}

std::string coarser_mesh_advice(Index vertices, double bytes) {
  // Two significant digits: the growth law is only roughly #V^1.5.
  const double fit = size_to_fit(static_cast<double>(vertices), bytes, 1.5);
  const double unit = fit >= 10 ? std::pow(10.0, std::floor(std::log10(fit)) - 1) : 1.0;
  return "use a coarser mesh (with voxel tets, a lower voxel resolution: about " +
         std::to_string(static_cast<long long>(std::floor(fit / unit) * unit)) + " vertices would fit)";
}

double cholesky_factor_entries(const SparseMatrix& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("cholesky_factor_entries: the matrix must be square");
  if (A.rows() == 0) return 0.0;
  SparseMatrix copy;
  const SparseMatrix* S = &A;
  if (!A.isCompressed()) {
    copy = A;
    copy.makeCompressed();
    S = &copy;
  }
  cholmod_sparse view{};
  view.nrow = view.ncol = static_cast<std::size_t>(S->rows());
  view.nzmax = static_cast<std::size_t>(S->nonZeros());
  view.p = const_cast<int*>(S->outerIndexPtr());
  view.i = const_cast<int*>(S->innerIndexPtr());
  view.stype = 1;  // the upper triangle
  view.itype = CHOLMOD_INT;
  view.xtype = CHOLMOD_PATTERN;
  view.dtype = CHOLMOD_DOUBLE;
  view.sorted = 1;
  view.packed = 1;
  cholmod_common c;
  cholmod_start(&c);
  c.print = 0;  // the library never prints
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_AMD;
  c.supernodal = CHOLMOD_SIMPLICIAL;  // column counts only: no supernodal pattern
  c.postorder = 0;
  cholmod_factor* L = cholmod_analyze(&view, &c);
  const bool out_of_memory = c.status == CHOLMOD_OUT_OF_MEMORY;
  const double entries = L != nullptr ? c.lnz : std::numeric_limits<double>::quiet_NaN();
  if (L != nullptr) cholmod_free_factor(&L, &c);
  cholmod_finish(&c);
  // Not even the analysis fits: the factor, larger by far, does not either.
  if (out_of_memory) return std::numeric_limits<double>::infinity();
  return entries;
}

void check_factor_memory(const SparseMatrix& A, double other_bytes, const std::string& what,
                         const std::function<std::string(double bytes)>& advice) {
  if (A.rows() < 2000) return;
  const double entries = cholesky_factor_entries(A);
  if (std::isnan(entries)) return;  // (the analysis failed for another reason: the factorisation will say)
  const auto avail = static_cast<double>(available_memory_bytes());
  if (std::isinf(entries))
    throw MemoryLimitError(what + " needs more than the " + memory_in_words(avail) +
                               " available (not even the analysis of its sparse factorisation fits): " +
                               advice(std::max(avail, 1.0) * 10.0),
                           entries, avail);
  const auto nnz = static_cast<double>(A.nonZeros()), n = static_cast<double>(A.rows());
  const double bytes = 12.0 * entries + 24.0 * nnz + 64.0 * n + other_bytes;
  if (entries >= static_cast<double>(std::numeric_limits<int>::max())) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", entries);
    throw MemoryLimitError(what + " needs about " + memory_in_words(bytes) + " (a sparse factor of " + count +
                               " entries, more than one factor can index): " + advice(bytes),
                           bytes, avail);
  }
  check_memory(bytes, what, advice(bytes));
}

}  // namespace fastcd
