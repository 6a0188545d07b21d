// Malformed-input corpus: every reader (and load_scene) rejects each file of tests/malformed/
// with a std::runtime_error that names the reader, the file and the problem, quickly and
// without allocating for huge declared counts. One table row per corpus file; the files are
// written by make_corpus.py.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/io/anim_io.hpp"
#include "fastcd/io/gltf_io.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/io/npy.hpp"
#include "fastcd/io/pc2_io.hpp"
#include "fastcd/io/ply_io.hpp"
#include "fastcd/io/rig_io.hpp"
#include "fastcd/scene/scene.hpp"

#ifndef FASTCD_MALFORMED_DIR
#error "FASTCD_MALFORMED_DIR must name tests/malformed"
#endif

namespace fastcd {
namespace test_malformed {

namespace fs = std::filesystem;

enum class Reader {
  obj,
  obj2d,
  off,
  ply,
  mesh,
  msh,
  tetgen,
  tgf,
  dmat,
  pc2,
  anim2d,
  bones3d,
  points3d,
  npy,
  scene,
  gltf
};

const char* function_of(Reader r) {
  switch (r) {
    case Reader::obj:
      return "read_obj";
    case Reader::obj2d:
      return "read_obj_2d";
    case Reader::off:
      return "read_off";
    case Reader::ply:
      return "read_ply";
    case Reader::mesh:
      return "read_mesh";
    case Reader::msh:
      return "read_msh";
    case Reader::tetgen:
      return "read_tetgen";
    case Reader::tgf:
      return "read_tgf";
    case Reader::dmat:
      return "read_dmat";
    case Reader::pc2:
      return "read_pc2";
    case Reader::anim2d:
      return "read_animation_2d";
    case Reader::bones3d:
      return "read_bone_animation_3d";
    case Reader::points3d:
      return "read_point_animation_3d";
    case Reader::npy:
      return "read_npy";
    case Reader::scene:
      return "load_scene";
    case Reader::gltf:
      return "read_gltf";
  }
  return "?";
}

std::string corpus(const std::string& rel) {
  return (fs::path(FASTCD_MALFORMED_DIR) / rel).lexically_normal().string();
}

// Runs the reader on `file` (for TetGen: "<stem>" = <stem>.node + <stem>.ele).
void run(Reader r, const std::string& file) {
  switch (r) {
    case Reader::obj:
      read_obj(file);
      break;
    case Reader::obj2d:
      read_obj_2d(file);
      break;
    case Reader::off:
      read_off(file);
      break;
    case Reader::ply:
      read_ply(file);
      break;
    case Reader::mesh:
      read_mesh(file);
      break;
    case Reader::msh:
      read_msh(file);
      break;
    case Reader::tetgen:
      read_tetgen(file + ".node", file + ".ele");
      break;
    case Reader::tgf:
      read_tgf(file);
      break;
    case Reader::dmat:
      read_dmat(file);
      break;
    case Reader::pc2:
      read_pc2(file);
      break;
    case Reader::anim2d:
      read_animation_2d(file);
      break;
    case Reader::bones3d:
      read_bone_animation_3d(file);
      break;
    case Reader::points3d:
      read_point_animation_3d(file);
      break;
    case Reader::npy:
      read_npy(file);
      break;
    case Reader::scene:
      load_scene(file);
      break;
    case Reader::gltf:
      read_gltf(file);
      break;
  }
}

struct Case {
  Reader reader;
  const char* file;             ///< corpus file (TetGen: the stem of the .node/.ele pair)
  const char* fragment;         ///< readable part of the message that must appear
  const char* names = nullptr;  ///< file the message must name (default: `file`)
  const char* fn = nullptr;     ///< function the message must start with (default: the reader)
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.file; }

using R = Reader;
const std::vector<Case> kCases = {
    // ------------------------------------------------------------------------------ OBJ
    {R::obj, "obj/empty.obj", "file is empty (not an OBJ file)"},
    {R::obj, "obj/comments_only.obj", "no vertices ('v' lines)"},
    {R::obj, "obj/truncated_vertex.obj", "line 2: missing z coordinate"},
    {R::obj, "obj/truncated_face.obj", "line 4: face has 2 corners; at least 3 are needed"},
    {R::obj, "obj/vertex_index_out_of_range.obj", "line 4: vertex index 12 is out of range: 3 vertices defined so far"},
    {R::obj, "obj/vertex_index_zero.obj", "line 4: vertex index 0 is invalid (OBJ indices start at 1)"},
    {R::obj, "obj/negative_index_out_of_range.obj", "line 4: vertex index -4 is out of range"},
    {R::obj, "obj/index_overflow.obj", "line 4: expected a vertex index (an integer), got '99999999999999999999'"},
    {R::obj, "obj/face_before_vertices.obj", "line 1: vertex index 1 is out of range: no vertices defined so far"},
    {R::obj, "obj/nan_coordinate.obj", "line 2: x coordinate is not finite ('nan')"},
    {R::obj, "obj/inf_coordinate.obj", "line 3: y coordinate is not finite ('-inf')"},
    {R::obj, "obj/overflow_coordinate.obj", "line 2: x coordinate is not finite ('1e999')"},
    {R::obj, "obj/non_numeric_coordinate.obj", "line 2: expected y coordinate, got 'zero'"},
    {R::obj, "obj/non_numeric_index.obj", "line 4: expected a vertex index (an integer), got 'three'"},
    {R::obj, "obj/texture_index_out_of_range.obj", "line 5: texture coordinate index 5 is out of range"},
    {R::obj, "obj/normal_index_out_of_range.obj", "line 5: normal index 2 is out of range"},
    {R::obj, "obj/malformed_corner.obj", "line 4: malformed face corner '1//'"},
    {R::obj, "obj/binary_garbage.obj", "line 2: contains a NUL byte: binary data, not a text OBJ file"},
    {R::obj, "obj/binary_garbage_no_nul.obj", "line 1: unknown statement"},
    {R::obj, "obj/binary_after_text.obj", "line 6: contains a NUL byte"},
    // ------------------------------------------------------------------- OBJ as 2D mesh
    {R::obj2d, "obj2d/empty.obj", "file is empty"},
    {R::obj2d, "obj2d/not_planar.obj", "vertex 2 has z = 1 but vertex 0 has z = 0: not a planar"},
    {R::obj2d, "obj2d/no_faces.obj", "no faces: a 2D mesh needs triangles"},
    {R::obj2d, "obj2d/vertex_index_out_of_range.obj", "line 4: vertex index 4 is out of range"},
    {R::obj2d, "obj2d/nan_z.obj", "line 1: z coordinate is not finite ('nan')"},
    // ------------------------------------------------------------------------------ OFF
    {R::off, "off/empty.off", "file is empty (not an OFF file)"},
    {R::off, "off/bad_header.off", "line 1: expected the header 'OFF', got 'OFX'"},
    {R::off, "off/four_dimensional.off", "line 1: header '4OFF': only 3D OFF files are supported"},
    {R::off, "off/binary.off", "line 1: binary OFF is not supported"},
    {R::off, "off/missing_counts.off", "unexpected end of file: missing the counts line"},
    {R::off, "off/truncated_vertices.off", "line 2: declares 4 vertices but only 12 bytes follow"},
    {R::off, "off/truncated_mid_vertex.off", "line 5: missing z coordinate"},
    {R::off, "off/truncated_faces.off", "unexpected end of file: expected 3 faces, found 1"},
    {R::off, "off/more_faces_than_declared.off", "line 8: unexpected content '3 0 1 3' after the 1 declared faces"},
    {R::off, "off/huge_vertex_count.off", "line 2: vertex count 1099511627776 is out of range"},
    {R::off, "off/large_vertex_count.off", "line 2: declares 2000000000 vertices but only 6 bytes follow"},
    {R::off, "off/large_face_count.off", "line 2: declares 2000000000 faces"},
    {R::off, "off/negative_count.off", "line 2: vertex count -3 is out of range"},
    {R::off, "off/vertex_index_out_of_range.off", "line 7: vertex index 12 is out of range [0, 3]"},
    {R::off, "off/negative_vertex_index.off", "line 7: vertex index -1 is out of range [0, 3]"},
    {R::off, "off/nan_coordinate.off", "line 4: y coordinate is not finite ('nan')"},
    {R::off, "off/inf_coordinate.off", "line 6: z coordinate is not finite ('inf')"},
    {R::off, "off/face_with_two_corners.off", "line 7: face has 2 corners"},
    {R::off, "off/huge_corner_count.off", "line 7: face corner count 99999999999 is out of range"},
    {R::off, "off/non_numeric.off", "line 5: expected y coordinate, got 'one'"},
    {R::off, "off/binary_garbage.off", "contains a NUL byte"},
    // ------------------------------------------------------------------------------ PLY
    {R::ply, "ply/empty.ply", "file is empty (not a PLY file)"},
    {R::ply, "ply/not_ply.ply", "line 1: expected 'ply', got 'OFF' (not a PLY file"},
    {R::ply, "ply/binary_garbage.ply", "line 1: expected 'ply', got '"},
    {R::ply, "ply/control_character_in_header.ply", "line 3: control character in the header"},
    {R::ply, "ply/unknown_format.ply", "line 2: unknown format 'binary_middle_endian'"},
    {R::ply, "ply/version_2.ply", "line 2: format version '2.0' is not supported (1.0 is)"},
    {R::ply, "ply/unknown_type.ply", "line 5: unknown property type 'float16'"},
    {R::ply, "ply/float_list_count.ply", "line 9: list count type 'float' is not an integer type"},
    {R::ply, "ply/no_end_header.ply", "line 9: unexpected end of file: missing 'end_header'"},
    {R::ply, "ply/missing_z.ply", "line 4: element 'vertex' has no property 'z'"},
    {R::ply, "ply/point_cloud.ply", "no 'face' element: a point cloud (8 vertices, no faces) is not a surface"},
    {R::ply, "ply/no_vertex_indices.ply", "line 8: element 'face' has no list property 'vertex_indices'"},
    {R::ply, "ply/huge_vertex_count.ply", "line 4: vertex count 1000000000000 is out of range [0, 2147483647]"},
    {R::ply, "ply/large_vertex_count_binary.ply",
     "line 4: element 'vertex' declares 2000000000 records of at least 12 bytes but only 198 bytes are left"},
    {R::ply, "ply/large_face_count.ply",
     "line 8: element 'face' declares 2000000000 records of at least 2 bytes but only 61 bytes are left"},
    {R::ply, "ply/huge_unknown_element.ply",
     "line 10: element 'edge' declares 1000000000000 records of at least 4 bytes but only 96 bytes are left"},
    {R::ply, "ply/truncated_binary.ply",
     "byte 365: truncated file: face 4, property 'vertex_indices' lists 4 int items but only 3 bytes remain"},
    {R::ply, "ply/trailing_data_binary.ply", "byte 399: 4 bytes of trailing data after the last element"},
    {R::ply, "ply/more_faces_than_declared.ply", "line 24: unexpected content '4' after the last element"},
    {R::ply, "ply/nan_coordinate_big_endian.ply", "byte 238: vertex 3, property 'y' is not finite (nan)"},
    {R::ply, "ply/inf_coordinate.ply", "line 16: vertex 5, property 'z' is not finite (inf)"},
    {R::ply, "ply/non_numeric.ply", "line 13: vertex 2, property 'x': expected a number, got 'one'"},
    {R::ply, "ply/vertex_index_out_of_range.ply", "line 20: face 1: vertex index 8 is out of range [0, 7]"},
    {R::ply, "ply/negative_vertex_index_binary.ply", "byte 302: face 0: vertex index -1 is out of range [0, 7]"},
    {R::ply, "ply/uint_index_overflow.ply", "byte 396: face 5: vertex index 4294967295 is out of range [0, 7]"},
    {R::ply, "ply/negative_list_count.ply", "line 23: face 4, property 'vertex_indices': negative list count -4"},
    {R::ply, "ply/face_with_two_corners.ply", "line 22: face 3 has 2 corners; at least 3 are needed"},
    {R::ply, "ply/ascii_with_binary_data.ply", "line 11: contains a NUL byte: binary data, not a text PLY file"},
    // ---------------------------------------------------------------------------- Medit
    {R::mesh, "mesh/empty.mesh", "file is empty (not a Medit .mesh file)"},
    {R::mesh, "mesh/no_version.mesh", "line 1: expected 'MeshVersionFormatted', got 'Dimension'"},
    {R::mesh, "mesh/truncated_header.mesh", "line 1: unexpected end of file: missing mesh version"},
    {R::mesh, "mesh/truncated_vertices.mesh", "line 4: declares 8 vertices but only 44 bytes follow"},
    {R::mesh, "mesh/truncated_tetrahedra.mesh", "line 14: declares 6 tetrahedra but only 49 bytes follow"},
    {R::mesh, "mesh/huge_vertex_count.mesh", "line 4: vertex count 1099511627776 is out of range"},
    {R::mesh, "mesh/large_vertex_count.mesh", "line 4: declares 2000000000 vertices"},
    {R::mesh, "mesh/large_tet_count.mesh", "line 14: declares 2000000000 tetrahedra"},
    {R::mesh, "mesh/more_vertices_declared.mesh", "line 13: expected vertex coordinate, got 'Tetrahedra'"},
    {R::mesh, "mesh/fewer_vertices_declared.mesh", "line 12: expected a keyword, got the number '1'"},
    {R::mesh, "mesh/tet_index_out_of_range.mesh", "line 15: vertex index 12 is out of range [1, 8]"},
    {R::mesh, "mesh/negative_tet_index.mesh", "line 15: vertex index -2 is out of range [1, 8]"},
    {R::mesh, "mesh/zero_tet_index.mesh", "line 15: vertex index 0 is out of range [1, 8]"},
    {R::mesh, "mesh/nan_vertex.mesh", "line 12: vertex coordinate is not finite ('nan')"},
    {R::mesh, "mesh/inf_vertex.mesh", "line 12: vertex coordinate is not finite ('inf')"},
    {R::mesh, "mesh/non_numeric_vertex.mesh", "line 12: expected vertex coordinate, got 'one'"},
    {R::mesh, "mesh/surface_only.mesh", "no tetrahedra: a 3D surface mesh (Triangles only) is not a volume mesh"},
    {R::mesh, "mesh/quads_only_2d.mesh", "no triangles in a 2D (Dimension 2) file"},
    {R::mesh, "mesh/tetrahedra_in_2d.mesh", "line 14: 'Tetrahedra' in a 2D (Dimension 2) file"},
    {R::mesh, "mesh/dimension_4.mesh", "line 2: dimension 4 is out of range [2, 3]"},
    {R::mesh, "mesh/vertices_before_dimension.mesh", "line 2: 'Vertices' before 'Dimension'"},
    {R::mesh, "mesh/unknown_keyword.mesh", "line 13: unknown keyword 'Tetrahedrons'"},
    {R::mesh, "mesh/no_vertices.mesh", "no 'Vertices' block"},
    {R::mesh, "mesh/binary_garbage.mesh", "line 3: contains a NUL byte"},
    // ----------------------------------------------------------------------------- Gmsh
    {R::msh, "msh/empty.msh", "file is empty (not a Gmsh .msh file)"},
    {R::msh, "msh/not_msh.msh", "line 1: expected '$MeshFormat', got 'hello world'"},
    {R::msh, "msh/truncated_header.msh", "unexpected end of file: missing '$EndMeshFormat'"},
    {R::msh, "msh/version_4_0.msh", "line 2: format version 4.0 is not supported"},
    {R::msh, "msh/version_3.msh", "line 2: format version '3.0' is not supported"},
    {R::msh, "msh/ascii22_truncated_nodes.msh", "line 5: declares 8 nodes but only 53 bytes follow"},
    {R::msh, "msh/ascii22_fewer_nodes_than_declared.msh", "line 14: expected node tag (an integer), got '$EndNodes'"},
    {R::msh, "msh/ascii22_more_nodes_than_declared.msh", "line 13: expected '$EndNodes', got '8 1 1 1'"},
    {R::msh, "msh/ascii22_huge_node_count.msh", "line 5: node count 1099511627776 is out of range"},
    {R::msh, "msh/ascii22_large_node_count.msh", "line 5: declares 2000000000 nodes"},
    {R::msh, "msh/ascii22_large_element_count.msh", "line 16: declares 2000000000 elements"},
    {R::msh, "msh/ascii22_undefined_node.msh", "line 22: element 6 references node tag 12, which is not defined"},
    {R::msh, "msh/ascii22_negative_node_tag.msh", "line 22: node tag -7 in element 6 is invalid"},
    {R::msh, "msh/ascii22_nan_node.msh", "line 13: node coordinate is not finite ('nan')"},
    {R::msh, "msh/ascii22_inf_node.msh", "line 13: node coordinate is not finite ('-inf')"},
    {R::msh, "msh/ascii22_duplicate_node_tag.msh", "line 13: node tag 7 is defined twice"},
    {R::msh, "msh/ascii22_element_missing_node.msh", "line 22: element 6 of type 4 has 8 values"},
    {R::msh, "msh/ascii22_huge_tag_count.msh",
     "line 22: element 6 declares 9223372036854775807 tags but its line has only 9 values"},
    {R::msh, "msh/ascii22_non_numeric_element.msh", "line 22: expected an integer in the element line, got 'five'"},
    {R::msh, "msh/ascii22_surface_not_planar.msh", "has triangles but no tetrahedra, and its nodes are not planar"},
    {R::msh, "msh/ascii22_quads_only.msh", "no triangles (type 2) or tetrahedra (type 4); element types found: 3"},
    {R::msh, "msh/ascii22_no_elements.msh", "no $Elements section"},
    {R::msh, "msh/ascii22_elements_before_nodes.msh", "line 4: $Elements before $Nodes"},
    {R::msh, "msh/ascii22_missing_end_section.msh", "line 14: expected '$EndNodes', got '$Elements'"},
    {R::msh, "msh/binary22_truncated.msh",
     "byte 304: truncated file: 6 binary elements needs 168 bytes but only 139 remain"},
    {R::msh, "msh/binary22_big_endian.msh", "byte 20: big-endian binary .msh files are not supported"},
    {R::msh, "msh/binary22_bad_element_type.msh", "byte 296: element type 999 is unknown"},
    {R::msh, "msh/binary22_too_many_elements_following.msh",
     "byte 300: number of elements following 60 is out of range [1, 6]"},
    {R::msh, "msh/binary22_large_node_count.msh", "truncated file: 2000000000 binary nodes needs 56000000000 bytes"},
    {R::msh, "msh/binary22_nan_node.msh", "byte 257: node coordinate is not finite"},
    {R::msh, "msh/binary22_undefined_node.msh", "element 6 references node tag 12, which is not defined"},
    {R::msh, "msh/ascii41_node_count_mismatch.msh", "the node blocks hold 8 nodes but the header declares 9"},
    {R::msh, "msh/ascii41_huge_node_count.msh", "line 9: node count 1099511627776 is out of range"},
    {R::msh, "msh/ascii41_large_block_count.msh", "line 9: declares 2000000000 node blocks"},
    {R::msh, "msh/ascii41_node_tag_zero.msh", "node tag 0 is invalid (tags start at 1)"},
    {R::msh, "msh/ascii41_unknown_element_type.msh", "element type 77 is not supported"},
    {R::msh, "msh/ascii41_element_count_mismatch.msh", "the element blocks hold 6 elements but the header declares 7"},
    {R::msh, "msh/binary41_truncated.msh", "byte 219: truncated file: 8 binary nodes needs 256 bytes"},
    {R::msh, "msh/binary41_huge_node_count.msh", "byte 183: node count 1099511627776 is out of range"},
    {R::msh, "msh/binary41_large_element_count.msh", "declares 2000000000 elements"},
    {R::msh, "msh/binary41_garbage_node_tags.msh", "references node tag 1, which is not defined in $Nodes"},
    {R::msh, "msh/binary_garbage.msh", "line 1: expected '$MeshFormat'"},
    {R::msh, "msh/garbage_after_header.msh", "byte 40: expected a section such as '$Nodes'"},
    // --------------------------------------------------------------- TetGen .node/.ele
    {R::tetgen, "tetgen/empty_node", "file is empty (not a TetGen .node file)", "tetgen/empty_node.node"},
    {R::tetgen, "tetgen/empty_ele", "file is empty (not a TetGen .ele file)", "tetgen/empty_ele.ele"},
    {R::tetgen, "tetgen/dimension_4", "line 1: dimension 4 is out of range [2, 3]", "tetgen/dimension_4.node"},
    {R::tetgen, "tetgen/truncated_nodes", "line 1: declares 8 nodes but only 39 bytes follow",
     "tetgen/truncated_nodes.node"},
    {R::tetgen, "tetgen/truncated_mid_node", "line 1: declares 8 nodes", "tetgen/truncated_mid_node.node"},
    {R::tetgen, "tetgen/more_nodes_than_declared", "line 9: unexpected content '7 1 1 1' after the 7 declared nodes",
     "tetgen/more_nodes_than_declared.node"},
    {R::tetgen, "tetgen/huge_node_count", "line 1: node count 1099511627776 is out of range",
     "tetgen/huge_node_count.node"},
    {R::tetgen, "tetgen/large_node_count", "line 1: declares 2000000000 nodes", "tetgen/large_node_count.node"},
    {R::tetgen, "tetgen/large_element_count", "line 1: declares 2000000000 elements", "tetgen/large_element_count.ele"},
    {R::tetgen, "tetgen/nan_node", "line 9: node coordinate is not finite ('nan')", "tetgen/nan_node.node"},
    {R::tetgen, "tetgen/inf_node", "line 9: node coordinate is not finite ('inf')", "tetgen/inf_node.node"},
    {R::tetgen, "tetgen/non_consecutive_nodes", "line 5: node index is 4, expected 3",
     "tetgen/non_consecutive_nodes.node"},
    {R::tetgen, "tetgen/base_2", "line 2: first node index (the file's base, 0 or 1) 2 is out of range",
     "tetgen/base_2.node"},
    {R::tetgen, "tetgen/element_index_out_of_range", "line 7: node index 12 is out of range [0, 7]",
     "tetgen/element_index_out_of_range.ele"},
    {R::tetgen, "tetgen/negative_element_index", "line 7: node index -6 is out of range [0, 7]",
     "tetgen/negative_element_index.ele"},
    {R::tetgen, "tetgen/quadratic_elements", "line 1: elements have 10 nodes but the 3D .node file needs 4",
     "tetgen/quadratic_elements.ele"},
    {R::tetgen, "tetgen/triangles_in_3d", "line 1: elements have 3 nodes but the 3D .node file needs 4",
     "tetgen/triangles_in_3d.ele"},
    {R::tetgen, "tetgen/more_elements_than_declared",
     "line 7: unexpected content '5 0 6 4 7' after the 5 declared elements", "tetgen/more_elements_than_declared.ele"},
    {R::tetgen, "tetgen/truncated_elements", "line 1: declares 6 elements", "tetgen/truncated_elements.ele"},
    {R::tetgen, "tetgen/non_numeric_element", "line 7: expected node index (an integer), got 'six'",
     "tetgen/non_numeric_element.ele"},
    {R::tetgen, "tetgen/binary_garbage_node", "contains a NUL byte: binary data, not a text TetGen .node file",
     "tetgen/binary_garbage_node.node"},
    {R::tetgen, "tetgen/binary_garbage_ele", "contains a NUL byte: binary data, not a text TetGen .ele file",
     "tetgen/binary_garbage_ele.ele"},
    // ------------------------------------------------------------------------------ TGF
    {R::tgf, "tgf/empty.tgf", "file is empty (not a TGF file)"},
    {R::tgf, "tgf/no_vertices.tgf", "no vertices: not a TGF handle file"},
    {R::tgf, "tgf/truncated_vertex.tgf", "line 2: missing z coordinate"},
    {R::tgf, "tgf/nan_vertex.tgf", "line 2: x coordinate is not finite ('nan')"},
    {R::tgf, "tgf/inf_vertex.tgf", "line 2: y coordinate is not finite ('inf')"},
    {R::tgf, "tgf/vertex_out_of_order.tgf", "line 2: vertex index is 4, expected 2"},
    {R::tgf, "tgf/edge_index_out_of_range.tgf", "line 6: edge end (a vertex index) 12 is out of range [1, 3]"},
    {R::tgf, "tgf/edge_index_zero.tgf", "line 6: edge end (a vertex index) 0 is out of range [1, 3]"},
    {R::tgf, "tgf/negative_edge_index.tgf", "line 6: edge end (a vertex index) -2 is out of range [1, 3]"},
    {R::tgf, "tgf/self_edge.tgf", "line 6: edge joins vertex 3 to itself"},
    {R::tgf, "tgf/bad_edge_flag.tgf", "line 6: edge flag must be 0 or 1, got '2'"},
    {R::tgf, "tgf/edge_missing_end.tgf", "line 6: missing edge end (a vertex index)"},
    {R::tgf, "tgf/non_numeric_vertex.tgf", "line 3: expected y coordinate, got 'one'"},
    {R::tgf, "tgf/vertex_after_edges.tgf", "line 7: edge end (a vertex index) 4 is out of range [1, 3]"},
    {R::tgf, "tgf/binary_garbage.tgf", "line 2: contains a NUL byte"},
    // ----------------------------------------------------------------------------- DMAT
    {R::dmat, "dmat/empty.dmat", "file is empty (not a DMAT file)"},
    {R::dmat, "dmat/bad_header.dmat", "line 1: expected the header '<cols> <rows>', got 'two three'"},
    {R::dmat, "dmat/header_one_number.dmat", "line 1: expected the header '<cols> <rows>', got '3'"},
    {R::dmat, "dmat/negative_size.dmat", "line 1: bad size -1 columns x 3 rows"},
    {R::dmat, "dmat/huge_size.dmat", "line 1: bad size 1099511627776 columns x 1 rows"},
    {R::dmat, "dmat/large_size.dmat",
     "line 1: header declares 1 x 2000000000 = 2000000000 values but only 4 bytes follow"},
    {R::dmat, "dmat/too_few_values.dmat", "unexpected end of file: expected 6 values (3 rows x 2 columns), found 5"},
    {R::dmat, "dmat/too_many_values.dmat", "line 5: more than the 3 values declared by the header '1 3' (extra '4')"},
    {R::dmat, "dmat/nan_value.dmat", "line 3: value 'nan' is not finite"},
    {R::dmat, "dmat/inf_value.dmat", "line 4: value '-inf' is not finite"},
    {R::dmat, "dmat/non_numeric_value.dmat", "line 3: expected a number, got 'two'"},
    {R::dmat, "dmat/binary_garbage.dmat", "contains a NUL byte: binary data, not a text DMAT file"},
    {R::dmat, "dmat/binary_truncated.dmat", "binary block has 43 bytes but 3 x 2 doubles need 48 (truncated file)"},
    {R::dmat, "dmat/binary_trailing_data.dmat", "binary block has 50 bytes but 3 x 2 doubles need 48 (trailing data)"},
    {R::dmat, "dmat/binary_nan.dmat", "byte 40: value (1, 1) is not finite"},
    {R::dmat, "dmat/binary_large_size.dmat", "binary block has 16 bytes but 1 x 2000000000 doubles need 16000000000"},
    {R::dmat, "dmat/binary_bad_second_header.dmat", "line 2: expected the header '<cols> <rows>', got 'x y'"},
    {R::dmat, "dmat/binary_wrapping_size.dmat",
     "binary block has 16 bytes but 2147483647 x 1073741825 doubles need 2305843010287435775 x 8 (truncated file)"},
    // ------------------------------------------------------------------------------ PC2
    {R::pc2, "pc2/empty.pc2", "file is empty (not a PC2 point cache)"},
    {R::pc2, "pc2/bad_magic.pc2", "bad magic 'POINTCACHE3?'"},
    {R::pc2, "pc2/truncated_header.pc2", "truncated header: 20 bytes, a PC2 header has 32"},
    {R::pc2, "pc2/bad_version.pc2", "byte 12: version 2 is not supported"},
    {R::pc2, "pc2/negative_points.pc2", "byte 16: negative point count -2"},
    {R::pc2, "pc2/negative_samples.pc2", "byte 28: negative sample count -1"},
    {R::pc2, "pc2/huge_counts.pc2",
     "file has 80 bytes but its header (1073741824 points x 1073741824 samples) needs exactly 13835058055282163744"},
    {R::pc2, "pc2/truncated_data.pc2",
     "file has 74 bytes but its header (2 points x 2 samples) needs exactly 80 (truncated file"},
    {R::pc2, "pc2/trailing_data.pc2",
     "file has 92 bytes but its header (2 points x 2 samples) needs exactly 80 (trailing data"},
    {R::pc2, "pc2/nan_value.pc2", "byte 44: sample 0, point 1, coordinate 0 is not finite"},
    {R::pc2, "pc2/inf_start.pc2", "byte 20: start frame is not finite"},
    {R::pc2, "pc2/zero_sample_rate.pc2", "byte 24: sample rate 0.000000 is not a positive number"},
    {R::pc2, "pc2/binary_garbage.pc2", "bad magic"},
    {R::pc2, "pc2/fuzz_oom_zero_points.pc2", "byte 28: 101056544 samples of 0 points"},  // fuzz_pc2 artifact (OOM)
    {R::pc2, "pc2/zero_points_many_samples.pc2",
     "byte 28: 100000000 samples of 0 points (corrupt counts"},  // fuzz_pc2 finding
    // ------------------------------------------------------------- 2D animation (text)
    {R::anim2d, "anim2d/empty.txt", "file is empty (not an animation file)"},
    {R::anim2d, "anim2d/truncated_header.txt", "line 1: unexpected end of file: missing handle count"},
    {R::anim2d, "anim2d/truncated_data.txt", "line 1: declares 18 values but only 33 bytes follow"},
    {R::anim2d, "anim2d/zero_frames.txt", "line 1: frame count 0 is out of range [1, 100000000]"},
    {R::anim2d, "anim2d/huge_frame_count.txt", "line 1: declares 900000000 values but only 6 bytes follow"},
    {R::anim2d, "anim2d/huge_handle_count.txt", "line 1: handle count 1099511627776 is out of range [1, 100000]"},
    {R::anim2d, "anim2d/negative_handle_count.txt", "line 1: handle count -2 is out of range"},
    {R::anim2d, "anim2d/nan_value.txt", "line 3: frame value is not finite ('nan')"},
    {R::anim2d, "anim2d/inf_value.txt", "line 3: frame value is not finite ('inf')"},
    {R::anim2d, "anim2d/non_numeric.txt", "line 3: expected frame value, got 'one'"},
    {R::anim2d, "anim2d/extra_values.txt", "line 5: unexpected extra value '1' after the last frame"},
    {R::anim2d, "anim2d/binary_garbage.txt", "line 2: contains a NUL byte"},
    // ------------------------------------------------------------- 3D animations (text)
    {R::bones3d, "anim3d/bones_empty.txt", "file is empty (not an animation file)"},
    {R::bones3d, "anim3d/bones_truncated.txt", "line 12: unexpected end of file: missing bone angle"},
    {R::bones3d, "anim3d/bones_huge_frame_count.txt", "line 1: declares 1199999988 values but only 6 bytes follow"},
    {R::bones3d, "anim3d/bones_huge_bone_count.txt", "line 1: bone count 1099511627776 is out of range [1, 100000]"},
    {R::bones3d, "anim3d/bones_zero_bones.txt", "line 1: bone count 0 is out of range"},
    {R::bones3d, "anim3d/bones_nan.txt", "line 13: bone angle is not finite ('nan')"},
    {R::bones3d, "anim3d/bones_extra_values.txt", "line 14: unexpected extra value '0' after the last frame"},
    {R::bones3d, "anim3d/bones_non_numeric.txt", "line 9: expected bone angle, got 'ten'"},
    {R::bones3d, "anim3d/binary_garbage.txt", "line 2: contains a NUL byte"},
    {R::points3d, "anim3d/points_empty.txt", "file is empty (not an animation file)"},
    {R::points3d, "anim3d/points_truncated.txt", "line 7: unexpected end of file: missing angle"},
    {R::points3d, "anim3d/points_huge_frame_count.txt", "line 1: declares 1200000000 values but only 12 bytes follow"},
    {R::points3d, "anim3d/points_huge_handle_count.txt", "line 1: handle count 1099511627776 is out of range"},
    {R::points3d, "anim3d/points_nan.txt", "line 7: angle is not finite ('inf')"},
    {R::points3d, "anim3d/points_extra_values.txt", "line 8: unexpected extra value '0' after the last frame"},
    {R::points3d, "anim3d/binary_garbage.txt", "line 2: contains a NUL byte"},
    // ------------------------------------------------------------------------------ NPY
    {R::npy, "npy/empty.npy", "file too short to be a .npy file"},
    {R::npy, "npy/bad_magic.npy", "bad magic string (not a .npy file)"},
    {R::npy, "npy/bad_version.npy", "unsupported .npy format version 4.0"},
    {R::npy, "npy/truncated_prefix.npy", "file too short to be a .npy file"},
    {R::npy, "npy/header_length_beyond_file.npy", "header length exceeds file size"},
    {R::npy, "npy/truncated_header.npy", "header length exceeds file size"},
    {R::npy, "npy/unterminated_dict.npy", "header dictionary ends unexpectedly"},
    {R::npy, "npy/missing_shape_key.npy", "unexpected key 'shapf' in header"},
    {R::npy, "npy/unsupported_dtype.npy", "unsupported dtype '<f4' (need <f8, <i4 or <i8)"},
    {R::npy, "npy/object_dtype.npy", "unsupported dtype '|O'"},
    {R::npy, "npy/negative_shape.npy", "header 'shape' must be a tuple of non-negative integers"},
    {R::npy, "npy/huge_shape.npy",
     "shape (1099511627776, 1099511627776) of <f8 needs more than 2^64 bytes, file has 16 data bytes"},
    {R::npy, "npy/overflowing_shape.npy", "header 'shape' dimension too large"},
    {R::npy, "npy/truncated_data.npy", "shape (2, 3) of <f8 needs 48 bytes, file has 43 data bytes (truncated file"},
    {R::npy, "npy/trailing_data.npy", "shape (2, 3) of <f8 needs 48 bytes, file has 56 data bytes (trailing data)"},
    {R::npy, "npy/bad_fortran_order.npy", "header 'fortran_order' is not True or False"},
    {R::npy, "npy/non_ascii_header.npy", "non-ASCII header"},
    {R::npy, "npy/binary_garbage.npy", "bad magic string"},
    {R::npy, "npy/key_with_control_chars.npy", "unexpected key 'for??tran_order' in header"},  // fuzz_npy finding
    // ----------------------------------------------------------------------------- glTF
    {R::gltf, "gltf/accessor_missing.glb",
     "mesh 0 ('strip') primitive 0 POSITION: accessor 42 does not exist (the file has 8)"},
    {R::gltf, "gltf/animated_matrix_node.glb",
     "animation 'bend' channel 0: targets node 1 ('tip'), whose transform is a matrix (not animatable)"},
    {R::gltf, "gltf/bad_json.gltf",
     "not valid glTF: [json.exception.parse_error.101] parse error at line 1, column 41"},
    {R::gltf, "gltf/binary_garbage.glb", "not a glTF file (neither the binary 'glTF' magic nor a JSON object)"},
    {R::gltf, "gltf/channel_node_missing.glb", "animation 'bend' channel 0: target node 12 does not exist"},
    {R::gltf, "gltf/cubic_one_key.glb", "animation 'bend' channel 1: CUBICSPLINE needs at least 2 keys, has 1"},
    {R::gltf, "gltf/cubic_wrong_count.glb",
     "animation 'bend' channel 1: 2 output values for 2 keys (CUBICSPLINE needs 3 per key)"},
    {R::gltf, "gltf/draco_required.glb",
     "requires the extension KHR_draco_mesh_compression, which fastcd cannot decode"},
    {R::gltf, "gltf/empty.glb", "file is empty"},
    {R::gltf, "gltf/header_only.glb", "truncated .glb: the header declares 2084 bytes, the file has 12"},
    {R::gltf, "gltf/huge_count_without_view.glb",
     "POSITION: accessor 8: 1099511627776 elements without a buffer view is too many"},
    {R::gltf, "gltf/ibm_not_affine.glb",
     "skin 0 ('rig'): inverse bind matrix 0 is not affine (last row must be 0 0 0 1)"},
    {R::gltf, "gltf/ibm_singular.glb", "skin 0 ('rig'): inverse bind matrix 0 is singular"},
    {R::gltf, "gltf/ibm_too_few.glb", "skin 0 ('rig'): 1 inverse bind matrices for 2 joints"},
    {R::gltf, "gltf/index_out_of_range.glb",
     "mesh 0 ('strip') primitive 0: index 8 (entry 2) is beyond its 8 vertices"},
    {R::gltf, "gltf/indices_not_triangles.glb",
     "mesh 0 ('strip') primitive 0: 4 indices is not a whole number of triangles"},
    {R::gltf, "gltf/joint_listed_twice.glb", "skin 0 ('rig'): node 0 ('root') is listed twice as a joint"},
    {R::gltf, "gltf/joint_missing.glb", "skin 0 ('rig'): joint node 9 does not exist"},
    {R::gltf, "gltf/joint_out_of_range.glb",
     "primitive 0: vertex 2 names joint 7 (JOINTS_0), but the skin has 2 joints"},
    {R::gltf, "gltf/joints_without_weights.glb", "mesh 0 ('strip') primitive 0 has JOINTS_0 without its WEIGHTS_0"},
    {R::gltf, "gltf/mirrored_joint_matrix.glb",
     "node 0 ('root') (a joint of skin 0 ('rig')) has a negative scale (matrix determinant < 0)"},
    {R::gltf, "gltf/nan_position.glb", "POSITION: accessor 8 holds a non-finite value at element 1, component 1"},
    {R::gltf, "gltf/negative_scale_joint.glb",
     "node 1 ('tip') (a joint of skin 0 ('rig')) has a negative scale (1, -1, 1): mirrored joints are not supported"},
    {R::gltf, "gltf/negative_scale_key.glb",
     "animation 'bend' channel 1: scale key 1 of node 0 ('root') is negative (1, -1, 1)"},
    {R::gltf, "gltf/negative_time.glb", "animation 'bend' channel 0: key time -1 is negative"},
    {R::gltf, "gltf/no_meshes.glb", "the file has no meshes"},
    {R::gltf, "gltf/no_position.glb", "mesh 0 ('strip') primitive 0 has no POSITION attribute"},
    {R::gltf, "gltf/no_skin.glb",
     "no skinned mesh (no node has both a mesh and a skin): fastcd needs a rigged character"},
    {R::gltf, "gltf/node_cycle.glb", "node 0 ('root') is its own ancestor (a cycle in the node hierarchy)"},
    {R::gltf, "gltf/obj_text.glb", "not a glTF file"},
    {R::gltf, "gltf/position_past_view.glb",
     "POSITION: accessor 0 (9 elements from byte 0) reads past the end of its buffer view (96 bytes)"},
    {R::gltf, "gltf/sampler_missing.glb", "animation 'bend' channel 0: sampler 5 does not exist"},
    {R::gltf, "gltf/sparse_index_out_of_range.glb",
     "POSITION: accessor 8: sparse index 9 is beyond the accessor's 8 elements"},
    {R::gltf, "gltf/sparse_not_increasing.glb",
     "POSITION: accessor 8: sparse indices are not strictly increasing at entry 1"},
    {R::gltf, "gltf/sparse_values_short.glb",
     "POSITION: accessor 8: sparse values read past the end of their buffer view"},
    {R::gltf, "gltf/stride_too_small.glb", "POSITION: accessor 0: byteStride 8 is smaller than an element"},
    {R::gltf, "gltf/times_not_increasing.glb",
     "animation 'bend' channel 0: key times are not strictly increasing at key 1 (0.5, 0.5)"},
    {R::gltf, "gltf/truncated.glb", "truncated .glb: the header declares 2084 bytes, the file has 1984"},
    {R::gltf, "gltf/two_parents.glb", "node 1 ('tip') is a child of both node 0 ('root') and node 2 ('body')"},
    {R::gltf, "gltf/unknown_interpolation.glb", "animation 'bend' channel 1: unknown interpolation 'BEZIER'"},
    {R::gltf, "gltf/view_past_buffer.glb",
     "buffer view 0 (bytes 0 + 100000) runs past the end of buffer 0 (484 bytes): truncated file?"},
    {R::gltf, "gltf/weights_wrong_count.glb", "primitive 0: JOINTS_0 / WEIGHTS_0 have 8 / 7 entries for 8 vertices"},
    {R::gltf, "gltf/zero_weights.glb", "primitive 0: vertex 0 has joint weights summing to 0: no joint moves it"},
    // ------------------------------------------------------------- scenes (load_scene)
    // Side files live in scene/base/ (valid) and scene/side/ (broken); errors of a side file
    // come from its reader and name that file.
    {R::scene, "scene/empty.json", "not valid JSON"},
    {R::scene, "scene/not_json.json", "not valid JSON"},
    {R::scene, "scene/not_an_object.json", "the scene must be a JSON object"},
    {R::scene, "scene/missing_mesh_file.json", "missing \"mesh_file\""},
    {R::scene, "scene/missing_handle_file.json", "missing \"handle_file\""},
    {R::scene, "scene/missing_anim_file.json", "missing \"anim_file\""},
    {R::scene, "scene/missing_referenced_mesh.json", "\"mesh_file\" names a missing file"},
    {R::scene, "scene/missing_referenced_weights.json", "\"weight_file\" names a missing file"},
    {R::scene, "scene/mesh_file_not_a_string.json", "\"mesh_file\" must be a file name"},
    {R::scene, "scene/unsupported_mesh_format.json", "unsupported mesh format '.dmat'"},
    {R::scene, "scene/dt_zero.json", "dt must be > 0"},
    {R::scene, "scene/dt_negative.json", "dt must be > 0"},
    {R::scene, "scene/dt_not_a_number.json", "\"dt\" must be a number"},
    {R::scene, "scene/dt_overflow.json",
     "not valid JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'"},
    {R::scene, "scene/ym_overflow.json", "number overflow parsing '1e999'"},
    {R::scene, "scene/ym_zero.json", "YM must be > 0"},
    {R::scene, "scene/ym_negative.json", "YM must be > 0"},
    {R::scene, "scene/pr_half.json", "pr must lie in (-1, 0.5)"},
    {R::scene, "scene/pr_above_half.json", "pr must lie in (-1, 0.5)"},
    {R::scene, "scene/pr_minus_one.json", "pr must lie in (-1, 0.5)"},
    {R::scene, "scene/model_not_a_string.json", "\"model\" must be a string"},
    {R::scene, "scene/with_dynamics_string.json", "\"with_dynamics\" must be a number"},
    {R::scene, "scene/cage_rig.json", "cage scenes are 2D"},
    {R::scene, "scene/triangle_mesh_where_tets_required.json", "no tetrahedra: a 3D surface mesh",
     "scene/side/surface.mesh", "read_mesh"},
    {R::scene, "scene/surface_msh_where_tets_required.json",
     "has triangles but no tetrahedra, and its nodes are not planar", "scene/side/surface.msh", "read_msh"},
    {R::scene, "scene/quads_msh.json", "no triangles (type 2) or tetrahedra (type 4); element types found: 3",
     "scene/side/quads.msh", "read_msh"},
    {R::scene, "scene/mesh_index_out_of_range.json", "vertex index 12 is out of range [1, 8]",
     "scene/side/cube_bad_index.mesh", "read_mesh"},
    {R::scene, "scene/mesh_nan_vertex.json", "vertex coordinate is not finite ('nan')", "scene/side/cube_nan.mesh",
     "read_mesh"},
    {R::scene, "scene/all_vertices_coincide.json",
     "is degenerate (vertices 0, 1, 3, 7; rest volume 0, longest edge 0)"},
    {R::scene, "scene/weight_rows_mismatch.json", "the weights have 7 rows but the mesh has 8 vertices"},
    {R::scene, "scene/weight_cols_mismatch.json", "the weights have 3 columns for 2 handles"},
    {R::scene, "scene/weight_nan.json", "value 'nan' is not finite", "scene/side/weights_nan.dmat", "read_dmat"},
    {R::scene, "scene/anim_handles_mismatch.json", "the animation has 3 handles, the rig 2"},
    {R::scene, "scene/anim_bones_mismatch.json", "the animation has 1 bones, the rig 2"},
    {R::scene, "scene/anim2d_handles_mismatch.json", "the animation has 3 handles, the rig 2"},
    {R::scene, "scene/anim_wrong_format.json", "declares 36 values", "scene/base/anim2d.txt",
     "read_point_animation_3d"},
    {R::scene, "scene/mixed_points_and_bones.json",
     "mixed point handles and bones are not supported (1 points, 2 bones)"},
    {R::scene, "scene/handles_nan.json", "line 2: z coordinate is not finite ('nan')", "scene/side/bad.tgf",
     "read_tgf"},
    {R::scene, "scene/flat_mesh.json", "is degenerate (vertices"},
    {R::scene, "scene/degenerate_element.json", "is degenerate (vertices"},
    {R::scene, "scene/inverted_element.json", "is inverted: 1 of 6 elements are oriented opposite to the rest"},
    {R::scene, "scene/rho_negative.json", "rho must be > 0"},
};

class Malformed : public ::testing::TestWithParam<Case> {};

TEST_P(Malformed, RejectedWithANamedReadableError) {
  const Case& c = GetParam();
  const std::string file = corpus(c.file);
  const std::string named = corpus(c.names ? c.names : c.file);
  const std::string fn = std::string(c.fn ? c.fn : function_of(c.reader)) + ": ";
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run(c.reader, file);
    ADD_FAILURE() << c.file << ": expected a std::runtime_error mentioning '" << c.fragment << "'";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(fn, 0), 0u) << "message does not start with '" << fn << "': " << m;
    EXPECT_NE(m.find("'" + named + "'"), std::string::npos) << "message does not name " << named << ": " << m;
    EXPECT_NE(m.find(c.fragment), std::string::npos) << "expected '" << c.fragment << "' in: " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "message spans several lines: " << m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << c.file << ": expected a std::runtime_error, got another std::exception: " << e.what();
  }
  // Huge declared counts must be rejected from the header, not after allocating or parsing.
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 1.0) << c.file << " took " << s << " s";
}

// "<reader>_<file>": one file may serve two readers (anim3d/binary_garbage.txt).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::string(function_of(info.param.reader)) + "_" + info.param.file;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Malformed, ::testing::ValuesIn(kCases), case_name);

// A mesh oriented negatively throughout is a convention, not an inversion: it loads.
TEST(MalformedScene, UniformlyNegativeOrientationLoads) {
  const MeditMesh m = read_mesh(corpus("scene/base/cube.mesh"));
  MatrixXi T = m.T;
  T.col(0).swap(T.col(1));
  const fs::path dir = fs::temp_directory_path() / "fastcd-malformed-negative";
  fs::create_directories(dir);
  write_mesh((dir / "cube.mesh").string(), m.X, T);
  for (const char* f : {"points.tgf", "cube.dmat", "points_anim.txt"})
    fs::copy_file(corpus(std::string("scene/base/") + f), dir / f, fs::copy_options::overwrite_existing);
  {
    std::ofstream j(dir / "scene.json");
    j << R"({"mesh_file": "cube.mesh", "handle_file": "points.tgf", "weight_file": "cube.dmat",)"
      << R"( "anim_file": "points_anim.txt", "dt": 0.01, "YM": 10000.0, "pr": 0.3, "rho": 2.5})";
  }
  const Scene s = load_scene((dir / "scene.json").string());
  EXPECT_EQ(s.T.rows(), m.T.rows());
  EXPECT_DOUBLE_EQ(s.rho, 2.5);
  fs::remove_all(dir);
}

// A file name with a newline (fuzz_scene finding) still gives a one-line message.
TEST(MalformedScene, ControlCharactersInFileNamesStayOnOneLine) {
  const fs::path dir = fs::temp_directory_path() / "fastcd-malformed-newline";
  fs::create_directories(dir);
  {
    std::ofstream j(dir / "scene.json");
    j << R"({"mesh_file": "no\nsuch.mesh", "handle_file": "h.tgf", "anim_file": "a.txt", "dt": 0.01, "YM": 1e5, "pr": 0.3})";
  }
  try {
    load_scene((dir / "scene.json").string());
    ADD_FAILURE() << "loads";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("names a missing file"), std::string::npos) << m;
    EXPECT_NE(m.find("no?such.mesh"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

// The PC2 writer refuses what the reader refuses (samples without points), so every file it
// writes reads back.
TEST(MalformedCorpus, Pc2WriterRejectsSamplesWithoutPoints) {
  const std::string p = (fs::temp_directory_path() / "fastcd-malformed-never-written.pc2").string();
  EXPECT_THROW(write_pc2(p, {MatrixXd(0, 3), MatrixXd(0, 3)}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(p));
}

// Every corpus file has a row (so a new file cannot be forgotten), and every row has a file.
TEST(MalformedCorpus, EveryFileHasARowAndEveryRowAFile) {
  std::set<std::string> rows;
  for (const Case& c : kCases) {
    if (c.reader == Reader::tetgen) {
      rows.insert(std::string(c.file) + ".node");
      rows.insert(std::string(c.file) + ".ele");
    } else {
      rows.insert(c.file);
    }
  }
  for (const char* dir :
       {"obj", "obj2d", "off", "ply", "mesh", "msh", "tetgen", "tgf", "dmat", "pc2", "anim2d", "anim3d", "npy", "gltf"})
    for (const auto& e : fs::directory_iterator(corpus(dir))) {
      const std::string rel = std::string(dir) + "/" + e.path().filename().string();
      EXPECT_TRUE(rows.count(rel)) << rel << " has no row in kCases";
      rows.erase(rel);
    }
  std::set<std::string> scene_rows;
  for (const std::string& r : rows) {
    if (r.rfind("scene/", 0) != 0) {
      ADD_FAILURE() << r << " is listed but missing";
    } else {
      scene_rows.insert(r);
    }
  }
  // Scene JSONs: each has its row above.
  for (const auto& e : fs::directory_iterator(corpus("scene"))) {
    if (e.path().extension() == ".json") {
      EXPECT_TRUE(scene_rows.count("scene/" + e.path().filename().string())) << e.path() << " has no row";
    }
  }
}

// The valid files the corpus is derived from load (so each malformed case fails for its own
// reason, not because the base file was already broken).
TEST(MalformedCorpus, ValidBaseFilesLoad) {
  const std::vector<std::pair<Reader, const char*>> ok = {
      {R::obj, "valid/cube.obj"},
      {R::obj2d, "valid/square.obj"},
      {R::off, "valid/cube.off"},
      {R::ply, "valid/cube.ply"},
      {R::ply, "valid/cube_binary.ply"},
      {R::ply, "valid/cube_big_endian.ply"},
      {R::mesh, "valid/cube.mesh"},
      {R::mesh, "valid/square.mesh"},
      {R::msh, "valid/cube22.msh"},
      {R::msh, "valid/cube22_binary.msh"},
      {R::msh, "valid/cube41.msh"},
      {R::msh, "valid/cube41_binary.msh"},
      {R::msh, "valid/square22.msh"},
      {R::tetgen, "valid/cube"},
      {R::tgf, "valid/cube.tgf"},
      {R::dmat, "valid/cube.dmat"},
      {R::dmat, "valid/cube_binary.dmat"},
      {R::pc2, "valid/two_frames.pc2"},
      {R::anim2d, "valid/anim2d.txt"},
      {R::bones3d, "valid/bones_anim.txt"},
      {R::points3d, "valid/points_anim.txt"},
      {R::npy, "valid/matrix.npy"},
      {R::npy, "valid/ints.npy"},
      {R::gltf, "valid/strip.glb"},
      {R::gltf, "valid/strip.gltf"},
      {R::scene, "scene/base/cube.json"},
      {R::scene, "scene/base/cube_bones.json"},
      {R::scene, "scene/base/cube_msh.json"},
      {R::scene, "scene/base/cube_node.json"},
      {R::scene, "scene/base/square.json"},
  };
  for (const auto& [r, f] : ok) EXPECT_NO_THROW(run(r, corpus(f))) << f;
}

// fuzz_dmat artifact (a timeout of the harness's own finiteness check, not of the reader):
// "1143605202 0" is a valid empty DMAT, 0 rows x 1143605202 columns, read without allocating.
TEST(MalformedCorpus, EmptyDmatWithHugeColumnCountReadsInstantly) {
  const auto t0 = std::chrono::steady_clock::now();
  const MatrixXd W = read_dmat(corpus("valid/zero_rows_many_columns.dmat"));
  EXPECT_EQ(W.rows(), 0);
  EXPECT_EQ(W.cols(), 1143605202);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

}  // namespace test_malformed
}  // namespace fastcd
