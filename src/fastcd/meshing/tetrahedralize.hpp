#pragma once
// Tetrahedral meshes filling a closed triangle surface, its vertices kept exactly as the first
// tet vertices (so skin weights copy over and rendering the skin needs no interpolation).
// The default mesher is Netgen's nglib (Debian libnglib-dev, LGPL-2.1, opened at run time); the
// TetGen program (Debian tetgen, AGPL-3) is the alternative, run as a separate process.
#include <string>
#include <vector>

#include "fastcd/common/defaults.hpp"
#include "fastcd/common/types.hpp"

namespace fastcd {

/// Tet sizes follow the surface's edge lengths (the surface is never refined; Netgen adds
/// interior points only where the surface's sizes call for them).
struct TetrahedralizeOptions {
  std::string mesher = defaults::mesher;  ///< "netgen" or "tetgen"
  /// Netgen's grading, 0 (uniform) .. 1 (grows fast away from fine surface detail).
  double grading = 0.3;
  /// Netgen's volume optimisation passes (improve the worst angles; the surface never moves).
  int optimize_steps = 3;
  std::string tetgen_program = "tetgen";  ///< tetgen: the program (looked up on PATH)
  double tetgen_quality = 1.414;          ///< tetgen: radius-edge bound (-q), in [1, 10]
  double timeout_seconds = 600;           ///< tetgen: killed after this long
};

/// A tet mesh of a surface's interior.
struct TetMesh {
  MatrixXd X;                  ///< #X x 3; rows 0 .. surface_vertices - 1 are the input vertices, bit for bit
  MatrixXi T;                  ///< #T x 4, positively oriented (det(b - a, c - a, d - a) > 0)
  Index surface_vertices = 0;  ///< the input surface's vertex count
  double min_dihedral = 0;     ///< smallest dihedral angle of any tet (degrees)
  Index slivers = 0;           ///< tets with a dihedral angle under 5 degrees
  double seconds = 0;          ///< meshing wall time
  std::string mesher;          ///< "netgen" or "tetgen"
  /// tetrahedralize_cached: what the user should know about the cache (an entry of other
  /// inputs or a damaged one meshed again, a folder or file that could not be written).
  std::vector<std::string> warnings;
};

/// Fills the closed, outward-oriented, edge-manifold, self-intersection-free surface (V, F)
/// with tets. Every vertex of V must be used by F. Netgen calls are serialised (it keeps global
/// state) and silenced; TetGen runs in a temporary folder (removed afterwards), its output to a
/// log whose last lines a failure quotes, and is killed on cancellation or timeout.
/// @throws std::invalid_argument naming what is wrong with the surface (open, non-manifold,
///         inconsistently oriented or self-intersecting: the first edges or triangles, see
///         check_surface; inward orientation; unused vertices), or std::runtime_error when the
///         mesher fails (TetGen: not installed, non-zero exit, timeout) or returns a mesh that
///         does not keep the surface.
TetMesh tetrahedralize(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                       const TetrahedralizeOptions& options = {});

/// tetrahedralize through a cache folder: the tets of (V, F, options) are kept in
/// `cache_dir`/tets-<16 hex digits>.bin (io/cache_file: a header with the full key - a SHA-256
/// over V and F bit for bit, the mesher and its settings - and the payload's checksum), so a
/// second bake of the same skin (new material, clip or solver) skips the meshing. A file there
/// is used only if its header is this key, its size and checksum match, and its tets keep the
/// surface exactly in place and are positive; a file of other inputs, a damaged, huge or
/// unreadable one is meshed again (its header and size are checked before its payload is read)
/// and rewritten atomically, with a line in the result's warnings. The cache is optional: a
/// folder that cannot be written (checked before the meshing) or a failed write is a warning
/// too. An empty `cache_dir` meshes without a cache. `from_cache`, if given, says which happened.
/// @throws what tetrahedralize throws.
TetMesh tetrahedralize_cached(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                              const TetrahedralizeOptions& options, const std::string& cache_dir,
                              bool* from_cache = nullptr);

}  // namespace fastcd
