// PLY: round trips (ASCII, binary little-endian), big-endian files written by hand, every
// scalar type, fan triangulation, texture coordinates and normals, skipped elements and
// properties, read_surface, malformed input and the writer's argument checks.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_ply_io {

using test::expect_throw_with;
using test::same_matrix;
using test::shared_data;

class PlyIo : public test::IoTempDir {};

enum class Fmt { Ascii, Little, Big };

const char* format_name(Fmt f) {
  return f == Fmt::Ascii ? "ascii" : f == Fmt::Little ? "binary_little_endian" : "binary_big_endian";
}

// The data part of a PLY file in one of the three formats, value by value (the test's own
// encoder, independent of the writer).
class PlyData {
 public:
  explicit PlyData(Fmt f) : f_(f) {}
  // One value of the PLY type `type` (any of the 16 names).
  PlyData& put(const std::string& type, double v) {
    if (f_ == Fmt::Ascii) {
      char buf[40];
      const bool integer = type != "float" && type != "float32" && type != "double" && type != "float64";
      if (integer) {
        std::snprintf(buf, sizeof buf, "%lld ", static_cast<long long>(v));
      } else {
        std::snprintf(buf, sizeof buf, "%.17g ", v);
      }
      bytes += buf;
      return *this;
    }
    std::uint64_t bits = 0;
    int n = 0;
    if (type == "char" || type == "int8" || type == "uchar" || type == "uint8") {
      bits = static_cast<std::uint8_t>(static_cast<long long>(v));
      n = 1;
    } else if (type == "short" || type == "int16" || type == "ushort" || type == "uint16") {
      bits = static_cast<std::uint16_t>(static_cast<long long>(v));
      n = 2;
    } else if (type == "int" || type == "int32" || type == "uint" || type == "uint32") {
      bits = static_cast<std::uint32_t>(static_cast<long long>(v));
      n = 4;
    } else if (type == "float" || type == "float32") {
      bits = std::bit_cast<std::uint32_t>(static_cast<float>(v));
      n = 4;
    } else {
      bits = std::bit_cast<std::uint64_t>(v);
      n = 8;
    }
    for (int i = 0; i < n; ++i) {
      const int shift = 8 * (f_ == Fmt::Big ? n - 1 - i : i);
      bytes += static_cast<char>((bits >> shift) & 0xff);
    }
    return *this;
  }
  // Ends a record (a line break in ASCII, nothing in binary).
  PlyData& end() {
    if (f_ == Fmt::Ascii) bytes += '\n';
    return *this;
  }
  std::string bytes;

 private:
  Fmt f_;
};

std::string ply_header(Fmt f, const std::string& body) {
  return std::string("ply\nformat ") + format_name(f) + " 1.0\n" + body + "end_header\n";
}

// The unit square split into two triangles, as a header + data in format f.
const char* kSquareHeader =
    "element vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
    "element face 2\nproperty list uchar int vertex_indices\n";

std::string square_data(Fmt f) {
  PlyData d(f);
  for (const auto& p : {std::array<double, 3>{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}})
    d.put("float", p[0]).put("float", p[1]).put("float", p[2]).end();
  d.put("uchar", 3).put("int", 0).put("int", 1).put("int", 2).end();
  d.put("uchar", 3).put("int", 0).put("int", 2).put("int", 3).end();
  return d.bytes;
}

MatrixXd square_V() {
  MatrixXd V(4, 3);
  V << 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0;
  return V;
}

MatrixXi square_F() {
  MatrixXi F(2, 3);
  F << 0, 1, 2, 0, 2, 3;
  return F;
}

// ============================================================================ round trips

TEST_F(PlyIo, RoundTripIsExactInAsciiAndBinary) {
  const SurfaceMesh spot = read_obj(shared_data("keenan-crane/spot_triangulated.obj"));
  const MatrixXd W = test::awkward_values(7, 3, 5);
  MatrixXi G(3, 3);
  G << 0, 1, 2, 2, 3, 4, 6, 5, 0;
  for (const bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "binary" : "ascii");
    write_ply(path("spot.ply"), spot.V, spot.F, binary);
    const PlyMesh s = read_ply(path("spot.ply"));
    EXPECT_TRUE(same_matrix(s.V, spot.V));
    EXPECT_TRUE(same_matrix(s.F, spot.F));
    EXPECT_EQ(s.UV.rows(), 0);
    EXPECT_EQ(s.UV.cols(), 2);
    EXPECT_EQ(s.N.rows(), 0);
    EXPECT_EQ(s.N.cols(), 3);
    write_ply(path("w.ply"), W, G, binary);
    const PlyMesh w = read_ply(path("w.ply"));
    EXPECT_TRUE(same_matrix(w.V, W));
    EXPECT_TRUE(same_matrix(w.F, G));
    EXPECT_TRUE(std::signbit(w.V(1, 0))) << "-0.0 keeps its sign";
    // 2D positions get z = 0; a pentagon comes back as a fan of 3 triangles.
    const MatrixXd P = W.leftCols(2);
    MatrixXi Q(1, 5);
    Q << 4, 3, 2, 1, 0;
    write_ply(path("p.ply"), P, Q, binary);
    const PlyMesh p = read_ply(path("p.ply"));
    EXPECT_TRUE(same_matrix(p.V.leftCols(2), P));
    EXPECT_EQ(p.V.col(2).cwiseAbs().maxCoeff(), 0.0);
    MatrixXi QT(3, 3);
    QT << 4, 3, 2, 4, 2, 1, 4, 1, 0;
    EXPECT_TRUE(same_matrix(p.F, QT));
  }
  EXPECT_EQ(listing(), (std::set<std::string>{"p.ply", "spot.ply", "w.ply"})) << "no temporary file left behind";
}

TEST_F(PlyIo, WriterHeadersAndPolygonsOfMoreThan255Corners) {
  write_ply(path("b.ply"), square_V(), square_F());
  const std::string b = slurp(path("b.ply"));
  EXPECT_EQ(b.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u) << b.substr(0, 60);
  EXPECT_NE(b.find("property double x\n"), std::string::npos);
  EXPECT_NE(b.find("property list uchar int vertex_indices\nend_header\n"), std::string::npos);
  // 4 x 3 doubles + 2 faces of (1 + 3 x 4) bytes after the header.
  EXPECT_EQ(b.size() - (b.find("end_header\n") + 11), 4u * 24 + 2 * 13);
  write_ply(path("a.ply"), square_V(), square_F(), false);
  const std::string a = slurp(path("a.ply"));
  EXPECT_NE(a.find("format ascii 1.0\n"), std::string::npos);
  EXPECT_NE(a.find("end_header\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n"), std::string::npos) << a;

  // A 300-gon needs an int corner count.
  MatrixXd V(300, 3);
  MatrixXi F(1, 300);
  for (int i = 0; i < 300; ++i) {
    V.row(i) << std::cos(i * 0.02), std::sin(i * 0.02), 0;
    F(0, i) = i;
  }
  for (const bool binary : {true, false}) {
    write_ply(path("big.ply"), V, F, binary);
    EXPECT_NE(slurp(path("big.ply")).find("property list int int vertex_indices"), std::string::npos);
    const PlyMesh m = read_ply(path("big.ply"));
    ASSERT_EQ(m.F.rows(), 298);
    EXPECT_EQ(m.F(297, 0), 0);
    EXPECT_EQ(m.F(297, 1), 298);
    EXPECT_EQ(m.F(297, 2), 299);
    EXPECT_TRUE(same_matrix(m.V, V));
  }
}

// ============================================================================ formats

// Big-endian bytes spelled out by hand (float 1.0 = 3f 80 00 00, int 2 = 00 00 00 02), so the
// byte order is checked against the format, not against the test's own encoder.
TEST_F(PlyIo, ReadsBigEndianFilesWrittenByHand) {
  std::string data;
  const char* xyz[4][3] = {{"\x00\x00\x00\x00", "\x00\x00\x00\x00", "\x00\x00\x00\x00"},
                           {"\x3f\x80\x00\x00", "\x00\x00\x00\x00", "\x00\x00\x00\x00"},
                           {"\x3f\x80\x00\x00", "\x3f\x80\x00\x00", "\x00\x00\x00\x00"},
                           {"\x00\x00\x00\x00", "\x3f\x80\x00\x00", "\x00\x00\x00\x00"}};
  for (const auto& v : xyz)
    for (const char* c : v) data.append(c, 4);
  data.append("\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02", 13);
  data.append("\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x03", 13);
  const PlyMesh m = read_ply(put("be.ply", ply_header(Fmt::Big, kSquareHeader) + data));
  EXPECT_TRUE(same_matrix(m.V, square_V()));
  EXPECT_TRUE(same_matrix(m.F, square_F()));
  // The same file through the test encoder, in all three formats.
  for (const Fmt f : {Fmt::Ascii, Fmt::Little, Fmt::Big}) {
    SCOPED_TRACE(format_name(f));
    const PlyMesh s = read_ply(put("sq.ply", ply_header(f, kSquareHeader) + square_data(f)));
    EXPECT_TRUE(same_matrix(s.V, square_V()));
    EXPECT_TRUE(same_matrix(s.F, square_F()));
  }
  EXPECT_EQ(square_data(Fmt::Big).substr(0, 16), data.substr(0, 16));
}

// Every scalar type (both spellings) as positions, and every integer type as list count and
// as index, in every format; values at the ends of each type's range where a position can
// hold them.
TEST_F(PlyIo, ReadsEveryScalarTypeInEveryFormat) {
  struct T {
    const char* name;
    const char* alias;
    double lo, hi;
  };
  const std::vector<T> types = {{"char", "int8", -128, 127},
                                {"uchar", "uint8", 0, 255},
                                {"short", "int16", -32768, 32767},
                                {"ushort", "uint16", 0, 65535},
                                {"int", "int32", -2147483648.0, 2147483647.0},
                                {"uint", "uint32", 0, 4294967295.0},
                                {"float", "float32", -0.25, 3.4028234663852886e38},
                                {"double", "float64", -1e-300, 1.7e308}};
  const std::vector<T> ints(types.begin(), types.begin() + 6);
  for (const Fmt f : {Fmt::Ascii, Fmt::Little, Fmt::Big})
    for (const T& t : types)
      for (const bool alias : {false, true}) {
        const auto k = static_cast<std::size_t>(&t - types.data());
        const T& c = ints[k % ints.size()];  // a count type and an index type
        const T& i = ints[(k + 3) % ints.size()];
        const std::string type = alias ? t.alias : t.name;
        const std::string count = alias ? c.alias : c.name;
        const std::string index = alias ? i.name : i.alias;
        SCOPED_TRACE(std::string(format_name(f)) + " " + type + ", list " + count + " " + index);
        const std::string head = "element vertex 3\nproperty " + type + " x\nproperty " + type + " y\nproperty " +
                                 type + " z\nelement face 1\nproperty list " + count + " " + index +
                                 " vertex_indices\n";
        PlyData d(f);
        d.put(type, t.lo).put(type, t.hi).put(type, 0).end();
        d.put(type, 1).put(type, 0).put(type, t.hi).end();
        d.put(type, 0).put(type, 1).put(type, t.lo).end();
        d.put(count, 3).put(index, 2).put(index, 0).put(index, 1).end();
        const PlyMesh m = read_ply(put("t.ply", ply_header(f, head) + d.bytes));
        MatrixXd V(3, 3);
        V << t.lo, t.hi, 0, 1, 0, t.hi, 0, 1, t.lo;
        EXPECT_TRUE(same_matrix(m.V, V));
        MatrixXi F(1, 3);
        F << 2, 0, 1;
        EXPECT_TRUE(same_matrix(m.F, F));
      }
}

// Polygons are fanned exactly as read_obj does, so the same polygons give the same triangles.
TEST_F(PlyIo, PolygonsAreFanTriangulatedAsReadObj) {
  const std::string obj = "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nv 3 3 0\nf 1 2 3 4 5\nf 2 6 3\nf 5 4 6 1\n";
  const SurfaceMesh o = read_obj(put("poly.obj", obj));
  for (const Fmt f : {Fmt::Ascii, Fmt::Little, Fmt::Big}) {
    SCOPED_TRACE(format_name(f));
    PlyData d(f);
    for (Index i = 0; i < o.V.rows(); ++i) d.put("double", o.V(i, 0)).put("double", o.V(i, 1)).put("double", 0).end();
    for (const std::vector<int>& poly : {std::vector<int>{0, 1, 2, 3, 4}, {1, 5, 2}, {4, 3, 5, 0}}) {
      d.put("uchar", static_cast<double>(poly.size()));
      for (int v : poly) d.put("int", v);
      d.end();
    }
    const std::string head =
        "element vertex 6\nproperty double x\nproperty double y\nproperty double z\n"
        "element face 3\nproperty list uchar int vertex_index\n";  // the older name
    const PlyMesh m = read_ply(put("poly.ply", ply_header(f, head) + d.bytes));
    EXPECT_EQ(m.F.rows(), 3 + 1 + 2);
    EXPECT_TRUE(same_matrix(m.F, o.F));
    EXPECT_TRUE(same_matrix(m.V, o.V));
  }
}

TEST_F(PlyIo, ReadsTextureCoordinatesAndNormals) {
  for (const Fmt f : {Fmt::Ascii, Fmt::Little, Fmt::Big})
    for (const auto& [s, t] : {std::pair{"s", "t"}, std::pair{"u", "v"}, std::pair{"texture_u", "texture_v"}}) {
      SCOPED_TRACE(std::string(format_name(f)) + " " + s + " " + t);
      const std::string head = std::string("element vertex 3\nproperty float nx\nproperty double x\n") +
                               "property float " + s + "\nproperty float y\nproperty float ny\nproperty float z\n" +
                               "property float " + t + "\nproperty float nz\nelement face 1\n" +
                               "property list uchar uint vertex_indices\n";
      PlyData d(f);
      for (int i = 0; i < 3; ++i)
        d.put("float", 0.5 * i)
            .put("double", i)
            .put("float", 0.25 * i)
            .put("float", 2 * i)
            .put("float", -i)
            .put("float", 3 * i)
            .put("float", 1 - 0.25 * i)
            .put("float", 1)
            .end();
      d.put("uchar", 3).put("uint", 0).put("uint", 1).put("uint", 2).end();
      const PlyMesh m = read_ply(put("uv.ply", ply_header(f, head) + d.bytes));
      ASSERT_EQ(m.UV.rows(), 3);
      ASSERT_EQ(m.N.rows(), 3);
      for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(m.V.row(i) == Eigen::RowVector3d(i, 2 * i, 3 * i));
        EXPECT_TRUE(m.UV.row(i) == Eigen::RowVector2d(0.25 * i, 1 - 0.25 * i));
        EXPECT_TRUE(m.N.row(i) == Eigen::RowVector3d(0.5 * i, -i, 1));
      }
    }
  // Half a pair or two of three normal components: neither UV nor N.
  const std::string head =
      "element vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float u\n"
      "property float nx\nproperty float ny\nelement face 1\nproperty list uchar int vertex_indices\n";
  const PlyMesh m =
      read_ply(put("half.ply", ply_header(Fmt::Ascii, head) + "0 0 0 1 1 1\n1 0 0 1 1 1\n0 1 0 1 1 1\n3 0 1 2\n"));
  EXPECT_EQ(m.UV.rows(), 0);
  EXPECT_EQ(m.N.rows(), 0);
  EXPECT_EQ(m.V(2, 1), 1.0);
}

// Comments, obj_info, colours, list properties in the vertex and face elements, and whole
// unknown elements (with lists, before, between and after the vertices and faces) are skipped
// in every format.
TEST_F(PlyIo, SkipsUnknownElementsAndProperties) {
  const std::string head =
      "comment made by hand\nobj_info scanner 7\n"
      "element material 2\nproperty uchar red\nproperty list ushort float weights\nproperty double shininess\n"
      "element vertex 4\nproperty uchar red\nproperty float x\nproperty list uchar int neighbours\n"
      "property float y\nproperty float z\nproperty short flags\n"
      "comment between elements\n"
      "element nothing 1000000000000\n"  // no properties: no bytes, never iterated
      "element face 2\nproperty int8 flags\nproperty list uint8 int32 vertex_indices\n"
      "property list uchar float texcoord\n"
      "element edge 3\nproperty int vertex1\nproperty int vertex2\nproperty list int char tags\n";
  for (const Fmt f : {Fmt::Ascii, Fmt::Little, Fmt::Big}) {
    SCOPED_TRACE(format_name(f));
    PlyData d(f);
    d.put("uchar", 255).put("ushort", 2).put("float", 0.5).put("float", -1).put("double", 1e300).end();
    d.put("uchar", 0).put("ushort", 0).put("double", 2).end();
    const MatrixXd V = square_V();
    for (int i = 0; i < 4; ++i) {
      d.put("uchar", 10 * i).put("float", V(i, 0)).put("uchar", i % 3);
      for (int k = 0; k < i % 3; ++k) d.put("int", k);
      d.put("float", V(i, 1)).put("float", V(i, 2)).put("short", -i).end();
    }
    d.put("int8", -1).put("uint8", 3).put("int32", 0).put("int32", 1).put("int32", 2).put("uchar", 0).end();
    d.put("int8", 7).put("uint8", 3).put("int32", 0).put("int32", 2).put("int32", 3).put("uchar", 6);
    for (int k = 0; k < 6; ++k) d.put("float", 0.125 * k);
    d.end();
    for (int e = 0; e < 3; ++e) {
      d.put("int", e).put("int", e + 1).put("int", e);
      for (int k = 0; k < e; ++k) d.put("char", -k);
      d.end();
    }
    const PlyMesh m = read_ply(put("skip.ply", ply_header(f, head) + d.bytes));
    EXPECT_TRUE(same_matrix(m.V, V));
    EXPECT_TRUE(same_matrix(m.F, square_F()));
  }
  // Header lines may end in "\r\n"; blank header lines and line breaks anywhere in ASCII data.
  const PlyMesh crlf =
      read_ply(put("crlf.ply",
                   "ply\r\nformat ascii 1.0\r\n\r\nelement vertex 3\r\nproperty float x\r\n"
                   "property float y\r\nproperty float z\r\nelement face 1\r\n"
                   "property list uchar int vertex_indices\r\nend_header\r\n0 0\r\n0 1 0 0 0\n\n1 0 3\n"
                   "0 1 2 \r\n"));
  EXPECT_EQ(crlf.V(2, 1), 1.0);
  EXPECT_EQ(crlf.F.rows(), 1);
  // A face element without faces is an empty surface (as read_off).
  const PlyMesh empty = read_ply(put("nf.ply", ply_header(Fmt::Ascii,
                                                          "element vertex 1\nproperty float x\nproperty float y\n"
                                                          "property float z\nelement face 0\n"
                                                          "property list uchar int vertex_indices\n") +
                                                   "1 2 3\n"));
  EXPECT_EQ(empty.V.rows(), 1);
  EXPECT_EQ(empty.F.rows(), 0);
  EXPECT_EQ(empty.F.cols(), 3);
}

// ============================================================================ read_surface

TEST_F(PlyIo, ReadSurfaceDispatchesOnTheExtension) {
  const MatrixXd V = square_V();
  const MatrixXi F = square_F();
  write_obj(path("s.obj"), V, F);
  write_off(path("s.off"), V, F);
  write_ply(path("s.ply"), V, F);
  std::filesystem::copy_file(path("s.obj"), path("u.OBJ"));
  std::filesystem::copy_file(path("s.off"), path("u.Off"));
  std::filesystem::copy_file(path("s.ply"), path("u.PLY"));
  for (const char* name : {"s.obj", "s.off", "s.ply", "u.OBJ", "u.Off", "u.PLY"}) {
    SCOPED_TRACE(name);
    const SurfaceMesh s = read_surface(path(name));
    EXPECT_TRUE(same_matrix(s.V, V));
    EXPECT_TRUE(same_matrix(s.F, F));
  }
  using E = std::runtime_error;
  expect_throw_with<E>(
      [&] { read_surface(put("s.stl", "solid x\n")); },
      "read_surface: '" + path("s.stl") + "': unsupported surface format '.stl' (use .obj, .off or .ply)");
  expect_throw_with<E>([&] { read_surface(put("noext", "ply\n")); },
                       "read_surface: '" + path("noext") + "': no file extension (use .obj, .off or .ply)");
  // The reader's own error comes through, naming the reader: an OFF file named .ply.
  std::filesystem::copy_file(path("s.off"), path("off.ply"));
  expect_throw_with<E>([&] { read_surface(path("off.ply")); },
                       "read_ply: '" + path("off.ply") + "' line 1: expected 'ply', got 'OFF'");
}

// ============================================================================ errors

TEST_F(PlyIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string pos = "property float x\nproperty float y\nproperty float z\n";
  const std::string faces = "element face 1\nproperty list uchar int vertex_indices\n";
  const std::string tri = "element vertex 3\n" + pos + faces;
  const std::string ok = "0 0 0\n1 0 0\n0 1 0\n";
  auto ascii = [&](const std::string& head) { return ply_header(Fmt::Ascii, head); };
  auto read = [&](const std::string& name, const std::string& bytes) { return read_ply(put(name, bytes)); };
  expect_throw_with<E>([&] { read_ply(path("none.ply")); }, "read_ply: cannot open");
  expect_throw_with<E>([&] { read_ply(dir_.string()); }, "is a directory");
  expect_throw_with<E>([&] { read("e.ply", ""); }, "file is empty (not a PLY file)");
  expect_throw_with<E>([&] { read("h.ply", "OFF\n3 1 0\n"); }, "line 1: expected 'ply', got 'OFF' (not a PLY file");
  expect_throw_with<E>([&] { read("f.ply", "ply\nformat binary 1.0\n"); }, "line 2: unknown format 'binary'");
  expect_throw_with<E>([&] { read("v.ply", "ply\nformat ascii 2.0\n"); },
                       "line 2: format version '2.0' is not supported (1.0 is)");
  expect_throw_with<E>([&] { read("ff.ply", "ply\nformat ascii 1.0\nformat ascii 1.0\n"); }, "second 'format' line");
  expect_throw_with<E>([&] { read("nf.ply", "ply\nelement vertex 3\n"); }, "line 2: 'element' before the 'format'");
  expect_throw_with<E>([&] { read("np.ply", "ply\nformat ascii 1.0\nproperty float x\n"); },
                       "line 3: 'property' before any 'element'");
  expect_throw_with<E>([&] { read("kw.ply", "ply\nformat ascii 1.0\nelements vertex 3\n"); },
                       "line 3: unknown header keyword 'elements'");
  expect_throw_with<E>([&] { read("ty.ply", ascii("element vertex 3\nproperty half x\n")); },
                       "line 4: unknown property type 'half'");
  expect_throw_with<E>([&] { read("lc.ply", ascii("element face 3\nproperty list float int vertex_indices\n")); },
                       "line 4: list count type 'float' is not an integer type");
  expect_throw_with<E>([&] { read("pn.ply", ascii("element vertex 3\nproperty float\n")); },
                       "line 4: missing the property name");
  expect_throw_with<E>([&] { read("ex.ply", ascii("element vertex 3 4\n")); },
                       "line 3: unexpected extra text '4' after the element count");
  expect_throw_with<E>([&] { read("ec.ply", ascii("element vertex three\n")); },
                       "line 3: expected the count of element 'vertex', got 'three'");
  expect_throw_with<E>([&] { read("neg.ply", ascii("element vertex -3\n")); },
                       "line 3: negative count -3 of element 'vertex'");
  expect_throw_with<E>([&] { read("vv.ply", ascii("element vertex 0\nelement vertex 0\n")); },
                       "line 4: second 'vertex' element");
  expect_throw_with<E>([&] { read("eh.ply", "ply\nformat ascii 1.0\nelement vertex 3\n" + pos); },
                       "line 6: unexpected end of file: missing 'end_header'");
  expect_throw_with<E>([&] { read("bin.ply", std::string("ply\nformat ascii 1.0\ncomment \x01\x02\n")); },
                       "line 3: control character in the header");
  expect_throw_with<E>([&] { read("nov.ply", ascii(faces)); }, "': no 'vertex' element");
  expect_throw_with<E>(
      [&] { read("noz.ply", ascii("element vertex 3\nproperty float x\nproperty float y\n" + faces)); },
      "line 3: element 'vertex' has no property 'z'");
  expect_throw_with<E>(
      [&] {
        read("lz.ply", ascii("element vertex 3\nproperty float x\nproperty float y\n"
                             "property list uchar float z\n" +
                             faces));
      },
      "element 'vertex' has no scalar property 'z'");
  expect_throw_with<E>([&] { read("pc.ply", ascii("element vertex 3\n" + pos) + ok); },
                       "no 'face' element: a point cloud (3 vertices, no faces) is not a surface");
  expect_throw_with<E>([&] { read("nvi.ply", ascii("element vertex 3\n" + pos + "element face 1\nproperty int a\n")); },
                       "line 7: element 'face' has no list property 'vertex_indices' (or 'vertex_index')");
  expect_throw_with<E>(
      [&] {
        read("fvi.ply",
             ascii("element vertex 3\n" + pos + "element face 1\nproperty list uchar float vertex_indices\n"));
      },
      "the items of 'vertex_indices' are float, not an integer type");
  expect_throw_with<E>([&] { read("hv.ply", ascii("element vertex 1000000000000\n" + pos + faces) + ok); },
                       "line 3: vertex count 1000000000000 is out of range [0, 2147483647]");
  expect_throw_with<E>([&] { read("lv.ply", ascii("element vertex 2000000000\n" + pos + faces) + ok); },
                       "line 3: element 'vertex' declares 2000000000 records of at least 6 bytes but only 19 bytes "
                       "are left for them");
  expect_throw_with<E>(
      [&] {
        read("lf.ply", ply_header(Fmt::Little, "element vertex 3\n" + pos +
                                                   "element face 1000000\n"
                                                   "property list uchar int vertex_indices\n") +
                           std::string(36, '\0') + "\x03");
      },
      "line 7: element 'face' declares 1000000 records of at least 1 bytes but only 1 bytes are left");
  expect_throw_with<E>([&] { read("few.ply", ascii(tri) + "0.000 0.000 0.000\n1.000 0.000 0.000\n"); },
                       "line 11: unexpected end of file: vertex 2, property 'x' is missing");
  expect_throw_with<E>([&] { read("more.ply", ascii(tri) + ok + "3 0 1 2\n3 0 1 2\n"); },
                       "line 14: unexpected content '3' after the last element (wrong counts in the header?)");
  expect_throw_with<E>([&] { read("nan.ply", ascii(tri) + "0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n"); },
                       "line 11: vertex 1, property 'y' is not finite (nan)");
  expect_throw_with<E>([&] { read("inf.ply", ascii(tri) + "0 0 0\n1 0 0\n0 1 -1e999\n3 0 1 2\n"); },
                       "line 12: vertex 2, property 'z' is not finite (-inf)");
  expect_throw_with<E>([&] { read("txt.ply", ascii(tri) + "0 0 0\n1 one 0\n0 1 0\n3 0 1 2\n"); },
                       "line 11: vertex 1, property 'y': expected a number, got 'one'");
  expect_throw_with<E>([&] { read("idx.ply", ascii(tri) + ok + "3 0 1 3\n"); },
                       "line 13: face 0: vertex index 3 is out of range [0, 2]");
  expect_throw_with<E>([&] { read("ni.ply", ascii(tri) + ok + "3 0 -1 2\n"); },
                       "face 0: vertex index -1 is out of range [0, 2]");
  expect_throw_with<E>([&] { read("two.ply", ascii(tri) + ok + "2 0 1\n"); },
                       "line 13: face 0 has 2 corners; at least 3 are needed");
  expect_throw_with<E>([&] { read("ovf.ply", ascii(tri) + ok + "300 0 1 2\n"); },
                       "line 13: face 0, property 'vertex_indices': 300 is out of range for uchar [0, 255]");
  expect_throw_with<E>([&] { read("fl.ply", ascii(tri) + ok + "3 0 1.5 2\n"); },
                       "face 0, property 'vertex_indices': expected an integer (int), got '1.5'");
  expect_throw_with<E>(
      [&] {
        read("nc.ply", ascii("element vertex 3\n" + pos + "element face 1\nproperty list char int vertex_indices\n") +
                           ok + "-1 0 1 2\n");
      },
      "line 13: face 0, property 'vertex_indices': negative list count -1");
  expect_throw_with<E>([&] { read("nul.ply", ascii(tri) + std::string("0 0 0\n1\0", 8)); },
                       "line 11: contains a NUL byte: binary data, not a text PLY file");

  // Binary: byte offsets.
  const std::string bh = ply_header(Fmt::Little, tri);
  const std::size_t at = bh.size();
  PlyData good(Fmt::Little);
  for (const double c : {0., 0., 0., 1., 0., 0., 0., 1., 0.}) good.put("float", c);
  good.put("uchar", 3).put("int", 0).put("int", 1).put("int", 2);
  const std::string g = good.bytes;
  EXPECT_EQ(read("good.ply", bh + g).F.rows(), 1);
  expect_throw_with<E>([&] { read("tr.ply", bh + g.substr(0, 45)); },
                       "byte " + std::to_string(at + 36) +
                           ": truncated file: face 0, property 'vertex_indices' lists 3 "
                           "int items but only 8 bytes remain");
  expect_throw_with<E>([&] { read("tr2.ply", bh + g.substr(0, 36)); },
                       "line 7: element 'face' declares 1 records of at least 1 bytes but only 0 bytes are left");
  expect_throw_with<E>([&] { read("trail.ply", bh + g + "\n"); },
                       "byte " + std::to_string(at + 49) + ": 1 bytes of trailing data after the last element");
  std::string nan = g;
  const float qnan = std::nanf("");
  std::memcpy(&nan[16], &qnan, 4);
  expect_throw_with<E>([&] { read("bnan.ply", bh + nan); },
                       "byte " + std::to_string(at + 16) + ": vertex 1, property 'y' is not finite (nan)");
  std::string big = g;
  big[37] = '\x09';
  expect_throw_with<E>([&] { read("bidx.ply", bh + big); },
                       "byte " + std::to_string(at + 37) + ": face 0: vertex index 9 is out of range [0, 2]");
  std::string neg = g;
  neg[41] = neg[42] = neg[43] = neg[44] = '\xff';
  expect_throw_with<E>([&] { read("bneg.ply", bh + neg); }, "face 0: vertex index -1 is out of range [0, 2]");
  std::string one = g;
  one[36] = '\x01';
  expect_throw_with<E>([&] { read("bone.ply", bh + one); }, "face 0 has 1 corner; at least 3 are needed");
  // A binary file declared as ASCII, and an ASCII one declared as binary.
  expect_throw_with<E>([&] { read("asb.ply", ply_header(Fmt::Ascii, tri) + g); }, "contains a NUL byte");
  expect_throw_with<E>([&] { read("bsa.ply", bh + ok + "3 0 1 2\n"); },
                       "line 3: element 'vertex' declares 3 records of at least 12 bytes but only 26 bytes are left");
}

TEST_F(PlyIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  MatrixXd V = square_V();
  MatrixXi F = square_F();
  const MatrixXd V4 = MatrixXd::Zero(3, 4);
  expect_throw_with<E>([&] { write_ply(path("a.ply"), V4, F); }, "write_ply: V must be #V x 2 or #V x 3");
  V(1, 2) = std::nan("");
  expect_throw_with<E>([&] { write_ply(path("a.ply"), V, F, false); }, "write_ply: V(1, 2) is not finite");
  V(1, 2) = 0;
  F(1, 2) = 4;
  expect_throw_with<E>([&] { write_ply(path("a.ply"), V, F); }, "write_ply: F(1, 2) = 4 is out of range [0, 4)");
  MatrixXi F2(1, 2);
  F2 << 0, 1;
  expect_throw_with<E>([&] { write_ply(path("a.ply"), V, F2); }, "k >= 3");
  EXPECT_TRUE(listing().empty());
  // (The message of a missing folder comes from write_file_atomically, without "write_ply: ".)
  const std::string missing = path("no/such/dir.ply");
  expect_throw_with<std::runtime_error>([&] { write_ply(missing, V, square_F()); }, missing);
}

}  // namespace test_ply_io
}  // namespace fastcd
