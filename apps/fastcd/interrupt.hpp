#pragma once
// Ctrl-C / SIGTERM during long CLI work. The handler records the signal, asks the library to
// stop (fastcd::request_cancel: its long loops throw fastcd::Cancelled at their next check) and
// wakes a watchdog thread. Normally the work notices within milliseconds — at its next progress
// update (Progress::update calls check_interrupt) or library check — and unwinds, removing the
// staging folder and temporary files. If it has not finished unwinding after a short grace
// period (a long factorisation has no check), the watchdog stops the video encoders, removes
// every registered staging path itself, prints the one error line and exits with 128 + signal,
// so a signal always ends the process within a second and leaves nothing behind. The handler
// restores the default action, so a second signal stops the process at once.
#include <csignal>
#include <stdexcept>
#include <string>

#include "fastcd/bake/output_folder.hpp"

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

/// Installs the SIGINT/SIGTERM handlers and starts the watchdog thread.
void install_interrupt_handlers();

/// The message for an interrupted run: "interrupted by SIGINT while <where>; nothing was
/// written (partial output removed)".
std::string interrupted_message(int sig, const std::string& where);

/// Throws Interrupted if a signal arrived; `where` says what was running ("simulating 37/222").
void check_interrupt(const std::string& where);

/// What the CLI is doing now ("loading the scene", "precomputing", ...): named by the
/// watchdog's message and by main() when the library reports fastcd::Cancelled.
void set_phase(const std::string& phase);
std::string current_phase();

/// True for the first caller only: main (having unwound after a signal) and the watchdog (its
/// grace period over) both call it before printing the interrupt's error line, so exactly one
/// line is printed whichever finishes first.
bool claim_interrupt_report();

/// The CLI as the output folder's caller (fastcd/bake/output_folder.hpp): its messages name
/// --out and --force; the staging folder and the lock file are paths the watchdog removes
/// (recursively) if it has to end the process, until the folder no longer needs them (the stage
/// was moved into place, or the normal unwinding removed it); an earlier bake restored after a
/// killed run is said on stdout.
OutputFolderCaller output_folder_caller();

}  // namespace fastcd::cli
