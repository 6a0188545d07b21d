#include "fastcd/bake/background_writer.hpp"

namespace fastcd {

BackgroundWriter::BackgroundWriter() : thread_([this] { loop(); }) {}

BackgroundWriter::~BackgroundWriter() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundWriter::push(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (error_) std::rethrow_exception(error_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void BackgroundWriter::finish() {
  std::unique_lock<std::mutex> lock(m_);
  done_cv_.wait(lock, [&] { return (jobs_.empty() && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void BackgroundWriter::loop() {
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    lock.unlock();
    std::exception_ptr e;
    try {
      job();
    } catch (...) {
      e = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    if (e && !error_) {
      error_ = e;
      jobs_.clear();
    }
    done_cv_.notify_all();
  }
}

}  // namespace fastcd
