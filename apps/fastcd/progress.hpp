#pragma once
// Progress reporting for long CLI work: a bar on a terminal, a few lines in a log.
#include <unistd.h>

#include <cstdio>
#include <string>

namespace fastcd::cli {

class Progress {
 public:
  Progress(std::string label, int total) : label_(std::move(label)), total_(total), tty_(isatty(fileno(stderr))) {
    update(0);
  }
  void update(int done) {
    const int pct = total_ > 0 ? 100 * done / total_ : 100;
    if (tty_) {
      const int width = 30, fill = width * pct / 100;
      std::fprintf(stderr, "\r  %-28s [%s%s] %3d%%", label_.c_str(), std::string(fill, '#').c_str(),
                   std::string(width - fill, '.').c_str(), pct);
      if (done >= total_) std::fprintf(stderr, "\n");
    } else if (pct >= next_pct_ || (done >= total_ && next_pct_ <= 100)) {
      std::fprintf(stderr, "  %s: %d%%\n", label_.c_str(), pct);
      next_pct_ = done >= total_ ? 101 : pct + 25;
    }
    std::fflush(stderr);
  }

 private:
  std::string label_;
  int total_;
  bool tty_;
  int next_pct_ = 0;
};

}  // namespace fastcd::cli
