#include "fastcd/io/rig_io.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fastcd/io/parse_util.hpp"
#include "fastcd/io/writer_checks.hpp"

namespace fastcd {

using detail::LineReader;
using detail::quote;
using detail::Tokens;

namespace {

MatrixXi edges_to_matrix(const std::vector<int>& v) {
  MatrixXi M(static_cast<Index>(v.size() / 2), 2);
  for (Index i = 0; i < M.rows(); ++i) {
    M(i, 0) = v[static_cast<std::size_t>(2 * i)];
    M(i, 1) = v[static_cast<std::size_t>(2 * i + 1)];
  }
  return M;
}

}  // namespace

// -------------------------------------------------------------------------------- TGF

TgfGraph read_tgf(const std::string& path) {
  const char* fn = "read_tgf";
  const std::string text = detail::read_file_bytes(path, fn);
  LineReader r(text, path, fn, "TGF");
  std::vector<double> C;
  std::vector<int> E, BE, PE, CE;
  int section = 0;  // 0 vertices, 1 edges, 2 ignored
  long long nc = 0;
  std::string_view line;
  while (section < 2 && r.next(line)) {
    line = detail::trim(line);
    if (line.empty()) continue;
    if (line[0] == '#') {
      ++section;
      continue;
    }
    Tokens tk(line);
    if (section == 0) {
      const long long idx = detail::next_int(tk, r, "vertex index", LLONG_MIN, LLONG_MAX);
      if (idx != nc + 1)
        r.fail("vertex index is " + std::to_string(idx) + ", expected " + std::to_string(nc + 1) +
               " (TGF vertices are numbered 1, 2, ... in order)");
      for (const char* c : {"x coordinate", "y coordinate", "z coordinate"}) C.push_back(detail::next_finite(tk, r, c));
      detail::expect_no_more(tk, r, "the vertex position");
      ++nc;
    } else {
      if (nc == 0) r.fail("edge line before any vertex");
      int ab[2];
      for (int k = 0; k < 2; ++k)
        ab[k] = static_cast<int>(detail::next_int(tk, r, "edge end (a vertex index)", 1, nc) - 1);
      if (ab[0] == ab[1]) r.fail("edge joins vertex " + std::to_string(ab[0] + 1) + " to itself");
      E.insert(E.end(), ab, ab + 2);
      std::string_view t;
      for (int k = 0; tk.next(t); ++k) {
        long long flag = 0;
        if (!detail::parse_int(t, flag) || (flag != 0 && flag != 1))
          r.fail("edge flag must be 0 or 1, got " + quote(t));
        if (flag == 1 && k == 0) BE.insert(BE.end(), ab, ab + 2);
        if (flag == 1 && k == 1) PE.insert(PE.end(), ab, ab + 2);
        if (flag == 1 && k == 2) CE.insert(CE.end(), ab, ab + 2);
      }
    }
  }
  if (nc == 0) detail::fail_file(fn, path, "no vertices: not a TGF handle file");
  TgfGraph g;
  g.C.resize(nc, 3);
  for (Index i = 0; i < nc; ++i)
    for (int c = 0; c < 3; ++c) g.C(i, c) = C[static_cast<std::size_t>(3 * i + c)];
  g.E = edges_to_matrix(E);
  g.BE = edges_to_matrix(BE);
  g.PE = edges_to_matrix(PE);
  g.CE = edges_to_matrix(CE);
  std::vector<bool> in_bone(static_cast<std::size_t>(nc), false);
  for (int v : BE) in_bone[static_cast<std::size_t>(v)] = true;
  std::vector<int> P;
  for (int i = 0; i < nc; ++i)
    if (!in_bone[static_cast<std::size_t>(i)]) P.push_back(i);
  g.P = Eigen::Map<const VectorXi>(P.data(), static_cast<Index>(P.size()));
  return g;
}

void write_tgf(const std::string& path, const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& E,
               TgfEdges kind) {
  const char* fn = "write_tgf";
  detail::check_positions(fn, "C", C, 2, 3);
  if (C.rows() == 0) throw std::invalid_argument(std::string(fn) + ": C is empty");
  if (E.rows() > 0) detail::check_simplices(fn, "E", E, C.rows(), 2);
  for (Index e = 0; e < E.rows(); ++e)
    if (E(e, 0) == E(e, 1))
      throw std::invalid_argument(std::string(fn) + ": E(" + std::to_string(e) + ") joins vertex " +
                                  std::to_string(E(e, 0)) + " to itself");
  std::string out;
  for (Index i = 0; i < C.rows(); ++i) {
    detail::append_int(out, i + 1);
    for (Index c = 0; c < 3; ++c) {
      out += ' ';
      detail::append_double(out, c < C.cols() ? C(i, c) : 0.0);
    }
    out += '\n';
  }
  out += "#\n";
  for (Index e = 0; e < E.rows(); ++e) {
    detail::append_int(out, static_cast<long long>(E(e, 0)) + 1);
    out += ' ';
    detail::append_int(out, static_cast<long long>(E(e, 1)) + 1);
    if (kind == TgfEdges::Bones) out += " 1 0 0";
    out += '\n';
  }
  out += "#\n";
  detail::write_text_atomically(path, out, fn);
}

// ------------------------------------------------------------------------------- DMAT

MatrixXd read_dmat(const std::string& path) {
  const char* fn = "read_dmat";
  const std::string bytes = detail::read_file_bytes(path, fn);
  if (bytes.empty()) detail::fail_file(fn, path, "file is empty (not a DMAT file)");
  // Header line(s) are text even in the binary variant: parse them before any NUL check.
  auto header = [&](std::size_t& pos, int line_no, long long& cols, long long& rows) {
    const std::size_t end = bytes.find('\n', pos);
    const std::size_t stop = end == std::string::npos ? bytes.size() : end;
    const std::string_view l = detail::trim(std::string_view(bytes).substr(pos, stop - pos));
    Tokens tk(l);
    std::string_view a, b, extra;
    const std::string where = std::string(fn) + ": '" + path + "' line " + std::to_string(line_no) + ": ";
    if (!tk.next(a) || !tk.next(b) || tk.next(extra) || !detail::parse_int(a, cols) || !detail::parse_int(b, rows))
      throw std::runtime_error(where + "expected the header '<cols> <rows>', got " + quote(l));
    if (cols < 0 || rows < 0 || cols > INT_MAX || rows > INT_MAX)
      throw std::runtime_error(where + "bad size " + std::to_string(cols) + " columns x " + std::to_string(rows) +
                               " rows");
    pos = end == std::string::npos ? bytes.size() : end + 1;
  };
  std::size_t pos = 0;
  long long cols = 0, rows = 0;
  header(pos, 1, cols, rows);
  const bool more = bytes.find_first_not_of(" \t\r\n\v\f", pos) != std::string::npos;
  if (cols == 0 && rows == 0 && more) {
    // Binary variant: a second header, then exactly rows*cols doubles.
    header(pos, 2, cols, rows);
    const std::uint64_t n = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
    const std::uint64_t have = bytes.size() - pos;
    // n <= (2^31 - 1)^2, so n * 8 can wrap around 2^64: compare n with have / 8 first.
    if (n > have / 8 || have != n * 8)
      detail::fail_file(fn, path,
                        "binary block has " + std::to_string(have) + " bytes but " + std::to_string(rows) + " x " +
                            std::to_string(cols) + " doubles need " +
                            (n > UINT64_MAX / 8 ? std::to_string(n) + " x 8" : std::to_string(n * 8)) +
                            (n > have / 8 ? " (truncated file)" : " (trailing data)"));
    MatrixXd W(rows, cols);
    for (std::uint64_t k = 0; k < n; ++k) {
      std::uint64_t u = 0;
      for (int b = 7; b >= 0; --b)
        u = (u << 8) | static_cast<unsigned char>(bytes[pos + 8 * k + static_cast<std::size_t>(b)]);
      const double v = std::bit_cast<double>(u);
      const Index i = static_cast<Index>(k % static_cast<std::uint64_t>(rows));
      const Index j = static_cast<Index>(k / static_cast<std::uint64_t>(rows));
      if (!std::isfinite(v))
        throw std::runtime_error(std::string(fn) + ": '" + path + "' byte " + std::to_string(pos + 8 * k) +
                                 ": value (" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite (" +
                                 std::to_string(v) + ")");
      W(i, j) = v;
    }
    return W;
  }
  // ASCII variant.
  LineReader r(bytes, path, fn, "DMAT");
  std::string_view line;
  r.next(line);  // the header, parsed above
  const std::uint64_t n = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (n > r.remaining() / 2 + 1)
    r.fail("header declares " + std::to_string(cols) + " x " + std::to_string(rows) + " = " + std::to_string(n) +
           " values but only " + std::to_string(r.remaining()) + " bytes follow (truncated file or corrupt header)");
  MatrixXd W(rows, cols);
  std::uint64_t k = 0;
  while (r.next(line)) {
    Tokens tk(line);
    std::string_view t;
    while (tk.next(t)) {
      if (k >= n)
        r.fail("more than the " + std::to_string(n) + " values declared by the header '" + std::to_string(cols) + " " +
               std::to_string(rows) + "' (extra " + quote(t) + ")");
      double v = 0;
      if (!detail::parse_double(t, v)) r.fail("expected a number, got " + quote(t));
      if (!std::isfinite(v)) r.fail("value " + quote(t) + " is not finite");
      W(static_cast<Index>(k % static_cast<std::uint64_t>(rows)),
        static_cast<Index>(k / static_cast<std::uint64_t>(rows))) = v;
      ++k;
    }
  }
  if (k < n)
    r.fail_eof("expected " + std::to_string(n) + " values (" + std::to_string(rows) + " rows x " +
               std::to_string(cols) + " columns), found " + std::to_string(k));
  return W;
}

void write_dmat(const std::string& path, const Eigen::Ref<const MatrixXd>& W, DmatEncoding encoding) {
  const char* fn = "write_dmat";
  detail::check_positions(fn, "W", W, 0, INT_MAX);
  std::string out;
  if (encoding == DmatEncoding::Binary) out += "0 0\n";
  detail::append_int(out, W.cols());
  out += ' ';
  detail::append_int(out, W.rows());
  out += '\n';
  for (Index j = 0; j < W.cols(); ++j)
    for (Index i = 0; i < W.rows(); ++i) {
      if (encoding == DmatEncoding::Binary) {
        const std::uint64_t u = std::bit_cast<std::uint64_t>(W(i, j));
        for (int b = 0; b < 8; ++b) out += static_cast<char>((u >> (8 * b)) & 0xff);
      } else {
        detail::append_double(out, W(i, j));
        out += '\n';
      }
    }
  detail::write_text_atomically(path, out, fn);
}

}  // namespace fastcd
