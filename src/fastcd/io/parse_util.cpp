#include "fastcd/io/parse_util.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "fastcd/common/check.hpp"
#include "fastcd/io/atomic_file.hpp"

namespace fastcd::detail {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

void fail_file(const char* fn, const std::string& path, const std::string& what) {
  throw std::runtime_error(printable(std::string(fn) + ": '" + path + "': " + what));
}

std::string read_file_bytes(const std::string& path, const char* fn) { return read_regular_file(path, fn); }

void write_text_atomically(const std::string& path, const std::string& content, const char* fn) {
  write_file_contents(path, content, fn);
}

void append_double(std::string& out, double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void append_int(std::string& out, long long v) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

bool parse_double(std::string_view tok, double& v) {
  if (tok.empty()) return false;
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (*b == '+') {
    ++b;
    if (b == e || *b == '-' || *b == '+') return false;
  }
  auto res = std::from_chars(b, e, v, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    // from_chars reports overflow and underflow alike; recover the value the way strtod does
    // (overflow -> +-inf, which the callers reject as not finite; underflow -> 0 / denormal).
    std::string s(b, e);
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
  }
  return res.ec == std::errc() && res.ptr == e;
}

bool parse_int(std::string_view tok, long long& v) {
  if (tok.empty()) return false;
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (*b == '+') {
    ++b;
    if (b == e || *b == '-') return false;
  }
  auto res = std::from_chars(b, e, v);
  return res.ec == std::errc() && res.ptr == e;
}

std::string_view trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && is_blank(s[a])) ++a;
  while (b > a && is_blank(s[b - 1])) --b;
  return s.substr(a, b - a);
}

std::string quote(std::string_view tok) {
  std::string s(tok.substr(0, 40));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (tok.size() > 40) s += "...";
  return "'" + s + "'";
}

// ------------------------------------------------------------------ LineReader

LineReader::LineReader(const std::string& text, std::string path, const char* fn, const char* format)
    : text_(text), path_(std::move(path)), fn_(fn) {
  if (text_.empty()) {
    const bool vowel = std::strchr("AEIOUaeiou", format[0]) != nullptr;
    fail_file(fn_, path_, std::string("file is empty (not ") + (vowel ? "an " : "a ") + format + " file)");
  }
  const std::size_t nul = text_.find('\0');
  if (nul != std::string::npos) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < nul; ++i)
      if (text_[i] == '\n') ++line;
    throw std::runtime_error(std::string(fn_) + ": '" + path_ + "' line " + std::to_string(line) +
                             ": contains a NUL byte: binary data, not a text " + format + " file");
  }
}

bool LineReader::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  std::size_t end = pos_;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  line = std::string_view(text_).substr(pos_, end - pos_);
  if (end < text_.size()) {
    if (text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n') ++end;
    ++end;
  }
  pos_ = end;
  ++line_no_;
  return true;
}

bool LineReader::next_content(std::string_view& line, char comment) {
  std::string_view l;
  while (next(l)) {
    if (comment) {
      std::size_t c = l.find(comment);
      if (c != std::string_view::npos) l = l.substr(0, c);
    }
    l = trim(l);
    if (!l.empty()) {
      line = l;
      return true;
    }
  }
  return false;
}

void LineReader::fail(const std::string& what) const {
  throw std::runtime_error(std::string(fn_) + ": '" + path_ + "' line " + std::to_string(line_no_) + ": " + what);
}

void LineReader::fail_eof(const std::string& what) const {
  throw std::runtime_error(std::string(fn_) + ": '" + path_ + "' line " + std::to_string(line_no_) +
                           ": unexpected end of file: " + what);
}

void LineReader::check_count_fits(long long count, std::size_t min_bytes, const char* what) const {
  if (count < 0) fail(std::string("negative count ") + std::to_string(count) + " of " + what);
  const std::size_t rem = remaining();
  if (min_bytes > 0 && static_cast<unsigned long long>(count) > rem / min_bytes + 1)
    fail("declares " + std::to_string(count) + " " + what + " but only " + std::to_string(rem) +
         " bytes follow (truncated file or corrupt count)");
}

// ------------------------------------------------------------------ Tokens

bool Tokens::next(std::string_view& tok) {
  while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
  if (i_ >= s_.size()) return false;
  std::size_t b = i_;
  while (i_ < s_.size() && !is_blank(s_[i_])) ++i_;
  tok = s_.substr(b, i_ - b);
  return true;
}

std::string_view Tokens::rest() {
  while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
  return s_.substr(i_);
}

// ------------------------------------------------------------------ TokenStream

bool TokenStream::next(std::string_view& tok) {
  while (!line_.next(tok)) {
    std::string_view l;
    if (!r_.next_content(l, comment_)) return false;
    line_ = Tokens(l);
  }
  return true;
}

std::string_view TokenStream::require(const char* what) {
  std::string_view tok;
  if (!next(tok)) r_.fail_eof(std::string("missing ") + what);
  return tok;
}

double TokenStream::finite(const char* what) {
  std::string_view tok = require(what);
  double v = 0;
  if (!parse_double(tok, v)) r_.fail(std::string("expected ") + what + ", got " + quote(tok));
  if (!std::isfinite(v)) r_.fail(std::string(what) + " is not finite (" + quote(tok) + ")");
  return v;
}

long long TokenStream::integer(const char* what, long long lo, long long hi) {
  std::string_view tok = require(what);
  long long v = 0;
  if (!parse_int(tok, v)) r_.fail(std::string("expected ") + what + " (an integer), got " + quote(tok));
  if (v < lo || v > hi)
    r_.fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
            std::to_string(hi) + "]");
  return v;
}

double next_finite(Tokens& tokens, const LineReader& r, const char* what) {
  std::string_view tok;
  if (!tokens.next(tok)) r.fail(std::string("missing ") + what);
  double v = 0;
  if (!parse_double(tok, v)) r.fail(std::string("expected ") + what + ", got " + quote(tok));
  if (!std::isfinite(v)) r.fail(std::string(what) + " is not finite (" + quote(tok) + ")");
  return v;
}

long long next_int(Tokens& tokens, const LineReader& r, const char* what, long long lo, long long hi) {
  std::string_view tok;
  if (!tokens.next(tok)) r.fail(std::string("missing ") + what);
  long long v = 0;
  if (!parse_int(tok, v)) r.fail(std::string("expected ") + what + " (an integer), got " + quote(tok));
  if (v < lo || v > hi)
    r.fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
  return v;
}

void expect_no_more(Tokens& tokens, const LineReader& r, const char* what) {
  std::string_view tok;
  if (tokens.next(tok)) r.fail("unexpected extra text " + quote(tok) + " after " + what);
}

}  // namespace fastcd::detail
