// PLY reader and writer (ASCII and binary of both byte orders), hand-written: see ply_io.hpp.
#include "fastcd/io/ply_io.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fastcd/common/check.hpp"
#include "fastcd/io/parse_util.hpp"
#include "fastcd/io/writer_checks.hpp"

namespace fastcd {

namespace {

constexpr const char* kRead = "read_ply";

// ------------------------------------------------------------------------------ types

enum class Type : std::uint8_t { i8, u8, i16, u16, i32, u32, f32, f64 };

struct TypeInfo {
  const char* name;   // PLY 1.0 name
  const char* alias;  // the sized name later writers use
  int bytes;
  bool integer;
  long long lo, hi;  // range of an integer type
};

constexpr TypeInfo kTypes[] = {
    {"char", "int8", 1, true, INT8_MIN, INT8_MAX},
    {"uchar", "uint8", 1, true, 0, UINT8_MAX},
    {"short", "int16", 2, true, INT16_MIN, INT16_MAX},
    {"ushort", "uint16", 2, true, 0, UINT16_MAX},
    {"int", "int32", 4, true, INT32_MIN, INT32_MAX},
    {"uint", "uint32", 4, true, 0, UINT32_MAX},
    {"float", "float32", 4, false, 0, 0},
    {"double", "float64", 8, false, 0, 0},
};

const TypeInfo& info(Type t) { return kTypes[static_cast<int>(t)]; }

bool parse_type(std::string_view s, Type& t) {
  for (int i = 0; i < 8; ++i)
    if (s == kTypes[i].name || s == kTypes[i].alias) {
      t = static_cast<Type>(i);
      return true;
    }
  return false;
}

// ----------------------------------------------------------------------------- header

struct Property {
  std::string name;
  Type type = Type::f64;  // the scalar type, or the item type of a list
  bool list = false;
  Type count = Type::u8;  // the count type of a list
};

struct Element {
  std::string name;
  long long count = 0;
  std::size_t line = 0;  // header line of its `element` statement
  std::vector<Property> props;

  // Index of the first property called `name` (a scalar unless `list`), or -1.
  int find(std::string_view n, bool want_list = false) const {
    for (std::size_t k = 0; k < props.size(); ++k)
      if (props[k].name == n && props[k].list == want_list) return static_cast<int>(k);
    return -1;
  }
  // Smallest size of one record: every scalar and list count present, every list empty. In
  // ASCII a value takes at least one character and a separator.
  std::size_t min_bytes(bool binary) const {
    std::size_t n = 0;
    for (const Property& p : props) n += binary ? static_cast<std::size_t>(info(p.list ? p.count : p.type).bytes) : 2;
    return n;
  }
};

enum class Format { Ascii, BinaryLittle, BinaryBig };

struct Header {
  Format format = Format::Ascii;
  std::vector<Element> elements;
  std::size_t lines = 0;  // header lines, `end_header` included
  std::size_t data = 0;   // byte offset of the data
};

[[noreturn]] void fail_line(const std::string& path, std::size_t line, const std::string& what) {
  throw std::runtime_error(
      printable(std::string(kRead) + ": '" + path + "' line " + std::to_string(line) + ": " + what));
}

// Parses the header: the lines up to `end_header` (ending in '\n' or "\r\n").
Header parse_header(const std::string& b, const std::string& path) {
  if (b.empty()) detail::fail_file(kRead, path, "file is empty (not a PLY file)");
  Header h;
  std::size_t pos = 0, line_no = 0;
  auto fail = [&](const std::string& what) { fail_line(path, line_no, what); };
  auto next_line = [&](std::string_view& line) {
    if (pos >= b.size()) return false;
    std::size_t end = b.find('\n', pos);
    const std::size_t stop = end == std::string::npos ? b.size() : end;
    line = std::string_view(b).substr(pos, stop - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end == std::string::npos ? b.size() : end + 1;
    ++line_no;
    return true;
  };
  std::string_view line;
  next_line(line);
  if (detail::trim(line) != "ply")
    fail("expected 'ply', got " + detail::quote(line) + " (not a PLY file: the first line of one is 'ply')");
  bool have_format = false, have_vertex = false, have_face = false;
  while (next_line(line)) {
    for (char c : line)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
        fail("control character in the header (binary data before 'end_header'?)");
    detail::Tokens tk(line);
    std::string_view key, tok;
    if (!tk.next(key) || key == "comment" || key == "obj_info") continue;
    auto require = [&](const char* what) {
      if (!tk.next(tok)) fail(std::string("missing ") + what + " in " + detail::quote(line));
      return tok;
    };
    auto no_more = [&](const char* what) {
      if (tk.next(tok)) fail("unexpected extra text " + detail::quote(tok) + " after " + what);
    };
    if (key == "end_header") {
      no_more("'end_header'");
      if (!have_format) fail("'end_header' without a 'format' line");
      h.lines = line_no;
      h.data = pos;
      return h;
    }
    if (key == "format") {
      if (have_format) fail("second 'format' line");
      if (!h.elements.empty()) fail("'format' after the first 'element'");
      const std::string_view f = require("the format");
      if (f == "ascii") {
        h.format = Format::Ascii;
      } else if (f == "binary_little_endian") {
        h.format = Format::BinaryLittle;
      } else if (f == "binary_big_endian") {
        h.format = Format::BinaryBig;
      } else {
        fail("unknown format " + detail::quote(f) + " (ascii, binary_little_endian or binary_big_endian)");
      }
      double version = 0;
      const std::string_view v = require("the format version");
      if (!detail::parse_double(v, version) || version != 1.0)
        fail("format version " + detail::quote(v) + " is not supported (1.0 is)");
      no_more("the format");
      have_format = true;
    } else if (key == "element") {
      if (!have_format) fail("'element' before the 'format' line");
      Element e;
      e.name = std::string(require("the element name"));
      e.line = line_no;
      const std::string_view c = require("the element count");
      if (!detail::parse_int(c, e.count))
        fail("expected the count of element '" + e.name + "', got " + detail::quote(c));
      if (e.count < 0) fail("negative count " + std::to_string(e.count) + " of element '" + e.name + "'");
      no_more("the element count");
      bool& seen = e.name == "vertex" ? have_vertex : have_face;
      if (e.name == "vertex" || e.name == "face") {
        if (seen) fail("second '" + e.name + "' element");
        seen = true;
        if (e.count > INT_MAX)
          fail(e.name + " count " + std::to_string(e.count) + " is out of range [0, " + std::to_string(INT_MAX) + "]");
      }
      h.elements.push_back(std::move(e));
    } else if (key == "property") {
      if (h.elements.empty()) fail("'property' before any 'element'");
      Property p;
      std::string_view t = require("the property type");
      if (t == "list") {
        p.list = true;
        const std::string_view ct = require("the list count type");
        if (!parse_type(ct, p.count)) fail("unknown list count type " + detail::quote(ct));
        if (!info(p.count).integer) fail("list count type " + detail::quote(ct) + " is not an integer type");
        t = require("the list item type");
      }
      if (!parse_type(t, p.type))
        fail("unknown property type " + detail::quote(t) +
             " (char, uchar, short, ushort, int, uint, float, double or int8 ... float64)");
      p.name = std::string(require("the property name"));
      no_more("the property name");
      h.elements.back().props.push_back(std::move(p));
    } else {
      fail("unknown header keyword " + detail::quote(key));
    }
  }
  fail_line(path, line_no, "unexpected end of file: missing 'end_header'");
}

// Where the vertex and face data live in the records, checked against the header.
struct Layout {
  const Element* vertex = nullptr;
  const Element* face = nullptr;
  std::vector<int> role;  // per vertex property: column 0-2 of V, 3-4 of UV, 5-7 of N, or -1
  bool uv = false, normals = false;
  int face_list = -1;  // the vertex_indices property of the face element
};

Layout make_layout(const Header& h, const std::string& path) {
  Layout L;
  for (const Element& e : h.elements) {
    if (e.name == "vertex") L.vertex = &e;
    if (e.name == "face") L.face = &e;
  }
  if (!L.vertex) detail::fail_file(kRead, path, "no 'vertex' element");
  const Element& v = *L.vertex;
  L.role.assign(v.props.size(), -1);
  for (int c = 0; c < 3; ++c) {
    const char* n = c == 0 ? "x" : c == 1 ? "y" : "z";
    const int k = v.find(n);
    if (k < 0)
      fail_line(
          path, v.line,
          std::string("element 'vertex' has no ") + (v.find(n, true) >= 0 ? "scalar " : "") + "property '" + n + "'");
    L.role[static_cast<std::size_t>(k)] = c;
  }
  for (const auto& [s, t] : {std::pair{"s", "t"}, std::pair{"u", "v"}, std::pair{"texture_u", "texture_v"}}) {
    const int ks = v.find(s), kt = v.find(t);
    if (ks >= 0 && kt >= 0) {
      L.role[static_cast<std::size_t>(ks)] = 3;
      L.role[static_cast<std::size_t>(kt)] = 4;
      L.uv = true;
      break;
    }
  }
  const int kn[3] = {v.find("nx"), v.find("ny"), v.find("nz")};
  if (kn[0] >= 0 && kn[1] >= 0 && kn[2] >= 0) {
    for (int c = 0; c < 3; ++c) L.role[static_cast<std::size_t>(kn[c])] = 5 + c;
    L.normals = true;
  }
  if (!L.face)
    detail::fail_file(
        kRead, path,
        "no 'face' element: a point cloud (" + std::to_string(v.count) + " vertices, no faces) is not a surface");
  const Element& f = *L.face;
  L.face_list = f.find("vertex_indices", true);
  if (L.face_list < 0) L.face_list = f.find("vertex_index", true);
  if (L.face_list < 0)
    fail_line(path, f.line, "element 'face' has no list property 'vertex_indices' (or 'vertex_index')");
  const Property& p = f.props[static_cast<std::size_t>(L.face_list)];
  if (!info(p.type).integer)
    fail_line(path, f.line, "the items of '" + p.name + "' are " + info(p.type).name + ", not an integer type");
  return L;
}

// Refuses declared counts whose records cannot fit in the `rem` bytes after the header, before
// anything is allocated. Records without properties take no bytes and are never iterated.
void check_counts(const Header& h, std::size_t rem, const std::string& path) {
  const bool binary = h.format != Format::Ascii;
  std::size_t left = binary ? rem : rem + 1;  // the last ASCII value may end the file
  for (const Element& e : h.elements) {
    const std::size_t min = e.min_bytes(binary);
    if (min == 0) continue;
    if (static_cast<unsigned long long>(e.count) > left / min)
      fail_line(path, e.line,
                "element '" + e.name + "' declares " + std::to_string(e.count) + " records of at least " +
                    std::to_string(min) + " bytes but only " + std::to_string(left) +
                    " bytes are left for them (truncated file or corrupt count)");
    left -= static_cast<std::size_t>(e.count) * min;
  }
}

// ------------------------------------------------------------------------------- data

// The record being read, for messages: "face 5, property 'vertex_indices'".
struct Where {
  const Element& e;
  long long i;
  const Property& p;
  std::string record() const { return e.name + " " + std::to_string(i); }
  std::string str() const { return record() + ", property '" + p.name + "'"; }
};

// ASCII data: whitespace-separated tokens; messages name the line of the last token.
class AsciiSource {
 public:
  AsciiSource(const std::string& text, const std::string& path, std::size_t header_lines)
      : r_(text, path, kRead, "PLY"), ts_(r_, 0) {
    std::string_view l;
    for (std::size_t i = 0; i < header_lines; ++i) r_.next(l);
  }
  [[noreturn]] void fail(const std::string& what) const { r_.fail(what); }

  double real(Type t, const Where& w) {
    const std::string_view tok = token(w);
    if (info(t).integer) return static_cast<double>(checked_int(tok, t, w));
    double v = 0;
    if (!detail::parse_double(tok, v)) fail(w.str() + ": expected a number, got " + detail::quote(tok));
    return v;
  }
  long long integer(Type t, const Where& w) { return checked_int(token(w), t, w); }
  long long list_count(const Property& p, const Where& w) {
    const long long n = integer(p.count, w);
    if (n < 0) fail(w.str() + ": negative list count " + std::to_string(n));
    return n;
  }
  void skip(const Property& p, const Where& w) {
    const long long n = p.list ? list_count(p, w) : 1;
    for (long long j = 0; j < n; ++j) real(p.type, w);
  }
  void finish() {
    std::string_view tok;
    if (ts_.next(tok))
      fail("unexpected content " + detail::quote(tok) + " after the last element (wrong counts in the header?)");
  }

 private:
  std::string_view token(const Where& w) {
    std::string_view tok;
    if (!ts_.next(tok))
      r_.fail_eof(w.str() + " is missing (the header declares " + std::to_string(w.e.count) + " " + w.e.name +
                  " records)");
    return tok;
  }
  long long checked_int(std::string_view tok, Type t, const Where& w) const {
    long long v = 0;
    if (!detail::parse_int(tok, v))
      fail(w.str() + ": expected an integer (" + info(t).name + "), got " + detail::quote(tok));
    if (v < info(t).lo || v > info(t).hi)
      fail(w.str() + ": " + std::to_string(v) + " is out of range for " + info(t).name + " [" +
           std::to_string(info(t).lo) + ", " + std::to_string(info(t).hi) + "]");
    return v;
  }

  detail::LineReader r_;
  detail::TokenStream ts_;
};

// Binary data of either byte order; messages name the byte offset of the value read last.
class BinarySource {
 public:
  BinarySource(const std::string& bytes, const std::string& path, std::size_t pos, bool big)
      : b_(bytes), path_(path), pos_(pos), mark_(pos), big_(big) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(
        printable(std::string(kRead) + ": '" + path_ + "' byte " + std::to_string(mark_) + ": " + what));
  }

  double real(Type t, const Where& w) {
    const std::uint64_t u = load(t, w);
    if (t == Type::f32) return std::bit_cast<float>(static_cast<std::uint32_t>(u));
    if (t == Type::f64) return std::bit_cast<double>(u);
    return static_cast<double>(as_int(u, t));
  }
  long long integer(Type t, const Where& w) { return as_int(load(t, w), t); }
  long long list_count(const Property& p, const Where& w) {
    const long long n = integer(p.count, w);
    if (n < 0) fail(w.str() + ": negative list count " + std::to_string(n));
    const std::size_t item = static_cast<std::size_t>(info(p.type).bytes);
    if (static_cast<unsigned long long>(n) > remaining() / item)
      fail("truncated file: " + w.str() + " lists " + std::to_string(n) + " " + info(p.type).name + " items but only " +
           std::to_string(remaining()) + " bytes remain");
    return n;
  }
  void skip(const Property& p, const Where& w) {
    if (!p.list) {
      load(p.type, w);
      return;
    }
    const long long n = list_count(p, w);
    pos_ += static_cast<std::size_t>(n) * static_cast<std::size_t>(info(p.type).bytes);
  }
  void finish() {
    if (pos_ < b_.size()) {
      mark_ = pos_;
      fail(std::to_string(b_.size() - pos_) +
           " bytes of trailing data after the last element (wrong counts or property types in the header?)");
    }
  }

 private:
  std::size_t remaining() const { return b_.size() - pos_; }
  std::uint64_t load(Type t, const Where& w) {
    const int n = info(t).bytes;
    mark_ = pos_;
    if (remaining() < static_cast<std::size_t>(n))
      fail("truncated file: " + w.str() + " needs " + std::to_string(n) + " bytes but only " +
           std::to_string(remaining()) + " remain");
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      const auto byte = static_cast<unsigned char>(b_[pos_ + static_cast<std::size_t>(big_ ? i : n - 1 - i)]);
      v = (v << 8) | byte;
    }
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  static long long as_int(std::uint64_t u, Type t) {
    switch (t) {
      case Type::i8:
        return static_cast<std::int8_t>(u);
      case Type::i16:
        return static_cast<std::int16_t>(u);
      case Type::i32:
        return static_cast<std::int32_t>(u);
      default:
        return static_cast<long long>(u);  // unsigned types (floats never reach here)
    }
  }

  const std::string& b_;
  const std::string& path_;
  std::size_t pos_, mark_;
  bool big_;
};

// Reads every element's records in header order: positions, texture coordinates and normals of
// the vertices, the faces (fan-triangulated), everything else checked and skipped.
template <class Source>
PlyMesh read_data(Source& s, const Header& h, const Layout& L) {
  const Index nv = static_cast<Index>(L.vertex->count);
  PlyMesh m;
  m.V.resize(nv, 3);
  m.UV.resize(L.uv ? nv : 0, 2);
  m.N.resize(L.normals ? nv : 0, 3);
  std::vector<int> tris, corners;
  tris.reserve(static_cast<std::size_t>(L.face->count) * 3);
  for (const Element& e : h.elements) {
    if (e.props.empty()) continue;
    const bool vertex = &e == L.vertex, face = &e == L.face;
    for (long long i = 0; i < e.count; ++i)
      for (std::size_t k = 0; k < e.props.size(); ++k) {
        const Property& p = e.props[k];
        const Where w{e, i, p};
        const int role = vertex ? L.role[k] : -1;
        if (role >= 0) {
          const double v = s.real(p.type, w);
          if (!std::isfinite(v)) {
            std::string msg = w.str() + " is not finite (";
            detail::append_double(msg, v);
            s.fail(msg + ")");
          }
          MatrixXd& M = role < 3 ? m.V : role < 5 ? m.UV : m.N;
          M(static_cast<Index>(i), role < 3 ? role : role < 5 ? role - 3 : role - 5) = v;
        } else if (face && static_cast<int>(k) == L.face_list) {
          const long long n = s.list_count(p, w);
          if (n < 3)
            s.fail(w.record() + " has " + std::to_string(n) + " corner" + (n == 1 ? "" : "s") +
                   "; at least 3 are needed");
          corners.clear();
          for (long long j = 0; j < n; ++j) {
            const long long idx = s.integer(p.type, w);
            if (idx < 0 || idx >= nv)
              s.fail(w.record() + ": vertex index " + std::to_string(idx) + " is out of range [0, " +
                     std::to_string(nv - 1) + "]" + (nv == 0 ? " (no vertices)" : ""));
            corners.push_back(static_cast<int>(idx));
          }
          for (std::size_t j = 1; j + 1 < corners.size(); ++j) {  // fan from the first corner, as read_obj
            tris.push_back(corners[0]);
            tris.push_back(corners[j]);
            tris.push_back(corners[j + 1]);
          }
        } else {
          s.skip(p, w);
        }
      }
  }
  s.finish();
  m.F.resize(static_cast<Index>(tris.size() / 3), 3);
  for (Index f = 0; f < m.F.rows(); ++f)
    for (Index c = 0; c < 3; ++c) m.F(f, c) = tris[static_cast<std::size_t>(3 * f + c)];
  return m;
}

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b) out += static_cast<char>((v >> (8 * b)) & 0xff);
}

}  // namespace

PlyMesh read_ply(const std::string& path) {
  const std::string b = detail::read_file_bytes(path, kRead);
  const Header h = parse_header(b, path);
  const Layout L = make_layout(h, path);
  if (h.format == Format::Ascii) {
    AsciiSource s(b, path, h.lines);  // refuses NUL bytes (binary data under an ascii header) first
    check_counts(h, b.size() - h.data, path);
    return read_data(s, h, L);
  }
  check_counts(h, b.size() - h.data, path);
  BinarySource s(b, path, h.data, h.format == Format::BinaryBig);
  return read_data(s, h, L);
}

void write_ply(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
               bool binary) {
  const char* fn = "write_ply";
  detail::check_positions(fn, "V", V, 2, 3);
  detail::check_polygons(fn, "F", F, V.rows(), 3);
  const bool wide = F.cols() > 255;  // corner counts beyond a uchar
  std::string out = "ply\nformat ";
  out += binary ? "binary_little_endian" : "ascii";
  out += " 1.0\ncomment written by fastcd\nelement vertex ";
  detail::append_int(out, V.rows());
  out += "\nproperty double x\nproperty double y\nproperty double z\nelement face ";
  detail::append_int(out, F.rows());
  out += wide ? "\nproperty list int int vertex_indices\nend_header\n"
              : "\nproperty list uchar int vertex_indices\nend_header\n";
  // One record layout, two encodings: each value is appended as the header declares it
  // (binary little-endian), or as text with a blank before it and a line break after a record.
  auto put_double = [&](double v, bool first) {
    if (binary) return put_le(out, std::bit_cast<std::uint64_t>(v), 8);
    if (!first) out += ' ';
    detail::append_double(out, v);
  };
  auto put_int = [&](long long v, int bytes, bool first) {
    if (binary) return put_le(out, static_cast<std::uint64_t>(v), bytes);
    if (!first) out += ' ';
    detail::append_int(out, v);
  };
  auto end_record = [&] {
    if (!binary) out += '\n';
  };
  out.reserve(out.size() + static_cast<std::size_t>(V.rows() * (binary ? 24 : 60) + F.rows() * (4 + 8 * F.cols())));
  for (Index i = 0; i < V.rows(); ++i) {
    for (Index c = 0; c < 3; ++c) put_double(c < V.cols() ? V(i, c) : 0.0, c == 0);
    end_record();
  }
  for (Index f = 0; f < F.rows(); ++f) {
    put_int(F.cols(), wide ? 4 : 1, true);
    for (Index a = 0; a < F.cols(); ++a) put_int(F(f, a), 4, false);
    end_record();
  }
  detail::write_text_atomically(path, out, fn);
}

}  // namespace fastcd
