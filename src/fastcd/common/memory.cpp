#include "fastcd/common/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace fastcd {

std::size_t available_memory_bytes() {
  // MemAvailable counts reclaimable caches, which sysconf(_SC_AVPHYS_PAGES) does not.
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long kb = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        std::fclose(f);
        return static_cast<std::size_t>(kb) * 1024;
      }
    }
    std::fclose(f);
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

}  // namespace fastcd
