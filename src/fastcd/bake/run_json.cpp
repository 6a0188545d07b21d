#include "fastcd/bake/run_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fastcd/common/threads.hpp"
#include "fastcd/io/atomic_file.hpp"

namespace fastcd {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json gltf_json(const Bake& bake, Index k) {
  const std::optional<GltfOutputs>& out = bake.gltf_outputs(k);
  if (!out) return nullptr;
  const GltfOutputs& g = *out;
  const GltfBakeReport& r = g.report;
  const Scene& scene = bake.character(k).scene;
  json info = {{"glb", fs::path(g.glb).filename().string()},
               {"clip", g.clip},
               {"clip_index", g.clip_index},
               {"encoding", r.encoding},
               {"frames", r.frames},
               {"targets", r.targets},
               {"bytes", r.bytes},
               {"encoding_error_relative", r.max_error_relative},
               {"worst_blend_condition", g.worst_condition},
               {"rest_space_pc2", fs::path(g.pc2).filename().string()},
               {"rest_space_mdd", fs::path(g.mdd).filename().string()},
               {"metres_per_normalised_unit", scene.metres_per_normalised_unit},
               {"gravity_m_per_s2", bake.settings().run.gravity}};
  json caches = json::array();
  for (const GltfCache& c : g.caches)
    caches.push_back({{"node", c.node},
                      {"name", c.node_name},
                      {"bind_offset", c.bind_offset},
                      {"first_vertex", c.first_vertex},
                      {"targets", r.mesh_targets[static_cast<std::size_t>(c.skinned_mesh)]},
                      {"vertices", c.vertices},
                      {"pc2", fs::path(c.pc2).filename().string()},
                      {"mdd", fs::path(c.mdd).filename().string()}});
  info["caches"] = caches;
  info["render_vertices"] = scene.render_V.rows();
  info["mesh_targets"] = r.mesh_targets;
  return info;
}

/// A character's own settings: the scene's material and time step with the run's on top. "ym" is
/// Young's modulus as given (Pa), "ym_normalised" what the solvers took (normalised_ym).
json character_settings(const Bake& bake, Index k) {
  const SimulationOptions& so = bake.simulation_options(k);
  const CDOptions& o = so.cd;
  const SceneRunSettings& run = bake.settings().run;
  const Scene& scene = bake.character(k).scene;
  return {{"dt", o.dt},
          {"ym", scene.ym},
          {"ym_normalised", o.ym},
          {"pr", o.pr},
          {"rho", o.rho},
          {"iterations", o.iterations},
          {"modes", o.modes},
          {"clusters", o.clusters},
          {"precision", std::string(precision_name(o.precision))},
          {"leak", run.leak},
          {"gravity", run.gravity},
          {"dynamics", so.dynamics},
          {"material_requested", scene.material},
          {"material_simulated", "arap"}};
}

/// One character's record (the same keys for every input kind).
json character_record(const Bake& bake, Index k) {
  const CharacterSpec& c = bake.character(k);
  const Scene& s = c.scene;
  const Simulation& sim = bake.simulation(k);
  const SimulationStats& stats = sim.stats();
  const ComplementarityConstraint& cons = sim.constraint();
  const FrameWriter& w = bake.writer(k);
  const int frames = bake.frames();
  const double ms_per_step = frames ? 1e3 * stats.step_seconds / frames : 0.0;
  json r;
  r["name"] = c.name;
  r["scene"] = c.scene_path;
  r["folder"] = bake.single() ? std::string(".") : c.name;
  r["layout"] = s.layout;
  r["solver"] = to_string(sim.solver());
  r["dim"] = s.dim;
  r["vertices"] = s.X.rows();
  r["elements"] = s.T.rows();
  r["handles"] = s.handles;
  r["fixed_vertices"] = s.fixed.size();
  r["rig"] = {{"name", s.rig->name()}, {"linear", s.rig->is_linear()}, {"parameters", s.rig->num_params()}};
  r["frames"] = frames;
  r["frames_declared"] = s.frames_declared >= 0 ? json(s.frames_declared) : json(nullptr);
  r["animation_frames"] = s.poses.size();
  r["frame_offset"] = c.frame_offset;
  r["offset"] = std::vector<double>(c.offset.data(), c.offset.data() + c.offset.size());
  r["settings"] = character_settings(bake, k);
  r["precompute_s"] = sim.precompute_seconds();
  r["ms_per_step"] = ms_per_step;
  r["timings"] = {{"precompute_s", sim.precompute_seconds()},
                  {"precompute_from_cache", bake.precompute_from_cache(k)},
                  {"ms_per_step", ms_per_step}};
  r["constraint_rank"] = cons.rank;
  r["rig_rank"] = cons.rig_rank;
  r["leak_field"] = to_string(sim.leak_field_used());
  r["max_constraint_residual_relative"] = stats.max_residual;
  r["structural_residual_relative"] = sim.fast() ? json(sim.fast()->structural_residual()) : json(nullptr);
  r["complementary_kinetic_energy"] = {{"max", stats.max_kinetic_energy}, {"mean", stats.mean_kinetic_energy()}};
  r["complementary_motion_max_relative"] = w.uc_rel;
  r["inverted_elements"] = {{"frames_with_inversions", w.frames_inverted},
                            {"max_per_frame", w.most_inverted},
                            {"rig_max_per_frame", w.rig_inverted},
                            {"per_frame", w.inverted}};
  r["gltf"] = gltf_json(bake, k);
  return r;
}

}  // namespace

std::string run_json(const Bake& bake, const RunJsonExtras& extras) {
  json records = json::array();
  for (Index k = 0; k < bake.size(); ++k) records.push_back(character_record(bake, k));
  json report;
  if (bake.single()) {
    report = records[0];
    report["settings"]["threads"] = threads();
  } else {
    const SceneRunSettings& run = bake.settings().run;
    Index vertices = 0, elements = 0;
    double max_rel = 0.0;
    for (const json& r : records) {
      vertices += r["vertices"].get<Index>();
      elements += r["elements"].get<Index>();
      max_rel = std::max(max_rel, r["max_constraint_residual_relative"].get<double>());
    }
    report["dim"] = bake.character(0).scene.dim;
    report["vertices"] = vertices;
    report["elements"] = elements;
    report["frames"] = bake.frames();
    report["max_constraint_residual_relative"] = max_rel;
    json settings = {{"dt", bake.character(0).scene.dt},
                     {"iterations", run.iterations},
                     {"modes", run.modes},
                     {"clusters", run.clusters},
                     {"leak", run.leak},
                     {"gravity", run.gravity},
                     {"dynamics", run.dynamics},
                     {"threads", threads()},
                     {"precision", std::string(precision_name(run.precision))}};
    // The material: what every character shares (null when they differ).
    for (const char* key : {"ym", "ym_normalised", "pr", "rho", "material_requested", "material_simulated"}) {
      json shared = records[0]["settings"][key];
      for (const json& r : records)
        if (r["settings"][key] != shared) shared = nullptr;
      settings[key] = shared;
    }
    report["settings"] = settings;
  }
  report["scene"] = extras.input;
  report["characters"] = records;
  report["warnings"] = bake.warnings();
  json preview = nullptr;
  if (extras.preview) {
    const PreviewInfo& p = *extras.preview;
    preview = {{"frames", p.frames}, {"fps", p.fps}, {"stride", p.stride}};
    if (!p.camera.empty()) preview["camera"] = p.camera;
    if (p.encoded_during_simulation) preview["encoded_during_simulation"] = true;
  }
  report["preview"] = preview;
  json profile = json::array();
  for (const auto& [phase, seconds] : extras.profile) profile.push_back({{"phase", phase}, {"seconds", seconds}});
  report["profile"] = profile;
  report["timings"]["total_s"] = extras.total_seconds;
  return report.dump(2) + "\n";
}

void write_run_json(const fs::path& path, const Bake& bake, const RunJsonExtras& extras) {
  write_file_contents(path.string(), run_json(bake, extras), "run.json");
}

}  // namespace fastcd
