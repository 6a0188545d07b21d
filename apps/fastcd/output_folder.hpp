#pragma once
// The folder a bake is written to, handled so that no run loses a user's data: the target is
// resolved (a trailing slash, '.', symlinks) and checked before any work — it may not be an
// existing file, contain or equal an input, or contain the current folder, and a non-empty
// folder is replaced (with --force) only when it is an earlier fastcd output (it holds
// run.json). The bake is staged in a hidden sibling `.<name>.partial-<pid>` (never inside the
// target), the target is locked against a concurrent run (flock on `.<name>.lock`), staging
// folders left by killed runs are removed, and commit() replaces the old output only once the
// new one is complete.
#include <filesystem>
#include <string>
#include <vector>

#include "interrupt.hpp"

namespace fastcd::cli {

class OutputFolder {
 public:
  /// @throws std::runtime_error naming the problem (see above) or a file-system error.
  OutputFolder(const std::string& out, const std::vector<std::string>& inputs, bool force);
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& stage() const { return stage_; }
  /// Moves the complete staging folder into place (the previous output is removed only after).
  void commit();

 private:
  std::filesystem::path target_, stage_, lock_path_;
  int lock_fd_ = -1;
  bool committed_ = false;
  WatchdogPath watch_stage_, watch_lock_;
};

}  // namespace fastcd::cli
