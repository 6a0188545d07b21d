// Gmsh .msh reader (2.2 and 4.1, ASCII and binary) and writer.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/parse_util.hpp"
#include "fastcd/io/writer_checks.hpp"

namespace fastcd {

namespace {

using detail::quote;

constexpr const char* kRead = "read_msh";

/// Nodes of a Gmsh element type (-1 = unknown type).
int gmsh_nodes_per_element(long long type) {
  switch (type) {
    case 1:
      return 2;  // line
    case 2:
      return 3;  // triangle
    case 3:
      return 4;  // quadrangle
    case 4:
      return 4;  // tetrahedron
    case 5:
      return 8;  // hexahedron
    case 6:
      return 6;  // prism
    case 7:
      return 5;  // pyramid
    case 8:
      return 3;  // second-order line
    case 9:
      return 6;  // second-order triangle
    case 10:
      return 9;  // second-order quadrangle
    case 11:
      return 10;  // second-order tetrahedron
    case 12:
      return 27;  // second-order hexahedron
    case 13:
      return 18;  // second-order prism
    case 14:
      return 14;  // second-order pyramid
    case 15:
      return 1;  // point
    case 16:
      return 8;  // 8-node quadrangle
    case 17:
      return 20;  // 20-node hexahedron
    case 18:
      return 15;  // 15-node prism
    case 19:
      return 13;  // 13-node pyramid
    case 20:
      return 9;  // incomplete 9-node triangle
    case 21:
      return 10;  // 10-node triangle
    case 22:
      return 12;  // incomplete 12-node triangle
    case 23:
      return 15;  // 15-node triangle
    case 24:
      return 15;  // incomplete 15-node triangle
    case 25:
      return 21;  // 21-node triangle
    case 26:
      return 4;  // 4-node edge
    case 27:
      return 5;  // 5-node edge
    case 28:
      return 6;  // 6-node edge
    case 29:
      return 20;  // 20-node tetrahedron
    case 30:
      return 35;  // 35-node tetrahedron
    case 31:
      return 56;  // 56-node tetrahedron
    case 92:
      return 64;  // 64-node hexahedron
    case 93:
      return 125;  // 125-node hexahedron
    default:
      return -1;
  }
}

// ------------------------------------------------------------------------------ reader

class MshReader {
 public:
  MshReader(const std::string& bytes, const std::string& path) : b_(bytes), path_(path) {}

  MshMesh read();

 private:
  // ---- position and messages
  // Messages point at `mark_`, the start of the line, token or binary value read last: as a
  // line number in ASCII files, as a byte offset in binary ones.
  [[noreturn]] void fail(const std::string& what) const {
    if (binary_)
      throw std::runtime_error(std::string(kRead) + ": '" + path_ + "' byte " + std::to_string(mark_) + ": " + what);
    const std::size_t line =
        1 + static_cast<std::size_t>(std::count(b_.begin(), b_.begin() + static_cast<std::ptrdiff_t>(mark_), '\n'));
    throw std::runtime_error(std::string(kRead) + ": '" + path_ + "' line " + std::to_string(line) + ": " + what);
  }
  std::size_t remaining() const { return b_.size() - pos_; }
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  void skip_space() {
    while (pos_ < b_.size() && is_space(b_[pos_])) ++pos_;
  }

  // ---- text
  bool read_line(std::string_view& line) {
    if (pos_ >= b_.size()) return false;
    mark_ = pos_;
    std::size_t end = b_.find('\n', pos_);
    if (end == std::string::npos) end = b_.size();
    line = detail::trim(std::string_view(b_).substr(pos_, end - pos_));
    pos_ = end < b_.size() ? end + 1 : end;
    return true;
  }
  std::string_view nonblank_line(const char* what) {
    std::string_view l;
    skip_space();
    if (!read_line(l)) fail(std::string("unexpected end of file: missing ") + what);
    return l;
  }
  std::string_view token(const char* what) {
    skip_space();
    if (pos_ >= b_.size()) fail(std::string("unexpected end of file: missing ") + what);
    mark_ = pos_;
    std::size_t e = pos_;
    while (e < b_.size() && !is_space(b_[e])) ++e;
    std::string_view t = std::string_view(b_).substr(pos_, e - pos_);
    pos_ = e;
    return t;
  }
  long long text_int(const char* what, long long lo, long long hi) {
    std::string_view t = token(what);
    long long v = 0;
    if (!detail::parse_int(t, v)) fail(std::string("expected ") + what + " (an integer), got " + quote(t));
    if (v < lo || v > hi)
      fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    return v;
  }
  double text_double(const char* what, bool finite) {
    std::string_view t = token(what);
    double v = 0;
    if (!detail::parse_double(t, v)) fail(std::string("expected ") + what + ", got " + quote(t));
    if (finite && !std::isfinite(v)) fail(std::string(what) + " is not finite (" + quote(t) + ")");
    return v;
  }

  // ---- binary (little-endian)
  void need(std::uint64_t n, const std::string& what) const {
    if (n > remaining())
      fail("truncated file: " + what + " needs " + std::to_string(n) + " bytes but only " +
           std::to_string(remaining()) + " remain");
  }
  std::uint64_t load(int nbytes) {
    mark_ = pos_;
    std::uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; --i)
      v = (v << 8) | static_cast<unsigned char>(b_[pos_ + static_cast<std::size_t>(i)]);
    pos_ += static_cast<std::size_t>(nbytes);
    return v;
  }
  long long bin_int(const char* what, long long lo, long long hi) {
    need(4, what);
    const auto v = static_cast<long long>(static_cast<std::int32_t>(load(4)));
    if (v < lo || v > hi) {
      fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "] (binary garbage or wrong counts?)");
    }
    return v;
  }
  std::uint64_t bin_size(const char* what, std::uint64_t hi) {
    need(static_cast<std::uint64_t>(size_bytes_), what);
    const std::uint64_t v = load(size_bytes_);
    if (v > hi) {
      fail(std::string(what) + " " + std::to_string(v) + " is out of range [0, " + std::to_string(hi) +
           "] (binary garbage or wrong counts?)");
    }
    return v;
  }
  double bin_double(const char* what, bool finite) {
    need(8, what);
    const double v = std::bit_cast<double>(load(8));
    if (finite && !std::isfinite(v)) {
      fail(std::string(what) + " is not finite (" + std::to_string(v) + ")");
    }
    return v;
  }

  // ---- encoding-independent value readers
  long long int_value(const char* what, long long lo, long long hi) {
    return binary_ ? bin_int(what, lo, hi) : text_int(what, lo, hi);
  }
  std::uint64_t size_value(const char* what, std::uint64_t hi) {
    if (binary_) return bin_size(what, hi);
    return static_cast<std::uint64_t>(
        text_int(what, 0, static_cast<long long>(std::min<std::uint64_t>(hi, LLONG_MAX))));
  }
  double double_value(const char* what, bool finite) {
    return binary_ ? bin_double(what, finite) : text_double(what, finite);
  }
  // Fails unless `count` records of at least `min_bytes` each fit in the rest of the file.
  void check_fits(std::uint64_t count, std::uint64_t min_bytes, const char* what) const {
    if (min_bytes > 0 && count > remaining() / min_bytes + 1)
      fail("declares " + std::to_string(count) + " " + what + " but only " + std::to_string(remaining()) +
           " bytes follow (truncated file or corrupt count)");
  }

  // ---- sections
  void expect_end(const std::string& name) {
    skip_space();
    std::string_view l;
    const std::string want = "$End" + name;
    if (!read_line(l)) fail("unexpected end of file: missing '" + want + "'");
    if (l != want) {
      fail("expected '" + want + "', got " + quote(l) + " (wrong counts or garbage in $" + name + ")");
    }
  }
  void skip_section(const std::string& name) {
    const std::string want = "\n$End" + name;
    const std::size_t at = b_.find(want, pos_ > 0 ? pos_ - 1 : 0);
    if (at == std::string::npos) fail("section $" + name + " has no '$End" + name + "'");
    pos_ = at + 1;
    std::string_view l;
    read_line(l);
  }
  void read_format();
  void read_entities();
  void read_nodes();
  void read_elements();
  void add_node(std::uint64_t tag, double x, double y, double z);
  int node_index(std::uint64_t tag, std::uint64_t element_tag);
  void add_element(long long type, std::uint64_t tag, const std::vector<std::uint64_t>& nodes, int physical);

  const std::string& b_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::size_t mark_ = 0;
  bool binary_ = false;
  int version_ = 0;  // 2 or 41
  int size_bytes_ = 8;

  std::vector<double> X_;
  std::unordered_map<std::uint64_t, int> tag_to_index_;
  bool have_nodes_ = false, have_elements_ = false;
  std::map<std::pair<int, int>, int> entity_physical_;
  std::vector<int> tris_, tets_, tri_phys_, tet_phys_;
  std::set<long long> types_seen_;
};

void MshReader::read_format() {
  std::string_view l = nonblank_line("'$MeshFormat'");
  if (l != "$MeshFormat") fail("expected '$MeshFormat', got " + quote(l) + " (not a Gmsh .msh file)");
  l = nonblank_line("the format line 'version file-type data-size'");
  detail::Tokens tk(l);
  std::string_view ver, type, size;
  if (!tk.next(ver) || !tk.next(type) || !tk.next(size))
    fail("expected the format line 'version file-type data-size', got " + quote(l));
  double v = 0;
  if (!detail::parse_double(ver, v)) fail("bad format version " + quote(ver));
  if (v >= 2.0 && v < 3.0) {
    version_ = 2;
  } else if (v == 4.1) {
    version_ = 41;
  } else if (v >= 4.0 && v < 4.1) {
    fail("format version " + std::string(ver) + " is not supported (re-save as 4.1 or 2.2)");
  } else {
    fail("format version " + quote(ver) + " is not supported (2.2 and 4.1 are)");
  }
  long long ft = 0, ds = 0;
  if (!detail::parse_int(type, ft) || (ft != 0 && ft != 1))
    fail("file-type must be 0 (ASCII) or 1 (binary), got " + quote(type));
  if (!detail::parse_int(size, ds) || (ds != 8 && !(version_ == 41 && ds == 4)))
    fail("data-size " + quote(size) + " is not supported (8, or 4 for a 4.1 size_t)");
  size_bytes_ = static_cast<int>(ds);
  if (ft == 1) {
    binary_ = true;
    need(4, "the endianness marker");
    const std::uint64_t one = load(4);
    if (one == 0x01000000u) {
      fail("big-endian binary .msh files are not supported");
    }
    if (one != 1) {
      fail("bad endianness marker " + std::to_string(one) + " (expected the int 1)");
    }
  }
  expect_end("MeshFormat");
}

void MshReader::read_entities() {
  const std::uint64_t n[4] = {size_value("number of points", INT_MAX), size_value("number of curves", INT_MAX),
                              size_value("number of surfaces", INT_MAX), size_value("number of volumes", INT_MAX)};
  for (int dim = 0; dim < 4; ++dim) {
    check_fits(n[dim], binary_ ? 28 : 10, "entities");
    for (std::uint64_t e = 0; e < n[dim]; ++e) {
      const int tag = static_cast<int>(int_value("entity tag", INT_MIN, INT_MAX));
      for (int c = 0; c < (dim == 0 ? 3 : 6); ++c) double_value("entity coordinate", false);
      const std::uint64_t np = size_value("number of physical tags", 1 << 20);
      check_fits(np, binary_ ? 4 : 2, "physical tags");
      int first = 0;
      for (std::uint64_t p = 0; p < np; ++p) {
        const int ph = static_cast<int>(int_value("physical tag", INT_MIN, INT_MAX));
        if (p == 0) first = ph;
      }
      if (dim > 0) {
        const std::uint64_t nb = size_value("number of bounding entities", 1 << 24);
        check_fits(nb, binary_ ? 4 : 2, "bounding entities");
        for (std::uint64_t k = 0; k < nb; ++k) int_value("bounding entity tag", INT_MIN, INT_MAX);
      }
      entity_physical_[{dim, tag}] = first;
    }
  }
  expect_end("Entities");
}

void MshReader::add_node(std::uint64_t tag, double x, double y, double z) {
  const int idx = static_cast<int>(X_.size() / 3);
  if (!tag_to_index_.emplace(tag, idx).second) fail("node tag " + std::to_string(tag) + " is defined twice");
  X_.push_back(x);
  X_.push_back(y);
  X_.push_back(z);
}

int MshReader::node_index(std::uint64_t tag, std::uint64_t element_tag) {
  auto it = tag_to_index_.find(tag);
  if (it == tag_to_index_.end())
    fail("element " + std::to_string(element_tag) + " references node tag " + std::to_string(tag) +
         ", which is not defined in $Nodes");
  return it->second;
}

void MshReader::add_element(long long type, std::uint64_t tag, const std::vector<std::uint64_t>& nodes, int physical) {
  types_seen_.insert(type);
  if (type != 2 && type != 4) {
    for (std::uint64_t n : nodes) node_index(n, tag);
    return;
  }
  std::vector<int>& out = type == 4 ? tets_ : tris_;
  for (std::uint64_t n : nodes) out.push_back(node_index(n, tag));
  (type == 4 ? tet_phys_ : tri_phys_).push_back(physical);
}

void MshReader::read_nodes() {
  if (have_nodes_) fail("second $Nodes section");
  have_nodes_ = true;
  if (version_ == 2) {
    const long long n = text_int("node count", 0, INT_MAX);
    if (binary_) {
      std::string_view rest;
      read_line(rest);
      if (!rest.empty()) fail("unexpected text " + quote(rest) + " after the node count");
      need(static_cast<std::uint64_t>(n) * 28, std::to_string(n) + " binary nodes");
    } else {
      check_fits(static_cast<std::uint64_t>(n), 8, "nodes");
    }
    X_.reserve(static_cast<std::size_t>(n) * 3);
    tag_to_index_.reserve(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) {
      const long long tag = int_value("node tag", 1, INT_MAX);
      const double x = double_value("node coordinate", true);
      const double y = double_value("node coordinate", true);
      const double z = double_value("node coordinate", true);
      add_node(static_cast<std::uint64_t>(tag), x, y, z);
    }
  } else {
    const std::uint64_t nblocks = size_value("number of node blocks", INT_MAX);
    const std::uint64_t n = size_value("node count", INT_MAX);
    size_value("minimum node tag", UINT64_MAX);
    size_value("maximum node tag", UINT64_MAX);
    check_fits(nblocks, binary_ ? 12 + size_bytes_ : 8, "node blocks");
    check_fits(n, binary_ ? 24 + size_bytes_ : 8, "nodes");
    X_.reserve(static_cast<std::size_t>(n) * 3);
    tag_to_index_.reserve(static_cast<std::size_t>(n));
    std::uint64_t total = 0;
    std::vector<std::uint64_t> tags;
    for (std::uint64_t b = 0; b < nblocks; ++b) {
      const int edim = static_cast<int>(int_value("entity dimension", 0, 3));
      int_value("entity tag", INT_MIN, INT_MAX);
      const int param = static_cast<int>(int_value("parametric flag", 0, 1));
      const std::uint64_t m = size_value("nodes in block", n - total);
      total += m;
      const int ncoord = 3 + (param ? edim : 0);
      if (binary_)
        need(m * (static_cast<std::uint64_t>(size_bytes_) + 8u * ncoord), std::to_string(m) + " binary nodes");
      tags.resize(static_cast<std::size_t>(m));
      for (auto& t : tags) t = size_value("node tag", UINT64_MAX);
      for (std::uint64_t i = 0; i < m; ++i) {
        if (tags[i] == 0) fail("node tag 0 is invalid (tags start at 1)");
        const double x = double_value("node coordinate", true);
        const double y = double_value("node coordinate", true);
        const double z = double_value("node coordinate", true);
        for (int c = 3; c < ncoord; ++c) double_value("parametric coordinate", false);
        add_node(tags[i], x, y, z);
      }
    }
    if (total != n)
      fail("the node blocks hold " + std::to_string(total) + " nodes but the header declares " + std::to_string(n));
  }
  expect_end("Nodes");
}

void MshReader::read_elements() {
  if (!have_nodes_) fail("$Elements before $Nodes");
  if (have_elements_) fail("second $Elements section");
  have_elements_ = true;
  std::vector<std::uint64_t> nodes;
  if (version_ == 2 && !binary_) {
    std::string_view l = nonblank_line("the element count");
    detail::Tokens ct(l);
    std::string_view t;
    long long n = 0;
    if (!ct.next(t) || !detail::parse_int(t, n) || n < 0 || n > INT_MAX)
      fail("expected the element count, got " + quote(l));
    check_fits(static_cast<std::uint64_t>(n), 8, "elements");
    for (long long e = 0; e < n; ++e) {
      l = nonblank_line("an element line");
      detail::Tokens tk(l);
      std::vector<long long> v;
      while (tk.next(t)) {
        long long x = 0;
        if (!detail::parse_int(t, x)) fail("expected an integer in the element line, got " + quote(t));
        v.push_back(x);
      }
      if (v.size() < 3) fail("element line has " + std::to_string(v.size()) + " values; expected 'tag type ntags ...'");
      const long long tag = v[0], type = v[1], ntags = v[2];
      if (tag < 1) fail("element tag " + std::to_string(tag) + " is invalid (tags start at 1)");
      if (ntags < 0) fail("negative tag count " + std::to_string(ntags));
      if (ntags > static_cast<long long>(v.size()))  // also keeps 3 + ntags + nn from overflowing
        fail("element " + std::to_string(tag) + " declares " + std::to_string(ntags) + " tags but its line has only " +
             std::to_string(v.size()) + " values");
      const int nn = gmsh_nodes_per_element(type);
      if (nn < 0) {
        types_seen_.insert(type);
        continue;  // unknown type: its whole line is skipped
      }
      if (static_cast<long long>(v.size()) != 3 + ntags + nn)
        fail("element " + std::to_string(tag) + " of type " + std::to_string(type) + " has " +
             std::to_string(v.size()) + " values; " + std::to_string(ntags) + " tags and " + std::to_string(nn) +
             " nodes need " + std::to_string(3 + ntags + nn));
      for (auto it = v.begin() + 3 + ntags; it != v.end(); ++it)
        if (*it < 1)
          fail("node tag " + std::to_string(*it) + " in element " + std::to_string(tag) +
               " is invalid (tags start at 1)");
      nodes.assign(v.begin() + 3 + ntags, v.end());
      add_element(type, static_cast<std::uint64_t>(tag), nodes, ntags > 0 ? static_cast<int>(v[3]) : 0);
    }
  } else if (version_ == 2) {
    std::string_view l = nonblank_line("the element count");
    long long n = 0;
    if (!detail::parse_int(l, n) || n < 0 || n > INT_MAX) fail("expected the element count, got " + quote(l));
    check_fits(static_cast<std::uint64_t>(n), 16, "elements");
    long long done = 0;
    while (done < n) {
      const long long type = bin_int("element type", 1, INT_MAX);
      const int nn = gmsh_nodes_per_element(type);
      if (nn < 0) {
        fail("element type " + std::to_string(type) + " is unknown (binary garbage?)");
      }
      const long long follow = bin_int("number of elements following", 1, n - done);
      const long long ntags = bin_int("number of tags", 0, 1000);
      const std::uint64_t rec = 4u * static_cast<std::uint64_t>(1 + ntags + nn);
      need(rec * static_cast<std::uint64_t>(follow), std::to_string(follow) + " binary elements");
      nodes.resize(static_cast<std::size_t>(nn));
      for (long long e = 0; e < follow; ++e) {
        const long long tag = bin_int("element tag", 1, INT_MAX);
        int phys = 0;
        for (long long k = 0; k < ntags; ++k) {
          const int v = static_cast<int>(bin_int("element tag value", INT_MIN, INT_MAX));
          if (k == 0) phys = v;
        }
        for (auto& x : nodes) x = static_cast<std::uint64_t>(bin_int("node tag", 1, INT_MAX));
        add_element(type, static_cast<std::uint64_t>(tag), nodes, phys);
      }
      done += follow;
    }
  } else {
    const std::uint64_t nblocks = size_value("number of element blocks", INT_MAX);
    const std::uint64_t n = size_value("element count", INT_MAX);
    size_value("minimum element tag", UINT64_MAX);
    size_value("maximum element tag", UINT64_MAX);
    check_fits(nblocks, binary_ ? 12 + size_bytes_ : 8, "element blocks");
    check_fits(n, binary_ ? 2 * size_bytes_ : 4, "elements");
    std::uint64_t total = 0;
    for (std::uint64_t b = 0; b < nblocks; ++b) {
      const int edim = static_cast<int>(int_value("entity dimension", 0, 3));
      const int etag = static_cast<int>(int_value("entity tag", INT_MIN, INT_MAX));
      const long long type = int_value("element type", 1, INT_MAX);
      const int nn = gmsh_nodes_per_element(type);
      if (nn < 0) fail("element type " + std::to_string(type) + " is not supported (unknown node count)");
      const std::uint64_t m = size_value("elements in block", n - total);
      total += m;
      if (binary_)
        need(m * static_cast<std::uint64_t>(size_bytes_) * static_cast<std::uint64_t>(1 + nn),
             std::to_string(m) + " binary elements");
      auto it = entity_physical_.find({edim, etag});
      const int phys = it == entity_physical_.end() ? 0 : it->second;
      nodes.resize(static_cast<std::size_t>(nn));
      for (std::uint64_t e = 0; e < m; ++e) {
        const std::uint64_t tag = size_value("element tag", UINT64_MAX);
        for (auto& x : nodes) x = size_value("node tag", UINT64_MAX);
        add_element(type, tag, nodes, phys);
      }
    }
    if (total != n)
      fail("the element blocks hold " + std::to_string(total) + " elements but the header declares " +
           std::to_string(n));
  }
  expect_end("Elements");
}

MshMesh MshReader::read() {
  if (b_.empty()) detail::fail_file(kRead, path_, "file is empty (not a Gmsh .msh file)");
  read_format();
  for (;;) {
    skip_space();
    std::string_view l;
    if (!read_line(l)) break;
    if (l.empty() || l[0] != '$') fail("expected a section such as '$Nodes', got " + quote(l));
    const std::string name(l.substr(1));
    if (name == "Nodes") {
      read_nodes();
    } else if (name == "Elements") {
      read_elements();
    } else if (name == "Entities" && version_ == 41) {
      read_entities();
    } else {
      skip_section(name);
    }
  }
  if (!have_nodes_) detail::fail_file(kRead, path_, "no $Nodes section");
  if (!have_elements_) detail::fail_file(kRead, path_, "no $Elements section");
  const Index nv = static_cast<Index>(X_.size() / 3);
  MshMesh m;
  auto fill = [&](const std::vector<int>& E, const std::vector<int>& P, int k) {
    m.T.resize(static_cast<Index>(P.size()), k);
    m.physical.resize(static_cast<Index>(P.size()));
    for (Index e = 0; e < m.T.rows(); ++e) {
      for (int a = 0; a < k; ++a) m.T(e, a) = E[static_cast<std::size_t>(e * k + a)];
      m.physical(e) = P[static_cast<std::size_t>(e)];
    }
  };
  if (!tets_.empty()) {
    m.X.resize(nv, 3);
    for (Index i = 0; i < nv; ++i)
      for (int c = 0; c < 3; ++c) m.X(i, c) = X_[static_cast<std::size_t>(3 * i + c)];
    fill(tets_, tet_phys_, 4);
    return m;
  }
  if (tris_.empty()) {
    std::string found;
    for (long long t : types_seen_) found += (found.empty() ? "" : ", ") + std::to_string(t);
    detail::fail_file(kRead, path_,
                      "no triangles (type 2) or tetrahedra (type 4); element types found: " +
                          (found.empty() ? std::string("none") : found));
  }
  for (Index i = 1; i < nv; ++i)
    if (X_[static_cast<std::size_t>(3 * i + 2)] != X_[2]) {
      std::string msg =
          "has triangles but no tetrahedra, and its nodes are not planar (node " + std::to_string(i) + " has z = ";
      detail::append_double(msg, X_[static_cast<std::size_t>(3 * i + 2)]);
      msg += ", node 0 has z = ";
      detail::append_double(msg, X_[2]);
      msg += "): a surface in 3D is not a 2D simulation mesh";
      detail::fail_file(kRead, path_, msg);
    }
  m.X.resize(nv, 2);
  for (Index i = 0; i < nv; ++i)
    for (int c = 0; c < 2; ++c) m.X(i, c) = X_[static_cast<std::size_t>(3 * i + c)];
  fill(tris_, tri_phys_, 3);
  return m;
}

// ------------------------------------------------------------------------------ writer

class MshWriter {
 public:
  explicit MshWriter(bool binary, int size_bytes = 8) : binary_(binary), size_bytes_(size_bytes) {}
  std::string out;

  void text(const std::string& s) { out += s; }
  void i32(long long v) {
    if (binary_) {
      put_le(static_cast<std::uint64_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(v))), 4);
    } else {
      sep();
      detail::append_int(out, v);
    }
  }
  void size(std::uint64_t v) {
    if (binary_) {
      put_le(v, size_bytes_);
    } else {
      sep();
      detail::append_int(out, static_cast<long long>(v));
    }
  }
  void f64(double v) {
    if (binary_) {
      put_le(std::bit_cast<std::uint64_t>(v), 8);
    } else {
      sep();
      detail::append_double(out, v);
    }
  }
  /// Ends a text line (ASCII only).
  void eol() {
    if (!binary_) {
      out += '\n';
      first_ = true;
    }
  }
  /// Ends a binary block: gmsh writes a newline before the $End marker.
  void end_block(const char* name) {
    if (binary_) out += '\n';
    out += "$End";
    out += name;
    out += '\n';
    first_ = true;
  }
  void begin(const char* name) {
    out += '$';
    out += name;
    out += '\n';
    first_ = true;
  }

 private:
  void sep() {
    if (!first_) out += ' ';
    first_ = false;
  }
  void put_le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  bool binary_;
  int size_bytes_;
  bool first_ = true;
};

}  // namespace

MshMesh read_msh(const std::string& path) {
  const std::string bytes = detail::read_file_bytes(path, kRead);
  MshReader r(bytes, path);
  return r.read();
}

void write_msh(const std::string& path, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
               MshFormat format, const Eigen::Ref<const VectorXi>& physical) {
  const char* fn = "write_msh";
  detail::check_positions(fn, "X", X, 2, 3);
  const Index dim = X.cols();
  detail::check_simplices(fn, "T", T, X.rows(), dim + 1);
  if (physical.size() != 0 && physical.size() != T.rows())
    throw std::invalid_argument(std::string(fn) + ": physical must be empty or have #T = " + std::to_string(T.rows()) +
                                " entries, got " + std::to_string(physical.size()));
  for (Index e = 0; e < physical.size(); ++e)
    if (physical(e) < 0)
      throw std::invalid_argument(std::string(fn) + ": physical(" + std::to_string(e) +
                                  ") = " + std::to_string(physical(e)) + " is negative");
  auto phys = [&](Index e) { return physical.size() ? physical(e) : 0; };
  const bool binary = format == MshFormat::V22Binary || format == MshFormat::V41Binary;
  const bool v41 = format == MshFormat::V41Ascii || format == MshFormat::V41Binary;
  const int type = dim == 3 ? 4 : 2;
  const int k = static_cast<int>(dim) + 1;
  auto z = [&](Index i) { return dim == 3 ? X(i, 2) : 0.0; };

  MshWriter w(binary);
  w.begin("MeshFormat");
  w.text(std::string(v41 ? "4.1" : "2.2") + (binary ? " 1 8\n" : " 0 8\n"));
  if (binary) {
    w.i32(1);
    w.text("\n");
  }
  w.text("$EndMeshFormat\n");

  if (!v41) {
    w.begin("Nodes");
    w.text(std::to_string(X.rows()) + "\n");
    for (Index i = 0; i < X.rows(); ++i) {
      w.i32(i + 1);
      w.f64(X(i, 0));
      w.f64(X(i, 1));
      w.f64(z(i));
      w.eol();
    }
    w.end_block("Nodes");
    w.begin("Elements");
    w.text(std::to_string(T.rows()) + "\n");
    if (binary && T.rows() > 0) {
      w.i32(type);
      w.i32(T.rows());
      w.i32(2);
    }
    for (Index e = 0; e < T.rows(); ++e) {
      w.i32(e + 1);
      if (!binary) {
        w.i32(type);
        w.i32(2);
      }
      w.i32(phys(e));
      w.i32(phys(e) > 0 ? phys(e) : 1);  // elementary entity
      for (int a = 0; a < k; ++a) w.i32(T(e, a) + 1);
      w.eol();
    }
    w.end_block("Elements");
  } else {
    // One entity of dimension `dim` per distinct physical tag (tag 0 = no physical group).
    std::vector<int> tags;
    for (Index e = 0; e < T.rows(); ++e) tags.push_back(phys(e));
    if (tags.empty()) tags.push_back(0);
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    auto entity_of = [&](int p) {
      return static_cast<int>(std::lower_bound(tags.begin(), tags.end(), p) - tags.begin()) + 1;
    };
    Eigen::RowVector3d lo = Eigen::RowVector3d::Zero(), hi = Eigen::RowVector3d::Zero();
    if (X.rows() > 0) {
      lo.head(dim) = X.colwise().minCoeff();
      hi.head(dim) = X.colwise().maxCoeff();
    }
    w.begin("Entities");
    w.size(0);
    w.size(0);
    w.size(dim == 2 ? tags.size() : 0);
    w.size(dim == 3 ? tags.size() : 0);
    w.eol();
    for (std::size_t t = 0; t < tags.size(); ++t) {
      w.i32(static_cast<long long>(t) + 1);
      for (int c = 0; c < 3; ++c) w.f64(lo(c));
      for (int c = 0; c < 3; ++c) w.f64(hi(c));
      if (tags[t] > 0) {
        w.size(1);
        w.i32(tags[t]);
      } else {
        w.size(0);
      }
      w.size(0);  // no bounding entities
      w.eol();
    }
    w.end_block("Entities");

    w.begin("Nodes");
    const std::uint64_t nv = static_cast<std::uint64_t>(X.rows());
    w.size(nv > 0 ? 1 : 0);
    w.size(nv);
    w.size(nv > 0 ? 1 : 0);
    w.size(nv);
    w.eol();
    if (nv > 0) {
      w.i32(dim);
      w.i32(1);
      w.i32(0);
      w.size(nv);
      w.eol();
      for (Index i = 0; i < X.rows(); ++i) {
        w.size(static_cast<std::uint64_t>(i) + 1);
        w.eol();
      }
      for (Index i = 0; i < X.rows(); ++i) {
        w.f64(X(i, 0));
        w.f64(X(i, 1));
        w.f64(z(i));
        w.eol();
      }
    }
    w.end_block("Nodes");

    // One element block per maximal run of equal physical tags, so the order is kept.
    std::vector<std::pair<Index, Index>> runs;  // [begin, end)
    for (Index e = 0; e < T.rows(); ++e)
      if (e == 0 || phys(e) != phys(e - 1))
        runs.push_back({e, e + 1});
      else
        runs.back().second = e + 1;
    w.begin("Elements");
    const std::uint64_t ne = static_cast<std::uint64_t>(T.rows());
    w.size(runs.size());
    w.size(ne);
    w.size(ne > 0 ? 1 : 0);
    w.size(ne);
    w.eol();
    for (const auto& [b, e] : runs) {
      w.i32(dim);
      w.i32(entity_of(phys(b)));
      w.i32(type);
      w.size(static_cast<std::uint64_t>(e - b));
      w.eol();
      for (Index t = b; t < e; ++t) {
        w.size(static_cast<std::uint64_t>(t) + 1);
        for (int a = 0; a < k; ++a) w.size(static_cast<std::uint64_t>(T(t, a)) + 1);
        w.eol();
      }
    }
    w.end_block("Elements");
  }
  detail::write_text_atomically(path, w.out, fn);
}

}  // namespace fastcd
