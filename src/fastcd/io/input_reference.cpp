#include "fastcd/io/input_reference.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace fastcd {

namespace fs = std::filesystem;

namespace {

// True when the reference starts with a URI scheme ("file:", "http:", "data:"): RFC 3986's
// ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" before any '/'.
bool has_scheme(const std::string& r) {
  if (r.empty() || !std::isalpha(static_cast<unsigned char>(r[0]))) return false;
  for (std::size_t i = 1; i < r.size(); ++i) {
    const auto c = static_cast<unsigned char>(r[i]);
    if (c == ':') return i > 1;  // "C:" would be a drive letter, not a scheme; refused as absolute below
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

bool inside(const fs::path& p, const fs::path& root) {
  auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "is a folder, not a file";
  if (S_ISFIFO(m)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(m)) return "is a character device, not a regular file";
  if (S_ISBLK(m)) return "is a block device, not a regular file";
  if (S_ISSOCK(m)) return "is a socket, not a regular file";
  return "is not a regular file";
}

}  // namespace

std::string percent_decode(const std::string& uri) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(uri.size());
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
      out += static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

InputReference resolve_input_reference(const fs::path& folder, const std::string& reference) {
  InputReference r;
  r.reference = reference;
  auto refuse = [&](std::string why) {
    r.problem = std::move(why);
    r.path.clear();
    r.relative.clear();
    return r;
  };
  if (reference.empty()) return refuse("is empty");
  if (reference.find('\0') != std::string::npos) return refuse("contains a NUL character");
  if (has_scheme(reference)) return refuse("is a URL, not a file in the input's folder");
  if (reference[0] == '/' || reference[0] == '\\' || (reference.size() > 1 && reference[1] == ':'))
    return refuse("is an absolute path, not a file in the input's folder");
  std::error_code ec;
  const fs::path root = fs::canonical(folder.empty() ? fs::path(".") : folder, ec);
  if (ec) return refuse("cannot be looked up: the input's folder '" + folder.string() + "': " + ec.message());
  const fs::path candidate = root / fs::path(reference);
  struct stat st {};
  if (::lstat(candidate.c_str(), &st) != 0) {
    const int err = errno;
    // A reference that escapes by name ("../x") is named as an escape even when the target is missing.
    if (!inside(candidate.lexically_normal(), root)) return refuse("points outside the input's folder");
    r.missing = err == ENOENT || err == ENOTDIR;
    return refuse(r.missing ? "does not exist" : std::string("cannot be read: ") + std::strerror(err));
  }
  const fs::path real = fs::canonical(candidate, ec);
  if (ec) {
    r.missing = ec == std::errc::no_such_file_or_directory;
    return refuse(r.missing ? "is a symbolic link to nothing" : "cannot be resolved: " + ec.message());
  }
  if (!inside(real, root))
    return refuse(inside(candidate.lexically_normal(), root)
                      ? "leads outside the input's folder through a symbolic link"
                      : "points outside the input's folder");
  if (::stat(real.c_str(), &st) != 0) return refuse(std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return refuse(kind_of(st.st_mode));
  r.path = real;
  r.relative = real.lexically_relative(root);
  return r;
}

}  // namespace fastcd
