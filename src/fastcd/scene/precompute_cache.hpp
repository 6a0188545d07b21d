#pragma once
// The precompute cache: the fast solver's subspace (FastCDSubspace: leak field, skinning
// eigenmodes, rotation clusters) kept in a folder as fast-<16 hex digits>.bin (io/cache_file:
// a header with the full key and the payload's checksum, then the payload). The key is a
// SHA-256 over everything the subspace depends on: the mesh and the rig bit for bit, the
// leak-field, fixed-vertex and constraint settings, modes and clusters. Material (YM, Poisson
// ratio, density), dt, iterations and gravity are not in the key: a re-bake that changes only
// those reuses it. A file of other inputs under the entry's name, a damaged or a huge one is
// recognised by its header and size before its payload is read, and computed again.
#include <memory>
#include <string>
#include <vector>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/io/cache_file.hpp"
#include "fastcd/scene/scene.hpp"

namespace fastcd {

/// Where and under which key the subspace of (X, T, J, options) is cached.
struct SubspaceCacheEntry {
  CacheKey key;      ///< kind "fast"; settings e.g. "leak diffusion (dt 1), 16 modes, 32 clusters, ..."
  std::string path;  ///< "<cache_dir>/fast-<16 hex digits>.bin"
};

/// The cache entry of (X, T, J, options) in `cache_dir`.
SubspaceCacheEntry subspace_cache_entry(const std::string& cache_dir, const Eigen::Ref<const MatrixXd>& X,
                                        const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J,
                                        const CDOptions& options);

/// The subspace stored for `entry`, or null when there is none that is this entry whole (the
/// file is missing, of other inputs, damaged or unreadable: `found` says which and why). The
/// payload is read only after the header matched the key and the file's size matched the
/// sizes of (#V, #T, options.modes).
std::shared_ptr<const FastCDSubspace> read_subspace_cache(const SubspaceCacheEntry& entry, Index num_vertices,
                                                          Index num_elements, const CDOptions& options,
                                                          CacheEntry* found = nullptr);

/// Writes `subspace` to entry.path atomically (its folder is created).
/// @throws std::runtime_error when the folder or the file cannot be written.
void write_subspace_cache(const SubspaceCacheEntry& entry, const FastCDSubspace& subspace, const CDOptions& options);

/// make_simulation through a precompute cache folder: the fast solver reuses the subspace
/// cached for this mesh, rig and settings, or computes it and stores it there. The full solver
/// and an empty `cache_dir` build as make_simulation does. `from_cache`, if given, says whether
/// a cached subspace was used. The cache is optional: a folder that cannot be written (checked
/// before the precompute), an entry of other inputs, damaged or unreadable (computed again and
/// rewritten) or a write that fails each add a line to `warnings` (if given), never an error.
/// @throws as make_simulation.
Simulation make_simulation(const Scene& scene, const SimulationOptions& options, const std::string& cache_dir,
                           bool* from_cache = nullptr, std::vector<std::string>* warnings = nullptr);

}  // namespace fastcd
