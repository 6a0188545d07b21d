#pragma once

#include <functional>
#include <string>

namespace fastcd {

/// Writes a file atomically: creates a fresh temporary file named
/// `path + ".tmp-XXXXXX"` (random suffix, created exclusively) in the same
/// directory, calls `write(tmp_path)` to fill it, then renames it onto `path`
/// with std::filesystem::rename (atomic on POSIX within one file system).
///
/// The temporary file already exists (empty) when `write` is called; `write`
/// may truncate/overwrite it. If `write` throws, or the rename fails, the
/// temporary file is removed and the exception propagates, so no partial
/// output and no temporary file is ever left behind.
///
/// @param path   destination file path (its directory must exist).
/// @param write  callback that writes the complete content to the path given.
/// @throws std::invalid_argument if `path` is empty or names a directory
///         (ends in '/'), or `write` is empty.
/// @throws std::runtime_error if the temporary file cannot be created
///         (e.g. missing directory, no permission) or the rename fails;
///         the message names the file and the system error.
/// @throws whatever `write` throws.
void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

}  // namespace fastcd
