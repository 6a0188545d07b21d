// Arguments from Python, checked before C++ touches them.
//
// scipy.sparse does not check the index arrays of a matrix (a user, or a damaged pickle, can
// leave a row index past the last row or an `indptr` that runs backwards), and Eigen trusts
// them: every SparseMatrix that crosses from Python therefore goes through sparse_from_python,
// which checks the shape, the pointers, the indices and the values before anything is read.
// The type caster below does it for every binding argument, py::cast and unpickled state;
// bindings a user calls directly convert by name, so the error names the argument.
//
// Every binding file includes this header (it must come before any use of SparseMatrix in a
// binding: the caster is an explicit specialisation of pybind11's).
#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "fastcd/common/types.hpp"

namespace fastcd::python {

namespace py = pybind11;

/// A short description of a Python value for error messages: "a list of 3 items", "a float64
/// array of shape (4, 2)", "a 10 x 6 scipy.sparse csr matrix", "None" (never its repr).
std::string describe(py::handle obj);

/// Any scipy.sparse matrix (csc, csr, coo; other formats through their tocoo) or 2-D array of
/// real numbers as a SparseMatrix. Checked first: a non-negative shape that fits 32-bit
/// indices, pointers of the right length starting at 0, never decreasing and ending within the
/// stored entries, every index inside the matrix, every value finite. Duplicate entries are
/// summed (scipy's meaning).
/// @throws py::value_error "<name> is not a valid sparse matrix: column 3 has row index 12,
///         the matrix has 10 rows" and the like; py::type_error for another kind of value.
SparseMatrix sparse_from_python(py::handle obj, const std::string& name);

/// A float vector of n entries (n < 0: any) given as (n,), (n, 1) or (1, n) numbers.
/// @throws py::type_error / py::value_error naming `name`, the expected and the given shape.
VectorXd vector_from_python(py::handle obj, const std::string& name, Index n = -1);

/// A 2-D float matrix with `cols` columns (cols < 0: any).
MatrixXd matrix_from_python(py::handle obj, const std::string& name, Index cols = -1);

/// A 2-D integer matrix (simplices, facets) with `cols` columns (cols < 0: any); every entry
/// must fit 32 bits.
MatrixXi index_matrix_from_python(py::handle obj, const std::string& name, Index cols = -1);

}  // namespace fastcd::python

namespace pybind11::detail {

/// SparseMatrix <-> scipy.sparse.csc_matrix, replacing pybind11's caster (which maps the
/// arrays unchecked). Loading never returns false for a sparse matrix: a broken one raises
/// sparse_from_python's error instead of pybind11's "incompatible function arguments" dump.
template <>
struct type_caster<fastcd::SparseMatrix> {
  PYBIND11_TYPE_CASTER(fastcd::SparseMatrix, const_name("scipy.sparse.csc_matrix[numpy.float64]"));

  bool load(handle src, bool /*convert*/) {
    if (!src || src.is_none()) return false;
    value = fastcd::python::sparse_from_python(src, "a sparse-matrix argument");
    return true;
  }
  static handle cast(const fastcd::SparseMatrix& src, return_value_policy policy, handle parent);
};

}  // namespace pybind11::detail
