// OBJ, OFF, Medit .mesh and TetGen .node/.ele readers and writers (Gmsh is in msh_io.cpp).
#include "fastcd/io/mesh_io.hpp"

#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastcd/io/parse_util.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/writer_checks.hpp"

namespace fastcd {

using detail::LineReader;
using detail::quote;
using detail::Tokens;
using detail::TokenStream;

namespace {

MatrixXd to_matrix(const std::vector<double>& v, Index cols) {
  MatrixXd M(static_cast<Index>(v.size()) / cols, cols);
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = v[static_cast<std::size_t>(i * cols + j)];
  return M;
}

MatrixXi to_matrix(const std::vector<int>& v, Index cols) {
  MatrixXi M(static_cast<Index>(v.size()) / cols, cols);
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = v[static_cast<std::size_t>(i * cols + j)];
  return M;
}

// Appends "x y z" (z = 0 for 2D rows) to out.
void append_row3(std::string& out, const Eigen::Ref<const MatrixXd>& V, Index i) {
  detail::append_double(out, V(i, 0));
  out += ' ';
  detail::append_double(out, V(i, 1));
  out += ' ';
  detail::append_double(out, V.cols() == 3 ? V(i, 2) : 0.0);
}

// ------------------------------------------------------------------------------ OBJ

// Resolves one OBJ index (1-based or negative = relative to the `count` elements so far).
int resolve_obj_index(std::string_view tok, long long count, const char* what, const char* plural,
                      const LineReader& r) {
  long long v = 0;
  if (!detail::parse_int(tok, v)) r.fail(std::string("expected a ") + what + " index (an integer), got " + quote(tok));
  if (v == 0) r.fail(std::string(what) + " index 0 is invalid (OBJ indices start at 1)");
  const long long idx = v > 0 ? v - 1 : count + v;
  if (idx < 0 || idx >= count) {
    std::string msg = std::string(what) + " index " + std::to_string(v) + " is out of range: ";
    if (count == 0)
      msg += std::string("no ") + plural + " defined so far";
    else
      msg += std::to_string(count) + " " + (count == 1 ? what : plural) + " defined so far (valid: 1.." +
             std::to_string(count) + " or -" + std::to_string(count) + "..-1)";
    r.fail(msg);
  }
  return static_cast<int>(idx);
}

bool is_identifier(std::string_view s) {
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return !s.empty();
}

SurfaceMesh read_obj_impl(const std::string& path, const char* fn) {
  const std::string text = detail::read_file_bytes(path, fn);
  LineReader r(text, path, fn, "OBJ");
  std::vector<double> V;
  std::vector<int> F;
  long long nv = 0, nvt = 0, nvn = 0;
  std::vector<int> corners;
  std::string_view line;
  while (r.next_content(line, '#')) {
    Tokens tk(line);
    std::string_view key;
    tk.next(key);
    if (key == "v") {
      for (const char* c : {"x coordinate", "y coordinate", "z coordinate"}) V.push_back(detail::next_finite(tk, r, c));
      std::string_view extra;
      while (tk.next(extra)) {  // w or vertex colours: must still be numbers
        double d = 0;
        if (!detail::parse_double(extra, d))
          r.fail("expected a number after the vertex coordinates, got " + quote(extra));
      }
      ++nv;
    } else if (key == "vt") {
      ++nvt;
    } else if (key == "vn") {
      ++nvn;
    } else if (key == "f") {
      corners.clear();
      std::string_view tok;
      while (tk.next(tok)) {
        const std::size_t s1 = tok.find('/');
        corners.push_back(resolve_obj_index(tok.substr(0, s1), nv, "vertex", "vertices", r));
        if (s1 != std::string_view::npos) {
          std::string_view rest = tok.substr(s1 + 1);
          const std::size_t s2 = rest.find('/');
          std::string_view t = rest.substr(0, s2);
          if (!t.empty()) resolve_obj_index(t, nvt, "texture coordinate", "texture coordinates", r);
          if (s2 != std::string_view::npos) {
            std::string_view n = rest.substr(s2 + 1);
            if (n.empty() || n.find('/') != std::string_view::npos)
              r.fail("malformed face corner " + quote(tok) + " (expected v, v/t, v//n or v/t/n)");
            resolve_obj_index(n, nvn, "normal", "normals", r);
          }
        }
      }
      if (corners.size() < 3)
        r.fail("face has " + std::to_string(corners.size()) + " corner" + (corners.size() == 1 ? "" : "s") +
               "; at least 3 are needed");
      for (std::size_t i = 1; i + 1 < corners.size(); ++i) {
        F.push_back(corners[0]);
        F.push_back(corners[i]);
        F.push_back(corners[i + 1]);
      }
    } else if (!is_identifier(key)) {
      r.fail("unknown statement " + quote(key) + " (binary data or not an OBJ file?)");
    }
    // Any other identifier (vp, g, o, s, l, p, usemtl, mtllib, ...) is skipped.
  }
  if (nv == 0) detail::fail_file(fn, path, "no vertices ('v' lines): not an OBJ mesh");
  return {to_matrix(V, 3), to_matrix(F, 3)};
}

// ------------------------------------------------------------------------------ OFF

SurfaceMesh read_off_impl(const std::string& path) {
  const char* fn = "read_off";
  const std::string text = detail::read_file_bytes(path, fn);
  LineReader r(text, path, fn, "OFF");
  std::string_view line;
  if (!r.next_content(line, '#')) detail::fail_file(fn, path, "no content (only comments or blanks)");
  Tokens head(line);
  std::string_view tok;
  head.next(tok);
  long long probe = 0;
  std::string_view counts_line;
  if (detail::parse_int(tok, probe)) {
    counts_line = line;  // header keyword omitted: this is the counts line
  } else {
    if (tok.size() < 3 || tok.substr(tok.size() - 3) != "OFF")
      r.fail("expected the header 'OFF', got " + quote(tok) + " (not an OFF file)");
    const std::string_view prefix = tok.substr(0, tok.size() - 3);
    if (prefix.find('4') != std::string_view::npos || prefix.find('n') != std::string_view::npos)
      r.fail("header " + quote(tok) + ": only 3D OFF files are supported");
    for (char c : prefix)
      if (c != 'S' && c != 'T' && c != 'C' && c != 'N') r.fail("unknown OFF header " + quote(tok));
    std::string_view rest = head.rest();
    if (rest == "BINARY" || rest.substr(0, 6) == "BINARY") r.fail("binary OFF is not supported");
    if (!rest.empty()) {
      counts_line = rest;
    } else if (!r.next_content(counts_line, '#')) {
      r.fail_eof("missing the counts line '#vertices #faces #edges'");
    }
  }
  Tokens ct(counts_line);
  const long long nv = detail::next_int(ct, r, "vertex count", 0, INT_MAX);
  const long long nf = detail::next_int(ct, r, "face count", 0, INT_MAX);
  std::string_view ne;
  if (ct.next(ne)) {
    long long e = 0;
    if (!detail::parse_int(ne, e) || e < 0) r.fail("expected the edge count, got " + quote(ne));
  }
  detail::expect_no_more(ct, r, "the counts");
  r.check_count_fits(nv, 6, "vertices");  // "0 0 0\n"
  r.check_count_fits(nf, 8, "faces");     // "3 0 1 2\n"
  std::vector<double> V;
  V.reserve(static_cast<std::size_t>(nv) * 3);
  for (long long i = 0; i < nv; ++i) {
    if (!r.next_content(line, '#'))
      r.fail_eof("expected " + std::to_string(nv) + " vertices, found " + std::to_string(i));
    Tokens tk(line);
    for (const char* c : {"x coordinate", "y coordinate", "z coordinate"}) V.push_back(detail::next_finite(tk, r, c));
  }
  std::vector<int> F;
  F.reserve(static_cast<std::size_t>(nf) * 3);
  for (long long f = 0; f < nf; ++f) {
    if (!r.next_content(line, '#')) r.fail_eof("expected " + std::to_string(nf) + " faces, found " + std::to_string(f));
    Tokens tk(line);
    const long long k = detail::next_int(tk, r, "face corner count", 0, 1 << 20);
    if (k < 3) r.fail("face has " + std::to_string(k) + " corners; at least 3 are needed");
    std::vector<int> c(static_cast<std::size_t>(k));
    for (long long j = 0; j < k; ++j)
      c[static_cast<std::size_t>(j)] = static_cast<int>(detail::next_int(tk, r, "vertex index", 0, nv - 1));
    for (std::size_t j = 1; j + 1 < c.size(); ++j) {
      F.push_back(c[0]);
      F.push_back(c[j]);
      F.push_back(c[j + 1]);
    }
  }
  if (r.next_content(line, '#'))
    r.fail("unexpected content " + quote(line) + " after the " + std::to_string(nf) +
           " declared faces (wrong counts?)");
  return {to_matrix(V, 3), to_matrix(F, 3)};
}

// ----------------------------------------------------------------------------- Medit

// Tokens per record of the Medit blocks we skip (per unit of `dim` where noted).
int medit_skip_tokens(std::string_view key, int dim) {
  if (key == "Edges") return 3;
  if (key == "Quadrilaterals") return 5;
  if (key == "Hexahedra") return 9;
  if (key == "Prisms") return 7;
  if (key == "Pyramids") return 6;
  if (key == "Corners" || key == "Ridges" || key == "RequiredVertices" || key == "RequiredEdges" ||
      key == "RequiredTriangles" || key == "RequiredQuadrilaterals" || key == "RequiredTetrahedra")
    return 1;
  if (key == "Normals" || key == "Tangents") return dim;
  if (key == "NormalAtVertices" || key == "TangentAtVertices" || key == "NormalAtTriangleVertices")
    return key == "NormalAtTriangleVertices" ? 3 : 2;
  return -1;
}

MeditMesh read_mesh_impl(const std::string& path) {
  const char* fn = "read_mesh";
  const std::string text = detail::read_file_bytes(path, fn);
  LineReader r(text, path, fn, "Medit .mesh");
  TokenStream ts(r, '#');
  std::string_view key;
  if (!ts.next(key)) detail::fail_file(fn, path, "no content (only comments or blanks)");
  if (key != "MeshVersionFormatted")
    r.fail("expected 'MeshVersionFormatted', got " + quote(key) + " (not a Medit .mesh file)");
  ts.integer("mesh version", 1, 4);
  int dim = 0;
  long long nv = -1;
  std::vector<double> V;
  std::vector<int> tris, tets;
  bool have_tris = false, have_tets = false;
  auto read_indices = [&](std::vector<int>& out, long long count, int k, const char* what) {
    r.check_count_fits(count, 2 * static_cast<std::size_t>(k + 1), what);
    out.reserve(static_cast<std::size_t>(count * k));
    for (long long e = 0; e < count; ++e) {
      for (int a = 0; a < k; ++a) out.push_back(static_cast<int>(ts.integer("vertex index", 1, nv) - 1));
      ts.integer("reference number", LLONG_MIN, LLONG_MAX);
    }
  };
  while (ts.next(key)) {
    if (key == "End") break;
    if (key == "Dimension") {
      if (dim) r.fail("second 'Dimension'");
      dim = static_cast<int>(ts.integer("dimension", 2, 3));
    } else if (key == "Vertices") {
      if (!dim) r.fail("'Vertices' before 'Dimension'");
      if (nv >= 0) r.fail("second 'Vertices' block");
      nv = ts.integer("vertex count", 0, INT_MAX);
      r.check_count_fits(nv, 2 * static_cast<std::size_t>(dim + 1), "vertices");
      V.reserve(static_cast<std::size_t>(nv * dim));
      for (long long i = 0; i < nv; ++i) {
        for (int c = 0; c < dim; ++c) V.push_back(ts.finite("vertex coordinate"));
        ts.integer("reference number", LLONG_MIN, LLONG_MAX);
      }
    } else if (key == "Triangles" || key == "Tetrahedra") {
      const bool tet = key == "Tetrahedra";
      if (nv < 0) r.fail(std::string(tet ? "'Tetrahedra'" : "'Triangles'") + " before 'Vertices'");
      if (tet && dim == 2) r.fail("'Tetrahedra' in a 2D (Dimension 2) file");
      bool& have = tet ? have_tets : have_tris;
      if (have) r.fail(std::string("second '") + std::string(key) + "' block");
      have = true;
      const long long n = ts.integer(tet ? "tetrahedron count" : "triangle count", 0, INT_MAX);
      read_indices(tet ? tets : tris, n, tet ? 4 : 3, tet ? "tetrahedra" : "triangles");
    } else {
      const int k = medit_skip_tokens(key, dim ? dim : 3);
      if (k < 0) {
        double num = 0;
        if (detail::parse_double(key, num))
          r.fail("expected a keyword, got the number " + quote(key) +
                 " (more records than the previous block declares?)");
        r.fail("unknown keyword " + quote(key));
      }
      const long long n = ts.integer("record count", 0, INT_MAX);
      r.check_count_fits(n, 2 * static_cast<std::size_t>(k), "records");
      for (long long i = 0; i < n * k; ++i) ts.require("record value");
    }
  }
  if (!dim) detail::fail_file(fn, path, "no 'Dimension'");
  if (nv < 0) detail::fail_file(fn, path, "no 'Vertices' block");
  MeditMesh m;
  m.X = to_matrix(V, dim);
  if (dim == 3) {
    if (tets.empty())
      detail::fail_file(fn, path, "no tetrahedra: a 3D surface mesh (Triangles only) is not a volume mesh");
    m.T = to_matrix(tets, 4);
    m.F = to_matrix(tris, 3);
  } else {
    if (tris.empty()) detail::fail_file(fn, path, "no triangles in a 2D (Dimension 2) file");
    m.T = to_matrix(tris, 3);
    m.F = MatrixXi(0, 3);
  }
  return m;
}

// ---------------------------------------------------------------------------- TetGen

// Reads a record's leading index, which must be `expected` (records numbered from the base).
void expect_record_index(Tokens& tk, const LineReader& r, const char* what, long long expected, long long base) {
  const long long v = detail::next_int(tk, r, what, LLONG_MIN, LLONG_MAX);
  if (v != expected)
    r.fail(std::string(what) + " is " + std::to_string(v) + ", expected " + std::to_string(expected) +
           " (records must be numbered consecutively from the base " + std::to_string(base) +
           " set by the first node)");
}

Mesh read_tetgen_impl(const std::string& node_path, const std::string& ele_path) {
  const char* fn = "read_tetgen";
  const std::string node_text = detail::read_file_bytes(node_path, fn);
  LineReader nr(node_text, node_path, fn, "TetGen .node");
  std::string_view line;
  if (!nr.next_content(line, '#')) detail::fail_file(fn, node_path, "no content (only comments or blanks)");
  Tokens h(line);
  const long long nv = detail::next_int(h, nr, "node count", 1, INT_MAX);
  const int dim = static_cast<int>(detail::next_int(h, nr, "dimension", 2, 3));
  std::string_view t;
  long long nattr = 0, nmark = 0;
  if (h.next(t)) {
    if (!detail::parse_int(t, nattr) || nattr < 0 || nattr > 1000)
      nr.fail("expected the attribute count (0..1000), got " + quote(t));
    if (h.next(t) && (!detail::parse_int(t, nmark) || nmark < 0 || nmark > 1))
      nr.fail("expected the boundary-marker flag (0 or 1), got " + quote(t));
  }
  detail::expect_no_more(h, nr, "the .node header");
  nr.check_count_fits(nv, 2 * static_cast<std::size_t>(1 + dim + nattr + nmark), "nodes");
  std::vector<double> V;
  V.reserve(static_cast<std::size_t>(nv * dim));
  long long base = 0;
  for (long long i = 0; i < nv; ++i) {
    if (!nr.next_content(line, '#'))
      nr.fail_eof("expected " + std::to_string(nv) + " nodes, found " + std::to_string(i));
    Tokens tk(line);
    if (i == 0) {
      base = detail::next_int(tk, nr, "first node index (the file's base, 0 or 1)", 0, 1);
    } else {
      expect_record_index(tk, nr, "node index", base + i, base);
    }
    for (int c = 0; c < dim; ++c) V.push_back(detail::next_finite(tk, nr, "node coordinate"));
    for (long long a = 0; a < nattr; ++a) detail::next_finite(tk, nr, "node attribute");
    if (nmark) detail::next_int(tk, nr, "boundary marker", LLONG_MIN, LLONG_MAX);
    detail::expect_no_more(tk, nr, "the node record");
  }
  if (nr.next_content(line, '#'))
    nr.fail("unexpected content " + quote(line) + " after the " + std::to_string(nv) +
            " declared nodes (wrong count?)");

  const std::string ele_text = detail::read_file_bytes(ele_path, fn);
  LineReader er(ele_text, ele_path, fn, "TetGen .ele");
  if (!er.next_content(line, '#')) detail::fail_file(fn, ele_path, "no content (only comments or blanks)");
  Tokens eh(line);
  const long long ne = detail::next_int(eh, er, "element count", 1, INT_MAX);
  const long long k = detail::next_int(eh, er, "nodes per element", 1, 64);
  if (k != dim + 1)
    er.fail("elements have " + std::to_string(k) + " nodes but the " + std::to_string(dim) + "D .node file needs " +
            std::to_string(dim + 1) + " (only linear triangles/tetrahedra are supported)");
  long long eattr = 0;
  if (eh.next(t) && (!detail::parse_int(t, eattr) || eattr < 0 || eattr > 1000))
    er.fail("expected the region attribute count (0..1000), got " + quote(t));
  detail::expect_no_more(eh, er, "the .ele header");
  er.check_count_fits(ne, 2 * static_cast<std::size_t>(1 + k + eattr), "elements");
  std::vector<int> T;
  T.reserve(static_cast<std::size_t>(ne * k));
  for (long long e = 0; e < ne; ++e) {
    if (!er.next_content(line, '#'))
      er.fail_eof("expected " + std::to_string(ne) + " elements, found " + std::to_string(e));
    Tokens tk(line);
    expect_record_index(tk, er, "element index", base + e, base);
    for (long long a = 0; a < k; ++a)
      T.push_back(static_cast<int>(detail::next_int(tk, er, "node index", base, base + nv - 1) - base));
    for (long long a = 0; a < eattr; ++a) detail::next_finite(tk, er, "element attribute");
    detail::expect_no_more(tk, er, "the element record");
  }
  if (er.next_content(line, '#'))
    er.fail("unexpected content " + quote(line) + " after the " + std::to_string(ne) +
            " declared elements (wrong count?)");
  return {to_matrix(V, dim), to_matrix(T, k)};
}

}  // namespace

// ============================================================================= public

SurfaceMesh read_obj(const std::string& path) { return read_obj_impl(path, "read_obj"); }

Mesh read_obj_2d(const std::string& path) {
  const char* fn = "read_obj_2d";
  SurfaceMesh s = read_obj_impl(path, fn);
  if (s.F.rows() == 0) detail::fail_file(fn, path, "no faces: a 2D mesh needs triangles");
  const double z0 = s.V(0, 2);
  for (Index i = 1; i < s.V.rows(); ++i)
    if (s.V(i, 2) != z0) {
      std::string msg = "vertex " + std::to_string(i) + " has z = ";
      detail::append_double(msg, s.V(i, 2));
      msg += " but vertex 0 has z = ";
      detail::append_double(msg, z0);
      msg += ": not a planar (z = constant) 2D mesh";
      detail::fail_file(fn, path, msg);
    }
  return {s.V.leftCols(2), s.F};
}

void write_obj(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F) {
  const char* fn = "write_obj";
  detail::check_positions(fn, "V", V, 2, 3);
  detail::check_polygons(fn, "F", F, V.rows(), 3);
  std::string out;
  out.reserve(static_cast<std::size_t>(V.rows() * 60 + F.rows() * 24));
  for (Index i = 0; i < V.rows(); ++i) {
    out += "v ";
    append_row3(out, V, i);
    out += '\n';
  }
  for (Index f = 0; f < F.rows(); ++f) {
    out += 'f';
    for (Index a = 0; a < F.cols(); ++a) {
      out += ' ';
      detail::append_int(out, static_cast<long long>(F(f, a)) + 1);
    }
    out += '\n';
  }
  detail::write_text_atomically(path, out, fn);
}

SurfaceMesh read_off(const std::string& path) { return read_off_impl(path); }

void write_off(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F) {
  const char* fn = "write_off";
  detail::check_positions(fn, "V", V, 2, 3);
  detail::check_polygons(fn, "F", F, V.rows(), 3);
  std::string out = "OFF\n";
  detail::append_int(out, V.rows());
  out += ' ';
  detail::append_int(out, F.rows());
  out += " 0\n";
  for (Index i = 0; i < V.rows(); ++i) {
    append_row3(out, V, i);
    out += '\n';
  }
  for (Index f = 0; f < F.rows(); ++f) {
    detail::append_int(out, F.cols());
    for (Index a = 0; a < F.cols(); ++a) {
      out += ' ';
      detail::append_int(out, F(f, a));
    }
    out += '\n';
  }
  detail::write_text_atomically(path, out, fn);
}

MeditMesh read_mesh(const std::string& path) { return read_mesh_impl(path); }

void write_mesh(const std::string& path, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                const Eigen::Ref<const MatrixXi>& F) {
  const char* fn = "write_mesh";
  detail::check_positions(fn, "X", X, 2, 3);
  const Index dim = X.cols();
  detail::check_simplices(fn, "T", T, X.rows(), dim + 1);
  if (F.rows() > 0) {
    if (dim == 2)
      throw std::invalid_argument(std::string(fn) + ": F must be empty for a 2D mesh (its triangles are T)");
    detail::check_simplices(fn, "F", F, X.rows(), 3);
  }
  std::string out = "MeshVersionFormatted 1\nDimension ";
  detail::append_int(out, dim);
  out += "\nVertices\n";
  detail::append_int(out, X.rows());
  out += '\n';
  for (Index i = 0; i < X.rows(); ++i) {
    for (Index c = 0; c < dim; ++c) {
      detail::append_double(out, X(i, c));
      out += ' ';
    }
    out += "0\n";
  }
  auto block = [&](const char* name, const Eigen::Ref<const MatrixXi>& E) {
    out += name;
    out += '\n';
    detail::append_int(out, E.rows());
    out += '\n';
    for (Index e = 0; e < E.rows(); ++e) {
      for (Index a = 0; a < E.cols(); ++a) {
        detail::append_int(out, static_cast<long long>(E(e, a)) + 1);
        out += ' ';
      }
      out += "0\n";
    }
  };
  if (dim == 3) {
    if (F.rows() > 0) block("Triangles", F);
    block("Tetrahedra", T);
  } else {
    block("Triangles", T);
  }
  out += "End\n";
  detail::write_text_atomically(path, out, fn);
}

Mesh read_tetgen(const std::string& node_path, const std::string& ele_path) {
  return read_tetgen_impl(node_path, ele_path);
}

void write_tetgen(const std::string& node_path, const std::string& ele_path, const Eigen::Ref<const MatrixXd>& X,
                  const Eigen::Ref<const MatrixXi>& T, int base) {
  const char* fn = "write_tetgen";
  if (base != 0 && base != 1)
    throw std::invalid_argument(std::string(fn) + ": base must be 0 or 1, got " + std::to_string(base));
  if (node_path == ele_path)
    throw std::invalid_argument(std::string(fn) + ": node_path and ele_path are the same file '" + node_path + "'");
  detail::check_positions(fn, "X", X, 2, 3);
  const Index dim = X.cols();
  if (X.rows() == 0) throw std::invalid_argument(std::string(fn) + ": X is empty");
  detail::check_simplices(fn, "T", T, X.rows(), dim + 1);
  if (T.rows() == 0) throw std::invalid_argument(std::string(fn) + ": T is empty");
  std::string node;
  detail::append_int(node, X.rows());
  node += ' ';
  detail::append_int(node, dim);
  node += " 0 0\n";
  for (Index i = 0; i < X.rows(); ++i) {
    detail::append_int(node, i + base);
    for (Index c = 0; c < dim; ++c) {
      node += ' ';
      detail::append_double(node, X(i, c));
    }
    node += '\n';
  }
  std::string ele;
  detail::append_int(ele, T.rows());
  ele += ' ';
  detail::append_int(ele, T.cols());
  ele += " 0\n";
  for (Index e = 0; e < T.rows(); ++e) {
    detail::append_int(ele, e + base);
    for (Index a = 0; a < T.cols(); ++a) {
      ele += ' ';
      detail::append_int(ele, static_cast<long long>(T(e, a)) + base);
    }
    ele += '\n';
  }
  detail::write_text_atomically(node_path, node, fn);
  detail::write_text_atomically(ele_path, ele, fn);
}

SurfaceMesh read_surface(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  std::string lower = ext;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == ".obj") return read_obj(path);
  if (lower == ".off") return read_off(path);
  if (lower == ".ply") {
    PlyMesh m = read_ply(path);
    return {std::move(m.V), std::move(m.F)};
  }
  detail::fail_file("read_surface", path,
                    (ext.empty() ? std::string("no file extension") : "unsupported surface format '" + ext + "'") +
                        " (use .obj, .off or .ply)");
}

Mesh read_volume_mesh(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".obj") return read_obj_2d(path);
  if (ext == ".mesh") return read_mesh(path);
  if (ext == ".msh") return read_msh(path);
  if (ext == ".node") return read_tetgen(path, std::filesystem::path(path).replace_extension(".ele").string());
  detail::fail_file("read_volume_mesh", path,
                    "unsupported mesh format '" + ext + "' (use .obj (2D), .mesh, .msh or .node)");
}

}  // namespace fastcd
