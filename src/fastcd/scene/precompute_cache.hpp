#pragma once
// The precompute cache: the fast solver's subspace (FastCDSubspace: leak field, skinning
// eigenmodes, rotation clusters) kept in a folder as fast-<hash>.bin, the hash taken over
// everything the subspace depends on: the mesh and the rig bit for bit, the leak-field, fixed-
// vertex and constraint settings, modes and clusters. Material (YM, Poisson ratio, density), dt,
// iterations and gravity are not in the key: a re-bake that changes only those reuses it.
#include <memory>
#include <string>

#include "fastcd/cd/fast_cd.hpp"
#include "fastcd/cd/simulation.hpp"
#include "fastcd/scene/scene.hpp"

namespace fastcd {

/// The cache file of (X, T, J, options) in `cache_dir`: "<cache_dir>/fast-<16 hex digits>.bin".
std::string subspace_cache_path(const std::string& cache_dir, const Eigen::Ref<const MatrixXd>& X,
                                const Eigen::Ref<const MatrixXi>& T, const SparseMatrix& J, const CDOptions& options);

/// The subspace stored at `path`, or null when there is no such file or it does not read back
/// whole with the sizes of (#V, #T, options.modes, options.clusters) (a stale or damaged cache
/// is ignored, never trusted).
std::shared_ptr<const FastCDSubspace> read_subspace_cache(const std::string& path, Index num_vertices,
                                                          Index num_elements, const CDOptions& options);

/// Writes `subspace` to `path` atomically (its folder is created).
/// @throws std::runtime_error when the folder or the file cannot be written.
void write_subspace_cache(const std::string& path, const FastCDSubspace& subspace, const CDOptions& options);

/// make_simulation through a precompute cache folder: the fast solver reuses the subspace
/// cached for this mesh, rig and settings, or computes it and stores it there. The full solver
/// and an empty `cache_dir` build as make_simulation does. `from_cache`, if given, says whether
/// a cached subspace was used.
/// @throws as make_simulation; std::runtime_error when the cache cannot be written.
Simulation make_simulation(const Scene& scene, const SimulationOptions& options, const std::string& cache_dir,
                           bool* from_cache = nullptr);

}  // namespace fastcd
