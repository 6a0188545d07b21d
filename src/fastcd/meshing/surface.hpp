#pragma once
// Triangle surfaces as they come from modelling tools, made ready for tetrahedralisation:
// welding by position (glTF and OBJ split vertices at UV and normal seams), and the checks a
// volume mesher needs (closed, edge-manifold, consistently and outward oriented, not
// self-intersecting), each failure naming the triangles at fault.
#include <array>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// A welded surface and the map from the input vertices to it.
struct WeldedSurface {
  MatrixXd V;            ///< #W x 3 welded vertices (each the first input vertex of its group)
  MatrixXi F;            ///< #F' x 3 triangles on V; triangles that collapse under the weld are dropped
  VectorXi map;          ///< #V_in: welded vertex of each input vertex
  VectorXi face;         ///< #F': the input triangle each triangle comes from
  Index collapsed = 0;   ///< input triangles dropped because two corners welded together
  Index duplicates = 0;  ///< input triangles dropped because they repeat another (same corners)
};

/// Welds vertices closer than `tolerance` (absolute; groups are formed greedily in input
/// order, each vertex joining the group of the first earlier vertex within the tolerance).
/// `tolerance` < 0 means 1e-6 of the bounding-box diagonal. Exact duplicates of a triangle
/// (the same three welded corners, in any order and orientation) are kept once.
/// @throws std::invalid_argument for bad shapes, indices out of range or non-finite positions.
WeldedSurface weld_surface(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                           double tolerance = -1);

/// What is wrong with a surface as the boundary of a solid (empty lists: a closed,
/// edge-manifold, consistently oriented surface without self-intersections).
struct SurfaceDefects {
  std::vector<std::array<int, 2>> open_edges;          ///< edges with one triangle (vertex pairs)
  std::vector<std::array<int, 2>> non_manifold_edges;  ///< edges with more than two triangles
  std::vector<std::array<int, 2>> flipped_edges;       ///< edges both triangles traverse the same way
  std::vector<std::array<int, 2>> intersecting;        ///< pairs of triangles that cross (non-adjacent)
  Index components = 0;                                ///< connected components (by shared edges)
  double volume = 0;                                   ///< signed enclosed volume (> 0: outward)
  bool ok() const {
    return open_edges.empty() && non_manifold_edges.empty() && flipped_edges.empty() && intersecting.empty();
  }
  /// One line: what is wrong and where (the first few of each kind), or "" when ok().
  std::string describe() const;
};

/// Checks the surface. Self-intersections are searched with a uniform grid over triangle
/// bounding boxes (pairs sharing a vertex are not tested); `max_reported` bounds each list.
SurfaceDefects check_surface(const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
                             Index max_reported = 20);

/// True if triangles (a0, a1, a2) and (b0, b1, b2) share a point (closed triangles; coplanar
/// overlaps included). Exact predicates are not used: touching within ~1e-12 of the size may
/// go either way.
bool triangles_intersect(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& a2,
                         const Eigen::Vector3d& b0, const Eigen::Vector3d& b1, const Eigen::Vector3d& b2);

/// Smallest dihedral angle (degrees) of each tetrahedron.
VectorXd min_dihedral_angles(const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T);

}  // namespace fastcd
