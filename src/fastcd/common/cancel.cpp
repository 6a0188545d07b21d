#include "fastcd/common/cancel.hpp"

#include <atomic>

namespace fastcd {

namespace {
std::atomic<int> g_cancel{0};
static_assert(std::atomic<int>::is_always_lock_free, "request_cancel must be async-signal-safe");
thread_local const CancelToken* t_token = nullptr;  ///< this thread's innermost CancelScope
}  // namespace

void request_cancel() noexcept { g_cancel.store(1, std::memory_order_relaxed); }
void clear_cancel() noexcept { g_cancel.store(0, std::memory_order_relaxed); }
bool cancel_requested() noexcept {
  return g_cancel.load(std::memory_order_relaxed) != 0 || (t_token != nullptr && t_token->requested());
}

CancelScope::CancelScope(const CancelToken* token) noexcept : saved_(t_token) { t_token = token; }
CancelScope::~CancelScope() { t_token = saved_; }
const CancelToken* current_cancel_token() noexcept { return t_token; }

namespace detail {
void throw_if_cancelled(const char* where) {
  if (cancel_requested()) throw Cancelled(where);
}
}  // namespace detail

}  // namespace fastcd
