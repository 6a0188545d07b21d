#pragma once
// Cooperative cancellation of long library work (a precompute, a step with many iterations, a
// weight solve). A program that wants Ctrl-C to stop fastcd promptly calls request_cancel()
// from its signal handler (a lock-free atomic store: async-signal-safe); the library's long
// loops notice it at their next check and throw fastcd::Cancelled, so everything unwinds
// normally. Nothing in the library sets the flag itself.
#include <stdexcept>
#include <string>

namespace fastcd {

/// Thrown by library work that noticed request_cancel().
class Cancelled : public std::runtime_error {
 public:
  explicit Cancelled(const std::string& where) : std::runtime_error("cancelled during " + where) {}
};

/// Asks running fastcd work to stop at its next check. Safe to call from a signal handler.
void request_cancel() noexcept;
/// Clears the request (before starting new work).
void clear_cancel() noexcept;
/// True once request_cancel() was called (and not cleared).
bool cancel_requested() noexcept;

namespace detail {
/// Throws Cancelled("<where>") when cancellation was requested; a relaxed atomic load otherwise.
void throw_if_cancelled(const char* where);
}  // namespace detail

}  // namespace fastcd
