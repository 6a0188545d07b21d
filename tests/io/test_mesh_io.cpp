// OBJ, OFF, Medit .mesh and TetGen .node/.ele: the shipped data, round trips, malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/io/mesh_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_mesh_io {

using test::expect_throw_with;
using test::same_matrix;
using test::shared_data;

// One fixture (a temporary folder) per suite, so every suite name matches "*Io*".
class ObjIo : public test::IoTempDir {};
class OffIo : public test::IoTempDir {};
class MeditIo : public test::IoTempDir {};
class TetGenIo : public test::IoTempDir {};

// Signed area of each triangle of a 2D mesh.
VectorXd signed_areas(const MatrixXd& X, const MatrixXi& T) {
  VectorXd a(T.rows());
  for (Index t = 0; t < T.rows(); ++t) {
    const Eigen::Vector2d p = X.row(T(t, 0)), q = X.row(T(t, 1)), r = X.row(T(t, 2));
    a(t) = 0.5 * ((q - p).x() * (r - p).y() - (q - p).y() * (r - p).x());
  }
  return a;
}

// Volume enclosed by a closed triangle surface (divergence theorem; > 0 if outward).
double enclosed_volume(const MatrixXd& V, const MatrixXi& F) {
  double v = 0;
  for (Index f = 0; f < F.rows(); ++f) {
    const Eigen::Vector3d a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    v += a.dot(b.cross(c)) / 6.0;
  }
  return v;
}

// Sorted-corner key of each row (unordered facet identity).
std::multiset<std::vector<int>> facet_set(const MatrixXi& F) {
  std::multiset<std::vector<int>> s;
  for (Index f = 0; f < F.rows(); ++f) {
    std::vector<int> k;
    for (Index a = 0; a < F.cols(); ++a) k.push_back(F(f, a));
    std::sort(k.begin(), k.end());
    s.insert(k);
  }
  return s;
}

// ====================================================================================== OBJ

struct Obj2d {
  const char* file;
  Index v, t, boundary;
};

TEST_F(ObjIo, ReadsTheComplementaryDynamics2dMeshes) {
  // Counts from SOURCES.md (walrus: counted here, 1559 V / 2902 triangles).
  const Obj2d cases[] = {{"complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.obj", 639, 1099, 177},
                         {"complementary-dynamics-2d/daisy/daisy_data/daisy.obj", 702, 1158, 244},
                         {"complementary-dynamics-2d/walrus/walrus_data/walrus.obj", 1559, 2902, 214}};
  for (const Obj2d& c : cases) {
    SCOPED_TRACE(c.file);
    const Mesh m = read_obj_2d(shared_data(c.file));
    EXPECT_EQ(m.X.rows(), c.v);
    EXPECT_EQ(m.X.cols(), 2);
    EXPECT_EQ(m.T.rows(), c.t);
    EXPECT_EQ(m.T.cols(), 3);
    EXPECT_EQ(boundary_facets(m.T).F.rows(), c.boundary);
    // Disk topology: V - E + F = 1, every vertex used.
    EXPECT_EQ(m.X.rows() - test::count_edges(m.T) + m.T.rows(), 1);
    EXPECT_EQ(test::count_used(m.T), c.v);
    // Consistently oriented: every signed area has the same sign.
    const VectorXd a = signed_areas(m.X, m.T);
    EXPECT_TRUE((a.array() > 0).all() || (a.array() < 0).all());
    // read_obj keeps the z = 0 column.
    const SurfaceMesh s = read_obj(shared_data(c.file));
    EXPECT_TRUE(same_matrix(s.V.leftCols(2), m.X));
    EXPECT_EQ(s.V.col(2).cwiseAbs().maxCoeff(), 0.0);
  }
}

struct Obj3d {
  const char* file;
  Index v, f;
};

TEST_F(ObjIo, ReadsTheClosed3dSurfaces) {
  const Obj3d cases[] = {{"complementary-dynamics-cpp/sphere/sphere.obj", 58, 112},
                         {"complementary-dynamics-cpp/frog/frog.obj", 1085, 2166},
                         {"complementary-dynamics-cpp/elephant/elephant.obj", 635, 1266},
                         {"keenan-crane/spot_triangulated.obj", 2930, 5856}};
  for (const Obj3d& c : cases) {
    SCOPED_TRACE(c.file);
    const SurfaceMesh s = read_obj(shared_data(c.file));
    EXPECT_EQ(s.V.rows(), c.v);
    EXPECT_EQ(s.F.rows(), c.f);
    EXPECT_EQ(boundary_facets(s.F).F.rows(), 0) << "closed: no edge used once";
    EXPECT_EQ(3 * s.F.rows(), 2 * test::count_edges(s.F)) << "every edge used twice";
  }
  // Spot: genus 0 (V - E + F = 2), outward, volume 0.718 (SOURCES.md: 0.71826).
  const SurfaceMesh spot = read_obj(shared_data("keenan-crane/spot_triangulated.obj"));
  EXPECT_EQ(spot.V.rows() - test::count_edges(spot.F) + spot.F.rows(), 2);
  EXPECT_NEAR(enclosed_volume(spot.V, spot.F), 0.71826, 5e-6);
}

TEST_F(ObjIo, FaceFormsNegativeIndicesPolygonsAndComments) {
  const std::string p = put("forms.obj",
                            "# comment line\r\n"
                            "mtllib x.mtl\n"
                            "o thing\n"
                            "v 0 0 0\n"
                            "v 1 0 0   # trailing comment\n"
                            "v 1 1 0 1.0\n"          // w
                            "v 0 1 0 0.5 0.5 0.5\n"  // vertex colour
                            "v 2 0.5 0\n"
                            "vt 0 0\nvt 1 0\nvt 1 1\n"
                            "vn 0 0 1\n"
                            "g group\ns 1\nusemtl m\n"
                            "\n"
                            "f 1 2 3\n"
                            "f 1/1 3/3 4/2\n"
                            "f 2//1 5//1 3//1\n"
                            "f 1/1/1 2/2/1 3/3/1\n"
                            "f -5 -4 -3\n"   // = 1 2 3
                            "f 1 2 5 3 4\n"  // pentagon: 3 fan triangles
                            "l 1 2\n");
  const SurfaceMesh s = read_obj(p);
  ASSERT_EQ(s.V.rows(), 5);
  MatrixXi F(8, 3);
  F << 0, 1, 2, 0, 2, 3, 1, 4, 2, 0, 1, 2, 0, 1, 2, 0, 1, 4, 0, 4, 2, 0, 2, 3;
  EXPECT_TRUE(same_matrix(s.F, F));
  EXPECT_EQ(s.V(2, 1), 1.0);
  EXPECT_EQ(s.V(4, 0), 2.0);
}

TEST_F(ObjIo, RoundTripIsExact) {
  MatrixXd V = test::awkward_values(7, 3, 1);
  MatrixXi F(3, 3);
  F << 0, 1, 2, 2, 3, 4, 6, 5, 0;
  write_obj(path("a.obj"), V, F);
  const SurfaceMesh s = read_obj(path("a.obj"));
  EXPECT_TRUE(same_matrix(s.V, V));
  EXPECT_TRUE(same_matrix(s.F, F));
  EXPECT_TRUE(std::signbit(s.V(1, 0))) << "-0.0 keeps its sign";
  EXPECT_EQ(listing(), (std::set<std::string>{"a.obj"})) << "no temporary file left behind";

  // 2D: written with z = 0, read back by read_obj_2d bit for bit.
  const Mesh bird = read_obj_2d(shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.obj"));
  write_obj(path("bird.obj"), bird.X, bird.T);
  const Mesh b2 = read_obj_2d(path("bird.obj"));
  EXPECT_TRUE(same_matrix(b2.X, bird.X));
  EXPECT_TRUE(same_matrix(b2.T, bird.T));

  // Quads are written as polygons and come back fan-triangulated.
  MatrixXi Q(1, 4);
  Q << 0, 1, 2, 3;
  write_obj(path("q.obj"), V.topRows(4), Q);
  MatrixXi QT(2, 3);
  QT << 0, 1, 2, 0, 2, 3;
  EXPECT_TRUE(same_matrix(read_obj(path("q.obj")).F, QT));
}

TEST_F(ObjIo, Read2dDropsAConstantZAndRejectsAVaryingOne) {
  const std::string ok = put("z5.obj", "v 0 0 5\nv 1 0 5\nv 0 1 5\nf 1 2 3\n");
  const Mesh m = read_obj_2d(ok);
  ASSERT_EQ(m.X.cols(), 2);
  EXPECT_EQ(m.X(1, 0), 1.0);
  const std::string bad = put("z.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0.25\nf 1 2 3\n");
  expect_throw_with<std::runtime_error>([&] { read_obj_2d(bad); }, "vertex 2 has z = 0.25 but vertex 0 has z = 0");
  const std::string nof = put("nof.obj", "v 0 0 0\n");
  expect_throw_with<std::runtime_error>([&] { read_obj_2d(nof); }, "no faces");
}

TEST_F(ObjIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  expect_throw_with<E>([&] { read_obj(path("missing.obj")); }, "cannot open");
  expect_throw_with<E>([&] { read_obj(path("missing.obj")); }, "missing.obj");
  expect_throw_with<E>([&] { read_obj(dir_.string()); }, "is a directory");
  expect_throw_with<E>([&] { read_obj(put("e.obj", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_obj(put("c.obj", "# only a comment\n\n")); }, "no vertices");
  expect_throw_with<E>([&] { read_obj(put("nul.obj", tri + std::string("v 1\0 2 3\n", 10))); },
                       "line 4: contains a NUL byte");
  expect_throw_with<E>([&] { read_obj(put("bin.obj", "\x89PNG\x01\x02\n")); }, "line 1: unknown statement");
  expect_throw_with<E>([&] { read_obj(put("t.obj", "v 1 2\n")); }, "line 1: missing z coordinate");
  expect_throw_with<E>([&] { read_obj(put("n.obj", "v 1 nan 3\n")); }, "line 1: y coordinate is not finite ('nan')");
  expect_throw_with<E>([&] { read_obj(put("i.obj", "v 1 1e999 3\n")); }, "is not finite");
  expect_throw_with<E>([&] { read_obj(put("x.obj", "v 1 2 abc\n")); }, "line 1: expected z coordinate, got 'abc'");
  expect_throw_with<E>([&] { read_obj(put("r.obj", tri + "f 1 2 4\n")); },
                       "line 4: vertex index 4 is out of range: 3 vertices defined so far");
  expect_throw_with<E>([&] { read_obj(put("z.obj", tri + "f 0 1 2\n")); }, "line 4: vertex index 0 is invalid");
  expect_throw_with<E>([&] { read_obj(put("neg.obj", tri + "f -4 1 2\n")); }, "vertex index -4 is out of range");
  expect_throw_with<E>([&] { read_obj(put("two.obj", tri + "f 1 2\n")); }, "face has 2 corners; at least 3 are needed");
  expect_throw_with<E>([&] { read_obj(put("vt.obj", tri + "vt 0 0\nf 1/2 2/1 3/1\n")); },
                       "texture coordinate index 2 is out of range");
  expect_throw_with<E>([&] { read_obj(put("vn.obj", tri + "f 1//1 2//1 3//1\n")); },
                       "normal index 1 is out of range: no normals defined so far");
  expect_throw_with<E>([&] { read_obj(put("g.obj", tri + "f 1 2 x\n")); },
                       "expected a vertex index (an integer), got 'x'");
  expect_throw_with<E>([&] { read_obj(put("s.obj", tri + "vt 0 0\nvn 0 0 1\nf 1/1/1/1 2 3\n")); },
                       "malformed face corner");
}

TEST_F(ObjIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  MatrixXd V = MatrixXd::Zero(3, 3);
  MatrixXi F(1, 3);
  F << 0, 1, 2;
  MatrixXd V4 = MatrixXd::Zero(3, 4);
  expect_throw_with<E>([&] { write_obj(path("a.obj"), V4, F); }, "write_obj: V must be #V x 2 or #V x 3");
  V(1, 2) = std::nan("");
  expect_throw_with<E>([&] { write_obj(path("a.obj"), V, F); }, "V(1, 2) is not finite");
  V(1, 2) = 0;
  F(0, 2) = 3;
  expect_throw_with<E>([&] { write_obj(path("a.obj"), V, F); }, "F(0, 2) = 3 is out of range [0, 3)");
  MatrixXi F2(1, 2);
  F2 << 0, 1;
  expect_throw_with<E>([&] { write_obj(path("a.obj"), V, F2); }, "k >= 3");
  EXPECT_TRUE(listing().empty());
}

// ====================================================================================== OFF

TEST_F(OffIo, ReadsCommentsColoursPolygonsAndInlineCounts) {
  const std::string p = put("c.off",
                            "COFF 4 2 0   # counts on the header line\n"
                            "# a comment\n"
                            "0 0 0 255 0 0 255\n"
                            "1 0 0 0 255 0 255\n"
                            "\n"
                            "1 1 0 0 0 255 255\n"
                            "0 1 0 1 1 1 1\n"
                            "4 0 1 2 3  0.5 0.5 0.5\n"
                            "3 2 1 0\n");
  const SurfaceMesh s = read_off(p);
  ASSERT_EQ(s.V.rows(), 4);
  MatrixXi F(3, 3);
  F << 0, 1, 2, 0, 2, 3, 2, 1, 0;
  EXPECT_TRUE(same_matrix(s.F, F));
  EXPECT_EQ(s.V(2, 1), 1.0);
  // Counts on their own line, no header keyword at all.
  const SurfaceMesh t = read_off(put("n.off", "3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"));
  EXPECT_EQ(t.F.rows(), 1);
}

TEST_F(OffIo, RoundTripIsExactOnSpot) {
  const SurfaceMesh spot = read_obj(shared_data("keenan-crane/spot_triangulated.obj"));
  write_off(path("spot.off"), spot.V, spot.F);
  const SurfaceMesh s = read_off(path("spot.off"));
  EXPECT_TRUE(same_matrix(s.V, spot.V));
  EXPECT_TRUE(same_matrix(s.F, spot.F));
  const MatrixXd V = test::awkward_values(5, 2, 3);  // 2D: z = 0
  MatrixXi F(1, 5);
  F << 0, 1, 2, 3, 4;
  write_off(path("p.off"), V, F);
  const SurfaceMesh p = read_off(path("p.off"));
  EXPECT_TRUE(same_matrix(p.V.leftCols(2), V));
  EXPECT_EQ(p.V.col(2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(p.F.rows(), 3);
  EXPECT_EQ(listing(), (std::set<std::string>{"p.off", "spot.off"}));
}

TEST_F(OffIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string pts = "0 0 0\n1 0 0\n0 1 0\n";
  expect_throw_with<E>([&] { read_off(path("none.off")); }, "read_off: cannot open");
  expect_throw_with<E>([&] { read_off(put("e.off", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_off(put("h.off", "PLY\n")); }, "line 1: expected the header 'OFF', got 'PLY'");
  expect_throw_with<E>([&] { read_off(put("4.off", "4OFF\n1 0 0\n0 0 0 0\n")); }, "only 3D OFF files are supported");
  expect_throw_with<E>([&] { read_off(put("b.off", "OFF BINARY\n")); }, "binary OFF is not supported");
  expect_throw_with<E>([&] { read_off(put("nc.off", "OFF\n")); }, "missing the counts line");
  expect_throw_with<E>([&] { read_off(put("neg.off", "OFF\n-3 1 0\n")); }, "line 2: vertex count -3 is out of range");
  expect_throw_with<E>([&] { read_off(put("huge.off", "OFF\n2000000000 1 0\n" + pts)); },
                       "line 2: declares 2000000000 vertices but only 18 bytes follow");
  expect_throw_with<E>([&] { read_off(put("few.off", "OFF\n4 1 0\n" + pts)); },
                       "unexpected end of file: expected 4 vertices, found 3");
  expect_throw_with<E>([&] { read_off(put("nf.off", "OFF\n3 2 0\n" + pts + "3 0 1 2\n")); },
                       "unexpected end of file: expected 2 faces, found 1");
  expect_throw_with<E>([&] { read_off(put("more.off", "OFF\n3 1 0\n" + pts + "3 0 1 2\n3 0 1 2\n")); },
                       "line 7: unexpected content '3 0 1 2' after the 1 declared faces");
  expect_throw_with<E>([&] { read_off(put("idx.off", "OFF\n3 1 0\n" + pts + "3 0 1 3\n")); },
                       "line 6: vertex index 3 is out of range [0, 2]");
  expect_throw_with<E>([&] { read_off(put("ng.off", "OFF\n3 1 0\n" + pts + "3 0 -1 2\n")); },
                       "vertex index -1 is out of range");
  expect_throw_with<E>([&] { read_off(put("k.off", "OFF\n3 1 0\n" + pts + "2 0 1\n")); }, "face has 2 corners");
  expect_throw_with<E>([&] { read_off(put("nan.off", "OFF\n3 1 0\n0 0 0\ninf 0 0\n0 1 0\n3 0 1 2\n")); },
                       "line 4: x coordinate is not finite ('inf')");
  expect_throw_with<E>([&] { read_off(put("nul.off", std::string("OFF\n3 1 0\n\0\0\0", 14))); },
                       "line 3: contains a NUL byte");
}

// ==================================================================================== Medit

struct MeditCase {
  const char* file;
  Index v, t, boundary, triangles_block;
};

TEST_F(MeditIo, ReadsTheComplementaryDynamicsTetMeshes) {
  // elephant / frog: the Triangles block lists every tet face, (4 #T + #boundary) / 2.
  const MeditCase cases[] = {{"complementary-dynamics-cpp/sphere/sphere.mesh", 67, 181, 112, 112},
                             {"complementary-dynamics-cpp/frog/frog.mesh", 1749, 5389, 2630, 12093},
                             {"complementary-dynamics-cpp/elephant/elephant.mesh", 494, 1502, 790, 3399}};
  for (const MeditCase& c : cases) {
    SCOPED_TRACE(c.file);
    const MeditMesh m = read_mesh(shared_data(c.file));
    EXPECT_EQ(m.X.rows(), c.v);
    EXPECT_EQ(m.X.cols(), 3);
    EXPECT_EQ(m.T.rows(), c.t);
    EXPECT_EQ(m.T.cols(), 4);
    EXPECT_EQ(m.F.rows(), c.triangles_block);
    EXPECT_GT(volume(m.X, m.T).minCoeff(), 0.0) << "every tet positively oriented";
    const BoundaryFacets bf = boundary_facets(m.T);
    EXPECT_EQ(bf.F.rows(), c.boundary);
    EXPECT_EQ(test::count_used(m.T), c.v);
    // The boundary is one closed genus-0 surface enclosing the tets' volume.
    const long long vb = test::count_used(bf.F);
    EXPECT_EQ(vb - test::count_edges(bf.F) + bf.F.rows(), 2);
    EXPECT_NEAR(enclosed_volume(m.X, bf.F), volume(m.X, m.T).sum(), 1e-9 * volume(m.X, m.T).sum());
    if (c.triangles_block == c.boundary) {
      // sphere: the block is the boundary, wound inward.
      EXPECT_EQ(facet_set(m.F), facet_set(bf.F));
      EXPECT_LT(enclosed_volume(m.X, m.F), 0.0);
    } else {
      EXPECT_EQ(c.triangles_block * 2, 4 * c.t + c.boundary);
    }
  }
}

TEST_F(MeditIo, RoundTripIsExact) {
  const MeditMesh s = read_mesh(shared_data("complementary-dynamics-cpp/sphere/sphere.mesh"));
  write_mesh(path("s.mesh"), s.X, s.T, s.F);
  const MeditMesh r = read_mesh(path("s.mesh"));
  EXPECT_TRUE(same_matrix(r.X, s.X));
  EXPECT_TRUE(same_matrix(r.T, s.T));
  EXPECT_TRUE(same_matrix(r.F, s.F));
  // Without F; awkward values.
  Mesh g = test::mesh3d();
  g.X = g.X + 1e-7 * test::awkward_values(g.X.rows(), 3, 5).cwiseMin(1.0).cwiseMax(-1.0);
  write_mesh(path("g.mesh"), g.X, g.T);
  const MeditMesh rg = read_mesh(path("g.mesh"));
  EXPECT_TRUE(same_matrix(rg.X, g.X));
  EXPECT_TRUE(same_matrix(rg.T, g.T));
  EXPECT_EQ(rg.F.rows(), 0);
  // 2D (Dimension 2, triangles).
  const Mesh m2 = test::mesh2d();
  write_mesh(path("m2.mesh"), m2.X, m2.T);
  const MeditMesh r2 = read_mesh(path("m2.mesh"));
  EXPECT_TRUE(same_matrix(r2.X, m2.X));
  EXPECT_TRUE(same_matrix(r2.T, m2.T));
  EXPECT_EQ(listing(), (std::set<std::string>{"g.mesh", "m2.mesh", "s.mesh"}));
}

TEST_F(MeditIo, AcceptsSplitKeywordsCommentsAndSkippedBlocks) {
  const std::string p = put("k.mesh",
                            "MeshVersionFormatted 2\n# comment\nDimension\n3\n"
                            "Vertices\n4\n0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\n"
                            "Edges\n1\n1 2 0\nCorners 2 1 2\nRidges\n0\n"
                            "Tetrahedra 1\n1 2 3 4 7\nEnd\ngarbage after End is ignored\n");
  const MeditMesh m = read_mesh(p);
  EXPECT_EQ(m.X.rows(), 4);
  ASSERT_EQ(m.T.rows(), 1);
  EXPECT_EQ(m.T(0, 3), 3);
  EXPECT_EQ(m.F.rows(), 0);
}

TEST_F(MeditIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string head = "MeshVersionFormatted 1\nDimension 3\n";
  const std::string verts = "Vertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n";
  expect_throw_with<E>([&] { read_mesh(path("none.mesh")); }, "read_mesh: cannot open");
  expect_throw_with<E>([&] { read_mesh(put("e.mesh", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_mesh(put("x.mesh", "solid foo\n")); },
                       "line 1: expected 'MeshVersionFormatted', got 'solid'");
  expect_throw_with<E>([&] { read_mesh(put("d.mesh", "MeshVersionFormatted 1\nVertices\n0\n")); },
                       "line 2: 'Vertices' before 'Dimension'");
  expect_throw_with<E>([&] { read_mesh(put("d4.mesh", "MeshVersionFormatted 1\nDimension 4\n")); },
                       "dimension 4 is out of range [2, 3]");
  expect_throw_with<E>([&] { read_mesh(put("tr.mesh", head + "Vertices\n3\n0 0 0 0\n1 0 0 0\n")); },
                       "line 6: unexpected end of file: missing vertex coordinate");
  expect_throw_with<E>([&] { read_mesh(put("h.mesh", head + "Vertices\n2000000000\n0 0 0 0\n")); },
                       "line 4: declares 2000000000 vertices but only 8 bytes follow");
  expect_throw_with<E>([&] { read_mesh(put("nan.mesh", head + "Vertices\n1\n0 NaN 0 0\n")); },
                       "line 5: vertex coordinate is not finite ('NaN')");
  expect_throw_with<E>([&] { read_mesh(put("i0.mesh", head + verts + "Tetrahedra\n1\n0 1 2 3 0\n")); },
                       "line 11: vertex index 0 is out of range [1, 4]");
  expect_throw_with<E>([&] { read_mesh(put("i5.mesh", head + verts + "Tetrahedra\n1\n1 2 3 5 0\n")); },
                       "vertex index 5 is out of range [1, 4]");
  expect_throw_with<E>([&] { read_mesh(put("ref.mesh", head + verts + "Tetrahedra\n1\n1 2 3 4\n")); },
                       "unexpected end of file: missing reference number");
  expect_throw_with<E>([&] { read_mesh(put("kw.mesh", head + verts + "Tetrahedra\n1\n1 2 3 4 0\nFoo 3\n")); },
                       "line 12: unknown keyword 'Foo'");
  expect_throw_with<E>([&] { read_mesh(put("surf.mesh", head + verts + "Triangles\n1\n1 2 3 0\n")); },
                       "no tetrahedra: a 3D surface mesh");
  expect_throw_with<E>([&] { read_mesh(put("tb.mesh", head + "Tetrahedra\n1\n1 2 3 4 0\n")); },
                       "'Tetrahedra' before 'Vertices'");
  expect_throw_with<E>(
      [&] {
        read_mesh(put("t2.mesh",
                      "MeshVersionFormatted 1\nDimension 2\nVertices\n1\n0 0 0\n"
                      "Tetrahedra\n0\n"));
      },
      "'Tetrahedra' in a 2D (Dimension 2) file");
  expect_throw_with<E>([&] { read_mesh(put("nv.mesh", "MeshVersionFormatted 1\nDimension 3\n")); },
                       "no 'Vertices' block");
  expect_throw_with<E>([&] { read_mesh(put("nul.mesh", head + std::string("Vert\0ices", 9))); },
                       "line 3: contains a NUL byte");
}

TEST_F(MeditIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  const Mesh g = test::mesh3d();
  expect_throw_with<E>([&] { write_mesh(path("a.mesh"), g.X, g.T.leftCols(3)); }, "write_mesh: T must be #T x 4");
  const Mesh m2 = test::mesh2d();
  expect_throw_with<E>([&] { write_mesh(path("a.mesh"), m2.X, m2.T, m2.T); }, "F must be empty for a 2D mesh");
  MatrixXi F(1, 3);
  F << 0, 1, 1000;
  expect_throw_with<E>([&] { write_mesh(path("a.mesh"), g.X, g.T, F); }, "F(0, 2) = 1000");
  EXPECT_TRUE(listing().empty());
}

// =================================================================================== TetGen

TEST_F(TetGenIo, ReadsSpot) {
  const std::string base = shared_data("derived-tetgen/spot_pYq1.414");
  const Mesh m = read_tetgen(base + ".node", base + ".ele");
  EXPECT_EQ(m.X.rows(), 4447);
  EXPECT_EQ(m.X.cols(), 3);
  EXPECT_EQ(m.T.rows(), 18098);
  EXPECT_EQ(m.T.cols(), 4);
  EXPECT_EQ(m.T.minCoeff(), 0) << "0-based file";
  EXPECT_EQ(m.T.maxCoeff(), 4446);
  const VectorXd vol = volume(m.X, m.T);
  EXPECT_GT(vol.minCoeff(), 2.0e-8);  // SOURCES.md: smallest 2.5e-8
  EXPECT_LT(vol.minCoeff(), 3.0e-8);
  EXPECT_NEAR(vol.sum(), 0.71826, 5e-6);
  const BoundaryFacets bf = boundary_facets(m.T);
  EXPECT_EQ(bf.F.rows(), 5856);
  // -Y keeps Spot's surface: the boundary vertices are Spot's 2930, at the same positions.
  EXPECT_EQ(test::count_used(bf.F), 2930);
  const SurfaceMesh spot = read_obj(shared_data("keenan-crane/spot_triangulated.obj"));
  EXPECT_TRUE(same_matrix(m.X.topRows(2930), spot.V));
}

TEST_F(TetGenIo, RoundTripIsExactInBothBases) {
  const Mesh g3 = test::mesh3d();
  const Mesh g2 = test::mesh2d();
  for (int base : {0, 1})
    for (const Mesh* g : {&g3, &g2}) {
      SCOPED_TRACE(base);
      write_tetgen(path("a.node"), path("a.ele"), g->X, g->T, base);
      const std::string node = slurp(path("a.node"));
      EXPECT_EQ(node.substr(node.find('\n') + 1, 1), std::to_string(base));
      const Mesh r = read_tetgen(path("a.node"), path("a.ele"));
      EXPECT_TRUE(same_matrix(r.X, g->X));
      EXPECT_TRUE(same_matrix(r.T, g->T));
    }
  EXPECT_EQ(listing(), (std::set<std::string>{"a.ele", "a.node"}));
}

TEST_F(TetGenIo, ReadsOneBasedFilesWithAttributesAndMarkers) {
  const std::string node = put("b.node",
                               "# Node count, 3 dim, 1 attribute, 1 marker\n"
                               "4 3 1 1\n"
                               "1 0 0 0 7.5 1\n2 1 0 0 7.5 1\n3 0 1 0 7.5 0\n4 0 0 1 7.5 1\n"
                               "# trailing comment\n");
  const std::string ele = put("b.ele", "1 4 1\n1 1 2 3 4 -1\n");
  const Mesh m = read_tetgen(node, ele);
  ASSERT_EQ(m.T.rows(), 1);
  EXPECT_TRUE(same_matrix(m.T, (MatrixXi(1, 4) << 0, 1, 2, 3).finished()));
  EXPECT_EQ(m.X(3, 2), 1.0);
}

TEST_F(TetGenIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string node = put("ok.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");
  const std::string ele = put("ok.ele", "1 4 0\n0 0 1 2 3\n");
  expect_throw_with<E>([&] { read_tetgen(path("no.node"), ele); }, "read_tetgen: cannot open");
  expect_throw_with<E>([&] { read_tetgen(node, path("no.ele")); }, "no.ele");
  expect_throw_with<E>([&] { read_tetgen(put("e.node", ""), ele); }, "file is empty");
  expect_throw_with<E>([&] { read_tetgen(put("b2.node", "1 3 0 0\n2 0 0 0\n"), ele); },
                       "line 2: first node index (the file's base, 0 or 1) 2 is out of range [0, 1]");
  expect_throw_with<E>([&] { read_tetgen(put("gap.node", "2 3 0 0\n0 0 0 0\n2 1 0 0\n"), ele); },
                       "line 3: node index is 2, expected 1");
  expect_throw_with<E>([&] { read_tetgen(put("d4.node", "1 4 0 0\n0 0 0 0 0\n"), ele); },
                       "dimension 4 is out of range [2, 3]");
  expect_throw_with<E>([&] { read_tetgen(put("h.node", "2000000000 3 0 0\n0 0 0 0\n"), ele); },
                       "line 1: declares 2000000000 nodes but only");
  expect_throw_with<E>([&] { read_tetgen(put("tr.node", "3 3 0 0\n0 0 0 0\n1 1 0 0\n"), ele); },
                       "line 3: unexpected end of file: expected 3 nodes, found 2");
  expect_throw_with<E>([&] { read_tetgen(put("nan.node", "1 3 0 0\n0 0 -inf 0\n"), ele); },
                       "line 2: node coordinate is not finite ('-inf')");
  expect_throw_with<E>([&] { read_tetgen(put("x.node", "1 3 0 0\n0 0 0 0 5\n"), ele); },
                       "unexpected extra text '5' after the node record");
  expect_throw_with<E>([&] { read_tetgen(node, put("r.ele", "1 4 0\n0 0 1 2 4\n")); },
                       "r.ele' line 2: node index 4 is out of range [0, 3]");
  expect_throw_with<E>([&] { read_tetgen(node, put("q.ele", "1 10 0\n0 0 1 2 3 0 0 0 0 0 0\n")); },
                       "elements have 10 nodes but the 3D .node file needs 4");
  expect_throw_with<E>([&] { read_tetgen(node, put("ei.ele", "1 4 0\n1 0 1 2 3\n")); },
                       "element index is 1, expected 0");
  expect_throw_with<E>([&] { read_tetgen(node, put("few.ele", "2 4 0\n0 0 1 2 3\n")); },
                       "expected 2 elements, found 1");
  expect_throw_with<E>([&] { read_tetgen(node, put("nul.ele", std::string("1 4 0\n\0", 7))); },
                       "line 2: contains a NUL byte");
  // One-based node file: an element index of 0 is out of range.
  const std::string node1 = put("one.node", "4 3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
  expect_throw_with<E>([&] { read_tetgen(node1, put("z.ele", "1 4\n1 0 1 2 3\n")); },
                       "node index 0 is out of range [1, 4]");
}

TEST_F(TetGenIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  const Mesh g = test::mesh3d();
  expect_throw_with<E>([&] { write_tetgen(path("a.node"), path("a.ele"), g.X, g.T, 2); }, "base must be 0 or 1");
  expect_throw_with<E>([&] { write_tetgen(path("a.node"), path("a.node"), g.X, g.T); }, "same file");
  expect_throw_with<E>([&] { write_tetgen(path("a.node"), path("a.ele"), g.X, g.T.leftCols(3)); }, "T must be #T x 4");
  EXPECT_TRUE(listing().empty());
}

}  // namespace test_mesh_io
}  // namespace fastcd
