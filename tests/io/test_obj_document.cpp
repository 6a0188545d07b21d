// ObjDocument: a baked copy of an OBJ changes only its positions and normals.
#include "fastcd/io/obj_document.hpp"

#include "fastcd/io/mesh_io.hpp"
#include "io_test_util.hpp"

namespace fastcd {
namespace test_obj_document {

using test::IoTempDir;

// UVs, normals, a group, smoothing, materials, a vertex colour, comments, CRLF line ends.
const char* kObj =
    "# a user's file\r\n"
    "mtllib mats/skin.mtl\r\n"
    "o thing\r\n"
    "v 0 0 0 1 0.5 0.25\r\n"
    "v 1 0 0\r\n"
    "v 0 1 0\r\n"
    "v 0 0 1   # tip\r\n"
    "vt 0 0\r\n"
    "vt 1 0\r\n"
    "vt 0 1\r\n"
    "vn 0 0 -1\r\n"
    "vn 0 0 1\r\n"
    "vn 0.5 0.5 0.5\r\n"
    "g side\r\n"
    "usemtl skin\r\n"
    "s 1\r\n"
    "f 1/1/1 3/3/1 2/2/1\r\n"
    "f 1/1/2 2/2/2 4/3/2\r\n"
    "usemtl other\r\n"
    "f 2/2/3 3/3/3 4/1/3\r\n"
    "f 1 4 3\r\n";

class ObjDocumentTest : public IoTempDir {};

TEST_F(ObjDocumentTest, KeepsEveryLineButPositionsAndNormals) {
  const std::string in = put("in.obj", kObj);
  const ObjDocument doc = read_obj_document(in);
  ASSERT_EQ(doc.v_lines.size(), 4u);
  ASSERT_EQ(doc.vn_lines.size(), 3u);
  EXPECT_EQ(doc.mtllibs, std::vector<std::string>{"mats/skin.mtl"});
  // Each normal is paired with a vertex of a face corner that uses it.
  EXPECT_EQ(doc.normal_vertex, (VectorXi(3) << 0, 0, 1).finished());
  EXPECT_DOUBLE_EQ(doc.N(2, 1), 0.5);

  MatrixXd V = read_obj(in).V;
  V.col(0).array() += 0.1;
  V(3, 2) = 1.0 / 3.0;  // not a short decimal: must still read back exactly
  const MatrixXd N = (MatrixXd(3, 3) << 0, 0, -2, 0, 1, 1, 1, 0, 0).finished();
  write_obj_document(path("out.obj"), doc, V, N, "../");
  const ObjDocument back = read_obj_document(path("out.obj"));
  ASSERT_EQ(back.lines.size(), doc.lines.size());
  for (std::size_t k = 0; k < doc.lines.size(); ++k) {
    const std::string& a = doc.lines[k];
    const std::string& b = back.lines[k];
    if (a.rfind("v ", 0) == 0 || a.rfind("vn ", 0) == 0) continue;
    if (a.rfind("mtllib", 0) == 0) {
      EXPECT_EQ(b, "mtllib ../mats/skin.mtl");
    } else {
      EXPECT_EQ(a, b) << "line " << k + 1;
    }
  }
  EXPECT_TRUE(test::same_matrix(read_obj(path("out.obj")).V, V));
  // What followed the coordinates (w and a colour) is kept; normals are written normalised.
  EXPECT_EQ(back.lines[doc.v_lines[0]].substr(back.lines[doc.v_lines[0]].size() - 10), "1 0.5 0.25");
  EXPECT_NEAR(back.N.row(1).norm(), 1.0, 1e-15);
  EXPECT_NEAR(back.N(0, 2), -1.0, 1e-15);
  // Without N the normals stay as written; without a prefix the library name too.
  write_obj_document(path("same.obj"), doc, read_obj(in).V);
  const ObjDocument same = read_obj_document(path("same.obj"));
  for (std::size_t k : doc.vn_lines) EXPECT_EQ(same.lines[k], doc.lines[k]);
  EXPECT_EQ(same.lines[1], "mtllib mats/skin.mtl");
}

TEST_F(ObjDocumentTest, RefusesShapesThatDoNotFitAndNonFiniteValues) {
  const ObjDocument doc = read_obj_document(put("in.obj", kObj));
  const MatrixXd V = read_obj(path("in.obj")).V;
  test::expect_throw_with<std::invalid_argument>([&] { write_obj_document(path("o.obj"), doc, V.topRows(3)); },
                                                 "the document has 4 vertices");
  test::expect_throw_with<std::invalid_argument>(
      [&] { write_obj_document(path("o.obj"), doc, V, MatrixXd::Ones(2, 3)); }, "the document has 3 normals");
  MatrixXd bad = V;
  bad(1, 1) = std::nan("");
  test::expect_throw_with<std::invalid_argument>([&] { write_obj_document(path("o.obj"), doc, bad); }, "non-finite");
  EXPECT_FALSE(std::filesystem::exists(path("o.obj")));
  // Reading checks what read_obj checks.
  test::expect_throw_with<std::runtime_error>([&] { read_obj_document(put("bad.obj", "v 0 0\nf 1 2 3\n")); },
                                              "read_obj");
}

}  // namespace test_obj_document
}  // namespace fastcd
