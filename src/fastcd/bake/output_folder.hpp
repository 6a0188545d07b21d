#pragma once
// The folder a bake is written to, handled so that no run loses a user's data (the one rule of
// `fastcd run --out`, `fastcd tutorial --out` and Python's `fastcd.bake(out_dir=...)`):
// - the target is resolved (a trailing slash, '.', symlinks) and checked before any work: it may
//   not be an existing file, contain or equal an input, contain the current folder, or be a
//   mount point (a container volume: a folder cannot be renamed over it, so the bake could
//   never be put in place; a folder inside it works);
// - the target is locked against a concurrent run (flock on `.<name>.lock` beside it) BEFORE it
//   is judged, and judged again just before the commit, so no second run replaces a bake it
//   did not see;
// - every bake holds a marker, `.fastcd-output`, listing every file and folder fastcd wrote in
//   it. A non-empty target is replaced (when the caller forces it) only when its marker lists
//   everything in it: a folder without the marker (a user's folder, or a bake of an older
//   fastcd) or with anything the marker does not list is refused, naming what is foreign;
// - the bake is staged in a hidden sibling `.<name>.partial-<pid>` (never inside the target);
//   commit() renames the old target to `.<name>.old-<pid>`, the stage into place, then removes
//   the old one. A later run finding an `.old-` folder of a dead run restores it when the
//   target is missing (the crash fell between the two renames) and removes staging folders of
//   dead runs.
// The class never prints: what a caller shows or does besides (the CLI's watchdog, its
// "restored" line) goes through OutputFolderCaller.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fastcd {

/// The marker file of a bake: {"fastcd_output": 1, "entries": [every path written, relative]}.
inline constexpr const char* kOutputMarker = ".fastcd-output";

/// What differs between the callers of OutputFolder: how they name their settings in the
/// messages, and what they do beside it. Every member has the CLI's value by default.
struct OutputFolderCaller {
  /// The setting that names the folder, as the caller's user writes it: "--out" (a command
  /// line: "--out DIR"), or "out_dir" (a keyword argument: "out_dir='DIR'").
  std::string out_option = "--out";
  /// How the user asks to replace an earlier bake: "--force", or "force=True".
  std::string force_option = "--force";
  /// `watch(path)`: a path (the staging folder, the lock file) to remove if the process dies
  /// before `unwatch(path)` (the CLI's watchdog after a second Ctrl-C). Either may be empty.
  std::function<void(const std::string&)> watch, unwatch;
  /// Told that an earlier bake a killed run was replacing was put back in place (the CLI prints
  /// it). May be empty.
  std::function<void(const std::filesystem::path& target)> restored;
};

class OutputFolder {
 public:
  /// Resolves, locks and checks the target (see above) before any work. `inputs` are the files
  /// known now (more may be given to start()); `force` allows replacing an earlier bake.
  /// @throws std::runtime_error naming the problem and what to do, in the caller's words.
  OutputFolder(const std::string& out, const std::vector<std::string>& inputs, bool force,
               OutputFolderCaller caller = {});
  /// Removes the staging folder unless committed, and unlocks.
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
  /// A path the caller's watch hook knows about until released (or this object is destroyed).
  class Watched {
   public:
    Watched(const OutputFolderCaller& caller, std::string path);
    ~Watched();
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;
    void release();

   private:
    const OutputFolderCaller& caller_;
    std::string path_;
    bool active_ = true;
  };

  void check_inputs(const std::vector<std::string>& inputs) const;
  std::string refusal() const;
  void recover() const;
  void unlock();

  std::string out_;
  bool force_ = false;
  OutputFolderCaller caller_;
  std::filesystem::path target_, stage_, lock_path_;
  int lock_fd_ = -1;
  bool started_ = false, committed_ = false;
  Watched watch_stage_, watch_lock_;
};

}  // namespace fastcd
