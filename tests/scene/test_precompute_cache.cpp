// The precompute cache (scene/precompute_cache.hpp): a cached subspace gives the same simulation
// as a fresh precompute, bit for bit; the key covers what the subspace depends on and leaves out
// the material; damaged or foreign caches are never trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/precompute_cache.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_precompute_cache {

namespace fs = std::filesystem;
const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";

class PrecomputeCache : public test::TempDir {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    for (const char* f : {"sphere.obj", "sphere.tgf", "sphere_anim.txt"})
      fs::copy_file(kData + "complementary-dynamics-cpp/sphere/" + f, dir_ / f);
    scene_ = load_scene(put("s.json", R"({"mesh_file": "sphere.obj", "handle_file": "sphere.tgf",
                                         "anim_file": "sphere_anim.txt", "dt": 0.01, "YM": 5e4, "pr": 0.4})"));
    run_.solver = SolverKind::Fast;
    run_.modes = 6;
    run_.clusters = 12;
    cache_ = path("cache");
  }
  SimulationOptions options(double ym) const {
    SimulationOptions o = scene_simulation_options(scene_, run_);
    o.cd.ym = ym;
    return o;
  }
  MatrixXd roll_out(Simulation sim, int frames = 20) const {
    for (int f = 0; f < frames && f < static_cast<int>(scene_.poses.size()); ++f) sim.advance(scene_.poses[f]);
    return sim.positions();
  }
  /// A simulation through the cache that must not use its entry: `fresh`'s positions bit for
  /// bit, and the one warning that says why (returned).
  std::string rebuilt(const MatrixXd& fresh) const {
    bool from_cache = true;
    std::vector<std::string> warnings;
    const MatrixXd again = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache, &warnings));
    EXPECT_FALSE(from_cache);
    EXPECT_EQ((fresh - again).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(warnings.size(), 1u);
    return warnings.empty() ? std::string() : warnings[0];
  }
  std::vector<fs::path> cache_files() const {
    std::vector<fs::path> out;
    if (fs::is_directory(cache_))
      for (const auto& e : fs::directory_iterator(cache_)) out.push_back(e.path());
    return out;
  }
  Scene scene_;
  SceneRunSettings run_;
  std::string cache_;
};

TEST_F(PrecomputeCache, ACachedSubspaceGivesTheSameSimulationBitForBit) {
  bool from_cache = true;
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache));
  EXPECT_FALSE(from_cache);
  ASSERT_EQ(cache_files().size(), 1u);
  EXPECT_EQ(cache_files()[0].extension(), ".bin");
  const MatrixXd again = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache));
  EXPECT_TRUE(from_cache);
  EXPECT_EQ((fresh - again).cwiseAbs().maxCoeff(), 0.0);
  // Without any cache: the same numbers again.
  EXPECT_EQ((fresh - roll_out(make_simulation(scene_, options(5e4)))).cwiseAbs().maxCoeff(), 0.0);
}

TEST_F(PrecomputeCache, TheMaterialIsOutsideTheKeyTheSubspaceSizesInside) {
  bool from_cache = false;
  make_simulation(scene_, options(5e4), cache_, &from_cache);
  // A stiffer material reuses the subspace, and still simulates that material: it matches a
  // fresh precompute with that stiffness to rounding (the constraint's scale follows rho only).
  const Simulation stiff = make_simulation(scene_, options(2e5), cache_, &from_cache);
  EXPECT_TRUE(from_cache);
  EXPECT_DOUBLE_EQ(stiff.options().cd.ym, 2e5);
  const MatrixXd a = roll_out(stiff), b = roll_out(make_simulation(scene_, options(2e5)));
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-12 * (1 + b.cwiseAbs().maxCoeff()));
  EXPECT_EQ(cache_files().size(), 1u);
  // More modes, other clusters or another leak field: a new entry.
  run_.modes = 7;
  make_simulation(scene_, options(5e4), cache_, &from_cache);
  EXPECT_FALSE(from_cache);
  run_.clusters = 10;
  make_simulation(scene_, options(5e4), cache_, &from_cache);
  EXPECT_FALSE(from_cache);
  run_.leak = "none";
  make_simulation(scene_, options(5e4), cache_, &from_cache);
  EXPECT_FALSE(from_cache);
  EXPECT_EQ(cache_files().size(), 4u);
  // The full solver never uses it.
  run_.solver = SolverKind::Full;
  make_simulation(scene_, options(5e4), cache_, &from_cache);
  EXPECT_FALSE(from_cache);
  EXPECT_EQ(cache_files().size(), 4u);
}

TEST_F(PrecomputeCache, DamagedCachesAreRecomputedAndRewritten) {
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4), cache_));
  const fs::path file = cache_files().at(0);
  const auto size = fs::file_size(file);
  const SubspaceCacheEntry entry =
      subspace_cache_entry(cache_, scene_.X, scene_.T, dynamic_cast<const LinearRig&>(*scene_.rig).J, options(5e4).cd);
  ASSERT_EQ(entry.path, file.string());
  const auto read = [&](CacheEntry* found = nullptr) {
    return read_subspace_cache(entry, scene_.X.rows(), scene_.T.rows(), options(5e4).cd, found);
  };
  // Truncated, grown, or with one bit flipped inside: never trusted, computed again (with a
  // warning) and rewritten whole.
  CacheEntry found;
  fs::resize_file(file, size - 3);
  EXPECT_EQ(read(&found), nullptr);
  EXPECT_EQ(found.state, CacheEntry::State::Damaged);
  const std::string warning = rebuilt(fresh);
  EXPECT_NE(warning.find("is cut short"), std::string::npos) << warning;
  EXPECT_NE(warning.find("computed again and the file rewritten"), std::string::npos) << warning;
  EXPECT_EQ(fs::file_size(file), size);
  { std::ofstream(file, std::ios::binary | std::ios::app) << "x"; }
  EXPECT_EQ(read(&found), nullptr);
  EXPECT_NE(found.problem.find("has grown"), std::string::npos) << found.problem;
  // A label out of range (cluster 99 of 12) or any other flipped byte: the checksum refuses it.
  fs::resize_file(file, size);
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(size - sizeof(int)));
    const int bad = 99;
    f.write(reinterpret_cast<const char*>(&bad), sizeof bad);
  }
  EXPECT_EQ(read(&found), nullptr);
  EXPECT_NE(found.problem.find("does not match its checksum"), std::string::npos) << found.problem;
  EXPECT_NE(rebuilt(fresh).find("does not match its checksum"), std::string::npos);
  ASSERT_NE(read(), nullptr);
  // A garbage file of the right name is not a cache either.
  fs::resize_file(file, 0);
  EXPECT_EQ(read(&found), nullptr);
  EXPECT_NE(found.problem.find("is not a fastcd cache file"), std::string::npos) << found.problem;
}

TEST_F(PrecomputeCache, AnEntryOfOtherSettingsUnderTheNameIsComputedAgain) {
  // Issue 39: a leak-none entry copied under the default entry's name was used (same sizes),
  // and the bake moved by 14 % of the mesh's size.
  run_.leak = "none";
  make_simulation(scene_, options(5e4), cache_);
  const fs::path leak_none = cache_files().at(0);
  const fs::path copied = path("leak-none.bin");
  fs::rename(leak_none, copied);
  run_.leak = "auto";
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4)));
  make_simulation(scene_, options(5e4), cache_);
  const fs::path file = cache_files().at(0);
  const std::string good = slurp(file.string());
  fs::copy_file(copied, file, fs::copy_options::overwrite_existing);
  const std::string warning = rebuilt(fresh);
  EXPECT_EQ(warning.rfind("the cache file '" + file.string() + "' was made for other settings (leak none, 6 modes", 0),
            0u)
      << warning;
  EXPECT_NE(warning.find("the precompute was computed again and the file rewritten"), std::string::npos);
  EXPECT_EQ(slurp(file.string()), good);
  bool from_cache = false;
  std::vector<std::string> warnings;
  make_simulation(scene_, options(5e4), cache_, &from_cache, &warnings);
  EXPECT_TRUE(from_cache);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(PrecomputeCache, AHugeFileUnderTheNameIsRebuilt) {
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4), cache_));
  const fs::path file = cache_files().at(0);
  const auto size = fs::file_size(file);
  fs::resize_file(file, 0);
  fs::resize_file(file, 6ull << 30);  // truncate -s 6G: sparse zeros (test_cache_file: never read)
  const std::string warning = rebuilt(fresh);
  EXPECT_NE(warning.find("is not a fastcd cache file (6144 MiB"), std::string::npos) << warning;
  EXPECT_EQ(fs::file_size(file), size);
}

TEST_F(PrecomputeCache, ACacheFolderThatCannotBeWrittenIsAWarning) {
  // Issue 39: a read-only or foreign-owned .fastcd-cache failed every bake after the precompute.
  // A file where the folder should be stands for them here (root passes mode bits; the CLI test
  // also runs an immutable folder and one another user owns).
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4)));
  put("cache", "a file, not a folder");
  const std::string warning = rebuilt(fresh);
  EXPECT_EQ(warning, cache_folder_warning(cache_));
  EXPECT_NE(warning.find("cannot be written"), std::string::npos);
  EXPECT_EQ(slurp(cache_), "a file, not a folder");
}

TEST_F(PrecomputeCache, ASubspaceThatDoesNotFitIsRefusedWithItsShapes) {
  const SimulationOptions o = options(5e4);
  const Simulation sim = make_simulation(scene_, o);
  const auto* rig = dynamic_cast<const LinearRig*>(scene_.rig.get());
  ASSERT_NE(rig, nullptr);
  FastCDSubspace s = sim.fast()->subspace();
  EXPECT_EQ(s.W, sim.fast()->W());
  EXPECT_EQ(s.labels, sim.fast()->labels());
  FastCDSubspace fewer = s;
  fewer.W.conservativeResize(s.W.rows() - 1, s.W.cols());
  test::expect_throw_with<std::invalid_argument>(
      [&] { fast_cd_precompute(scene_.X, scene_.T, rig->J, rig->rest_params(), o.cd, &fewer); }, "W is ");
  FastCDSubspace nan = s;
  nan.W(3, 1) = std::nan("");
  test::expect_throw_with<std::invalid_argument>(
      [&] { fast_cd_precompute(scene_.X, scene_.T, rig->J, rig->rest_params(), o.cd, &nan); }, "NaN");
  // Modes of another field (random ones): not orthogonal to this rig's constraint.
  FastCDSubspace foreign = s;
  foreign.W.setRandom();
  test::expect_throw_with<std::invalid_argument>(
      [&] { fast_cd_precompute(scene_.X, scene_.T, rig->J, rig->rest_params(), o.cd, &foreign); }, "not orthogonal");
  // The subspace given back: the same solver.
  const FastCD same = fast_cd_precompute(scene_.X, scene_.T, rig->J, rig->rest_params(), o.cd, &s);
  EXPECT_EQ(same.B(), sim.fast()->B());
  EXPECT_EQ(same.structural_residual(), sim.fast()->structural_residual());
}

}  // namespace test_precompute_cache
}  // namespace fastcd
