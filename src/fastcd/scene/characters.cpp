#include "fastcd/scene/characters.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "fastcd/common/check.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/io/atomic_file.hpp"

namespace fastcd {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(printable("load_characters: '" + path + "': " + what));
}

nlohmann::json parse(const std::string& path) {
  const std::string text = read_regular_file(path, "load_characters");
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail(path, std::string("not valid JSON: ") + e.what());
  }
}

bool safe_name(const std::string& n) {
  if (n.empty() || n == "." || n == ".." || n.size() > 128) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ' ' || c == '#';
  });
}

}  // namespace

bool is_characters_file(const std::string& path) {
  const nlohmann::json j = parse(path);
  return j.is_object() && j.contains("characters");
}

std::vector<CharacterSpec> load_characters(const std::string& path, const SceneOptions& options) {
  const nlohmann::json j = parse(path);
  if (!j.is_object()) fail(path, "must be a JSON object with \"characters\"");
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (key != "characters") fail(path, "unknown key '" + key + "' (a characters file has only \"characters\")");
  }
  const nlohmann::json& list = j["characters"];
  if (!list.is_array() || list.empty()) fail(path, "\"characters\" must be a non-empty list of character entries");
  const fs::path dir = fs::path(path).parent_path();
  std::vector<CharacterSpec> out(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& e = list[i];
    const std::string who = "character " + std::to_string(i);
    if (!e.is_object()) fail(path, who + " must be an object with \"scene\"");
    for (const auto& [key, value] : e.items()) {
      (void)value;
      static const std::set<std::string> keys = {"scene", "name", "offset", "solver", "frame_offset"};
      if (!keys.count(key))
        fail(path, who + ": unknown key '" + key + "' (use scene, name, offset, solver, frame_offset)");
    }
    if (!e.contains("scene") || !e["scene"].is_string()) fail(path, who + " needs \"scene\": a scene JSON file name");
    CharacterSpec& c = out[i];
    const fs::path sp = fs::path(e["scene"].get<std::string>());
    c.scene_path = (sp.is_absolute() ? sp : dir / sp).lexically_normal().string();
    if (e.contains("name")) {
      if (!e["name"].is_string() || !safe_name(e["name"].get<std::string>()))
        fail(path, who + ": \"name\" must be a folder name of letters, digits, space and - _ . #");
      c.name = e["name"].get<std::string>();
    }
    if (e.contains("solver")) {
      if (!e["solver"].is_string() || (e["solver"] != "full" && e["solver"] != "fast"))
        fail(path, who + ": \"solver\" must be \"full\" or \"fast\"");
      c.solver = e["solver"].get<std::string>();
    }
    if (e.contains("frame_offset")) {
      if (!e["frame_offset"].is_number_integer() || e["frame_offset"].get<long>() < 0 ||
          e["frame_offset"].get<long>() > 1000000)
        fail(path, who + ": \"frame_offset\" must be a whole number of frames >= 0");
      c.frame_offset = e["frame_offset"].get<int>();
    }
    if (e.contains("offset")) {
      const nlohmann::json& o = e["offset"];
      if (!o.is_array() || o.size() < 2 || o.size() > 3)
        fail(path, who + ": \"offset\" must be a list of 2 or 3 numbers (file units)");
      c.offset.resize(static_cast<Index>(o.size()));
      for (std::size_t k = 0; k < o.size(); ++k) {
        if (!o[k].is_number() || !std::isfinite(o[k].get<double>()))
          fail(path, who + ": \"offset\" must be a list of finite numbers");
        c.offset(static_cast<Index>(k)) = o[k].get<double>();
      }
    }
  }
  // The scenes, in parallel (each load is independent).
  std::vector<std::exception_ptr> errors(out.size());
  parallel_for(static_cast<Index>(out.size()), 1, [&](Index b, Index e) {
    for (Index i = b; i < e; ++i) {
      try {
        out[static_cast<std::size_t>(i)].scene = load_scene(out[static_cast<std::size_t>(i)].scene_path, options);
      } catch (...) {
        errors[static_cast<std::size_t>(i)] = std::current_exception();
      }
    }
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!errors[i]) continue;
    try {
      std::rethrow_exception(errors[i]);
    } catch (const std::exception& ex) {
      fail(path, "character " + std::to_string(i) + ": " + ex.what());
    }
  }
  // Names: the given ones, else the scene's, numbered when repeated; all unique.
  std::set<std::string> used;
  for (const CharacterSpec& c : out)
    if (!c.name.empty() && !used.insert(c.name).second) fail(path, "two characters are named '" + c.name + "'");
  for (CharacterSpec& c : out) {
    if (!c.name.empty()) continue;
    std::string base = safe_name(c.scene.name) ? c.scene.name : std::string("character");
    c.name = base;
    for (int k = 2; used.count(c.name); ++k) c.name = base + "-" + std::to_string(k);
    used.insert(c.name);
  }
  const Scene& first = out[0].scene;
  for (std::size_t i = 0; i < out.size(); ++i) {
    CharacterSpec& c = out[i];
    const std::string who = "character " + std::to_string(i) + " ('" + c.name + "')";
    if (c.scene.dim != first.dim)
      fail(path, who + " is " + std::to_string(c.scene.dim) + "D, '" + out[0].name + "' is " +
                     std::to_string(first.dim) + "D: one simulation holds one dimension");
    if (std::abs(c.scene.dt - first.dt) > 1e-12 * first.dt)
      fail(path, who + " has dt = " + std::to_string(c.scene.dt) + " s, '" + out[0].name + "' " +
                     std::to_string(first.dt) + " s: characters step together, so give their scenes the same dt");
    if (c.offset.size() == 0) c.offset = VectorXd::Zero(c.scene.dim);
    if (c.offset.size() != c.scene.dim)
      fail(path, who + ": \"offset\" has " + std::to_string(c.offset.size()) + " numbers for a " +
                     std::to_string(c.scene.dim) + "D scene");
  }
  return out;
}

}  // namespace fastcd
