#pragma once
// PLY (Stanford polygon file) surfaces: ASCII, binary little-endian and binary big-endian,
// version 1.0 (Turk 1994; the format of the Stanford 3D Scanning Repository, Blender, MeshLab).
//
// A PLY file is a header of text lines followed by the data of its elements in header order:
//   ply
//   format ascii 1.0                       (or binary_little_endian 1.0 / binary_big_endian 1.0)
//   comment ...                            (comment and obj_info lines anywhere in the header)
//   element vertex 8                       (an element: a name and a record count)
//   property float x                       (scalar properties: char/int8, uchar/uint8,
//   property float y                        short/int16, ushort/uint16, int/int32, uint/uint32,
//   property float z                        float/float32, double/float64)
//   element face 6
//   property list uchar int vertex_indices (a list: a count, then that many items)
//   end_header
// ASCII data is a stream of whitespace-separated numbers; binary data is packed records in the
// declared byte order. Hand-written: Debian 12 has no small PLY library (assimp re-indexes
// vertices), and the format needs only this file.
//
// Conventions as the other mesh readers (mesh_io.hpp): 0-based indices, vertices in file order,
// polygons fan-triangulated as read_obj does, counts checked against the file size before
// anything is allocated, writers exact and atomic.
#include <Eigen/Core>
#include <string>

#include "fastcd/common/types.hpp"
#include "fastcd/io/mesh_io.hpp"

namespace fastcd {

/// A PLY surface: positions and triangles (SurfaceMesh) plus the optional per-vertex texture
/// coordinates and normals the vertex element carries.
struct PlyMesh : SurfaceMesh {
  MatrixXd UV;  ///< #V x 2 texture coordinates when the vertex element has (s, t), (u, v) or
                ///< (texture_u, texture_v) properties (first pair found, in that order), else 0 x 2
  MatrixXd N;   ///< #V x 3 normals when the vertex element has (nx, ny, nz), else 0 x 3
};

/// Reads a PLY surface (formats ascii, binary_little_endian and binary_big_endian 1.0).
///
/// V comes from the `x`, `y`, `z` properties of the `vertex` element (any numeric type); F from
/// the `vertex_indices` (or `vertex_index`) list property of the `face` element (any integer
/// count and index types, 0-based): a face of k > 3 corners becomes k - 2 triangles
/// (0, i, i+1), a fan from its first corner, exactly as read_obj. Every other element (edges,
/// materials, ...) and property (colours, quality, ...), scalar or list, is read and skipped;
/// `comment` and `obj_info` lines are skipped. ASCII values are whitespace-separated tokens
/// (line breaks anywhere); integer properties must hold integers within their type's range.
/// A face element with 0 faces gives an empty F (as read_off).
/// @param path  .ply file (a regular file).
/// @return V (#V x 3), F (#F x 3), UV (#V x 2 or 0 x 2), N (#V x 3 or 0 x 3).
/// @throws std::runtime_error "read_ply: '<path>' line <n>: <problem>" (header, ASCII data) or
///         "read_ply: '<path>' byte <offset>: <problem>" (binary data), naming the element and
///         record ("face 5 has 2 corners; ..."), for: a missing/empty/non-regular file; a first
///         line other than `ply`; an unknown format, version, keyword or property type; a list
///         with a non-integer count type; no `end_header`; no `vertex` element or no `x`/`y`/`z`;
///         no `face` element ("a point cloud is not a surface") or no `vertex_indices` list;
///         a vertex or face count above 2^31 - 1; declared counts whose records cannot fit in
///         the bytes that follow (checked before allocating, so a declared 10^12 vertices is
///         refused at once); truncated binary data; non-numbers, NaN/Inf positions, texture
///         coordinates or normals; negative list counts; faces with fewer than 3 corners;
///         vertex indices out of [0, #V); data after the last element (trailing bytes of a
///         binary file, extra values of an ASCII one: wrong counts); NUL bytes in ASCII data.
PlyMesh read_ply(const std::string& path);

/// Writes a PLY surface: `element vertex` with `double x, y, z`, `element face` with
/// `list uchar int vertex_indices` (the count type is `int` for polygons of more than 255
/// corners). Binary files are binary_little_endian on every host; ASCII files print every
/// double with the shortest text that reads back to the same bits. Both round trips are exact.
/// @param V       #V x 3 (or #V x 2, written with z = 0) finite positions.
/// @param F       #F x k polygons (k >= 3), indices in [0, #V).
/// @param binary  binary_little_endian (true) or ascii (false).
/// @throws std::invalid_argument for bad shapes, non-finite V or out-of-range F.
/// @throws std::runtime_error if the file cannot be written (nothing is left behind: the file is
///         written atomically, write_file_atomically).
void write_ply(const std::string& path, const Eigen::Ref<const MatrixXd>& V, const Eigen::Ref<const MatrixXi>& F,
               bool binary = true);

}  // namespace fastcd
