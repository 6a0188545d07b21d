#include "fastcd/io/atomic_file.hpp"

#include <fcntl.h>
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

// Creates a new, empty, exclusively-created temporary file next to `path`.
std::string create_temp_next_to(const std::string& path) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(::getpid()));
  int last_errno = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = path + ".tmp-" + random_suffix(rng);
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

}  // namespace

void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  if (path.empty()) throw std::invalid_argument("write_file_atomically: empty path");
  if (path.back() == '/') throw std::invalid_argument("write_file_atomically: path '" + path + "' names a directory");
  if (!write) throw std::invalid_argument("write_file_atomically: empty write callback");

  const std::string tmp = create_temp_next_to(path);
  try {
    write(tmp);
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

}  // namespace fastcd
