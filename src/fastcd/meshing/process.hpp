#pragma once
// Running an external program (the TetGen mesher, which is AGPL and never linked).
#include <string>
#include <vector>

namespace fastcd::detail {

/// Runs args[0] (looked up on PATH) with args[1..], stdin from /dev/null, stdout and stderr to
/// `log_path`, and waits for it, checking for cancellation (fastcd::request_cancel, the CLI's
/// Ctrl-C) every 20 ms: on cancellation or after `timeout_seconds` the program is killed.
/// @returns its exit status (128 + signal when a signal ended it).
/// @throws std::runtime_error naming `who` when it cannot be started (not installed: the
///         message says which program) or ran out of time; fastcd::Cancelled when cancelled.
int run_program(const std::vector<std::string>& args, const std::string& log_path, double timeout_seconds,
                const char* who);

/// The last `n` non-empty lines of a text file, joined by " | " ("" if it cannot be read).
std::string last_lines(const std::string& path, int n);

}  // namespace fastcd::detail
