#pragma once
// Progress reporting for long CLI work: a bar on a terminal, a few lines in a log. Progress and
// every other informational line go to stdout, so that on failure stderr holds exactly the
// one "fastcd: error: ..." line (plus any warnings about the input).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "fastcd/common/progress.hpp"

#include "interrupt.hpp"

namespace fastcd::cli {

class Progress {
 public:
  /// `start`: work already done when the bar appears (it starts there, not at 0 %).
  Progress(std::string label, int total, int start = 0)
      : label_(std::move(label)), total_(total), tty_(isatty(fileno(stdout))) {
    update(start);
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
    } else if (!finished_ && (pct >= next_pct_ || done >= total_)) {  // (100 % always, once)
      std::fprintf(stdout, "  %s: %d%%\n", label_.c_str(), pct);
      next_pct_ = (pct / 25 + 1) * 25;
      finished_ = done >= total_;
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

/// For its scope, the library's stage reports become lines on stdout ("  precompute (fast):
/// skinning eigenmodes (4/7)") once a piece of work has run for half a second, so loading and
/// precomputing never sit silent for long, on a terminal or in a log; quick work prints nothing.
class StageLines {
 public:
  StageLines() {
    set_progress_sink([this](const char* work, const char* stage, int done, int total) {
      const auto now = std::chrono::steady_clock::now();
      std::lock_guard<std::mutex> lock(m_);
      auto& start = started_[work];
      if (done == 0) start = now;
      if (std::chrono::duration<double>(now - start).count() >= 0.5) {
        if (total > 0)
          std::fprintf(stdout, "  %s: %s (%d/%d)\n", work, stage, done + 1, total);
        else  // work of unknown length: the stage says how far it is
          std::fprintf(stdout, "  %s: %s\n", work, stage);
        std::fflush(stdout);
      }
    });
  }
  ~StageLines() { set_progress_sink({}); }
  StageLines(const StageLines&) = delete;
  StageLines& operator=(const StageLines&) = delete;

 private:
  std::mutex m_;
  std::map<std::string, std::chrono::steady_clock::time_point> started_;
};

}  // namespace fastcd::cli
