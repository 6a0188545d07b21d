#pragma once
// Internal helpers shared by the file readers and writers of fastcd::io (not a public header:
// nothing outside src/fastcd/io/*.cpp includes it).
//
// Every reader error is a std::runtime_error whose message has the form
//   "<function>: '<path>' line <n>: <problem>"    (text formats)
//   "<function>: '<path>' byte <offset>: <problem>" (binary formats)
//   "<function>: '<path>': <problem>"               (whole-file problems)
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fastcd::detail {

/// Reads the whole file into memory.
/// @throws std::runtime_error "<fn>: cannot open '<path>': <reason>" (also for a directory).
std::string read_file_bytes(const std::string& path, const char* fn);

/// Writes `content` to `path` atomically (write_file_atomically), binary mode.
/// @throws std::runtime_error "<fn>: cannot write '<path>': <reason>".
void write_text_atomically(const std::string& path, const std::string& content, const char* fn);

/// "<fn>: '<path>': <what>".
[[noreturn]] void fail_file(const char* fn, const std::string& path, const std::string& what);

/// Shortest decimal text that reads back to exactly `v` (std::to_chars), appended to `out`.
void append_double(std::string& out, double v);
/// Decimal text of an integer, appended to `out`.
void append_int(std::string& out, long long v);

/// Parses the whole token as a double (decimal or scientific, optional sign; "inf"/"nan"
/// are parsed, so callers decide about finiteness). False if the token is not a number.
bool parse_double(std::string_view tok, double& v);
/// Parses the whole token as a signed 64-bit integer (optional sign). False otherwise.
bool parse_int(std::string_view tok, long long& v);

/// Line-by-line reader over a text file held in memory, keeping the 1-based line number
/// for messages. Lines are returned without the end-of-line ('\n', "\r\n" or '\r').
class LineReader {
 public:
  /// @param text    the file content (must outlive the reader).
  /// @param path    file name for messages.
  /// @param fn      public function name for messages.
  /// @param format  human-readable format name ("OBJ", ...) used in the messages below.
  /// @throws std::runtime_error if the text is empty ("file is empty") or contains a NUL byte
  ///         ("line n: contains a NUL byte: binary data, not a text <format> file").
  LineReader(const std::string& text, std::string path, const char* fn, const char* format);

  /// Next line; false at the end of the file.
  bool next(std::string_view& line);
  /// Next line that is not blank after removing a comment starting with `comment` (0 = no
  /// comments); the comment and surrounding blanks are stripped. False at the end.
  bool next_content(std::string_view& line, char comment);
  /// Line number of the line last returned (0 before the first).
  std::size_t line_no() const { return line_no_; }
  /// Bytes not yet returned.
  std::size_t remaining() const { return text_.size() - pos_; }
  bool at_end() const { return pos_ >= text_.size(); }

  /// "<fn>: '<path>' line <n>: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  /// "<fn>: '<path>' line <n>: unexpected end of file: <what>" (line = the last line).
  [[noreturn]] void fail_eof(const std::string& what) const;

  /// Throws (fail) unless a header's declared `count` of records, each of at least
  /// `min_bytes` characters, fits in the remaining bytes. Guards allocations against huge
  /// declared counts: "declares <count> <what> but only <n> bytes follow".
  void check_count_fits(long long count, std::size_t min_bytes, const char* what) const;

  const std::string& path() const { return path_; }
  const char* fn() const { return fn_; }

 private:
  const std::string& text_;
  std::string path_;
  const char* fn_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
};

/// Whitespace-separated tokens of one line (spaces, tabs, '\r', '\v', '\f').
class Tokens {
 public:
  explicit Tokens(std::string_view line) : s_(line) {}
  /// Next token; false when none is left.
  bool next(std::string_view& tok);
  /// The unread rest of the line with leading blanks removed.
  std::string_view rest();

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

/// Whitespace-separated tokens of a whole text file, across lines, with comments removed;
/// messages name the line of the token last returned.
class TokenStream {
 public:
  /// @param comment  character that starts a comment running to the end of the line (0 = none).
  TokenStream(LineReader& reader, char comment) : r_(reader), comment_(comment) {}
  /// Next token; false at the end of the file.
  bool next(std::string_view& tok);
  /// Next token; fails with "unexpected end of file: missing <what>" at the end.
  std::string_view require(const char* what);
  /// Next token as a finite double / an integer in [lo, hi] (messages as next_finite/next_int).
  double finite(const char* what);
  long long integer(const char* what, long long lo, long long hi);
  const LineReader& reader() const { return r_; }

 private:
  LineReader& r_;
  char comment_;
  Tokens line_{std::string_view()};
};

/// Strips leading and trailing blanks.
std::string_view trim(std::string_view s);

/// Quotes a token for an error message, cut to 40 characters.
std::string quote(std::string_view tok);

/// Reads the next token of `tokens` as a finite double, or fails at the reader's line with
/// "expected <what>, got '<tok>'" / "missing <what>" / "<what> is not finite ('<tok>')".
double next_finite(Tokens& tokens, const LineReader& r, const char* what);
/// Reads the next token as an integer in [lo, hi], or fails at the reader's line.
long long next_int(Tokens& tokens, const LineReader& r, const char* what, long long lo, long long hi);
/// Fails if `tokens` has anything left: "unexpected extra text '<tok>' after <what>".
void expect_no_more(Tokens& tokens, const LineReader& r, const char* what);

}  // namespace fastcd::detail
