// Every reader against real files of the wrong format.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "io/io_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_wrong_format {

// Every reader, fed real files of other formats (binary glTF, text of another format),
// throws a std::runtime_error that names the file, never crashes or returns garbage.
TEST(WrongFormatIo, EveryReaderRejectsOtherFormatsNamingTheFile) {
  const std::vector<std::string> files = {
      "khronos-gltf/Fox.glb",
      "khronos-gltf/RiggedSimple.glb",
      "complementary-dynamics-2d/daisy/daisy_data/daisy_anim.txt",
      "complementary-dynamics-cpp/elephant/elephant.json",
      "derived-tetgen/spot_pYq1.414.face",
      "polyfem-data/LICENSE",
  };
  const std::string obj = test::shared_data("complementary-dynamics-2d/bird/bird_mouth_data/bird_mouth.obj");
  const std::string mesh = test::shared_data("complementary-dynamics-cpp/sphere/sphere.mesh");
  const std::string msh = test::shared_data("polyfem-data/msh_format_tests/41_binary.msh");
  const std::string tgf = test::shared_data("complementary-dynamics-cpp/elephant/elephant.tgf");
  const std::string dmat = test::shared_data("complementary-dynamics-cpp/sphere/sphere.dmat");
  const std::string node = test::shared_data("derived-tetgen/spot_pYq1.414.node");
  const std::string ele = test::shared_data("derived-tetgen/spot_pYq1.414.ele");
  struct Reader {
    const char* name;
    std::function<void(const std::string&)> read;
    std::vector<std::string> also;  // real files of other formats
  };
  const std::vector<Reader> readers = {
      {"read_obj", [](const std::string& p) { read_obj(p); }, {tgf, dmat, msh}},
      {"read_obj_2d", [](const std::string& p) { read_obj_2d(p); }, {mesh, node}},
      {"read_off", [](const std::string& p) { read_off(p); }, {obj, mesh, msh, dmat, node}},
      {"read_ply", [](const std::string& p) { read_ply(p); }, {obj, mesh, msh, tgf, dmat, node}},
      {"read_surface", [](const std::string& p) { read_surface(p); }, {}},
      {"read_mesh", [](const std::string& p) { read_mesh(p); }, {obj, msh, tgf, dmat}},
      {"read_msh", [](const std::string& p) { read_msh(p); }, {obj, mesh, tgf, dmat}},
      {"read_tetgen", [ele](const std::string& p) { read_tetgen(p, ele); }, {obj, mesh, msh, dmat, ele}},
      {"read_tgf", [](const std::string& p) { read_tgf(p); }, {obj, mesh, msh, dmat, node}},
      {"read_dmat", [](const std::string& p) { read_dmat(p); }, {obj, mesh, msh, tgf, node}},
      {"read_pc2", [](const std::string& p) { read_pc2(p); }, {obj, mesh, msh, tgf, dmat}},
  };
  for (const Reader& r : readers) {
    std::vector<std::string> inputs = r.also;
    for (const std::string& f : files) inputs.push_back(test::shared_data(f));
    for (const std::string& p : inputs) {
      SCOPED_TRACE(std::string(r.name) + " on " + p);
      test::expect_throw_with<std::runtime_error>([&] { r.read(p); }, std::string(r.name) + ": '" + p + "'");
    }
  }
}

}  // namespace test_wrong_format
}  // namespace fastcd
