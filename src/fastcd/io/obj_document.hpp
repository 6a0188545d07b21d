#pragma once
// ObjDocument: an OBJ file kept line by line, so that a baked copy changes nothing but the
// positions (and turns the normals with the deformation): texture coordinates, face layout,
// groups, smoothing groups, materials (mtllib / usemtl), vertex colours and comments survive.
#include <string>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

struct ObjDocument {
  std::string path;                   ///< the file it was read from
  std::vector<std::string> lines;     ///< every line, without its line end
  std::vector<std::size_t> v_lines;   ///< the `v` records, in order (#v)
  std::vector<std::size_t> vn_lines;  ///< the `vn` records, in order (#vn)
  VectorXi normal_vertex;             ///< #vn: a vertex that some face corner pairs with that
                                      ///< normal (-1 when no face uses it)
  MatrixXd N;                         ///< #vn x 3 the normals as written
  std::vector<std::string> mtllibs;   ///< material libraries named by `mtllib`, as written
};

/// Reads an OBJ as read_obj does (the same checks and messages) and keeps its lines.
/// @throws std::runtime_error as read_obj.
ObjDocument read_obj_document(const std::string& path);

/// Writes `doc` with its `v` records replaced by the rows of V (#v x 2 or 3; 2D rows get z = 0;
/// any values after the coordinates, such as vertex colours, are kept), its `vn` records by
/// the rows of N when N is not empty (#vn x 3, written normalised), and every `mtllib` name
/// prefixed by `mtllib_prefix` (e.g. "../" for a copy one folder down). Written atomically,
/// every double with the shortest text that reads back to the same bits.
/// @throws std::invalid_argument for shapes that do not match the document or non-finite values;
///         std::runtime_error when the file cannot be written.
void write_obj_document(const std::string& path, const ObjDocument& doc, const Eigen::Ref<const MatrixXd>& V,
                        const Eigen::Ref<const MatrixXd>& N = MatrixXd(), const std::string& mtllib_prefix = "");

}  // namespace fastcd
