#include "fastcd/io/npy.hpp"

#include "fastcd/io/atomic_file.hpp"
#include "fastcd/io/parse_util.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace fastcd {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

// ---------------------------------------------------------------- writing

std::size_t checked_count(const std::vector<std::size_t>& shape, const char* what) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d)
      throw std::invalid_argument(std::string(what) + ": element count overflows");
    n *= d;
  }
  return n;
}

std::string shape_tuple(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

std::string make_header(const std::string& descr, const std::vector<std::size_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // magic(6) + version(2) + header_len(2) + dict + padding + '\n' % 64 == 0
  std::size_t total = kMagicLen + 2 + 2 + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  if (dict.size() > 65535) throw std::invalid_argument("write_npy: shape too long for a version 1.0 header");
  std::string out(kMagic, kMagicLen);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>((dict.size() >> 8) & 0xff));
  out += dict;
  return out;
}

template <typename T>
T byteswap_value(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

void write_bytes(std::FILE* f, const void* p, std::size_t n, const std::string& path) {
  if (n && std::fwrite(p, 1, n, f) != n)
    throw std::runtime_error("write_npy: cannot write '" + path + "': " + std::strerror(errno));
}

template <typename T>
void write_npy_impl(const std::string& path, const T* data, const std::vector<std::size_t>& shape, const char* descr) {
  const std::size_t n = checked_count(shape, "write_npy");
  if (n > 0 && data == nullptr) throw std::invalid_argument("write_npy: null data for '" + path + "'");
  if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
    throw std::invalid_argument("write_npy: byte count overflows");
  const std::string header = make_header(descr, shape);

  write_file_atomically(path, [&](const std::string& tmp) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(tmp.c_str(), "wb"), &std::fclose);
    if (!f) throw std::runtime_error("write_npy: cannot open '" + tmp + "': " + std::strerror(errno));
    write_bytes(f.get(), header.data(), header.size(), path);
    if constexpr (std::endian::native == std::endian::little) {
      write_bytes(f.get(), data, n * sizeof(T), path);
    } else {
      std::vector<T> buf;
      constexpr std::size_t kChunk = 1 << 16;
      for (std::size_t i = 0; i < n; i += kChunk) {
        std::size_t m = std::min(kChunk, n - i);
        buf.assign(data + i, data + i + m);
        for (T& v : buf) v = byteswap_value(v);
        write_bytes(f.get(), buf.data(), m * sizeof(T), path);
      }
    }
    std::FILE* raw = f.release();
    if (std::fclose(raw) != 0)
      throw std::runtime_error("write_npy: cannot write '" + path + "': " + std::strerror(errno));
  });
}

// ---------------------------------------------------------------- reading

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("read_npy: '" + path + "': " + what);
}

// Minimal parser for the Python literal dict in a .npy header.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  struct Result {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
  };

  Result parse() {
    Result r;
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    expect('{');
    skip_ws();
    while (peek() != '}') {
      std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (have_descr) fail(path_, "duplicate key 'descr' in header");
        r.descr = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) fail(path_, "duplicate key 'fortran_order' in header");
        r.fortran_order = parse_bool();
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) fail(path_, "duplicate key 'shape' in header");
        r.shape = parse_shape();
        have_shape = true;
      } else {
        fail(path_, "unexpected key " + detail::quote(key) + " in header");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        skip_ws();
      } else if (peek() != '}') {
        fail(path_, "malformed header dictionary (expected ',' or '}')");
      }
    }
    ++i_;
    skip_ws();
    if (i_ != s_.size()) fail(path_, "trailing characters after header dictionary");
    if (!have_descr || !have_fortran || !have_shape)
      fail(path_, "header lacks one of the keys 'descr', 'fortran_order', 'shape'");
    return r;
  }

 private:
  char peek() const {
    if (i_ >= s_.size()) fail(path_, "header dictionary ends unexpectedly");
    return s_[i_];
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(path_, std::string("malformed header dictionary (expected '") + c + "')");
    ++i_;
  }
  std::string parse_string() {
    char q = peek();
    if (q != '\'' && q != '"') fail(path_, "malformed header dictionary (expected a string)");
    ++i_;
    std::size_t start = i_;
    while (peek() != q) ++i_;
    std::string out = s_.substr(start, i_ - start);
    ++i_;
    return out;
  }
  bool parse_bool() {
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail(path_, "header 'fortran_order' is not True or False");
  }
  std::vector<std::size_t> parse_shape() {
    std::vector<std::size_t> shape;
    expect('(');
    skip_ws();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail(path_, "header 'shape' must be a tuple of non-negative integers");
      std::size_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        std::size_t digit = static_cast<std::size_t>(s_[i_] - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10)
          fail(path_, "header 'shape' dimension too large");
        v = v * 10 + digit;
        ++i_;
      }
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix
      shape.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++i_;
        skip_ws();
      } else if (peek() != ')') {
        fail(path_, "malformed header 'shape' tuple");
      }
    }
    ++i_;
    return shape;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

std::uint64_t load_le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Reads n elements of file type T, converting to Out.
template <typename T, typename Out>
void read_elements(std::istream& in, std::size_t n, bool swap, const std::string& path, Out* out) {
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<T> buf;
  for (std::size_t i = 0; i < n; i += kChunk) {
    std::size_t m = std::min(kChunk, n - i);
    buf.resize(m);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(m * sizeof(T)));
    if (static_cast<std::size_t>(in.gcount()) != m * sizeof(T)) fail(path, "data is truncated");
    for (std::size_t k = 0; k < m; ++k) out[i + k] = static_cast<Out>(swap ? byteswap_value(buf[k]) : buf[k]);
  }
}

}  // namespace

void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<f8");
}

void write_npy(const std::string& path, const std::int32_t* data, const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<i4");
}

void write_npy(const std::string& path, const std::int64_t* data, const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<i8");
}

void write_npy_states(const std::string& path, const std::vector<Eigen::MatrixXd>& states) {
  if (states.empty()) {
    write_npy(path, static_cast<const double*>(nullptr), {0, 0, 0});
    return;
  }
  const auto rows = states.front().rows();
  const auto cols = states.front().cols();
  for (std::size_t s = 0; s < states.size(); ++s) {
    if (states[s].rows() != rows || states[s].cols() != cols)
      throw std::invalid_argument("write_npy_states: state " + std::to_string(s) + " is " +
                                  std::to_string(states[s].rows()) + "x" + std::to_string(states[s].cols()) +
                                  " but state 0 is " + std::to_string(rows) + "x" + std::to_string(cols));
  }
  const std::size_t V = static_cast<std::size_t>(rows), D = static_cast<std::size_t>(cols);
  std::vector<double> buf(states.size() * V * D);
  std::size_t k = 0;
  for (const auto& S : states)
    for (Eigen::Index v = 0; v < rows; ++v)
      for (Eigen::Index d = 0; d < cols; ++d) buf[k++] = S(v, d);
  write_npy(path, buf.data(), {states.size(), V, D});
}

NpyArray read_npy(const std::string& path) {
  {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      fail(path, std::filesystem::exists(path, ec) ? "not a regular file (a directory, FIFO or device)"
                                                   : "cannot open: no such file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff file_size_off = in.tellg();
  if (file_size_off < 0) fail(path, "cannot determine file size");
  const std::uint64_t file_size = static_cast<std::uint64_t>(file_size_off);
  in.seekg(0, std::ios::beg);

  unsigned char pre[12] = {};
  if (file_size < 10) fail(path, "file too short to be a .npy file");
  in.read(reinterpret_cast<char*>(pre), 8);
  if (std::memcmp(pre, kMagic, kMagicLen) != 0) fail(path, "bad magic string (not a .npy file)");
  const int major = pre[6], minor = pre[7];
  std::uint64_t header_len = 0;
  std::uint64_t prefix = 0;
  if (major == 1 && minor == 0) {
    in.read(reinterpret_cast<char*>(pre + 8), 2);
    header_len = load_le(pre + 8, 2);
    prefix = 10;
  } else if ((major == 2 || major == 3) && minor == 0) {
    if (file_size < 12) fail(path, "file too short to be a .npy file");
    in.read(reinterpret_cast<char*>(pre + 8), 4);
    header_len = load_le(pre + 8, 4);
    prefix = 12;
  } else {
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (!in) fail(path, "truncated header");
  if (header_len > file_size - prefix) fail(path, "header length exceeds file size");

  std::string header(static_cast<std::size_t>(header_len), '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (static_cast<std::uint64_t>(in.gcount()) != header_len) fail(path, "truncated header");
  for (char c : header)
    if (static_cast<unsigned char>(c) >= 0x80 && major < 3) fail(path, "non-ASCII header");

  HeaderParser::Result h = HeaderParser(header, path).parse();

  // dtype
  NpyArray out;
  std::string descr = h.descr;
  if (descr.size() != 3) fail(path, "unsupported dtype " + detail::quote(descr) + " (need <f8, <i4 or <i8)");
  const char order = descr[0];
  const std::string kind = descr.substr(1);
  bool swap = false;
  if (order == '<' || order == '=' || order == '|') {
    swap = std::endian::native == std::endian::big;
  } else if (order == '>') {
    swap = std::endian::native == std::endian::little;
  } else {
    fail(path, "unsupported dtype " + detail::quote(descr) + " (need <f8, <i4 or <i8)");
  }
  std::size_t itemsize = 0;
  if (kind == "f8" || kind == "i8") {
    itemsize = 8;
  } else if (kind == "i4") {
    itemsize = 4;
  } else {
    fail(path, "unsupported dtype " + detail::quote(descr) + " (need <f8, <i4 or <i8)");
  }
  if (order == '|') fail(path, "unsupported dtype " + detail::quote(descr) + " (byte order missing)");
  out.dtype = "<" + kind;
  out.shape = h.shape;
  out.fortran_order = h.fortran_order;

  // size check before any allocation: the byte count implied by the shape, saturated at
  // 2^64 - 1 (which no file reaches) so a gigantic or overflowing shape is rejected too.
  const std::uint64_t data_bytes_avail = file_size - prefix - header_len;
  constexpr std::uint64_t kSat = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t n = 1;
  for (std::size_t d : h.shape) {
    if (d == 0) {
      n = 0;
      break;
    }
    n = n > kSat / d ? kSat : n * d;
  }
  const std::uint64_t need = n > kSat / itemsize ? kSat : n * itemsize;
  if (need != data_bytes_avail) {
    const std::string expected = need == kSat ? std::string("more than 2^64 bytes") : std::to_string(need) + " bytes";
    fail(path, "data size does not match header: shape " + shape_tuple(h.shape) + " of " + out.dtype + " needs " +
                   expected + ", file has " + std::to_string(data_bytes_avail) + " data bytes" +
                   (need > data_bytes_avail ? " (truncated file or corrupt shape)" : " (trailing data)"));
  }

  const std::size_t count = static_cast<std::size_t>(n);
  if (kind == "f8") {
    out.data_f64.resize(count);
    read_elements<double>(in, count, swap, path, out.data_f64.data());
  } else if (kind == "i8") {
    out.data_i64.resize(count);
    read_elements<std::int64_t>(in, count, swap, path, out.data_i64.data());
  } else {
    out.data_i64.resize(count);
    read_elements<std::int32_t>(in, count, swap, path, out.data_i64.data());
  }
  return out;
}

}  // namespace fastcd
