#pragma once
// BackgroundWriter: jobs run in order on one background thread (a bake's frame OBJs, written
// while the next frames simulate).
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace fastcd {

/// The first job's exception is rethrown by push() or finish(); the destructor drops what is
/// left and joins, so an error or a cancellation in the caller unwinds without waiting for writes.
class BackgroundWriter {
 public:
  BackgroundWriter();
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  /// Queues a job; rethrows an earlier job's failure.
  void push(std::function<void()> job);
  /// Waits for every job; rethrows the first failure.
  void finish();

 private:
  void loop();
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false, busy_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fastcd
