#pragma once
// boundary_facets: the facets of a simplicial mesh that belong to exactly one element.
#include "fastcd/common/types.hpp"

namespace fastcd {

struct BoundaryFacets {
  MatrixXi F;  ///< #F x (s-1) boundary facets (edges of triangles, triangles of tets),
               ///< oriented outward for positively oriented elements.
  VectorXi J;  ///< #F element each facet belongs to.
  VectorXi K;  ///< #F local index of the facet in its element (= the opposite corner).
};

/// Facets that appear in exactly one element, listed by element, then by opposite corner.
/// Facet of corner a: triangles (1,2), (2,0), (0,1); tets (1,2,3), (0,3,2), (0,1,3), (0,2,1).
///
/// @param T  #T x 3 triangles or #T x 4 tets with non-negative indices.
/// @throws std::invalid_argument for another column count or a negative index.
BoundaryFacets boundary_facets(const Eigen::Ref<const MatrixXi>& T);

/// Sorted unique vertex indices of the boundary facets.
VectorXi boundary_vertices(const Eigen::Ref<const MatrixXi>& T);

}  // namespace fastcd
