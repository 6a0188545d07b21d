// libFuzzer harness: load_scene. Two modes, chosen by the first input byte:
//   * raw (any byte a JSON text can start with): the input is the scene JSON, written next to fixed small
//     valid side files (meshes, handles, weights, animations from tests/malformed/scene/base/,
//     copied to the temporary folder once): exercises the JSON handling;
//   * structured (a control character other than tab/newline/return): FuzzedDataProvider picks each key's value from
//   the side files
//     (or a fuzzed file written from the input, or a random string), numbers for dt/YM/pr, keys
//     dropped at random, and a SceneOptions rig: exercises the combinations load_scene must
//     reject (counts of handles vs weights vs animation, 2D vs 3D, kinds of rigs).
//
// Outcome rules: any std::exception is an accepted rejection (no abort), but messages that do
// not name a file ("'<path>'" of a file in the temporary folder) or span several lines are reported once each on stderr
// with the prefix "fastcd-fuzz-scene: unnamed error:" — load_scene lives outside the reader
// sources, so such messages are collected for review instead of stopping the run. A crash,
// sanitizer report, timeout or OOM is a finding as usual; so is a loaded scene whose mesh or
// weights are NaN/Inf or inconsistent. Computed values that break the contract (NaN poses,
// non-finite dt/YM/rho) are reported once each with the prefix "fastcd-fuzz-scene: contract:".
#include <fuzzer/FuzzedDataProvider.h>
#include <cmath>
#include <filesystem>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "fastcd/scene/scene.hpp"
#include "fuzz_util.hpp"

#ifndef FASTCD_FUZZ_SCENE_BASE
#error "FASTCD_FUZZ_SCENE_BASE must name the folder of the scene side files"
#endif

using namespace fastcd::fuzz;
namespace fs = std::filesystem;

namespace {

void copy_side_files() {
  static bool done = false;
  if (done) return;
  for (const auto& e : fs::directory_iterator(FASTCD_FUZZ_SCENE_BASE))
    if (e.path().extension() != ".json")
      fs::copy_file(e.path(), fs::path(temp_dir()) / e.path().filename(), fs::copy_options::overwrite_existing);
  done = true;
}

void report_unnamed(const std::string& msg) {
  static std::set<std::string> seen;
  // Group by the text before the first digit (so counts and values do not multiply reports).
  std::string key = msg.substr(0, msg.find_first_of("0123456789"));
  if (seen.size() < 200 && seen.insert(key).second)
    std::fprintf(stderr, "fastcd-fuzz-scene: unnamed error: %s\n", msg.c_str());
}

// Outcome counts, printed at exit: how many scenes loaded, per mode.
struct Stats {
  long long loaded[2] = {0, 0}, rejected[2] = {0, 0};
  ~Stats() {
    std::fprintf(stderr,
                 "fastcd-fuzz-scene: stats: raw %lld loaded / %lld rejected, structured %lld loaded / %lld rejected\n",
                 loaded[0], rejected[0], loaded[1], rejected[1]);
  }
} stats;

void report_soft(const std::string& what) {
  static std::set<std::string> seen;
  if (seen.insert(what).second) std::fprintf(stderr, "fastcd-fuzz-scene: %s\n", what.c_str());
}

// Builds a scene JSON from the input (structured mode); may write one fuzzed side file.
std::string structured_scene(FuzzedDataProvider& in, fastcd::SceneOptions& opt) {
  static const char* const kMeshes[] = {"cube.mesh", "cube.msh", "cube.node", "square.obj", "cube.obj", "cube.dmat"};
  static const char* const kHandles[] = {"points.tgf", "bones.tgf", "points2d.tgf", "bones2d.tgf", "cube.mesh"};
  static const char* const kWeights[] = {"cube.dmat", "bones.dmat", "square.dmat", "points.tgf"};
  static const char* const kAnims[] = {"points_anim.txt", "bones_anim.txt", "anim2d.txt", "cube.dmat", "square.dmat"};
  static const char* const kFuzzed[] = {"fuzz.mesh", "fuzz.msh",  "fuzz.obj",     "fuzz.node",
                                        "fuzz.tgf",  "fuzz.dmat", "fuzz_anim.txt"};
  static const char* const kRigs[] = {"auto", "lbs", "wire", "mvc", "harmonic", "bogus"};
  opt.rig = kRigs[in.ConsumeIntegralInRange<int>(0, 5)];
  opt.harmonic_resolution = in.ConsumeIntegralInRange<int>(-1, 24);
  const bool fuzz_file = in.ConsumeBool();
  const std::string fuzzed = kFuzzed[in.ConsumeIntegralInRange<int>(0, 6)];
  auto pick = [&](const char* const* list, int n) -> std::string {
    const int k = in.ConsumeIntegralInRange<int>(0, n + 2);
    if (k < n) return list[k];
    if (k == n) return fuzz_file ? fuzzed : list[0];
    if (k == n + 1) return "missing.file";
    return in.ConsumeRandomLengthString(24);
  };
  nlohmann::json j;
  auto maybe = [&](const char* key, auto value) {
    if (in.ConsumeIntegralInRange<int>(0, 7) > 0) j[key] = value;
  };
  maybe("mesh_file", pick(kMeshes, 6));
  maybe("handle_file", pick(kHandles, 5));
  maybe("weight_file", pick(kWeights, 4));
  maybe("anim_file", pick(kAnims, 5));
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) j["skeleton_file"] = pick(kHandles, 5);
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) j["render_mesh_file"] = pick(kMeshes, 6);
  auto number = [&](double typical) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        return typical;
      case 1:
        return -typical;
      case 2:
        return 0.0;
      default:
        return in.ConsumeFloatingPoint<double>();
    }
  };
  maybe("dt", number(0.01));
  maybe("YM", number(1e4));
  maybe("pr", number(0.3));
  if (in.ConsumeBool()) j["model"] = in.ConsumeBool() ? "arap" : "neohookean";
  if (in.ConsumeBool()) j["material"] = in.ConsumeBool() ? "arap" : "stvk";
  if (in.ConsumeBool()) j["with_dynamics"] = in.ConsumeIntegralInRange<int>(0, 1);
  std::string dumped;
  try {
    dumped = j.dump();
  } catch (const std::exception&) {  // invalid UTF-8 in a random string
    return {};
  }
  if (fuzz_file) {
    const std::string rest = in.ConsumeRemainingBytesAsString();
    write_input(fuzzed, reinterpret_cast<const std::uint8_t*>(rest.data()), rest.size());
  }
  return dumped;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  copy_side_files();
  if (size == 0) return 0;
  fastcd::SceneOptions opt;
  std::string json;
  const bool structured = data[0] < 0x20 && data[0] != '\t' && data[0] != '\n' && data[0] != '\r';
  if (!structured) {
    json.assign(reinterpret_cast<const char*>(data), size);
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    json = structured_scene(in, opt);
    if (json.empty()) return 0;
  }
  // Device and pseudo files (/dev/zero, /proc/...) are endless or machine-dependent: out of
  // scope here (the JSON author chooses which files are read).
  for (const char* bad : {"/dev", "/proc", "/sys", "\\u"})
    if (json.find(bad) != std::string::npos) return 0;
  const std::string path = write_input("scene.json", reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  try {
    const fastcd::Scene s = fastcd::load_scene(path, opt);
    const auto n = s.X.rows(), d = s.dim;
    check((d == 2 || d == 3) && s.X.cols() == d && s.T.cols() == d + 1 && n > 0, "load_scene: bad mesh shapes");
    check_finite(s.X, "load_scene: X");
    check_indices(s.T, n, "load_scene: T");
    check(s.W.rows() == n && s.W.cols() == s.handles, "load_scene: W shape");
    check_finite(s.W, "load_scene: W");
    // Computed by load_scene itself (scene.cpp): reported once each, not aborted.
    for (const auto& p : s.poses) {
      if (p.size() != s.rest_pose.size()) report_soft("contract: pose size differs from the rig");
      if (!p.allFinite()) report_soft("contract: a pose has NaN/Inf entries");
    }
    if (!(std::isfinite(s.dt) && s.dt > 0)) report_soft("contract: dt not finite and > 0");
    if (!(std::isfinite(s.ym) && s.ym > 0)) report_soft("contract: YM not finite and > 0");
    if (!(std::isfinite(s.rho) && s.rho > 0)) report_soft("contract: rho not finite and > 0");
    if (!(s.pr > -1 && s.pr < 0.5)) report_soft("contract: pr outside (-1, 0.5)");
    ++stats.loaded[structured];
  } catch (const std::exception& e) {
    ++stats.rejected[structured];
    const std::string m = e.what();
    if (m.find("'" + temp_dir()) == std::string::npos) report_unnamed(m);
    if (m.find('\n') != std::string::npos) report_unnamed("(multi-line) " + m);
  }
  return 0;
}
