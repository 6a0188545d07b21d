// Netgen and TetGen tetrahedralisation: the surface is kept bit for bit, the tets fill exactly the
// enclosed volume with positive orientation, and bad surfaces are refused by name.
#include "fastcd/meshing/tetrahedralize.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/progress.hpp"
#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/io/cache_file.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/meshing/surface.hpp"
#include "io/io_test_util.hpp"
#include "meshing/meshing_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_tetrahedralize {

// Checks what every tetrahedralisation must give: the input vertices first and unchanged,
// positive tets whose volumes sum to the enclosed volume, and a boundary that is exactly the
// input triangles.
void expect_fills(const MatrixXd& V, const MatrixXi& F, const TetMesh& m) {
  ASSERT_GE(m.X.rows(), V.rows());
  EXPECT_EQ(m.surface_vertices, V.rows());
  EXPECT_TRUE(test::same_matrix(m.X.topRows(V.rows()), V));
  double volume = 0;
  for (Index t = 0; t < m.T.rows(); ++t) {
    const Eigen::Vector3d a = m.X.row(m.T(t, 0)), b = m.X.row(m.T(t, 1)), c = m.X.row(m.T(t, 2)),
                          d = m.X.row(m.T(t, 3));
    const double v = (b - a).cross(c - a).dot(d - a) / 6;
    EXPECT_GT(v, 0) << "tet " << t;
    volume += v;
  }
  const double enclosed = check_surface(V, F).volume;
  EXPECT_NEAR(volume, enclosed, 1e-12 * enclosed);
  // Boundary faces of the tets = the input triangles (as unordered triples).
  const BoundaryFacets bf = boundary_facets(m.T);
  std::set<std::array<int, 3>> want, got;
  for (Index f = 0; f < F.rows(); ++f) {
    std::array<int, 3> k{F(f, 0), F(f, 1), F(f, 2)};
    std::sort(k.begin(), k.end());
    want.insert(k);
  }
  for (Index f = 0; f < bf.F.rows(); ++f) {
    std::array<int, 3> k{bf.F(f, 0), bf.F(f, 1), bf.F(f, 2)};
    std::sort(k.begin(), k.end());
    got.insert(k);
  }
  EXPECT_EQ(got, want);
  EXPECT_GT(m.min_dihedral, 0);
  EXPECT_GE(m.seconds, 0);
}

TEST(Tetrahedralize, FillsACubeSilently) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const TetMesh m = tetrahedralize(V, F);
  const std::string out = testing::internal::GetCapturedStdout(), err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "") << "Netgen printed to stdout";
  EXPECT_EQ(err, "") << "Netgen printed to stderr";
  EXPECT_EQ(m.mesher, "netgen");
  expect_fills(V, F, m);
}

TEST(Tetrahedralize, KeepsTheFoxSkin) {
  const GltfCharacter c = read_gltf(test::shared_data("khronos-gltf/Fox.glb"));
  const WeldedSurface w = weld_surface(c.meshes[0].V, c.meshes[0].F);
  const TetMesh m = tetrahedralize(w.V, w.F);
  expect_fills(w.V, w.F, m);
  EXPECT_GT(m.min_dihedral, 1.0);  // research: 2.9 degrees (TetGen -pYq1.414: 0.13)
  RecordProperty("tets", std::to_string(m.T.rows()));
  RecordProperty("min_dihedral_deg", test::sci(m.min_dihedral));
  RecordProperty("seconds", test::sci(m.seconds));
}

// Netgen offers no callback: a watcher reports that it runs (work of unknown length, total 0)
// and turns request_cancel() into Netgen's terminate flag, so Ctrl-C stops a long meshing; the
// flag is cleared again, so the next meshing runs whole.
TEST(Tetrahedralize, NetgenReportsProgressAndStopsOnCancel) {
  const SurfaceMesh spot = read_obj(test::shared_data("keenan-crane/spot_triangulated.obj"));
  std::mutex m;
  std::vector<std::pair<std::string, int>> reports;
  set_progress_sink([&](const char* work, const char* stage, int, int total) {
    const std::lock_guard<std::mutex> lock(m);
    reports.emplace_back(std::string(work) + ": " + stage, total);
    if (std::string(work) == "meshing (Netgen)") request_cancel();
  });
  clear_cancel();
  test::expect_throw_with<Cancelled>([&] { tetrahedralize(spot.V, spot.F); }, "Netgen");
  set_progress_sink({});
  clear_cancel();
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0].first, "meshing (Netgen): filling the surface with tets");
  EXPECT_EQ(reports[0].second, 0);
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  expect_fills(V, F, tetrahedralize(V, F));
}

TEST(Tetrahedralize, RefusesSurfacesThatBoundNoSolid) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  const MatrixXi open = F.topRows(11);
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize(V, open); },
                                                 "the surface does not bound a solid: 3 open edges");
  const MatrixXi inward = F.rowwise().reverse();
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize(V, inward); }, "oriented inward");
  MatrixXd V2;
  MatrixXi F2;
  test::unit_cube_surface(V2, F2, Eigen::RowVector3d(0.5, 0.5, 0.5));
  MatrixXd VV(16, 3);
  VV << V, V2;
  MatrixXi FF(24, 3);
  FF << F, (F2.array() + 8).matrix();
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize(VV, FF); }, "self-intersections (triangles");
  MatrixXd extra(9, 3);
  extra << V, 5, 5, 5;
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize(extra, F); }, "vertex 8 is used by no triangle");
}

// The TetGen program (Debian tetgen, installed by scripts/setup.sh), as a separate process.
TEST(Tetrahedralize, TetGenKeepsTheCubeAndTheFoxSkin) {
  TetrahedralizeOptions o;
  o.mesher = "tetgen";
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  const TetMesh cube = tetrahedralize(V, F, o);
  EXPECT_EQ(cube.mesher, "tetgen");
  expect_fills(V, F, cube);
  const GltfCharacter c = read_gltf(test::shared_data("khronos-gltf/Fox.glb"));
  const WeldedSurface w = weld_surface(c.meshes[0].V, c.meshes[0].F);
  const TetMesh fox = tetrahedralize(w.V, w.F, o);
  expect_fills(w.V, w.F, fox);  // bit for bit, though TetGen prints 16 digits
  RecordProperty("tetgen_tets", std::to_string(fox.T.rows()));
}

TEST(Tetrahedralize, TetGenFailuresSayWhat) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  TetrahedralizeOptions o;
  o.mesher = "tetgen";
  o.tetgen_program = "fastcd-no-such-mesher";
  test::expect_throw_with<std::runtime_error>([&] { tetrahedralize(V, F, o); }, "cannot run 'fastcd-no-such-mesher'");
  o.tetgen_program = "false";  // runs, exits 1, writes nothing
  test::expect_throw_with<std::runtime_error>([&] { tetrahedralize(V, F, o); }, "failed with status 1");
  o.mesher = "gmsh";
  test::expect_throw_with<std::invalid_argument>([&] { tetrahedralize(V, F, o); }, "mesher must be");
}

class TetCache : public test::TempDir {
 protected:
  std::vector<std::filesystem::path> cache_files(const std::string& dir) const {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
    return files;
  }
};

TEST_F(TetCache, SecondCallReadsTheCacheAndBadFilesAreReplaced) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  const std::string dir = path("cache");
  bool hit = true;
  const TetMesh a = tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_FALSE(hit);
  EXPECT_TRUE(a.warnings.empty());
  const std::vector<std::filesystem::path> files = cache_files(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].extension(), ".bin");
  const TetMesh b = tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_TRUE(hit);
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_TRUE(test::same_matrix(a.X, b.X));
  EXPECT_TRUE(test::same_matrix(a.T, b.T));
  EXPECT_EQ(a.min_dihedral, b.min_dihedral);
  expect_fills(V, F, b);
  // Other settings or another surface: another entry.
  TetrahedralizeOptions o;
  o.optimize_steps = 1;
  tetrahedralize_cached(V, F, o, dir, &hit);
  EXPECT_FALSE(hit);
  MatrixXd V2 = V;
  V2(0, 0) = std::nextafter(V2(0, 0), -1.0);
  tetrahedralize_cached(V2, F, {}, dir, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache_files(dir).size(), 3u);
  // A damaged entry (here: a Medit file of the format before headers) is meshed again and
  // rewritten, with a warning.
  std::ofstream(files[0], std::ios::trunc) << "MeshVersionFormatted 1\nDimension 3\nVertices\n1\n0 0 0 0\nEnd\n";
  const TetMesh c = tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_FALSE(hit);
  expect_fills(V, F, c);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "the cache file '" + files[0].string() +
                               "' is not a fastcd cache file (58 bytes without its header): the tets were meshed "
                               "again and the file rewritten");
  tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_TRUE(hit);
}

TEST_F(TetCache, AnEntryOfAnotherSurfaceUnderTheNameIsMeshedAgain) {
  // Issue 39: the tets of another mesh copied under an entry's name were used when its first
  // vertices were this surface's (here: the cube with a centre point in every triangle), and
  // the bake had 39 % more tets.
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  MatrixXd Vs(V.rows() + F.rows(), 3);
  MatrixXi Fs(3 * F.rows(), 3);
  Vs.topRows(V.rows()) = V;
  for (Index f = 0; f < F.rows(); ++f) {
    const int m = static_cast<int>(V.rows() + f);
    Vs.row(m) = (V.row(F(f, 0)) + V.row(F(f, 1)) + V.row(F(f, 2))) / 3.0;
    Fs.row(3 * f) << F(f, 0), F(f, 1), m;
    Fs.row(3 * f + 1) << F(f, 1), F(f, 2), m;
    Fs.row(3 * f + 2) << F(f, 2), F(f, 0), m;
  }
  const std::string dir = path("cache"), other = path("other");
  const TetMesh fresh = tetrahedralize(V, F);
  tetrahedralize_cached(Vs, Fs, {}, other);
  tetrahedralize_cached(V, F, {}, dir);
  const std::filesystem::path file = cache_files(dir).at(0);
  const std::string good = slurp(file.string());
  std::filesystem::copy_file(cache_files(other).at(0), file, std::filesystem::copy_options::overwrite_existing);
  bool hit = true;
  const TetMesh again = tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_FALSE(hit);
  EXPECT_TRUE(test::same_matrix(again.X, fresh.X));
  EXPECT_TRUE(test::same_matrix(again.T, fresh.T));
  ASSERT_EQ(again.warnings.size(), 1u);
  EXPECT_NE(again.warnings[0].find("' was made for other settings (mesher netgen, grading 0.3, 3 optimisation passes, "
                                   "radius-edge bound 1.414; 20 vertices, 36 triangles; this bake: "),
            std::string::npos)
      << again.warnings[0];
  EXPECT_EQ(slurp(file.string()), good);
  // Flipped bits anywhere: meshed again.
  for (const std::size_t at : {std::size_t{40}, good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 4);
    put("cache/" + file.filename().string(), flipped);
    const TetMesh m = tetrahedralize_cached(V, F, {}, dir, &hit);
    EXPECT_FALSE(hit) << at;
    EXPECT_TRUE(test::same_matrix(m.T, fresh.T));
    EXPECT_EQ(m.warnings.size(), 1u);
    EXPECT_EQ(slurp(file.string()), good);
  }
}

TEST_F(TetCache, ACacheFolderThatCannotBeWrittenIsAWarning) {
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  put("cache", "a file where the folder should be");
  bool hit = true;
  const TetMesh m = tetrahedralize_cached(V, F, {}, path("cache"), &hit);
  EXPECT_FALSE(hit);
  expect_fills(V, F, m);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0], cache_folder_warning(path("cache")));
  // A huge file under the entry's name (refused from its first bytes, see test_cache_file).
  const std::string dir = path("ok");
  tetrahedralize_cached(V, F, {}, dir);
  const std::filesystem::path file = cache_files(dir).at(0);
  std::filesystem::resize_file(file, 6ull << 30);
  const TetMesh again = tetrahedralize_cached(V, F, {}, dir, &hit);
  EXPECT_FALSE(hit);
  ASSERT_EQ(again.warnings.size(), 1u);
  EXPECT_NE(again.warnings[0].find("has grown (6144 MiB"), std::string::npos) << again.warnings[0];
  EXPECT_LT(std::filesystem::file_size(file), 1u << 20);
}

}  // namespace test_tetrahedralize
}  // namespace fastcd
