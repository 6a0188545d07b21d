#pragma once
// Rig files: TGF handle graphs (point handles, skeletons, cages) and DMAT matrices (LBS
// weights, index lists, animations), as written by libigl and the Complementary Dynamics
// releases.
//
// Errors: readers throw std::runtime_error naming the function, the file, the line (text) or
// byte offset (binary) and the problem; writers throw std::invalid_argument for bad arguments
// and std::runtime_error when the file cannot be written. Writers write atomically.
#include <Eigen/Core>
#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Content of a TGF file (libigl's readTGF outputs, 0-based).
struct TgfGraph {
  MatrixXd C;   ///< #C x 3 vertex (joint / handle) positions
  MatrixXi E;   ///< #E x 2 every edge, in file order
  MatrixXi BE;  ///< #BE x 2 bone edges: edges whose first flag is 1
  MatrixXi PE;  ///< #PE x 2 pseudo-edges: second flag 1
  MatrixXi CE;  ///< #CE x 2 cage edges: third flag 1
  VectorXi P;   ///< point handles: vertices in no bone edge, increasing
};

/// Reads a TGF handle graph: vertex lines `i x y z` (i = 1, 2, ... in order), a line starting
/// with `#`, edge lines `a b [bone [pseudo [cage ...]]]` (1-based; flags 0/1, missing = 0),
/// and optionally a second `#` line after which everything is ignored. Without bone edges
/// every vertex is a point handle (P = 0..#C-1); edges without flags (e.g. a cage polygon)
/// are listed in E only, as in libigl.
/// @throws std::runtime_error for a missing/empty/binary file, malformed or non-finite
///         numbers, vertex lines out of order or after the edges, an edge index out of
///         [1, #C] or joining a vertex to itself, a flag other than 0/1, or no vertices.
TgfGraph read_tgf(const std::string& path);

/// Kind of the edges written by write_tgf.
enum class TgfEdges {
  Bones,  ///< `a b 1 0 0`: bone edges (a skeleton)
  Plain,  ///< `a b`: plain edges (e.g. a cage), not bones
};

/// Writes a TGF file: vertices, `#`, edges, `#`.
/// @param C  #C x 3 (or #C x 2, written with z = 0) finite positions, #C >= 1.
/// @param E  #E x 2 edges, 0-based, no self-edges.
/// @throws std::invalid_argument for bad shapes, non-finite C, out-of-range or self edges.
void write_tgf(const std::string& path, const Eigen::Ref<const MatrixXd>& C, const Eigen::Ref<const MatrixXi>& E,
               TgfEdges kind = TgfEdges::Bones);

/// Reads a libigl DMAT matrix. ASCII: a header line `cols rows`, then rows*cols values in
/// column-major order separated by any white space. Binary: the line `0 0`, the header line
/// `cols rows`, then exactly rows*cols little-endian float64 values in column-major order.
/// @return the #rows x #cols matrix.
/// @throws std::runtime_error for a missing/empty file, a bad header, negative or huge
///         counts, too few or too many values, a non-number, NaN or Inf, binary garbage in an
///         ASCII file, or a binary block of the wrong size.
MatrixXd read_dmat(const std::string& path);

/// Encoding of a DMAT file.
enum class DmatEncoding { Ascii, Binary };

/// Writes a DMAT matrix (ASCII: shortest round-trip decimals, one per line; binary: bit-exact
/// little-endian float64).
/// @throws std::invalid_argument if W has a non-finite entry.
void write_dmat(const std::string& path, const Eigen::Ref<const MatrixXd>& W,
                DmatEncoding encoding = DmatEncoding::Ascii);

}  // namespace fastcd
