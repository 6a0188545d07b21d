#pragma once
// The files of a cache folder (.fastcd-cache: tets, fast precomputes) say what they hold. Each
// begins with four text lines (at most kCacheHeaderMaxBytes), then the payload:
//
//   fastcd cache <kind> <format version>
//   key <SHA-256 of the kind, version, settings and every input byte: 64 hex digits>
//   settings <the settings in words, one line>
//   payload <N> bytes sha256 <SHA-256 of the payload: 64 hex digits>
//
// A reader checks the header against the key it wants and the file's size against the header
// (and the caller's bound) before it reads the payload, then the payload's checksum: a file
// copied or renamed under another entry's name, cut short, grown, bit-flipped or of any size
// at all is told apart from the entry it claims to be, and never read whole unless it is one.
// A cache is optional: nothing here is an error the caller must stop for.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace fastcd {

inline constexpr std::size_t kCacheHeaderMaxBytes = 4096;

/// What a cache entry holds, in full.
struct CacheKey {
  std::string kind;      ///< "tets", "fast", ... (letters only): the file name's prefix
  int version = 1;       ///< the payload's format version
  std::string settings;  ///< the settings in words (one line), shown when a file was made for others
  std::string digest;    ///< 64 hex digits: SHA-256 of kind, version, settings and the inputs' bytes
};

class Sha256;

/// The key of an entry of `kind`: the digest taken over the kind, version, settings, this
/// machine's number layout (byte order, sizes of double and index) and `inputs` (a Sha256 fed
/// with every input byte the payload depends on).
/// @throws std::invalid_argument for a kind that is not lower-case letters, or settings that
///         are not one line.
CacheKey make_cache_key(const std::string& kind, int version, const std::string& settings, const Sha256& inputs);

/// The entry's file in `folder`: "<folder>/<kind>-<the digest's first 16 hex digits>.bin".
std::string cache_entry_path(const std::string& folder, const CacheKey& key);

/// Payloads are raw arrays in the machine's layout (which the key includes): `count` values
/// appended to `out`, or taken from `in` at `at` (advancing it; false when `in` is too short).
template <typename T>
void append_raw(std::string& out, const T* data, std::size_t count) {
  out.append(reinterpret_cast<const char*>(data), sizeof(T) * count);
}
template <typename T>
bool take_raw(const std::string& in, std::size_t& at, T* data, std::size_t count) {
  const std::size_t bytes = sizeof(T) * count;
  if (at > in.size() || count > in.size() / sizeof(T) || in.size() - at < bytes) return false;
  std::memcpy(data, in.data() + at, bytes);
  at += bytes;
  return true;
}

/// What reading an entry found.
struct CacheEntry {
  enum class State {
    Missing,     ///< no such file (or no such folder): an ordinary miss
    Usable,      ///< the entry: payload read and checked
    Stale,       ///< a cache file of other inputs, settings or another format version
    Damaged,     ///< not a cache file, cut short, grown, or its payload fails its checksum
    Unreadable,  ///< exists but cannot be read (permissions, not a regular file, I/O error)
  };
  State state = State::Missing;
  /// What is wrong with the file, a clause after its name ("was made for other settings (...)",
  /// "is cut short (...)", "cannot be read (...)"); empty when Missing or Usable.
  std::string problem;
  std::string payload;  ///< the checked payload (Usable only)
};

/// Reads the entry of `key` at `path`. The payload is read only after the header matched the
/// key and the file's size matched the header: `payload_bytes`, when given, is the size the
/// payload must have; otherwise the declared size may not exceed the memory available.
CacheEntry read_cache_entry(const std::string& path, const CacheKey& key,
                            std::optional<std::uint64_t> payload_bytes = std::nullopt);

/// Writes the header and `payload` to `path` atomically (its folder must exist).
/// @throws std::invalid_argument for a key without kind or digest, or a header too long;
///         std::runtime_error when the file cannot be written (the reason included).
void write_cache_entry(const std::string& path, const CacheKey& key, const std::string& payload);

/// "" when new entries can be written into `folder`, else the warning that says why not and
/// that the bake goes on without keeping them. The folder is created when missing, then a probe
/// file is created in it and removed, so a read-only file system, an immutable or foreign-owned
/// folder, or a file where the folder should be are found before any work is done. The text is
/// the same for every caller (one warning for the tets and the precompute of one bake).
std::string cache_folder_warning(const std::string& folder);

/// The warning for an entry that was Stale, Damaged or Unreadable, and what was done instead:
/// "the cache file '<path>' <problem>: <redone> and the file rewritten" (or why it could not be).
/// @param redone         "the tets were meshed again", ...
/// @param rewrite_error  "" when the entry was rewritten, else why it was not.
std::string cache_entry_warning(const std::string& path, const CacheEntry& entry, const std::string& redone,
                                const std::string& rewrite_error);

}  // namespace fastcd
