#pragma once
// Mesh files: Wavefront OBJ, OFF, Medit .mesh, Gmsh .msh (2.2 / 4.1, ASCII / binary) and
// TetGen .node/.ele (PLY surfaces: ply_io.hpp; read_surface reads any of OBJ, OFF and PLY).
//
// Conventions (all formats):
//   * indices in memory are 0-based; the file's own base (1-based OBJ/Medit/Gmsh tags, 0- or
//     1-based TetGen) is converted on reading and writing;
//   * simulation meshes are returned as fastcd::Mesh {X, T}: X is #V x dim, T is #T x (dim+1)
//     (triangles in 2D, tetrahedra in 3D), vertices in the file's order;
//   * writers print every double with the shortest text that reads back to the same bits,
//     so every text round trip is exact, and write atomically (write_file_atomically);
//   * readers never allocate more than a small multiple of the file size: every count in a
//     header is checked against the bytes that follow before anything is reserved.
//
// Errors: readers throw std::runtime_error naming the function, the file, the line (text) or
// byte offset (binary) and the problem (missing/unreadable/empty file, truncation, wrong or
// huge counts, non-numbers, NaN/Inf, out-of-range or negative indices, wrong element types,
// binary garbage). Writers throw std::invalid_argument for bad arguments (shapes, non-finite
// values, indices out of range) and std::runtime_error when the file cannot be written.
#include <Eigen/Core>
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// A polygon surface: positions and triangles (polygons are fan-triangulated on reading).
struct SurfaceMesh {
  MatrixXd V;  ///< #V x 3 vertex positions
  MatrixXi F;  ///< #F x 3 triangles, 0-based
};

// ------------------------------------------------------------------------------------ OBJ

/// Reads a Wavefront OBJ surface: `v x y z [w | r g b]` (extra values ignored), `f` with the
/// forms `a`, `a/t`, `a//n`, `a/t/n` and negative (relative) indices; polygons with k > 3
/// corners become k - 2 triangles (fan from the first corner, (0, i, i+1)); `vt`, `vn`, `vp`,
/// `g`, `o`, `s`, `l`, `usemtl`, `mtllib` and unknown statements are skipped; `#` starts a
/// comment. Texture and normal indices are validated against the `vt` / `vn` counts.
/// @param path  .obj file.
/// @return V (#V x 3) and F (#F x 3).
/// @throws std::runtime_error for a missing/empty/binary file, a malformed or non-finite
///         number, a face with fewer than 3 corners, an index of 0 or out of range, or a file
///         without vertices.
SurfaceMesh read_obj(const std::string& path);

/// Reads a planar OBJ (all z equal, e.g. the 2D examples of Complementary Dynamics) as a 2D
/// triangle mesh, dropping the constant z.
/// @return X (#V x 2) and T (#T x 3), triangles as in the file (fan-triangulated).
/// @throws std::runtime_error as read_obj, if there are no faces, or if z is not constant
///         ("vertex i has z = a but vertex 0 has z = b").
Mesh read_obj_2d(const std::string& path);

/// Writes `v` and `f` lines (1-based). A #V x 2 V is written with z = 0.
/// @param V  #V x 2 or #V x 3 finite positions.
/// @param F  #F x k polygons (k >= 3), indices in [0, #V).
/// @throws std::invalid_argument for bad shapes, non-finite V or out-of-range F.
/// @throws std::runtime_error if the file cannot be written.
void write_obj(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F);

// ------------------------------------------------------------------------------------ OFF

/// Reads an OFF surface: header `OFF` (also `COFF`, `NOFF`, `CNOFF`, `STOFF`...; the counts
/// may follow on the header line), counts line `#V #F [#E]`, vertex lines `x y z [colour]`,
/// face lines `k i1 ... ik [colour]` (0-based, fan-triangulated). `#` starts a comment
/// anywhere; blank lines are skipped. Colours, normals and texture coordinates are ignored.
/// @throws std::runtime_error as read_obj, plus `4OFF`/`nOFF` (not 3D) and count mismatches.
SurfaceMesh read_off(const std::string& path);

/// Writes `OFF`, the counts and 0-based faces. A #V x 2 V is written with z = 0.
/// @throws as write_obj.
void write_off(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F);

// -------------------------------------------------------------------------------- Medit

/// A Medit mesh: the simulation mesh plus the file's Triangles block.
struct MeditMesh : Mesh {
  /// #F x 3 `Triangles` of a 3D file, 0-based, exactly as listed. Caution: some files list
  /// every tet face here (interior ones too) and others only the boundary; take the surface
  /// from T (boundary_facets) instead. Empty for 2D files (their triangles are T).
  MatrixXi F;
};

/// Reads a Medit .mesh file (ASCII, `MeshVersionFormatted` 1 to 4): `Dimension 3` (or 2),
/// `Vertices`, `Triangles`, `Tetrahedra`, each a count followed by records that end with a
/// reference number (ignored); indices are 1-based; `Edges`, `Corners`, `Ridges`,
/// `Required*`, `Normals`, `Quadrilaterals`, `Hexahedra`... are skipped; `#` starts a
/// comment; `End` ends the file. Keywords and numbers may be split across lines.
/// @return 3D files: X #V x 3, T #T x 4 tets, F the Triangles block.
///         2D files: X #V x 2, T #T x 3 the triangles, F empty.
/// @throws std::runtime_error as read_obj, plus a missing Dimension/Vertices, a 3D file
///         without Tetrahedra (a surface mesh), a 2D file without Triangles, or huge counts.
MeditMesh read_mesh(const std::string& path);

/// Writes a Medit .mesh (MeshVersionFormatted 1, references 0; Dimension = X.cols()).
/// @param X  #V x 3 (with T #T x 4 tets) or #V x 2 (with T #T x 3 triangles), finite.
/// @param F  optional #F x 3 triangles written as the Triangles block of a 3D file.
/// @throws std::invalid_argument for bad shapes, non-finite X, out-of-range T/F, or F given
///         for a 2D mesh.
void write_mesh(const std::string& path, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
                const Eigen::Ref<const MatrixXi>& F = MatrixXi(0, 3));

// --------------------------------------------------------------------------------- Gmsh

/// A Gmsh mesh: the simulation mesh plus the physical group of every element.
struct MshMesh : Mesh {
  /// #T physical tag of each element (2.2: the element's first tag; 4.1: the first physical
  /// tag of the element's entity); 0 when the element has none.
  VectorXi physical;
};

/// Version and encoding of a .msh file.
enum class MshFormat { V22Ascii, V22Binary, V41Ascii, V41Binary };

/// Reads a Gmsh .msh file, format 2.2 or 4.1 (4.0 is rejected), ASCII or binary
/// (little-endian; 4.1 binary with 4- or 8-byte size_t). Node tags may be sparse and in any
/// order. If the file has tetrahedra (type 4) the result is 3D: X #V x 3 and T the tets;
/// otherwise its triangles (type 2) make a 2D mesh: X #V x 2 after dropping the constant z.
/// Every other element type (points, lines, quads, high order...) is skipped. Nodes are kept
/// in file order, unreferenced ones included. $PhysicalNames and unknown sections are
/// skipped.
/// @throws std::runtime_error as read_obj, plus an unsupported version, big-endian data,
///         duplicate or undefined node tags, a file with neither tets nor triangles,
///         triangles whose nodes are not planar (z not constant), and for binary files the
///         byte offset of truncation or garbage.
MshMesh read_msh(const std::string& path);

/// Writes a Gmsh .msh file: 2D meshes (X #V x 2, T #T x 3) as triangles with z = 0, 3D meshes
/// (X #V x 3, T #T x 4) as tetrahedra; node tags 1..#V, element tags 1..#T. Version 4.1
/// files get one entity per distinct physical tag (tag 0 = no physical group).
/// @param physical  empty, or #T physical tags (>= 0) of the elements.
/// @param format    version and encoding (binary = little-endian, size_t of 8 bytes).
/// @throws std::invalid_argument for bad shapes, non-finite X, out-of-range T, or a
///         `physical` of the wrong size or with negative tags.
void write_msh(const std::string& path, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXi>& T,
               MshFormat format = MshFormat::V22Ascii, const Eigen::Ref<const VectorXi>& physical = VectorXi());

// ------------------------------------------------------------------------------- TetGen

/// Reads a TetGen .node / .ele pair (also Triangle's 2D files). `.node`: header
/// `#V dim #attributes #boundary_markers`, then `index x y (z) [attributes] [marker]`;
/// `.ele`: header `#T nodes_per_element #attributes`, then `index n1 ... [attributes]`.
/// The node file's first index (0 or 1) sets the base of every index in both files;
/// attributes and markers are ignored; `#` starts a comment.
/// @return X (#V x dim) and T (#T x (dim+1)), in file order.
/// @throws std::runtime_error as read_obj, plus a dim other than 2/3, nodes per element other
///         than dim+1 (quadratic elements are rejected), record indices not consecutive from
///         the base, and element indices out of range for that base.
Mesh read_tetgen(const std::string& node_path, const std::string& ele_path);

/// Writes a .node / .ele pair with indices starting at `base` (0 or 1), no attributes and
/// no boundary markers.
/// @throws std::invalid_argument for bad shapes, non-finite X, out-of-range T, base not 0/1.
void write_tetgen(const std::string& node_path, const std::string& ele_path, const Eigen::Ref<const MatrixXd>& X,
                  const Eigen::Ref<const MatrixXi>& T, int base = 0);

// -------------------------------------------------------------------------- any surface

/// Reads a polygon surface by its extension, case-insensitively: `.obj` (read_obj), `.off`
/// (read_off) or `.ply` (read_ply in ply_io.hpp; its texture coordinates and normals dropped).
/// @return V (#V x 3) and F (#F x 3), polygons fan-triangulated.
/// @throws std::runtime_error "read_surface: '<path>': unsupported surface format '<ext>'"
///         for any other extension (or none), or the reader's error.
SurfaceMesh read_surface(const std::string& path);

// ---------------------------------------------------------------------- any volume mesh

/// Reads a simulation mesh by its extension: `.obj` (planar 2D triangles, read_obj_2d),
/// `.mesh` (Medit), `.msh` (Gmsh) or `.node` (TetGen, with the `.ele` beside it).
/// @return X (#V x dim) and T (#T x (dim+1)).
/// @throws std::runtime_error naming the file: an unsupported extension, or the reader's error.
Mesh read_volume_mesh(const std::string& path);

}  // namespace fastcd
