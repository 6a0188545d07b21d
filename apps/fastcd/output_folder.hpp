#pragma once
// The folder a bake is written to, handled so that no run loses a user's data:
// - the target is resolved (a trailing slash, '.', symlinks) and checked before any work: it may
//   not be an existing file, contain or equal an input, contain the current folder, or be a
//   mount point (a container volume: a folder cannot be renamed over it, so the bake could
//   never be put in place; a folder inside it works);
// - the target is locked against a concurrent run (flock on `.<name>.lock` beside it) BEFORE it
//   is judged, and judged again just before the commit, so no second run replaces a bake it
//   did not see;
// - every bake holds a marker, `.fastcd-output`, listing every file and folder fastcd wrote in
//   it. A non-empty target is replaced (with --force) only when its marker lists everything in
//   it: a folder without the marker (a user's folder, or a bake of an older fastcd) or with
//   anything the marker does not list is refused, naming what is foreign;
// - the bake is staged in a hidden sibling `.<name>.partial-<pid>` (never inside the target);
//   commit() renames the old target to `.<name>.old-<pid>`, the stage into place, then removes
//   the old one. A later run finding an `.old-` folder of a dead run restores it when the
//   target is missing (the crash fell between the two renames) and removes staging folders of
//   dead runs.
#include <filesystem>
#include <string>
#include <vector>

#include "interrupt.hpp"

namespace fastcd::cli {

/// The marker file of a bake: {"fastcd_output": 1, "entries": [every path written, relative]}.
inline constexpr const char* kOutputMarker = ".fastcd-output";

class OutputFolder {
 public:
  /// Resolves, locks and checks the target (see above) before any work. `inputs` are the files
  /// known now (more may be given to start()); `force` allows replacing an earlier bake.
  /// @throws std::runtime_error naming the problem and what to do.
  OutputFolder(const std::string& out, const std::vector<std::string>& inputs, bool force);
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  /// Checks the inputs found while loading (the target may not contain them) and creates the
  /// empty staging folder.
  void start(const std::vector<std::string>& inputs);

  const std::filesystem::path& target() const { return target_; }
  /// The staging folder (valid after start()).
  const std::filesystem::path& stage() const { return stage_; }
  /// Writes the marker, checks the target again and moves the complete staging folder into
  /// place (the previous output is removed only after).
  void commit();

 private:
  void check_inputs(const std::vector<std::string>& inputs) const;
  void unlock();

  std::string out_;
  bool force_ = false;
  std::filesystem::path target_, stage_, lock_path_;
  int lock_fd_ = -1;
  bool started_ = false, committed_ = false;
  WatchdogPath watch_stage_, watch_lock_;
};

}  // namespace fastcd::cli
