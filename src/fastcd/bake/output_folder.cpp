#include "fastcd/bake/output_folder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "fastcd/io/atomic_file.hpp"

namespace fastcd {

namespace {

namespace fs = std::filesystem;

// `inner` equals `outer` or lies inside it (both absolute and normal).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// "--out DIR" (a command line) or "out_dir='DIR'" (a keyword argument): the setting as the
// caller's user writes it.
std::string setting(const OutputFolderCaller& c, const std::string& value) {
  if (c.out_option.rfind("--", 0) == 0) return c.out_option + " " + value;
  return c.out_option + "='" + value + "'";
}

fs::path resolve(const std::string& out, const OutputFolderCaller& c) {
  if (out.empty()) throw std::runtime_error(c.out_option + " is empty");
  fs::path p = fs::absolute(fs::path(out)).lexically_normal();
  while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();  // "dir/" is "dir"
  p = fs::weakly_canonical(p);  // symlinks in the existing part, "." and ".."
  if (!p.has_relative_path())
    throw std::runtime_error(c.out_option + " '" + out + "' is the root folder; choose a folder for the bake");
  return p;
}

// ".<name><suffix>" (appended piecewise: g++ 12 warns falsely about `"." + string`).
std::string hidden(const fs::path& target, const char* suffix) {
  std::string s = ".";
  s += target.filename().string();
  s += suffix;
  return s;
}
std::string staging_prefix(const fs::path& target) { return hidden(target, ".partial-"); }
std::string old_prefix(const fs::path& target) { return hidden(target, ".old-"); }

bool exists_here(const fs::path& p) { return fs::exists(fs::symlink_status(p)); }

// A mount point: another file system than its parent's, or (a bind mount of a folder of the
// same file system, as container volumes often are) a mount point in /proc/self/mountinfo.
bool is_mount_point(const fs::path& p) {
  struct stat a {
  }, b{};
  if (::stat(p.c_str(), &a) != 0 || ::stat(p.parent_path().c_str(), &b) != 0) return false;
  if (a.st_dev != b.st_dev) return true;
  std::ifstream info("/proc/self/mountinfo");
  std::string line;
  while (std::getline(info, line)) {
    // "36 35 98:0 /root /mount/point options ...": the fifth field, spaces etc. as \ooo.
    std::size_t at = 0;
    for (int field = 0; field < 4 && at != std::string::npos; ++field) at = line.find(' ', at + 1);
    if (at == std::string::npos) continue;
    const std::size_t end = line.find(' ', at + 1);
    const std::string raw = line.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    std::string point;
    for (std::size_t i = 0; i < raw.size(); ++i)
      if (raw[i] == '\\' && i + 3 < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i + 1]))) {
        point.push_back(static_cast<char>(std::stoi(raw.substr(i + 1, 3), nullptr, 8)));
        i += 3;
      } else {
        point.push_back(raw[i]);
      }
    if (point == p.string()) return true;
  }
  return false;
}

// Every file and folder under `dir`, relative, '/'-separated, sorted (the marker's entries).
std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel != kOutputMarker) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr std::size_t kNamed = 5;  // names a refusal lists

// "a, b/, c" (the first kNamed, sorted), with " and more" when there are more.
std::string named(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out;
  for (std::size_t i = 0; i < std::min(names.size(), kNamed); ++i) out += (i ? ", " : "") + names[i];
  return names.size() > kNamed ? out + " and more" : out;
}

// A name in a folder as a refusal lists it: folders with a trailing '/'.
std::string entry_name(const fs::directory_entry& e, const std::string& name) {
  std::error_code ec;
  return name + (e.is_directory(ec) && !e.is_symlink(ec) ? "/" : "");
}

// The first names in `dir`, to say what a refused folder holds.
std::string some_names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    names.push_back(entry_name(*it, it->path().filename().string()));
    if (names.size() > 64) break;
  }
  return named(std::move(names));
}

// Why `dir` (an existing, non-empty folder) is not a bake fastcd may replace: "" when its marker
// lists everything in it.
std::string not_replaceable(const fs::path& dir, const OutputFolderCaller& c) {
  const fs::path marker = dir / kOutputMarker;
  struct stat st {};
  if (::lstat(marker.c_str(), &st) != 0) {
    if (fs::exists(fs::symlink_status(dir / "run.json")))
      return "holds run.json but no " + std::string(kOutputMarker) + " marker (" + some_names(dir) +
             "): a bake of an older fastcd, or a folder that only looks like one, so fastcd cannot tell what it "
             "wrote there; delete it yourself if you no longer need anything in it, or choose another " +
             c.out_option;
    return "is not empty (" + some_names(dir) + ") and is not a fastcd output (it has no " +
           std::string(kOutputMarker) + " marker); fastcd replaces only folders it wrote: choose a new or empty " +
           c.out_option;
  }
  std::set<std::string> listed;
  std::string unreadable;
  if (!S_ISREG(st.st_mode) || st.st_size > (64 << 20)) unreadable = "it is not a small regular file";
  try {
    const nlohmann::json j =
        unreadable.empty() ? nlohmann::json::parse(read_regular_file(marker.string(), "fastcd")) : nlohmann::json();
    if (unreadable.empty() && (j.value("fastcd_output", 0) != 1 || !j.contains("entries")))
      unreadable = "it is not the list fastcd writes";
    if (unreadable.empty())
      for (const auto& e : j.at("entries")) listed.insert(e.get<std::string>());
  } catch (const nlohmann::json::exception&) {
    unreadable = "it is not the list fastcd writes";
  } catch (const std::exception& e) {
    unreadable = e.what();
  }
  if (!unreadable.empty())
    return "has a " + std::string(kOutputMarker) + " marker fastcd cannot read (" + unreadable +
           "); delete the folder yourself if you no longer need anything in it, or choose another " + c.out_option;
  std::vector<std::string> foreign;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel == kOutputMarker || listed.count(rel)) continue;
    foreign.push_back(entry_name(*it, rel));
    it.disable_recursion_pending();
    if (foreign.size() > kNamed) break;
  }
  if (ec)
    return "cannot be read to the end (" + ec.message() + "); check its permissions or choose another " + c.out_option;
  if (foreign.empty()) return "";
  return "holds files fastcd did not write (" + named(std::move(foreign)) + "); " + c.force_option +
         " replaces only a folder that holds nothing but an earlier bake: move them elsewhere or choose another " +
         c.out_option;
}

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH; }

// Locks `path` (created if needed) for this process; the inode check makes sure the file
// locked is the one on disk (another run may unlink it between our open and flock).
int lock_file(const fs::path& path, const fs::path& target, const OutputFolderCaller& c) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw std::runtime_error("cannot write in '" + path.parent_path().string() +
                               "', where fastcd prepares the bake of '" + target.filename().string() +
                               "' before moving it in place (" + std::strerror(errno) + "): choose an " + c.out_option +
                               " inside a folder you can write");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      char buf[32] = {0};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      if (e == EWOULDBLOCK) {
        const std::string who = n > 0 ? " (pid " + std::string(buf, static_cast<std::size_t>(n)) + ")" : "";
        throw std::runtime_error("another fastcd run" + who + " is writing '" + target.string() +
                                 "'; wait for it or choose another " + c.out_option);
      }
      throw std::runtime_error("cannot lock '" + path.string() + "': " + std::strerror(e));
    }
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // the pid is only a courtesy for the message above
      }
      return fd;
    }
    ::close(fd);  // unlinked under us: try again with the new file
  }
  throw std::runtime_error("cannot lock '" + path.string() + "': it keeps being replaced");
}

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

OutputFolder::Watched::Watched(const OutputFolderCaller& caller, std::string path)
    : caller_(caller), path_(std::move(path)) {
  if (caller_.watch) caller_.watch(path_);
}

OutputFolder::Watched::~Watched() { release(); }

void OutputFolder::Watched::release() {
  if (!active_) return;
  active_ = false;
  if (caller_.unwatch) caller_.unwatch(path_);
}

// Why the run may not write to the target now ("" when it may): an earlier bake needs `force`.
std::string OutputFolder::refusal() const {
  if (!fs::is_directory(target_) || fs::is_empty(target_)) return "";
  const std::string why = not_replaceable(target_, caller_);
  if (!why.empty()) return "output folder '" + target_.string() + "' " + why;
  if (!force_)
    return "output folder '" + target_.string() + "' is not empty: it holds an earlier bake (use " +
           caller_.force_option + " to replace it)";
  return "";
}

// After a run was killed: its staging folder is removed; the output it was replacing
// (`.<name>.old-<pid>`) is put back when the target is missing (the kill fell between the
// commit's two renames), removed when the target is there (only if it is a marked bake).
void OutputFolder::recover() const {
  const fs::path& target = target_;
  std::vector<std::pair<fs::path, bool>> found;  // (path, is an old output)
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    for (const std::string& prefix : {staging_prefix(target), old_prefix(target)}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string digits = name.substr(prefix.size());
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      const long pid = std::stol(digits);
      if (pid == static_cast<long>(::getpid()) || process_alive(pid)) continue;
      found.emplace_back(e.path(), prefix == old_prefix(target));
    }
  }
  for (const auto& [path, old] : found) {
    std::error_code rm;
    if (!old) {
      fs::remove_all(path, rm);
    } else if (!exists_here(target)) {
      fs::rename(path, target);
      if (caller_.restored) caller_.restored(target);
    } else if (fs::is_directory(fs::symlink_status(path)) && not_replaceable(path, caller_).empty()) {
      fs::remove_all(path, rm);
    }
  }
}

OutputFolder::OutputFolder(const std::string& out, const std::vector<std::string>& inputs, bool force,
                           OutputFolderCaller caller)
    : out_(out),
      force_(force),
      caller_(std::move(caller)),
      target_(resolve(out, caller_)),
      stage_(target_.parent_path() / (staging_prefix(target_) + std::to_string(::getpid()))),
      lock_path_(target_.parent_path() / hidden(target_, ".lock")),
      watch_stage_(caller_, stage_.string()),
      watch_lock_(caller_, lock_path_.string()) {
  if (exists_here(target_) && !fs::is_directory(target_))
    throw std::runtime_error(caller_.out_option + " '" + out +
                             "' is an existing file, not a folder; fastcd writes a folder of " +
                             "outputs there: choose another " + caller_.out_option);
  check_inputs(inputs);
  std::error_code ec;
  const fs::path cwd = fs::weakly_canonical(fs::current_path(), ec);
  if (!ec && within(cwd, target_))
    throw std::runtime_error(caller_.out_option + " '" + out +
                             "' is (or contains) the current folder; choose a new folder for the bake");
  // A bake is moved into place by renaming a folder over the target: never possible on a mount
  // point, so say so now rather than after the whole bake. (Staging inside the mount point and
  // moving file by file would leave a half-old, half-new folder if the run died meanwhile.)
  if (fs::is_directory(target_) && is_mount_point(target_))
    throw std::runtime_error(
        caller_.out_option + " '" + out + "' is a mount point (a separate file system, e.g. a container volume); " +
        "fastcd puts a finished bake in place by renaming a folder, which a mount point does " +
        "not allow: choose a folder inside it, e.g. " + setting(caller_, (target_ / "bake").string()));
  fs::create_directories(target_.parent_path(), ec);
  if (ec)
    throw std::runtime_error("cannot create '" + target_.parent_path().string() + "' for " + caller_.out_option + " '" +
                             out + "': " + ec.message());
  // Locked first, then judged: no other run can put a bake there between the check and ours.
  lock_fd_ = lock_file(lock_path_, target_, caller_);
  try {
    recover();
    const std::string why = refusal();
    if (!why.empty()) throw std::runtime_error(why);
  } catch (...) {
    unlock();
    throw;
  }
}

void OutputFolder::unlock() {
  if (lock_fd_ < 0) return;
  ::unlink(lock_path_.c_str());
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void OutputFolder::check_inputs(const std::vector<std::string>& inputs) const {
  for (const auto& in : inputs) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::path(in), ec);
    if (!ec && within(p, target_))
      throw std::runtime_error(caller_.out_option + " '" + out_ + "' " + (p == target_ ? "is" : "contains") +
                               " the input '" + in + "'; choose an output folder outside the scene's files");
  }
}

void OutputFolder::start(const std::vector<std::string>& inputs) {
  check_inputs(inputs);
  fs::remove_all(stage_);
  fs::create_directory(stage_);
  started_ = true;
}

void OutputFolder::commit() {
  if (!started_) throw std::logic_error("OutputFolder::commit before start");
  nlohmann::json marker = {{"fastcd_output", 1}, {"entries", entries_of(stage_)}};
  write_file_contents((stage_ / kOutputMarker).string(), marker.dump(1) + "\n", "fastcd");
  sync_folder(stage_);
  // Judged again: something may have appeared there during the bake (the lock keeps only other
  // fastcd runs out). The new bake is then kept beside it rather than lost.
  const std::string why = refusal();
  if (!why.empty()) {
    const fs::path kept = target_.parent_path() / (target_.filename().string() + ".new-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::rename(stage_, kept, ec);
    if (!ec) watch_stage_.release();
    throw std::runtime_error(why + (ec ? std::string() : "; the new bake is in '" + kept.string() + "'"));
  }
  const fs::path old = target_.parent_path() / (old_prefix(target_) + std::to_string(::getpid()));
  const bool replace = exists_here(target_);
  if (replace) {
    fs::rename(target_, old);
    sync_folder(target_.parent_path());
  }
  // A kill between the two renames leaves `old` without the target: the next run restores it.
  try {
    fs::rename(stage_, target_);
  } catch (...) {
    if (replace) {
      std::error_code ec;
      fs::rename(old, target_, ec);  // put the previous output back
    }
    throw;
  }
  committed_ = true;
  watch_stage_.release();
  sync_folder(target_.parent_path());
  if (replace) {
    std::error_code ec;
    fs::remove_all(old, ec);
  }
}

OutputFolder::~OutputFolder() {
  std::error_code ec;
  if (started_ && !committed_) fs::remove_all(stage_, ec);
  unlock();
}

}  // namespace fastcd
