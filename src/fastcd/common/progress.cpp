#include "fastcd/common/progress.hpp"

#include <memory>
#include <utility>

namespace fastcd {

namespace {
std::shared_ptr<const ProgressSink> g_sink;  // replaced only between pieces of library work
}  // namespace

void set_progress_sink(ProgressSink sink) {
  std::atomic_store(
      &g_sink, sink ? std::make_shared<const ProgressSink>(std::move(sink)) : std::shared_ptr<const ProgressSink>());
}

namespace detail {
void report_progress(const char* work, const char* stage, int done, int total) {
  const std::shared_ptr<const ProgressSink> s = std::atomic_load(&g_sink);
  if (s) (*s)(work, stage, done, total);
}
}  // namespace detail

}  // namespace fastcd
