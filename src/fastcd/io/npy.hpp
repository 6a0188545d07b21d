#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fastcd {

/// Writes a NumPy .npy (format version 1.0) file holding a C-ordered float64
/// ('<f8') array. The file is written atomically (temp file + rename).
///
/// @param path   output file path (its directory must exist).
/// @param data   prod(shape) values in C (row-major) order; may be null only
///               if prod(shape) == 0.
/// @param shape  array shape, any rank (rank 0 = a scalar, one value).
/// @throws std::invalid_argument if `data` is null with a non-empty shape or
///         the element count overflows.
/// @throws std::runtime_error if the file cannot be written.
void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape);

/// Same as above for int32 ('<i4').
void write_npy(const std::string& path, const std::int32_t* data, const std::vector<std::size_t>& shape);

/// Same as above for int64 ('<i8').
void write_npy(const std::string& path, const std::int64_t* data, const std::vector<std::size_t>& shape);

/// Writes a trajectory as a float64 array of shape (steps, vertices, dim),
/// where element [s][v][d] = states[s](v, d) (copied explicitly into C order;
/// Eigen's column-major storage is not written as is). An empty `states`
/// writes shape (0, 0, 0).
///
/// @param path    output file path.
/// @param states  steps matrices, each #V x dim, all of the same size.
/// @throws std::invalid_argument if the states do not all have the same size.
/// @throws std::runtime_error if the file cannot be written.
void write_npy_states(const std::string& path, const std::vector<Eigen::MatrixXd>& states);

/// Content of a .npy file as read by read_npy.
struct NpyArray {
  /// Normalised dtype of the file: "<f8", "<i4" or "<i8" (big-endian files
  /// are byte-swapped on reading and reported with '<').
  std::string dtype;
  /// Array shape (empty for a 0-d scalar).
  std::vector<std::size_t> shape;
  /// True if the file stores the data in Fortran (column-major) order; the
  /// data vectors below then hold the elements in that file order.
  bool fortran_order = false;
  /// The elements for dtype "<f8" (empty otherwise).
  std::vector<double> data_f64;
  /// The elements for dtypes "<i4" and "<i8" (empty otherwise).
  std::vector<std::int64_t> data_i64;
};

/// Reads a NumPy .npy file (format versions 1.0, 2.0, 3.0) holding a
/// float64, int32 or int64 array of any shape.
///
/// The magic string, version, header dictionary (keys 'descr',
/// 'fortran_order', 'shape'), dtype and the exact file size implied by the
/// shape are all validated before the data is allocated, so a header that
/// claims a gigantic shape is rejected without allocating.
///
/// @param path  file to read.
/// @returns the array.
/// @throws std::runtime_error naming the file and the problem if the file
///         cannot be opened or is malformed / truncated / has an unsupported
///         dtype.
NpyArray read_npy(const std::string& path);

}  // namespace fastcd
