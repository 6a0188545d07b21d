// Gmsh .msh 2.2 / 4.1, ASCII / binary: the polyfem files, round trips, malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "fastcd/io/mesh_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_msh_io {

using test::expect_throw_with;
using test::same_matrix;
using test::shared_data;

class GmshIo : public test::IoTempDir {
 protected:
  // Little-endian encoders for hand-made binary files.
  static std::string i32(std::int32_t v) {
    std::string s(4, '\0');
    std::memcpy(s.data(), &v, 4);
    return s;
  }
  static std::string u64(std::uint64_t v) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &v, 8);
    return s;
  }
  static std::string f64(double v) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &v, 8);
    return s;
  }
};

TEST_F(GmshIo, ReadsTheFormatTestsInEveryVersionAndEncoding) {
  const char* files[] = {"22_ascii.msh", "22_binary.msh", "41_ascii.msh", "41_binary.msh"};
  MshMesh first;
  for (const char* f : files) {
    SCOPED_TRACE(f);
    const MshMesh m = read_msh(shared_data(std::string("polyfem-data/msh_format_tests/") + f));
    EXPECT_EQ(m.X.rows(), 8);
    EXPECT_EQ(m.X.cols(), 3);
    EXPECT_EQ(m.T.rows(), 5);
    EXPECT_EQ(m.T.cols(), 4);
    EXPECT_GT(volume(m.X, m.T).minCoeff(), 0.0);
    // Three physical groups of 1, 3 and 1 tets.
    std::map<int, int> groups;
    for (Index e = 0; e < m.physical.size(); ++e) ++groups[m.physical(e)];
    EXPECT_EQ(groups, (std::map<int, int>{{1, 1}, {2, 3}, {3, 1}}));
    if (first.X.size() == 0) {
      first = m;
    } else {
      // 4.1 numbers the nodes in another order: compare through positions.
      ASSERT_EQ(m.T.rows(), first.T.rows());
      for (Index e = 0; e < m.T.rows(); ++e)
        for (int a = 0; a < 4; ++a) EXPECT_EQ(m.X.row(m.T(e, a)), first.X.row(first.T(e, a)));
      EXPECT_TRUE(same_matrix(m.physical, first.physical));
    }
  }
  // 2.2 ASCII and binary list the nodes in the same order: identical matrices.
  const MshMesh a = read_msh(shared_data("polyfem-data/msh_format_tests/22_ascii.msh"));
  const MshMesh b = read_msh(shared_data("polyfem-data/msh_format_tests/22_binary.msh"));
  EXPECT_TRUE(same_matrix(a.X, b.X));
  EXPECT_TRUE(same_matrix(a.T, b.T));
  const MshMesh c = read_msh(shared_data("polyfem-data/msh_format_tests/41_ascii.msh"));
  const MshMesh d = read_msh(shared_data("polyfem-data/msh_format_tests/41_binary.msh"));
  EXPECT_TRUE(same_matrix(c.X, d.X));
  EXPECT_TRUE(same_matrix(c.T, d.T));
}

TEST_F(GmshIo, ReadsThePolyfemTetMeshes) {
  const MshMesh bar = read_msh(shared_data("polyfem-data/3d/bar-651.msh"));
  EXPECT_EQ(bar.X.rows(), 292);
  EXPECT_EQ(bar.T.rows(), 651);
  const Eigen::RowVector3d ext = bar.X.colwise().maxCoeff() - bar.X.colwise().minCoeff();
  EXPECT_NEAR(ext(0), 10.0, 1e-12);
  EXPECT_NEAR(ext(1), 0.5, 1e-12);
  EXPECT_NEAR(ext(2), 1.0, 1e-12);
  EXPECT_GT(volume(bar.X, bar.T).minCoeff(), 0.0);
  EXPECT_NEAR(volume(bar.X, bar.T).sum(), 5.0, 1e-9);
  EXPECT_EQ(bar.physical.cwiseAbs().maxCoeff(), 0) << "no $Entities: no physical groups";

  const MshMesh sph = read_msh(shared_data("polyfem-data/3d/sphere1K.msh"));
  EXPECT_EQ(sph.X.rows(), 1760);
  EXPECT_EQ(sph.T.rows(), 6851);
  EXPECT_GT(volume(sph.X, sph.T).minCoeff(), 0.0);
  // Radius 0.5, but the 1239 surface vertices are not exactly on the sphere: |x| ranges
  // over [0.49722, 0.50093].
  const VectorXi bv = boundary_vertices(sph.T);
  EXPECT_EQ(bv.size(), 1239);
  EXPECT_EQ(boundary_facets(sph.T).F.rows(), 2474);
  for (Index i = 0; i < bv.size(); ++i) EXPECT_NEAR(sph.X.row(bv(i)).norm(), 0.5, 3e-3);
  EXPECT_LT(sph.X.rowwise().norm().maxCoeff(), 0.501);
  const double ball = 4.0 / 3.0 * M_PI * 0.125;
  EXPECT_LT(volume(sph.X, sph.T).sum(), ball);
  EXPECT_GT(volume(sph.X, sph.T).sum(), 0.95 * ball);
  for (const MshMesh* m : {&bar, &sph}) {
    const BoundaryFacets bf = boundary_facets(m->T);
    EXPECT_EQ(test::count_used(bf.F) - test::count_edges(bf.F) + bf.F.rows(), 2) << "closed, genus 0";
  }
}

TEST_F(GmshIo, ReadsTheBinary22KangaroosAs2dMeshes) {
  struct Case {
    const char* file;
    Index v, t;
  };
  for (const Case& c :
       {Case{"polyfem-data/2d/kangaroo_coarse.msh", 227, 276}, Case{"polyfem-data/2d/kangaroo_medium.msh", 515, 813}}) {
    SCOPED_TRACE(c.file);
    const MshMesh m = read_msh(shared_data(c.file));
    EXPECT_EQ(m.X.rows(), c.v);
    EXPECT_EQ(m.X.cols(), 2);
    EXPECT_EQ(m.T.rows(), c.t);
    EXPECT_EQ(m.T.cols(), 3);
    // All counter-clockwise, disk topology.
    for (Index t = 0; t < m.T.rows(); ++t) {
      const Eigen::Vector2d p = m.X.row(m.T(t, 0)), q = m.X.row(m.T(t, 1)), r = m.X.row(m.T(t, 2));
      EXPECT_GT((q - p).x() * (r - p).y() - (q - p).y() * (r - p).x(), 0.0) << "triangle " << t;
    }
    EXPECT_EQ(m.X.rows() - test::count_edges(m.T) + m.T.rows(), 1);
  }
}

TEST_F(GmshIo, RoundTripIsExactInEveryFormat) {
  const Mesh g3 = test::mesh3d();
  const Mesh g2 = test::mesh2d();
  for (MshFormat f : {MshFormat::V22Ascii, MshFormat::V22Binary, MshFormat::V41Ascii, MshFormat::V41Binary})
    for (const Mesh* g : {&g3, &g2}) {
      SCOPED_TRACE(static_cast<int>(f));
      MatrixXd X = g->X + 1e-9 * test::awkward_values(g->X.rows(), g->X.cols(), 11).cwiseMin(1.0).cwiseMax(-1.0);
      VectorXi phys(g->T.rows());
      for (Index e = 0; e < phys.size(); ++e) phys(e) = e < 5 ? 7 : (e < 9 ? 0 : 3);
      write_msh(path("a.msh"), X, g->T, f, phys);
      const MshMesh r = read_msh(path("a.msh"));
      EXPECT_TRUE(same_matrix(r.X, X));
      EXPECT_TRUE(same_matrix(r.T, g->T));
      EXPECT_TRUE(same_matrix(r.physical, phys));
      // Without physical tags: all 0.
      write_msh(path("b.msh"), X, g->T, f);
      const MshMesh rb = read_msh(path("b.msh"));
      EXPECT_TRUE(same_matrix(rb.X, X));
      EXPECT_EQ(rb.physical.cwiseAbs().maxCoeff(), 0);
      // Writing what was read gives the same bytes.
      const std::string bytes = slurp(path("a.msh"));
      write_msh(path("c.msh"), r.X, r.T, f, r.physical);
      EXPECT_EQ(slurp(path("c.msh")), bytes);
    }
  EXPECT_EQ(listing(), (std::set<std::string>{"a.msh", "b.msh", "c.msh"}));

  // Real data: the format-test mesh and the kangaroo survive every format.
  const MshMesh k = read_msh(shared_data("polyfem-data/2d/kangaroo_medium.msh"));
  const MshMesh t = read_msh(shared_data("polyfem-data/msh_format_tests/41_binary.msh"));
  for (MshFormat f : {MshFormat::V22Binary, MshFormat::V41Binary, MshFormat::V41Ascii})
    for (const MshMesh* m : {&k, &t}) {
      write_msh(path("r.msh"), m->X, m->T, f, m->physical);
      const MshMesh r = read_msh(path("r.msh"));
      EXPECT_TRUE(same_matrix(r.X, m->X));
      EXPECT_TRUE(same_matrix(r.T, m->T));
      EXPECT_TRUE(same_matrix(r.physical, m->physical));
    }
}

TEST_F(GmshIo, Reads41WithSparseTagsEntitiesMixedElementsAndSkippedSections) {
  // Node tags 10, 20, 30, 40, 7 in two blocks (one parametric), tets next to points,
  // lines and triangles (dropped), a $PhysicalNames section and an unknown one.
  const std::string p = put("sparse.msh",
                            "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
                            "$PhysicalNames\n1\n3 5 \"body\"\n$EndPhysicalNames\n"
                            "$Entities\n1 0 0 1\n1 0 0 0 0\n"
                            "4 0 0 0 1 1 1 2 5 6 2 1 2\n$EndEntities\n"
                            "$Nodes\n2 5 7 40\n"
                            "3 4 0 4\n10\n20\n30\n40\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                            "1 2 1 1\n7\n0.5 0.5 0.5 0.25\n"
                            "$EndNodes\n"
                            "$Elements\n4 5 1 5\n"
                            "0 1 15 1\n1 10\n"
                            "1 2 1 1\n2 10 20\n"
                            "2 3 2 1\n3 10 20 30\n"
                            "3 4 4 2\n4 10 20 30 40\n5 20 10 30 7\n"
                            "$EndElements\n"
                            "$Comments\nanything $Nodes at all\n$EndComments\n");
  const MshMesh m = read_msh(p);
  ASSERT_EQ(m.X.rows(), 5);
  ASSERT_EQ(m.T.rows(), 2);
  EXPECT_TRUE(same_matrix(m.T, (MatrixXi(2, 4) << 0, 1, 2, 3, 1, 0, 2, 4).finished()));
  EXPECT_TRUE(same_matrix(m.physical, (VectorXi(2) << 5, 5).finished()));
  EXPECT_EQ(m.X(4, 2), 0.5);
}

TEST_F(GmshIo, Reads22AsciiTrianglesAs2dAndKeepsTetsIn3d) {
  const std::string tri = put("tri.msh",
                              "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n"
                              "1 0 0 3\n2 1 0 3\n3 0 1 3\n4 1 1 3\n$EndNodes\n"
                              "$Elements\n3\n1 15 2 0 1 1\n2 2 2 4 1 1 2 3\n3 2 0 2 4 3\n$EndElements\n");
  const MshMesh m = read_msh(tri);
  ASSERT_EQ(m.X.cols(), 2) << "constant z = 3 dropped";
  EXPECT_TRUE(same_matrix(m.T, (MatrixXi(2, 3) << 0, 1, 2, 1, 3, 2).finished()));
  EXPECT_TRUE(same_matrix(m.physical, (VectorXi(2) << 4, 0).finished()));
}

TEST_F(GmshIo, MalformedInputGivesReadableErrors) {
  using E = std::runtime_error;
  const std::string fmt22 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";
  const std::string nodes4 = "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n";
  expect_throw_with<E>([&] { read_msh(path("none.msh")); }, "read_msh: cannot open");
  expect_throw_with<E>([&] { read_msh(put("e.msh", "")); }, "file is empty");
  expect_throw_with<E>([&] { read_msh(put("o.msh", "OFF\n")); },
                       "line 1: expected '$MeshFormat', got 'OFF' (not a Gmsh .msh file)");
  expect_throw_with<E>(
      [&] {
        read_msh(put("g.msh",
                     "\x7f"
                     "ELF\x02\x01\x01\n"));
      },
      "expected '$MeshFormat'");
  expect_throw_with<E>([&] { read_msh(put("v40.msh", "$MeshFormat\n4 0 8\n$EndMeshFormat\n")); },
                       "line 2: format version 4 is not supported (re-save as 4.1 or 2.2)");
  expect_throw_with<E>([&] { read_msh(put("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n")); },
                       "format version '3.0' is not supported");
  expect_throw_with<E>([&] { read_msh(put("ft.msh", "$MeshFormat\n2.2 2 8\n$EndMeshFormat\n")); },
                       "file-type must be 0 (ASCII) or 1 (binary), got '2'");
  expect_throw_with<E>([&] { read_msh(put("ds.msh", "$MeshFormat\n2.2 0 4\n$EndMeshFormat\n")); },
                       "data-size '4' is not supported");
  expect_throw_with<E>(
      [&] { read_msh(put("be.msh", "$MeshFormat\n2.2 1 8\n" + std::string("\0\0\0\1", 4) + "\n$EndMeshFormat\n")); },
      "byte 20: big-endian binary .msh files are not supported");
  expect_throw_with<E>([&] { read_msh(put("ne.msh", fmt22 + nodes4)); }, "no $Elements section");
  expect_throw_with<E>([&] { read_msh(put("nn.msh", fmt22)); }, "no $Nodes section");
  expect_throw_with<E>([&] { read_msh(put("h.msh", fmt22 + "$Nodes\n2000000000\n1 0 0 0\n$EndNodes\n")); },
                       "line 5: declares 2000000000 nodes but only");
  expect_throw_with<E>(
      [&] { read_msh(put("cnt.msh", fmt22 + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n")); },
      "line 9: expected '$EndNodes', got '4 0 0 1' (wrong counts or garbage in $Nodes)");
  expect_throw_with<E>([&] { read_msh(put("tr.msh", fmt22 + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n")); },
                       "line 7: unexpected end of file: missing node tag");
  expect_throw_with<E>([&] { read_msh(put("tr4.msh", fmt22 + "$Nodes\n4\n1 0 0 0\n2 1 0 0\n")); },
                       "line 5: declares 4 nodes but only 17 bytes follow");
  expect_throw_with<E>([&] { read_msh(put("nan.msh", fmt22 + "$Nodes\n1\n1 0 nan 0\n$EndNodes\n")); },
                       "line 6: node coordinate is not finite ('nan')");
  expect_throw_with<E>([&] { read_msh(put("dup.msh", fmt22 + "$Nodes\n2\n1 0 0 0\n1 1 0 0\n$EndNodes\n")); },
                       "node tag 1 is defined twice");
  expect_throw_with<E>([&] { read_msh(put("t0.msh", fmt22 + "$Nodes\n1\n0 0 0 0\n$EndNodes\n")); },
                       "node tag 0 is out of range");
  expect_throw_with<E>(
      [&] { read_msh(put("und.msh", fmt22 + nodes4 + "$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n")); },
      "line 13: element 1 references node tag 9, which is not defined in $Nodes");
  expect_throw_with<E>(
      [&] { read_msh(put("neg.msh", fmt22 + nodes4 + "$Elements\n1\n1 4 0 1 2 3 -4\n$EndElements\n")); },
      "node tag -4 in element 1 is invalid");
  expect_throw_with<E>([&] { read_msh(put("len.msh", fmt22 + nodes4 + "$Elements\n1\n1 4 0 1 2 3\n$EndElements\n")); },
                       "element 1 of type 4 has 6 values; 0 tags and 4 nodes need 7");
  expect_throw_with<E>([&] { read_msh(put("lines.msh", fmt22 + nodes4 + "$Elements\n1\n1 1 0 1 2\n$EndElements\n")); },
                       "no triangles (type 2) or tetrahedra (type 4); element types found: 1");
  expect_throw_with<E>([&] { read_msh(put("surf.msh", fmt22 + nodes4 + "$Elements\n1\n1 2 0 1 2 4\n$EndElements\n")); },
                       "has triangles but no tetrahedra, and its nodes are not planar (node 3 has z = 1");
  expect_throw_with<E>([&] { read_msh(put("sec.msh", fmt22 + "$Foo\n1\n")); }, "section $Foo has no '$EndFoo'");
  expect_throw_with<E>([&] { read_msh(put("ee.msh", fmt22 + "$Elements\n0\n$EndElements\n")); },
                       "$Elements before $Nodes");

  // Binary 2.2: truncated node block, garbage element type.
  const std::string fmt22b = "$MeshFormat\n2.2 1 8\n" + i32(1) + "\n$EndMeshFormat\n";
  std::string node1 = i32(1) + f64(0) + f64(0) + f64(0);
  expect_throw_with<E>([&] { read_msh(put("bt.msh", fmt22b + "$Nodes\n2\n" + node1 + "\n$EndNodes\n")); },
                       "truncated file: 2 binary nodes needs 56 bytes but only");
  std::string nodes4b = "$Nodes\n4\n";
  for (int i = 1; i <= 4; ++i) nodes4b += i32(i) + f64(i == 2) + f64(i == 3) + f64(i == 4);
  nodes4b += "\n$EndNodes\n";
  expect_throw_with<E>(
      [&] {
        read_msh(
            put("bg.msh", fmt22b + nodes4b + "$Elements\n1\n" + i32(77777) + i32(1) + i32(0) + "\n$EndElements\n"));
      },
      "element type 77777 is unknown (binary garbage?)");
  expect_throw_with<E>(
      [&] {
        read_msh(
            put("bn.msh", fmt22b + "$Nodes\n1\n" + i32(1) + f64(0) + f64(std::nan("")) + f64(0) + "\n$EndNodes\n"));
      },
      "byte 61: node coordinate is not finite");
  expect_throw_with<E>(
      [&] {
        read_msh(put("bf.msh", fmt22b + nodes4b + "$Elements\n2\n" + i32(4) + i32(1) + i32(0) + i32(1) + i32(1) +
                                   i32(2) + i32(3) + i32(4) + "\n$EndElements\n"));
      },
      "element type 1850024970 is unknown (binary garbage?)");

  // 4.1: block counts that disagree with the header, huge binary counts.
  const std::string fmt41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
  expect_throw_with<E>(
      [&] { read_msh(put("bc.msh", fmt41 + "$Nodes\n1 3 1 3\n3 1 0 4\n1\n2\n0 0 0\n1 0 0\n$EndNodes\n")); },
      "nodes in block 4 is out of range [0, 3]");
  expect_throw_with<E>(
      [&] { read_msh(put("bd.msh", fmt41 + "$Nodes\n1 3 1 2\n3 1 0 2\n1\n2\n0 0 0\n1 0 0\n$EndNodes\n")); },
      "the node blocks hold 2 nodes but the header declares 3");
  const std::string fmt41b = "$MeshFormat\n4.1 1 8\n" + i32(1) + "\n$EndMeshFormat\n";
  expect_throw_with<E>(
      [&] {
        read_msh(
            put("bh.msh", fmt41b + "$Nodes\n" + u64(1) + u64(1000000000) + u64(1) + u64(1000000000) + "\n$EndNodes\n"));
      },
      "declares 1000000000 nodes but only");
  expect_throw_with<E>(
      [&] {
        read_msh(put("bx.msh", fmt41b + "$Nodes\n" + u64(1) + u64(1) + u64(1) + u64(1) + i32(3) + i32(1) + i32(0) +
                                   u64(1) + u64(1) + f64(0) + f64(INFINITY) + f64(0) + "\n$EndNodes\n"));
      },
      "node coordinate is not finite (inf)");
}

TEST_F(GmshIo, WriterRejectsBadArguments) {
  using E = std::invalid_argument;
  const Mesh g = test::mesh3d();
  expect_throw_with<E>([&] { write_msh(path("a.msh"), g.X, g.T, MshFormat::V41Ascii, VectorXi::Zero(3)); },
                       "write_msh: physical must be empty or have #T");
  VectorXi phys = VectorXi::Zero(g.T.rows());
  phys(2) = -1;
  expect_throw_with<E>([&] { write_msh(path("a.msh"), g.X, g.T, MshFormat::V22Ascii, phys); },
                       "physical(2) = -1 is negative");
  expect_throw_with<E>([&] { write_msh(path("a.msh"), g.X, g.T.leftCols(3)); }, "T must be #T x 4");
  EXPECT_TRUE(listing().empty());
}

}  // namespace test_msh_io
}  // namespace fastcd
