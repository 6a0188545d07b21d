#include "fastcd/io/cache_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string_view>

#include "fastcd/common/hash.hpp"
#include "fastcd/common/memory.hpp"
#include "fastcd/io/atomic_file.hpp"

namespace fastcd {

namespace {

namespace fs = std::filesystem;
using State = CacheEntry::State;

/// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

/// Fills `out` from `fd` at `offset`; the reason when a read fails or the file ends early.
std::string read_at(int fd, std::uint64_t offset, std::string& out) {
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return std::strerror(errno);
    if (r == 0) return "the file ended early (it shrank while read)";
    got += static_cast<std::size_t>(r);
  }
  return {};
}

/// Splits off the next line of `text` at `at` (without its '\n'); false when there is none.
bool next_line(std::string_view text, std::size_t& at, std::string_view& line) {
  const std::size_t end = text.find('\n', at);
  if (end == std::string_view::npos) return false;
  line = text.substr(at, end - at);
  at = end + 1;
  return true;
}

bool take_prefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool is_hex_digest(std::string_view s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

/// A whole unsigned decimal number (no sign, no spaces).
bool parse_size(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  out = std::strtoull(std::string(s).c_str(), nullptr, 10);
  return true;
}

/// "payload <N> bytes sha256 <64 hex>": N into `bytes`, `line` left with the checksum.
bool parse_payload_line(std::string_view& line, std::uint64_t& bytes) {
  constexpr std::string_view tag = " bytes sha256 ";
  const std::size_t tail = tag.size() + 64;
  if (!take_prefix(line, "payload ") || line.size() <= tail || !parse_size(line.substr(0, line.size() - tail), bytes))
    return false;
  line.remove_prefix(line.size() - tail);
  return take_prefix(line, tag) && is_hex_digest(line);
}

std::string header_of(const CacheKey& key, std::uint64_t payload_bytes, const std::string& payload_sha256) {
  return "fastcd cache " + key.kind + " " + std::to_string(key.version) + "\nkey " + key.digest + "\nsettings " +
         key.settings + "\npayload " + std::to_string(payload_bytes) + " bytes sha256 " + payload_sha256 + "\n";
}

std::string bytes_in_words(std::uint64_t bytes) {
  return bytes < (1u << 20) ? std::to_string(bytes) + " bytes"
                            : std::to_string(bytes >> 20) + " MiB (" + std::to_string(bytes) + " bytes)";
}

}  // namespace

CacheKey make_cache_key(const std::string& kind, int version, const std::string& settings, const Sha256& inputs) {
  if (kind.empty() || kind.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos ||
      settings.find('\n') != std::string::npos)
    throw std::invalid_argument("make_cache_key: the kind must be lower-case letters ('" + kind +
                                "') and the settings one line");
  const std::uint32_t one = 1;
  const unsigned char byte_order = *reinterpret_cast<const unsigned char*>(&one);
  const std::uint32_t layout[3] = {byte_order, sizeof(double), sizeof(Index)};
  Sha256 h;
  h.add("fastcd cache\n" + kind + "\n" + std::to_string(version) + "\n" + settings + "\n");
  h.add(layout, sizeof layout);
  const auto inputs_digest = inputs.digest();
  h.add(inputs_digest.data(), inputs_digest.size());
  return {kind, version, settings, h.hex()};
}

std::string cache_entry_path(const std::string& folder, const CacheKey& key) {
  return (fs::path(folder) / (key.kind + "-" + key.digest.substr(0, 16) + ".bin")).string();
}

CacheEntry read_cache_entry(const std::string& path, const CacheKey& key, std::optional<std::uint64_t> payload_bytes) {
  CacheEntry e;
  const auto fail = [&](State state, std::string problem) {
    e.state = state;
    e.problem = std::move(problem);
    e.payload.clear();
    return e;
  };
  // O_NONBLOCK: a FIFO under the entry's name does not wait for a writer; fstat then refuses it.
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0)  // no file, or no folder (said by cache_folder_warning): an ordinary miss
    return errno == ENOENT || errno == ENOTDIR
               ? e
               : fail(State::Unreadable, std::string("cannot be read (") + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    return fail(State::Unreadable, std::string("cannot be read (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) return fail(State::Unreadable, "cannot be read (it is not a regular file)");
  const auto size = static_cast<std::uint64_t>(st.st_size);

  // The header: at most its bound, whatever the file's size.
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, kCacheHeaderMaxBytes)), '\0');
  if (std::string why = read_at(file.fd, 0, head); !why.empty())
    return fail(State::Unreadable, "cannot be read (" + why + ")");
  const std::string_view text = head;
  std::size_t at = 0;
  std::string_view line, digest, settings, payload;
  if (!next_line(text, at, line) || !take_prefix(line, "fastcd cache "))
    return fail(State::Damaged, "is not a fastcd cache file (" + bytes_in_words(size) + " without its header)");
  const std::size_t space = line.find(' ');
  const std::string_view kind = line.substr(0, space), version = space == line.npos ? "" : line.substr(space + 1);
  if (kind != key.kind)
    return fail(State::Stale, "holds a '" + std::string(kind) + "' entry, not a '" + key.kind + "' one (renamed?)");
  if (version != std::to_string(key.version))
    return fail(State::Stale, "was written in format " + std::string(version) + " (this fastcd writes format " +
                                  std::to_string(key.version) + ")");
  std::uint64_t declared = 0;
  if (!next_line(text, at, digest) || !take_prefix(digest, "key ") || !is_hex_digest(digest) ||
      !next_line(text, at, settings) || !take_prefix(settings, "settings ") || !next_line(text, at, payload) ||
      !parse_payload_line(payload, declared))
    return fail(State::Damaged, size < kCacheHeaderMaxBytes ? "is damaged (its header is cut short or garbled)"
                                                            : "is damaged (its header is garbled)");
  if (digest != key.digest)
    return fail(State::Stale,
                settings != key.settings
                    ? "was made for other settings (" + std::string(settings) + "; this bake: " + key.settings + ")"
                    : "was made for other inputs with the same settings (" + key.settings + ")");
  const std::uint64_t header_bytes = at;
  if (size != header_bytes + declared)
    return fail(State::Damaged, size < header_bytes + declared
                                    ? "is cut short (" + bytes_in_words(size) + " of the " +
                                          bytes_in_words(header_bytes + declared) + " its header declares)"
                                    : "has grown (" + bytes_in_words(size) + " where its header declares " +
                                          bytes_in_words(header_bytes + declared) + ")");
  if (payload_bytes && declared != *payload_bytes)
    return fail(State::Damaged, "is damaged (its header declares " + bytes_in_words(declared) +
                                    " where this entry has " + bytes_in_words(*payload_bytes) + ")");
  const std::size_t available = available_memory_bytes();
  if (!payload_bytes && available > 0 && declared > available)
    return fail(State::Damaged,
                "is damaged (its header declares " + bytes_in_words(declared) + ", more than the memory available)");

  // The payload, read only now, and its checksum.
  try {
    e.payload.resize(static_cast<std::size_t>(declared));
  } catch (const std::bad_alloc&) {
    return fail(State::Unreadable, "cannot be read (" + bytes_in_words(declared) + " do not fit in memory)");
  }
  if (std::string why = read_at(file.fd, header_bytes, e.payload); !why.empty())
    return fail(State::Unreadable, "cannot be read (" + why + ")");
  Sha256 sum;
  sum.add(e.payload);
  if (sum.hex() != payload) return fail(State::Damaged, "is damaged (its content does not match its checksum)");
  e.state = State::Usable;
  return e;
}

void write_cache_entry(const std::string& path, const CacheKey& key, const std::string& payload) {
  if (key.kind.empty() || !is_hex_digest(key.digest) || key.settings.find('\n') != std::string::npos)
    throw std::invalid_argument(
        "write_cache_entry: the key needs a kind, a 64-digit hex digest and settings on one "
        "line (make_cache_key)");
  Sha256 sum;
  sum.add(payload);
  std::string content = header_of(key, payload.size(), sum.hex());
  if (content.size() > kCacheHeaderMaxBytes)
    throw std::invalid_argument("write_cache_entry: the header (" + std::to_string(content.size()) +
                                " bytes) is longer than " + std::to_string(kCacheHeaderMaxBytes));
  content += payload;
  write_file_contents(path, content, "write_cache_entry");
}

std::string cache_folder_warning(const std::string& folder) {
  const auto warning = [&](const std::string& why) {
    return "the cache folder '" + folder + "' cannot be written (" + why +
           "): the bake goes on without keeping its tets and precompute, so the next bake computes them again";
  };
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (!fs::is_directory(folder)) return warning(ec ? ec.message() : "it is not a folder");
  std::string probe = (fs::path(folder) / ".write-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return warning(std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

std::string cache_entry_warning(const std::string& path, const CacheEntry& entry, const std::string& redone,
                                const std::string& rewrite_error) {
  return "the cache file '" + path + "' " + entry.problem + ": " + redone +
         (rewrite_error.empty() ? " and the file rewritten"
                                : "; the file could not be rewritten (" + rewrite_error + ")");
}

}  // namespace fastcd
