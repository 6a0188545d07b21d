#include "fastcd/scene/precompute_cache.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "fastcd/cd/complementarity.hpp"
#include "fastcd/common/check.hpp"
#include "fastcd/common/hash.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd {

namespace {

constexpr int kFormat = 2;  // 1: before the header (fastcd subspace 1, keyed by file name only)
constexpr std::size_t kHead = 6;

std::string number(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

/// The bytes of a subspace of #V x modes and #T clusters labels.
std::uint64_t payload_bytes(Index num_vertices, Index num_elements, Index modes) {
  const auto n = static_cast<std::uint64_t>(num_vertices), m = static_cast<std::uint64_t>(modes);
  return sizeof(std::int64_t) * kHead + sizeof(double) * (n + n * m + m) +
         sizeof(int) * static_cast<std::uint64_t>(num_elements);
}

}  // namespace

SubspaceCacheEntry subspace_cache_entry(const std::string& cache_dir, const Eigen::Ref<const MatrixXd>& X,
                                        const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J,
                                        const CDOptions& options) {
  Sha256 h;
  h.add_matrix(X);
  h.add_matrix(T);
  h.add_sparse(J);
  const LeakFieldOptions& leak = options.leak;
  const std::int64_t ints[4] = {static_cast<std::int64_t>(leak.kind), leak.boundary_fallback ? 1 : 0, options.modes,
                                options.clusters};
  h.add(ints, sizeof ints);
  const double reals[2] = {leak.dt, options.constraint_rtol};
  h.add(reals, sizeof reals);
  h.add_matrix(leak.values);
  h.add_matrix(options.fixed);
  std::string settings = "leak " + to_string(leak.kind);
  if (leak.kind == LeakFieldKind::Diffusion) settings += " (dt " + number(leak.dt) + ")";
  if (leak.boundary_fallback) settings += " (centroid where it vanishes)";
  settings += ", " + std::to_string(options.modes) + " modes, " + std::to_string(options.clusters) + " clusters, " +
              std::to_string(options.fixed.size()) + " fixed vertices, constraint tolerance " +
              number(options.constraint_rtol) + "; " + std::to_string(X.rows()) + " vertices, " +
              std::to_string(T.rows()) + " elements, a rig of " + std::to_string(J.cols()) + " parameters";
  SubspaceCacheEntry e;
  e.key = make_cache_key("fast", kFormat, settings, h);
  e.path = cache_entry_path(cache_dir, e.key);
  return e;
}

std::shared_ptr<const FastCDSubspace> read_subspace_cache(const SubspaceCacheEntry& entry, Index num_vertices,
                                                          Index num_elements, const CDOptions& options,
                                                          CacheEntry* found) {
  CacheEntry local;
  CacheEntry& e = found != nullptr ? *found : local;
  const Index n = num_vertices, modes = options.modes;
  e = read_cache_entry(entry.path, entry.key, payload_bytes(n, num_elements, modes));
  if (e.state != CacheEntry::State::Usable) return nullptr;
  const auto refuse = [&](const std::string& why) {
    e.state = CacheEntry::State::Damaged;
    e.problem = "holds a subspace that does not fit (" + why + ")";
    e.payload.clear();
    return nullptr;
  };
  std::size_t at = 0;
  std::int64_t head[kHead];
  take_raw(e.payload, at, head, kHead);
  if (head[0] != n || head[1] != num_elements || head[2] != modes || head[3] != options.clusters)
    return refuse("its sizes are not this mesh's and settings'");
  if (head[4] < 0 || head[4] > static_cast<std::int64_t>(LeakFieldKind::Centroid) || head[5] < 0)
    return refuse("an unknown leak field or a negative rank");
  auto s = std::make_shared<FastCDSubspace>();
  s->leak_used = static_cast<LeakFieldKind>(head[4]);
  s->weight_constraint_rank = head[5];
  s->D.resize(n);
  s->W.resize(n, modes);
  s->E.resize(modes);
  s->labels.resize(num_elements);
  take_raw(e.payload, at, s->D.data(), static_cast<std::size_t>(n));
  take_raw(e.payload, at, s->W.data(), static_cast<std::size_t>(n * modes));
  take_raw(e.payload, at, s->E.data(), static_cast<std::size_t>(modes));
  take_raw(e.payload, at, s->labels.data(), static_cast<std::size_t>(num_elements));
  e.payload.clear();
  return s;
}

void write_subspace_cache(const SubspaceCacheEntry& entry, const FastCDSubspace& s, const CDOptions& options) {
  const Index num_elements = s.labels.size();
  FASTCD_CHECK(s.W.rows() == s.D.size() && s.W.cols() == options.modes && s.E.size() == s.W.cols(),
               "write_subspace_cache: the subspace's sizes disagree (D ", s.D.size(), ", W ", s.W.rows(), " x ",
               s.W.cols(), ", E ", s.E.size(), " for ", options.modes, " modes)");
  const std::int64_t head[kHead] = {s.D.size(),
                                    num_elements,
                                    s.W.cols(),
                                    options.clusters,
                                    static_cast<std::int64_t>(s.leak_used),
                                    s.weight_constraint_rank};
  std::string out;
  out.reserve(static_cast<std::size_t>(payload_bytes(s.D.size(), num_elements, s.W.cols())));
  append_raw(out, head, kHead);
  append_raw(out, s.D.data(), static_cast<std::size_t>(s.D.size()));
  append_raw(out, s.W.data(), static_cast<std::size_t>(s.W.size()));
  append_raw(out, s.E.data(), static_cast<std::size_t>(s.E.size()));
  append_raw(out, s.labels.data(), static_cast<std::size_t>(s.labels.size()));
  const std::filesystem::path folder = std::filesystem::path(entry.path).parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  FASTCD_ENSURE(folder.empty() || std::filesystem::is_directory(folder), "cannot create the precompute cache folder '",
                folder.string(), "': ", ec ? ec.message() : std::string("not a folder"));
  write_cache_entry(entry.path, entry.key, out);
}

Simulation make_simulation(const Scene& scene, const SimulationOptions& options, const std::string& cache_dir,
                           bool* from_cache, std::vector<std::string>* warnings) {
  if (from_cache != nullptr) *from_cache = false;
  FASTCD_CHECK(scene.rig != nullptr, "the scene '", scene.name, "' has no rig");
  if (cache_dir.empty() || options.solver != SolverKind::Fast || !options.dynamics || !scene.rig->is_linear())
    return make_simulation(scene, options);
  const auto* linear = dynamic_cast<const LinearRig*>(scene.rig.get());
  const SparseMatrix J = linear != nullptr ? linear->J : scene.rig->jacobian(scene.rig->rest_params());
  const SubspaceCacheEntry entry = subspace_cache_entry(cache_dir, scene.X, scene.T, J, options.cd);
  CacheEntry found;
  if (auto cached = read_subspace_cache(entry, scene.X.rows(), scene.T.rows(), options.cd, &found)) {
    SimulationOptions with = options;
    with.fast_subspace = std::move(cached);
    try {
      Simulation sim = make_simulation(scene, with);
      if (from_cache != nullptr) *from_cache = true;
      return sim;
    } catch (const std::invalid_argument& e) {
      // A checked entry the precompute refuses (a digest collision, another build's numbers).
      found.state = CacheEntry::State::Damaged;
      found.problem = std::string("holds a subspace this rig refuses (") + e.what() + ")";
    }
  }
  const auto note = [&](const std::string& w) {
    if (warnings != nullptr && !w.empty()) warnings->push_back(w);
  };
  // Before the work: a folder that cannot take the result is said now, and not written to.
  const std::string folder_warning = cache_folder_warning(cache_dir);
  note(folder_warning);
  Simulation sim = make_simulation(scene, options);
  std::string write_error = folder_warning.empty() ? "" : "the cache folder cannot be written";
  if (folder_warning.empty()) try {
      write_subspace_cache(entry, sim.fast()->subspace(), options.cd);
    } catch (const std::runtime_error& e) {
      write_error = e.what();
    }
  if (found.state != CacheEntry::State::Missing)
    note(cache_entry_warning(entry.path, found, "the precompute was computed again", write_error));
  else if (folder_warning.empty() && !write_error.empty())
    note("the precompute could not be kept in the cache (" + write_error +
         "): the bake goes on, and the next bake computes it again");
  return sim;
}

}  // namespace fastcd
