// A scene JSON's keys and values: the list of valid keys (with the nearest one for a typo),
// numbers, and the files keys name.
#include "fastcd/scene/scene_parts.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "fastcd/common/check.hpp"

namespace fastcd {
namespace scene_parts {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(printable("load_scene: '" + path + "': " + what));
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// ---------------------------------------------------------------------------- keys

namespace {

/// Every key a scene may have (both releases' and fastcd's own).
const std::vector<std::string> kKeys = {"mesh_file",
                                        "handle_file",
                                        "weight_file",
                                        "anim_file",
                                        "skeleton_file",
                                        "constraint_file",
                                        "dt",
                                        "YM",
                                        "pr",
                                        "rho",
                                        "mu",
                                        "lambda",
                                        "material",
                                        "model",
                                        "with_dynamics",
                                        "frame_num",
                                        "fixed_region_file",
                                        "render_mesh_file",
                                        "scale",
                                        "image_file",
                                        "rendering",
                                        "character_file",
                                        "clip",
                                        "metres_per_unit",
                                        "mesher",
                                        "voxel_resolution"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The valid key an unknown one most likely meant ("" when nothing is close): words people use
/// for the same setting first, then the closest spelling.
std::string nearest_key(const std::string& key) {
  static const std::vector<std::pair<std::string, std::string>> kSynonyms = {{"young", "YM"},
                                                                             {"youngs", "YM"},
                                                                             {"e", "YM"},
                                                                             {"stiffness", "YM"},
                                                                             {"poisson", "pr"},
                                                                             {"nu", "pr"},
                                                                             {"density", "rho"},
                                                                             {"timestep", "dt"},
                                                                             {"time_step", "dt"},
                                                                             {"h", "dt"},
                                                                             {"mesh", "mesh_file"},
                                                                             {"weights", "weight_file"},
                                                                             {"animation", "anim_file"},
                                                                             {"anim", "anim_file"},
                                                                             {"handles", "handle_file"},
                                                                             {"skeleton", "skeleton_file"},
                                                                             {"frames", "frame_num"},
                                                                             {"physic_model", "material"},
                                                                             {"dynamics", "with_dynamics"},
                                                                             {"fixed", "fixed_region_file"},
                                                                             {"render_mesh", "render_mesh_file"},
                                                                             {"character", "character_file"},
                                                                             {"gltf", "character_file"},
                                                                             {"units", "metres_per_unit"}};
  const std::string k = lower(key);
  for (const auto& [word, valid] : kSynonyms)
    if (k == word || (k.size() > 3 && k.rfind(word, 0) == 0 && word.size() > 3)) return valid;
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const std::string& valid : kKeys) {
    const std::size_t d = edit_distance(k, lower(valid));
    if (d < best_d) best_d = d, best = valid;
  }
  return best_d <= std::max<std::size_t>(2, key.size() / 3) ? best : std::string();
}

}  // namespace

void check_keys(const nlohmann::json& j, const std::string& path) {
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) continue;
    const std::string near = nearest_key(key);
    fail(path, "unknown key '" + key + "'" + (near.empty() ? std::string() : " — did you mean '" + near + "'?") +
                   " (the keys are listed in docs/scene-format.md)");
  }
}

double number(const nlohmann::json& j, const char* key, double fallback, const std::string& path) {
  if (!j.contains(key)) return fallback;
  // A flag MATLAB's jsonencode may write as true / false; no other number may be a boolean.
  if (j[key].is_boolean() && std::string(key) == "with_dynamics") return j[key].get<bool>() ? 1.0 : 0.0;
  if (!j[key].is_number()) fail(path, std::string("\"") + key + "\" must be a number");
  return j[key].get<double>();
}

double required_number(const nlohmann::json& j, const char* key, const std::string& what, const std::string& path) {
  if (!j.contains(key)) fail(path, std::string("missing \"") + key + "\" (" + what + "): the scene must say it");
  return number(j, key, 0.0, path);
}

std::string file_key(Scene& s, const nlohmann::json& j, std::initializer_list<const char*> keys, const fs::path& dir,
                     const std::string& path, bool required) {
  for (const char* k : keys)
    if (j.contains(k)) {
      if (!j[k].is_string()) fail(path, std::string("\"") + k + "\" must be a file name");
      // Relative to the JSON's folder, or (the MATLAB release's layout, whose scripts run one
      // folder up) to its parent.
      const fs::path rel = j[k].get<std::string>();
      for (const fs::path& base : {dir, dir.parent_path()})
        if (fs::exists(base / rel)) {
          const std::string found = (base / rel).lexically_normal().string();
          s.input_files.push_back(fs::absolute(found).lexically_normal().string());
          return found;
        }
      fail(path, std::string("\"") + k + "\" names a missing file: " + (dir / rel).string());
    }
  if (required) fail(path, std::string("missing \"") + *keys.begin() + "\"");
  return {};
}

}  // namespace scene_parts

const std::vector<std::string>& scene_keys() { return scene_parts::kKeys; }

}  // namespace fastcd
