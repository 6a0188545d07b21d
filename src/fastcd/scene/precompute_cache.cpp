#include "fastcd/scene/precompute_cache.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "fastcd/common/check.hpp"
#include "fastcd/common/hash.hpp"
#include "fastcd/io/atomic_file.hpp"
#include "fastcd/scene/scene_simulation.hpp"

namespace fastcd {

namespace {

constexpr std::string_view kMagic = "fastcd subspace 1\n";

template <typename T>
void put(std::string& out, const T* data, std::size_t count) {
  out.append(reinterpret_cast<const char*>(data), sizeof(T) * count);
}

/// Reads `count` values of T at `at`, advancing it; false when the buffer is too short.
template <typename T>
bool take(const std::string& in, std::size_t& at, T* data, std::size_t count) {
  const std::size_t bytes = sizeof(T) * count;
  if (in.size() - at < bytes) return false;
  std::memcpy(data, in.data() + at, bytes);
  at += bytes;
  return true;
}

}  // namespace

std::string subspace_cache_path(const std::string& cache_dir, const Eigen::Ref<const MatrixXd>& X,
                                const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J, const CDOptions& options) {
  Hash64 h;
  h.add(kMagic);
  h.add_matrix(X);
  h.add_matrix(T);
  h.add_sparse(J);
  const LeakFieldOptions& leak = options.leak;
  const std::int64_t ints[5] = {static_cast<std::int64_t>(leak.kind), leak.boundary_fallback ? 1 : 0, options.modes,
                                options.clusters, static_cast<std::int64_t>(sizeof(double))};
  h.add(ints, sizeof ints);
  const double reals[2] = {leak.dt, options.constraint_rtol};
  h.add(reals, sizeof reals);
  h.add_matrix(leak.values);
  h.add_matrix(options.fixed);
  return (std::filesystem::path(cache_dir) / ("fast-" + h.hex() + ".bin")).string();
}

std::shared_ptr<const FastCDSubspace> read_subspace_cache(const std::string& path, Index num_vertices,
                                                          Index num_elements, const CDOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return nullptr;
  std::string in;
  try {
    in = read_regular_file(path, "read_subspace_cache");
  } catch (const std::runtime_error&) {
    return nullptr;
  }
  if (in.compare(0, kMagic.size(), kMagic) != 0) return nullptr;
  std::size_t at = kMagic.size();
  std::int64_t head[6];
  if (!take(in, at, head, 6)) return nullptr;
  const Index n = num_vertices, modes = options.modes;
  if (head[0] != n || head[1] != num_elements || head[2] != modes || head[3] != options.clusters || head[4] < 0 ||
      head[4] > static_cast<std::int64_t>(LeakFieldKind::Centroid) || head[5] < 0)
    return nullptr;
  auto s = std::make_shared<FastCDSubspace>();
  s->leak_used = static_cast<LeakFieldKind>(head[4]);
  s->weight_constraint_rank = head[5];
  s->D.resize(n);
  s->W.resize(n, modes);
  s->E.resize(modes);
  s->labels.resize(num_elements);
  if (!take(in, at, s->D.data(), static_cast<std::size_t>(n)) ||
      !take(in, at, s->W.data(), static_cast<std::size_t>(n * modes)) ||
      !take(in, at, s->E.data(), static_cast<std::size_t>(modes)) ||
      !take(in, at, s->labels.data(), static_cast<std::size_t>(num_elements)) || at != in.size())
    return nullptr;
  return s;
}

void write_subspace_cache(const std::string& path, const FastCDSubspace& s, const CDOptions& options) {
  const Index num_elements = s.labels.size();
  FASTCD_CHECK(s.W.rows() == s.D.size() && s.W.cols() == options.modes && s.E.size() == s.W.cols(),
               "write_subspace_cache: the subspace's sizes disagree (D ", s.D.size(), ", W ", s.W.rows(), " x ",
               s.W.cols(), ", E ", s.E.size(), " for ", options.modes, " modes)");
  std::string out(kMagic);
  const std::int64_t head[6] = {s.D.size(),
                                num_elements,
                                s.W.cols(),
                                options.clusters,
                                static_cast<std::int64_t>(s.leak_used),
                                s.weight_constraint_rank};
  put(out, head, 6);
  put(out, s.D.data(), static_cast<std::size_t>(s.D.size()));
  put(out, s.W.data(), static_cast<std::size_t>(s.W.size()));
  put(out, s.E.data(), static_cast<std::size_t>(s.E.size()));
  put(out, s.labels.data(), static_cast<std::size_t>(s.labels.size()));
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  FASTCD_ENSURE(folder.empty() || std::filesystem::is_directory(folder), "cannot create the precompute cache folder '",
                folder.string(), "': ", ec ? ec.message() : std::string("not a folder"));
  write_file_contents(path, out, "write_subspace_cache");
}

Simulation make_simulation(const Scene& scene, const SimulationOptions& options, const std::string& cache_dir,
                           bool* from_cache) {
  if (from_cache != nullptr) *from_cache = false;
  FASTCD_CHECK(scene.rig != nullptr, "the scene '", scene.name, "' has no rig");
  if (cache_dir.empty() || options.solver != SolverKind::Fast || !options.dynamics || !scene.rig->is_linear())
    return make_simulation(scene, options);
  const auto* linear = dynamic_cast<const LinearRig*>(scene.rig.get());
  const SparseMatrix J = linear != nullptr ? linear->J : scene.rig->jacobian(scene.rig->rest_params());
  const std::string path = subspace_cache_path(cache_dir, scene.X, scene.T, J, options.cd);
  if (auto cached = read_subspace_cache(path, scene.X.rows(), scene.T.rows(), options.cd)) {
    SimulationOptions with = options;
    with.fast_subspace = std::move(cached);
    try {
      Simulation sim = make_simulation(scene, with);
      if (from_cache != nullptr) *from_cache = true;
      return sim;
    } catch (const std::invalid_argument&) {
      // a cache that does not fit this rig (a hash collision or a damaged file): compute afresh
    }
  }
  Simulation sim = make_simulation(scene, options);
  write_subspace_cache(path, sim.fast()->subspace(), options.cd);
  return sim;
}

}  // namespace fastcd
