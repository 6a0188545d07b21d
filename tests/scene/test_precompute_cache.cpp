// The precompute cache (scene/precompute_cache.hpp): a cached subspace gives the same simulation
// as a fresh precompute, bit for bit; the key covers what the subspace depends on and leaves out
// the material; damaged or foreign caches are never trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/precompute_cache.hpp"
#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace {

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
  bool from_cache = false;
  const MatrixXd fresh = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache));
  const fs::path file = cache_files().at(0);
  const auto size = fs::file_size(file);
  // Truncated, grown, or with foreign bytes inside: never trusted.
  fs::resize_file(file, size - 3);
  EXPECT_EQ(read_subspace_cache(file.string(), scene_.X.rows(), scene_.T.rows(), options(5e4).cd), nullptr);
  const MatrixXd again = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache));
  EXPECT_FALSE(from_cache);
  EXPECT_EQ(fs::file_size(file), size);
  EXPECT_EQ((fresh - again).cwiseAbs().maxCoeff(), 0.0);
  { std::ofstream(file, std::ios::binary | std::ios::app) << "x"; }
  EXPECT_EQ(read_subspace_cache(file.string(), scene_.X.rows(), scene_.T.rows(), options(5e4).cd), nullptr);
  // Labels out of range (cluster 99 of 12): refused by the precompute, so the run recomputes.
  fs::resize_file(file, size);
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(size - sizeof(int)));
    const int bad = 99;
    f.write(reinterpret_cast<const char*>(&bad), sizeof bad);
  }
  ASSERT_NE(read_subspace_cache(file.string(), scene_.X.rows(), scene_.T.rows(), options(5e4).cd), nullptr);
  const MatrixXd third = roll_out(make_simulation(scene_, options(5e4), cache_, &from_cache));
  EXPECT_FALSE(from_cache);
  EXPECT_EQ((fresh - third).cwiseAbs().maxCoeff(), 0.0);
  // A garbage file of the right name is not a cache either.
  fs::resize_file(file, 0);
  EXPECT_EQ(read_subspace_cache(file.string(), scene_.X.rows(), scene_.T.rows(), options(5e4).cd), nullptr);
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

}  // namespace
}  // namespace fastcd
