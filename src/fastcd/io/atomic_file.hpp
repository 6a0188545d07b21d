#pragma once
// Reading and writing whole files safely: readers take regular files only (a FIFO, a device or
// a directory is refused before anything blocks or grows), writers write a temporary file next
// to the target, check every write, flush and fsync it, and rename it into place — and only
// over a regular file (or nothing): a device, a FIFO, a socket or a directory at the output's
// name is refused, never replaced.
#include <functional>
#include <string>

namespace fastcd {

/// The whole content of the regular file `path`. The size is taken before reading and at most
/// that many bytes are read (a file that grows meanwhile is refused, not followed).
/// @param who  the caller's name for messages ("read_obj", "load_scene", ...).
/// @throws std::runtime_error "<who>: cannot open '<path>': <reason>" for a missing file, a
///         directory, a FIFO, a device or another non-regular file, or a read error.
std::string read_regular_file(const std::string& path, const char* who);

/// Refuses `path` as an output when something that is not a regular file exists there: a
/// directory, a character or block device, a FIFO, a socket, or a symbolic link to any of them.
/// Nothing at `path`, a regular file, a symbolic link to a regular file and a dangling symbolic
/// link are accepted (the atomic writers replace the link itself by the new file). Every
/// atomic write calls it; callers call it early to refuse a bad output before long work.
/// @param who  the caller's name for messages ("fastcd view", "write_obj", ...); may be empty.
/// @throws std::runtime_error "<who>: cannot write '<path>': it is a character device, not a
///         regular file; ..." naming what is there.
void check_output_file(const std::string& path, const char* who = "");

/// Writes `content` to `path` atomically (write_file_atomically), every byte checked.
/// @throws std::runtime_error "<who>: cannot write '<path>': <reason>" (e.g. no space left).
void write_file_contents(const std::string& path, const std::string& content, const char* who);

/// Writes a file atomically: refuses a `path` that names something other than a regular file
/// (check_output_file, before anything is written and again just before the rename), creates
/// a fresh temporary file named `path + ".tmp-XXXXXX"` (random suffix, created exclusively; the
/// name is shortened when the file name leaves no room for the suffix) in the same directory,
/// calls `write(tmp_path)` to fill it, then renames it onto `path` with
/// std::filesystem::rename (atomic on POSIX within one file system).
///
/// The temporary file already exists (empty) when `write` is called; `write`
/// may truncate/overwrite it (and must check its own writes and close). Before the rename the
/// temporary file is fsync'ed, so a rename never publishes data the disk did not take. If
/// `write` throws, the fsync or the rename fails, the temporary file is removed and the
/// exception propagates, so no partial output and no temporary file is ever left behind.
///
/// @param path   destination file path (its directory must exist).
/// @param write  callback that writes the complete content to the path given.
/// @throws std::invalid_argument if `path` is empty or names a directory
///         (ends in '/'), or `write` is empty.
/// @throws std::runtime_error if `path` is not a regular file (see check_output_file), the
///         temporary file cannot be created (e.g. missing directory, no permission) or the
///         rename fails; the message names the file and the system error.
/// @throws whatever `write` throws.
void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

}  // namespace fastcd
