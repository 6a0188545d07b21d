#pragma once
// Cooperative cancellation of long library work (a precompute, a step with many iterations, a
// weight solve). A program that wants Ctrl-C to stop fastcd promptly calls request_cancel()
// from its signal handler (a lock-free atomic store: async-signal-safe); the library's long
// loops notice it at their next check and throw fastcd::Cancelled, so everything unwinds
// normally. Nothing in the library sets the flag itself.
//
// Several jobs in one process (two bakes in Blender, each on its own thread) cancel one at a
// time with a CancelToken: work run on a thread inside a CancelScope of the token stops when the
// token is requested (and still when request_cancel() is), and parallel_for carries the scope
// into its tasks; work of other jobs goes on.
#include <atomic>
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
/// True once request_cancel() was called (and not cleared), or once the token of this thread's
/// innermost CancelScope was requested.
bool cancel_requested() noexcept;

/// The cancellation of one job: request() stops the work that runs inside its CancelScope.
class CancelToken {
 public:
  /// Safe from any thread (a lock-free atomic store).
  void request() noexcept { flag_.store(1, std::memory_order_relaxed); }
  bool requested() const noexcept { return flag_.load(std::memory_order_relaxed) != 0; }

 private:
  std::atomic<int> flag_{0};
};

/// For its lifetime, the library's checks on this thread answer to `token` as well as to
/// request_cancel() (nullptr: to request_cancel() alone). Scopes nest; the token outlives the scope.
class CancelScope {
 public:
  explicit CancelScope(const CancelToken* token) noexcept;
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const CancelToken* saved_;
};

/// The token of this thread's innermost CancelScope (nullptr outside any): what a thread started
/// for a job's work passes to its own CancelScope.
const CancelToken* current_cancel_token() noexcept;

namespace detail {
/// Throws Cancelled("<where>") when cancellation was requested; a relaxed atomic load otherwise.
void throw_if_cancelled(const char* where);
}  // namespace detail

}  // namespace fastcd
