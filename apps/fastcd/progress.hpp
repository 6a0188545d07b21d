#pragma once
// Progress reporting for long CLI work: a bar on a terminal, a few lines in a log. Progress and
// every other informational line go to stdout, so that on failure stderr holds exactly the
// one "fastcd: error: ..." line (plus any warnings about the input).
#include <unistd.h>

#include <cstdio>
#include <string>

#include "interrupt.hpp"

namespace fastcd::cli {

class Progress {
 public:
  Progress(std::string label, int total) : label_(std::move(label)), total_(total), tty_(isatty(fileno(stdout))) {
    update(0);
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// An unfinished bar (the work threw) ends its line so the error starts on a fresh one.
  ~Progress() {
    if (tty_ && !finished_) {
      std::fprintf(stdout, "\n");
      std::fflush(stdout);
    }
  }
  /// Shows `done` of `total`; throws Interrupted if Ctrl-C / SIGTERM arrived (see interrupt.hpp).
  void update(int done) {
    if (g_interrupt_signal != 0) check_interrupt(label_ + " " + std::to_string(done) + "/" + std::to_string(total_));
    const int pct = total_ > 0 ? 100 * done / total_ : 100;
    if (tty_) {
      const int width = 30, fill = width * pct / 100;
      std::fprintf(stdout, "\r  %-28s [%s%s] %3d%%", label_.c_str(), std::string(fill, '#').c_str(),
                   std::string(width - fill, '.').c_str(), pct);
      if (done >= total_ && !finished_) std::fprintf(stdout, "\n");
      finished_ = finished_ || done >= total_;
    } else if (pct >= next_pct_ || (done >= total_ && next_pct_ <= 100)) {
      std::fprintf(stdout, "  %s: %d%%\n", label_.c_str(), pct);
      next_pct_ = done >= total_ ? 101 : pct + 25;
    }
    std::fflush(stdout);
  }

 private:
  std::string label_;
  int total_;
  bool tty_;
  int next_pct_ = 0;
  bool finished_ = false;
};

}  // namespace fastcd::cli
