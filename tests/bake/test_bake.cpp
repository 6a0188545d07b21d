// The bake pipeline (bake/bake.hpp, bake/run_json.hpp): a single scene is a one-character run
// whose frames are exactly the simulation's positions in the file's units, a run of several
// characters bakes each as it bakes alone, and run.json has the same keys for every input kind.
#include "fastcd/bake/bake.hpp"

#include <nlohmann/json.hpp>

#include "fastcd/bake/run_json.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/scene/gltf_scene.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_bake {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";
const std::string kDaisy = kData + "complementary-dynamics-2d/daisy/daisy_data/daisy.json";
const std::string kSphere = kData + "complementary-dynamics-cpp/sphere/sphere.json";
const std::string kSimple = kData + "khronos-gltf/RiggedSimple.glb";

class BakePipeline : public test::TempDir {
 protected:
  /// Bakes `characters` into `name` (single: a one-character run); returns run.json.
  json bake(std::vector<CharacterSpec> characters, const std::string& name, bool single, SolverKind solver,
            int frames) {
    const fs::path out = dir_ / name;
    fs::create_directories(out);
    BakeSettings s;
    s.run.solver = solver;
    s.run.modes = 8;
    s.run.clusters = 20;
    s.frames = frames;
    Bake b(std::move(characters), s, out, single);
    b.precompute();
    b.simulate();
    b.finish();
    write_run_json(out / "run.json", b, {name, std::nullopt, {{"everything", 1.0}}, 1.0});
    return json::parse(slurp((out / "run.json").string()));
  }
};

/// The keys of a JSON object, and of its objects, as "a", "a.b", ... (lists not descended).
std::set<std::string> keys(const json& j, const std::string& prefix = "") {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) {
    out.insert(prefix + k);
    if (v.is_object() && k != "gltf" && k != "preview")
      for (const std::string& s : keys(v, prefix + k + ".")) out.insert(s);
  }
  return out;
}

TEST_F(BakePipeline, ASingleSceneBakesTheSimulationsPositionsInFileUnits) {
  const Scene scene = load_scene(kSphere);
  const json run = bake({single_character(scene, kSphere)}, "sphere", true, SolverKind::Full, 6);
  // The same roll-out by hand.
  Simulation sim = make_simulation(scene, scene_simulation_options(scene, {}));
  const OutputSurface surf = output_surface(scene);
  const std::vector<MatrixXd> pc2 = read_pc2(path("sphere/animation.pc2")).frames;
  ASSERT_EQ(pc2.size(), 6u);
  for (int f = 0; f < 6; ++f) {
    sim.advance(scene.poses[static_cast<std::size_t>(f)]);
    const MatrixXd V = to_file_units(scene, surf, sim.positions());
    // The PC2 holds float32: the bake's positions to single-precision rounding.
    EXPECT_LT(test::max_abs(pc2[static_cast<std::size_t>(f)] - V), 1e-6 * scene.half_extent) << "frame " << f;
    char name[64];
    std::snprintf(name, sizeof name, "sphere/obj/frame_%05d.obj", f + 1);
    EXPECT_TRUE(fs::exists(path(name))) << name;
  }
  EXPECT_EQ(run["frames"], 6);
  EXPECT_EQ(run["characters"].size(), 1u);
  EXPECT_EQ(run["characters"][0]["folder"], ".");
  EXPECT_EQ(run["max_constraint_residual_relative"], run["characters"][0]["max_constraint_residual_relative"]);
}

TEST_F(BakePipeline, RunJsonHasTheSameKeysForEveryInputKind) {
  GltfSceneOptions go;
  go.cache_dir = path("cache");
  const json scene_json = bake({single_character(load_scene(kDaisy), kDaisy)}, "daisy", true, SolverKind::Fast, 4);
  const json gltf =
      bake({single_character(load_gltf_scene(kSimple, go), kSimple)}, "simple", true, SolverKind::Full, 4);
  ASSERT_FALSE(gltf["gltf"].is_null());
  EXPECT_TRUE(scene_json["gltf"].is_null());
  EXPECT_EQ(keys(scene_json), keys(gltf));
  // A run of several characters: its settings and every character's record have those keys too.
  const std::string file = put("two.json", "{\"characters\": [{\"scene\": \"" + kSphere + "\"}, {\"scene\": \"" +
                                               kSphere + "\", \"name\": \"b\", \"frame_offset\": 2}]}");
  const json two = bake(load_characters(file), "two", false, SolverKind::Fast, 4);
  EXPECT_EQ(keys(two["settings"]), keys(gltf["settings"]));
  ASSERT_EQ(two["characters"].size(), 2u);
  for (const json& c : two["characters"]) EXPECT_EQ(keys(c), keys(gltf["characters"][0]));
  EXPECT_EQ(keys(gltf["characters"][0]["settings"]), keys(two["characters"][0]["settings"]));
  // The settings gained in a run of several: the material every character shares.
  EXPECT_EQ(two["settings"]["ym"], two["characters"][0]["settings"]["ym"]);
  EXPECT_EQ(two["settings"]["ym_normalised"], two["characters"][0]["settings"]["ym_normalised"]);
  EXPECT_EQ(two["settings"]["material_simulated"], "arap");
  // Every top-level key of a run of several is in a single run's.
  for (const std::string& k : keys(two)) {
    if (k.find('.') == std::string::npos) {
      EXPECT_TRUE(gltf.contains(k)) << k;
    }
  }
  // The second sphere bakes from its frame 2 on: its first frame is not the first's.
  EXPECT_NE(slurp(path("two/b/obj/frame_00001.obj")), slurp(path("two/sphere/obj/frame_00001.obj")));
}

TEST_F(BakePipeline, ACharacterOfSeveralBakesAsItBakesAlone) {
  const std::string file = put("two.json", "{\"characters\": [{\"scene\": \"" + kSphere + "\"}, {\"scene\": \"" +
                                               kDaisy + "\", \"name\": \"d\"}]}");
  test::expect_throw_with<std::runtime_error>([&] { load_characters(file); }, "one simulation holds one dimension");
  const std::string same = put("same.json", "{\"characters\": [{\"scene\": \"" + kSphere + "\"}, {\"scene\": \"" +
                                                kSphere + "\", \"name\": \"s2\", \"offset\": [2, 0, 0]}]}");
  bake(load_characters(same), "two", false, SolverKind::Fast, 5);
  bake({single_character(load_scene(kSphere), kSphere)}, "alone", true, SolverKind::Fast, 5);
  for (const char* f : {"rest.obj", "animation.pc2", "obj/frame_00001.obj", "obj/frame_00005.obj"}) {
    EXPECT_EQ(slurp(path(std::string("two/sphere/") + f)), slurp(path(std::string("alone/") + f))) << f;
    EXPECT_EQ(slurp(path(std::string("two/s2/") + f)), slurp(path(std::string("alone/") + f))) << f;
  }
}

TEST_F(BakePipeline, NothingIsSimulatedWhenTheGltfOutputsCannotBeWritten) {
  Scene s = load_gltf_scene(kSimple);
  s.input_files = {path("missing.glb")};  // write_gltf_outputs cannot re-read the input
  fs::create_directories(path("out"));
  test::expect_throw_with<std::runtime_error>(
      [&] { Bake b({single_character(s, kSimple)}, BakeSettings{}, path("out"), true); },
      "nothing was simulated: the glTF outputs cannot be written");
}

}  // namespace test_bake
}  // namespace fastcd
