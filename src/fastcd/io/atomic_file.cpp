#include "fastcd/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <system_error>

namespace fastcd {

namespace {

std::string random_suffix(std::mt19937_64& rng) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof(kChars)) - 2);
  std::string s(6, 'x');
  for (char& c : s) c = kChars[pick(rng)];
  return s;
}

// `path` itself, or cut short so that its file name leaves room for the temporary suffix
// ".tmp-XXXXXX" within the folder's longest file name (a valid output name is always writable).
std::string temp_stem(const std::string& path) {
  constexpr std::size_t kSuffix = 11;  // ".tmp-" and six random characters
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::size_t base = path.size() - (slash == std::string::npos ? 0 : slash + 1);
  const long max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t room = (max > static_cast<long>(kSuffix) ? static_cast<std::size_t>(max) : 255) - kSuffix;
  return base <= room ? path : path.substr(0, path.size() - (base - room));
}

// Creates a new, empty, exclusively-created temporary file next to `path`.
std::string create_temp_next_to(const std::string& path) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(::getpid()));
  const std::string stem = temp_stem(path);
  int last_errno = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = stem + ".tmp-" + random_suffix(rng);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    last_errno = errno;
    if (last_errno != EEXIST) break;
  }
  throw std::runtime_error("cannot create temporary file next to '" + path + "': " + std::strerror(last_errno));
}

const char* file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISSOCK(mode) ? "a socket"
                          : "a special file";
}

}  // namespace

void check_output_file(const std::string& path, const char* who) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;  // nothing there (or the write says why)
  std::string what = file_kind(st.st_mode);
  if (S_ISLNK(st.st_mode)) {
    struct stat to {};
    if (::stat(path.c_str(), &to) != 0 || S_ISREG(to.st_mode)) return;  // dangling, or to a file: the link is replaced
    what = std::string("a symbolic link to ") + file_kind(to.st_mode);
  }
  const std::string prefix = who && *who ? std::string(who) + ": " : std::string();
  throw std::runtime_error(prefix + "cannot write '" + path + "': it is " + what +
                           ", not a regular file (outputs replace only regular files): choose another file name");
}

void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  if (path.empty()) throw std::invalid_argument("write_file_atomically: empty path");
  if (path.back() == '/') throw std::invalid_argument("write_file_atomically: path '" + path + "' names a directory");
  if (!write) throw std::invalid_argument("write_file_atomically: empty write callback");
  check_output_file(path);

  const std::string tmp = create_temp_next_to(path);
  try {
    write(tmp);
    // Make the data durable before it becomes visible under the final name.
    const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const int e = errno;
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("cannot flush '" + path + "' to disk: " + std::strerror(e));
    }
    ::close(fd);
    check_output_file(path);  // still nothing else there (it may have appeared while writing)
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ec2;
    std::filesystem::remove(tmp, ec2);
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  }
}

std::string read_regular_file(const std::string& path, const char* who) {
  auto fail = [&](const std::string& why) -> std::runtime_error {
    return std::runtime_error(std::string(who) + ": cannot open '" + path + "': " + why);
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("is a directory");
  if (!S_ISREG(st.st_mode))
    throw fail(S_ISFIFO(st.st_mode)  ? "is a FIFO (named pipe), not a regular file"
               : S_ISCHR(st.st_mode) ? "is a character device, not a regular file"
               : S_ISBLK(st.st_mode) ? "is a block device, not a regular file"
                                     : "is not a regular file");
  // O_NONBLOCK: if the path was swapped for a FIFO after the check, open does not wait for a
  // writer; fstat then tells what was opened.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw fail(std::strerror(errno));
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    ::close(fd);
    throw fail("is not a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(fst.st_size);
  std::string out;
  try {
    out.resize(size);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    throw fail("the file (" + std::to_string(size) + " bytes) does not fit in memory");
  }
  std::size_t got = 0;
  while (got < size) {
    const ssize_t r = ::read(fd, out.data() + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(std::string(who) + ": cannot read '" + path + "': " + std::strerror(e));
    }
    if (r == 0) break;  // shrank meanwhile: what is there
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

void write_file_contents(const std::string& path, const std::string& content, const char* who) {
  check_output_file(path, who);
  write_file_atomically(path, [&](const std::string& tmp) {
    auto fail = [&](int e) {
      return std::runtime_error(std::string(who) + ": cannot write '" + path + "': " + std::strerror(e));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw fail(errno);
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        const int e = errno;
        ::close(fd);
        throw fail(e);
      }
      done += static_cast<std::size_t>(w);
    }
    if (::close(fd) != 0) throw fail(errno);
  });
}

}  // namespace fastcd
