#include "output_folder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fastcd::cli {

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

fs::path resolve(const std::string& out) {
  if (out.empty()) throw std::runtime_error("--out is empty");
  fs::path p = fs::absolute(fs::path(out)).lexically_normal();
  while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();  // "dir/" is "dir"
  p = fs::weakly_canonical(p);  // symlinks in the existing part, "." and ".."
  if (!p.has_relative_path())
    throw std::runtime_error("--out '" + out + "' is the root folder; choose a folder for the bake");
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

// Staging and replaced folders of this target left by runs that no longer exist.
void remove_stale(const fs::path& target) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    for (const std::string& prefix : {staging_prefix(target), old_prefix(target)}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string digits = name.substr(prefix.size());
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      const long pid = std::stol(digits);
      if (pid == static_cast<long>(::getpid())) continue;
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
      std::error_code rm;
      fs::remove_all(e.path(), rm);
    }
  }
}

// Locks `path` (created if needed) for this process; the inode check makes sure the file
// locked is the one on disk (another run may unlink it between our open and flock).
int lock_file(const fs::path& path, const fs::path& target) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw std::runtime_error("cannot create the lock file '" + path.string() + "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      char buf[32] = {0};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      if (e == EWOULDBLOCK) {
        const std::string who = n > 0 ? " (pid " + std::string(buf, static_cast<std::size_t>(n)) + ")" : "";
        throw std::runtime_error("another fastcd run" + who + " is writing '" + target.string() +
                                 "'; wait for it or choose another --out");
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

OutputFolder::OutputFolder(const std::string& out, const std::vector<std::string>& inputs, bool force)
    : target_(resolve(out)),
      stage_(target_.parent_path() / (staging_prefix(target_) + std::to_string(::getpid()))),
      lock_path_(target_.parent_path() / hidden(target_, ".lock")),
      watch_stage_(stage_.string()),
      watch_lock_(lock_path_.string()) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target_)) && !fs::is_directory(target_))
    throw std::runtime_error("--out '" + out + "' is an existing file, not a folder; fastcd writes a folder of " +
                             "outputs there: choose another --out");
  for (const auto& in : inputs) {
    const fs::path p = fs::weakly_canonical(fs::path(in), ec);
    if (!ec && within(p, target_))
      throw std::runtime_error("--out '" + out + "' " + (p == target_ ? "is" : "contains") + " the input '" + in +
                               "'; choose an output folder outside the scene's files");
  }
  const fs::path cwd = fs::weakly_canonical(fs::current_path(), ec);
  if (!ec && within(cwd, target_))
    throw std::runtime_error("--out '" + out +
                             "' is (or contains) the current folder; choose a new folder for the bake");
  if (fs::is_directory(target_) && !fs::is_empty(target_)) {
    if (!force)
      throw std::runtime_error("output folder '" + target_.string() + "' is not empty (use --force to replace it)");
    if (!fs::is_regular_file(target_ / "run.json"))
      throw std::runtime_error("output folder '" + target_.string() +
                               "' is not empty and is not a fastcd output (it has no run.json); --force replaces "
                               "only earlier bakes: choose another --out");
  }
  fs::create_directories(target_.parent_path());
  lock_fd_ = lock_file(lock_path_, target_);
  remove_stale(target_);
  fs::remove_all(stage_);
  fs::create_directory(stage_);
}

void OutputFolder::commit() {
  const fs::path old = target_.parent_path() / (old_prefix(target_) + std::to_string(::getpid()));
  const bool replace = fs::exists(target_);
  if (replace) fs::rename(target_, old);
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
  if (!committed_) fs::remove_all(stage_, ec);
  if (lock_fd_ >= 0) {
    ::unlink(lock_path_.c_str());
    ::close(lock_fd_);
  }
}

}  // namespace fastcd::cli
