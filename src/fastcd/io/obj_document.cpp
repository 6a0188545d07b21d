#include "fastcd/io/obj_document.hpp"

#include <cmath>
#include <stdexcept>
#include <string_view>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/parse_util.hpp"

namespace fastcd {

namespace {

/// The first token of `line` (its keyword: "v", "vn", "f", ...), "" for a blank line.
std::string_view keyword(std::string_view line) {
  std::string_view key;
  detail::Tokens(line).next(key);
  return key;
}

/// A 1-based (or negative, relative) OBJ index into `count` records so far -> 0-based, -1 if bad.
long long resolve(std::string_view tok, long long count) {
  long long i = 0;
  if (!detail::parse_int(tok, i)) return -1;
  if (i > 0 && i <= count) return i - 1;
  if (i < 0 && -i <= count) return count + i;
  return -1;
}

}  // namespace

ObjDocument read_obj_document(const std::string& path) {
  read_obj(path);  // every check and message of the reader
  ObjDocument doc;
  doc.path = path;
  const std::string text = detail::read_file_bytes(path, "read_obj");
  detail::LineReader reader(text, path, "read_obj", "OBJ");
  std::string_view raw;
  while (reader.next(raw)) doc.lines.emplace_back(raw);
  long long nv = 0, nvn = 0;
  std::vector<int> normal_vertex;
  std::vector<double> normals;
  for (std::size_t k = 0; k < doc.lines.size(); ++k) {
    std::string_view body = doc.lines[k];
    const std::size_t hash = body.find('#');
    if (hash != std::string_view::npos) body = body.substr(0, hash);
    detail::Tokens tokens(body);
    std::string_view key, tok;
    tokens.next(key);
    if (key == "v") {
      doc.v_lines.push_back(k);
      ++nv;
    } else if (key == "vn") {
      doc.vn_lines.push_back(k);
      for (int c = 0; c < 3; ++c) {
        double d = 0.0;
        normals.push_back(tokens.next(tok) && detail::parse_double(tok, d) && std::isfinite(d) ? d : 0.0);
      }
      normal_vertex.push_back(-1);
      ++nvn;
    } else if (key == "f") {
      while (tokens.next(tok)) {
        const std::size_t s1 = tok.find('/');
        if (s1 == std::string_view::npos) continue;
        const std::size_t s2 = tok.find('/', s1 + 1);
        if (s2 == std::string_view::npos) continue;
        const long long v = resolve(tok.substr(0, s1), nv), n = resolve(tok.substr(s2 + 1), nvn);
        if (v >= 0 && n >= 0 && normal_vertex[static_cast<std::size_t>(n)] < 0)
          normal_vertex[static_cast<std::size_t>(n)] = static_cast<int>(v);
      }
    } else if (key == "mtllib") {
      while (tokens.next(tok)) doc.mtllibs.emplace_back(tok);
    }
  }
  doc.normal_vertex = Eigen::Map<const VectorXi>(normal_vertex.data(), static_cast<Index>(normal_vertex.size()));
  doc.N = MatrixXd(nvn, 3);
  for (Index i = 0; i < nvn; ++i)
    for (int c = 0; c < 3; ++c) doc.N(i, c) = normals[static_cast<std::size_t>(3 * i + c)];
  return doc;
}

void write_obj_document(const std::string& path, const ObjDocument& doc, const Eigen::Ref<const MatrixXd>& V,
                        const Eigen::Ref<const MatrixXd>& N, const std::string& mtllib_prefix) {
  const char* fn = "write_obj_document";
  if (V.rows() != static_cast<Index>(doc.v_lines.size()) || (V.cols() != 2 && V.cols() != 3))
    throw std::invalid_argument(std::string(fn) + ": V is " + std::to_string(V.rows()) + " x " +
                                std::to_string(V.cols()) + ", the document has " + std::to_string(doc.v_lines.size()) +
                                " vertices (2 or 3 coordinates each)");
  if (N.size() > 0 && (N.rows() != static_cast<Index>(doc.vn_lines.size()) || N.cols() != 3))
    throw std::invalid_argument(std::string(fn) + ": N is " + std::to_string(N.rows()) + " x " +
                                std::to_string(N.cols()) + ", the document has " + std::to_string(doc.vn_lines.size()) +
                                " normals");
  if (!V.allFinite() || !N.allFinite())
    throw std::invalid_argument(std::string(fn) + ": non-finite positions or normals");
  std::vector<int> kind(doc.lines.size(), 0);  // 1: v, 2: vn
  std::vector<Index> slot(doc.lines.size(), -1);
  for (std::size_t i = 0; i < doc.v_lines.size(); ++i) kind[doc.v_lines[i]] = 1, slot[doc.v_lines[i]] = Index(i);
  for (std::size_t i = 0; i < doc.vn_lines.size(); ++i) kind[doc.vn_lines[i]] = 2, slot[doc.vn_lines[i]] = Index(i);
  std::string out;
  out.reserve(doc.lines.size() * 32);
  for (std::size_t k = 0; k < doc.lines.size(); ++k) {
    const std::string& line = doc.lines[k];
    if (kind[k] == 1) {
      out += "v ";
      for (int c = 0; c < 3; ++c) {
        if (c) out += ' ';
        detail::append_double(out, c < V.cols() ? V(slot[k], c) : 0.0);
      }
      // Keep what followed the coordinates (w, vertex colours).
      detail::Tokens tokens(line);
      std::string_view skip;
      for (int c = 0; c < 4; ++c) tokens.next(skip);
      const std::string_view rest = tokens.rest();
      if (!rest.empty()) {
        out += ' ';
        out += rest;
      }
    } else if (kind[k] == 2 && N.size() > 0) {
      const Eigen::Vector3d n = N.row(slot[k]).transpose();
      const double len = n.norm();
      out += "vn ";
      for (int c = 0; c < 3; ++c) {
        if (c) out += ' ';
        detail::append_double(out, len > 0 ? n(c) / len : n(c));
      }
    } else if (!mtllib_prefix.empty() && keyword(line) == "mtllib") {
      out += "mtllib";
      detail::Tokens tokens(line);
      std::string_view tok;
      tokens.next(tok);
      while (tokens.next(tok)) {
        out += ' ';
        out += mtllib_prefix;
        out += tok;
      }
    } else {
      out += line;
    }
    out += '\n';
  }
  detail::write_text_atomically(path, out, fn);
}

}  // namespace fastcd
