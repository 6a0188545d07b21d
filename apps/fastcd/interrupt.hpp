#pragma once
// Ctrl-C / SIGTERM during long CLI work: the handler only records the signal; the work notices
// it at its next progress update (Progress::update calls check_interrupt) and throws
// Interrupted, so the staging folder and temporary files are removed by the normal unwinding
// and no truncated output is left behind. The handler restores the default action, so a second
// signal stops the process at once.
#include <csignal>
#include <stdexcept>
#include <string>

namespace fastcd::cli {

/// Thrown when SIGINT or SIGTERM arrived; main() exits with 128 + signal.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int sig, const std::string& what) : std::runtime_error(what), signal_(sig) {}
  int signal_number() const { return signal_; }

 private:
  int signal_;
};

inline volatile std::sig_atomic_t g_interrupt_signal = 0;

extern "C" inline void fastcd_cli_on_signal(int sig) {
  g_interrupt_signal = sig;
  std::signal(sig, SIG_DFL);
}

inline void install_interrupt_handlers() {
  std::signal(SIGINT, fastcd_cli_on_signal);
  std::signal(SIGTERM, fastcd_cli_on_signal);
}

/// Throws Interrupted if a signal arrived; `where` says what was running ("simulating 37/222").
inline void check_interrupt(const std::string& where) {
  const int sig = g_interrupt_signal;
  if (sig != 0)
    throw Interrupted(sig, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + " while " + where +
                               "; nothing was written (partial output removed)");
}

}  // namespace fastcd::cli
