// Checked conversions of Python arguments (see arguments.hpp).
#include "arguments.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "fastcd/common/memory.hpp"

namespace fastcd::python {

namespace {

using I64Array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
constexpr std::int64_t kMaxDim = std::numeric_limits<SparseMatrix::StorageIndex>::max();

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

[[noreturn]] void corrupt(const std::string& name, const std::string& problem) {
  throw py::value_error(name + " is not a valid sparse matrix: " + problem);
}

/// The dtype kind of a numpy array ('f', 'i', 'u', 'b', 'c', ...).
char kind_of(const py::array& a) { return a.dtype().kind(); }

/// One of a sparse matrix's index arrays (indices, indptr, row, col) as int64, 1-D.
I64Array index_array(py::handle matrix, const char* attr, const std::string& name) {
  const py::object a = matrix.attr(attr);
  if (!py::isinstance<py::array>(a)) corrupt(name, std::string(attr) + " is " + describe(a) + ", not a numpy array");
  const auto arr = py::reinterpret_borrow<py::array>(a);
  if (kind_of(arr) != 'i' && kind_of(arr) != 'u')
    corrupt(name, std::string(attr) + " holds " + std::string(py::str(arr.dtype())) + " values, not integers");
  if (arr.ndim() != 1) corrupt(name, std::string(attr) + " has shape " + shape_of(arr) + ", expected 1-D");
  return I64Array::ensure(arr);  // uint64 above 2^63 wraps negative: refused as out of range below
}

/// The stored values of a sparse matrix as float64, 1-D.
F64Array value_array(py::handle matrix, const std::string& name) {
  const py::object a = matrix.attr("data");
  if (!py::isinstance<py::array>(a)) corrupt(name, "data is " + describe(a) + ", not a numpy array");
  const auto arr = py::reinterpret_borrow<py::array>(a);
  const char k = kind_of(arr);
  if (k == 'c') throw py::type_error(name + " has complex entries; fastcd needs a real matrix");
  if (k != 'f' && k != 'i' && k != 'u' && k != 'b')
    corrupt(name, "data holds " + std::string(py::str(arr.dtype())) + " values, not numbers");
  if (arr.ndim() != 1) corrupt(name, "data has shape " + shape_of(arr) + ", expected 1-D");
  return F64Array::ensure(arr);
}

/// (rows, cols) of a sparse matrix: two integers in [0, 2^31).
std::pair<std::int64_t, std::int64_t> sparse_shape(py::handle matrix, const std::string& name) {
  const py::object s = matrix.attr("shape");
  if (!py::isinstance<py::tuple>(s) || py::len(s) != 2)
    corrupt(name, "its shape is " + describe(s) + ", not (rows, cols)");
  std::int64_t dims[2];
  for (int i = 0; i < 2; ++i) {
    const py::object d = py::reinterpret_borrow<py::tuple>(s)[i];
    if (!py::isinstance<py::int_>(d)) corrupt(name, "its shape holds " + describe(d) + ", not an integer");
    const std::string text = py::str(d);
    try {
      dims[i] = d.cast<std::int64_t>();
    } catch (const py::cast_error&) {
      corrupt(name, "its shape holds " + text + ", too large");
    }
    if (dims[i] < 0) corrupt(name, "its shape holds " + text + ", a negative size");
    if (dims[i] > kMaxDim)
      corrupt(name, "its shape holds " + text + ", more than fastcd's 32-bit indices allow (" +
                        std::to_string(kMaxDim) + ")");
  }
  return {dims[0], dims[1]};
}

/// Refuses a matrix whose column pointers alone would not fit in the memory available (a shape
/// of 10 x 2^31 is a valid, empty scipy matrix and 8 GB of Eigen pointers).
void check_pointer_memory(std::int64_t rows, std::int64_t cols, const std::string& name) {
  const double bytes = 4.0 * static_cast<double>(cols + 1);
  const double available = static_cast<double>(available_memory_bytes());
  if (available > 0 && bytes > available / 2)
    corrupt(name, "it is " + std::to_string(rows) + " x " + std::to_string(cols) + ": its column pointers alone need " +
                      std::to_string(static_cast<long long>(bytes / 1e6)) + " MB, more than half the memory available");
}

struct Triplets {
  std::vector<Eigen::Triplet<double, SparseMatrix::StorageIndex>> entries;
  void add(std::int64_t r, std::int64_t c, double v) {
    entries.emplace_back(static_cast<SparseMatrix::StorageIndex>(r), static_cast<SparseMatrix::StorageIndex>(c), v);
  }
  SparseMatrix build(std::int64_t rows, std::int64_t cols) const {
    SparseMatrix M(rows, cols);
    M.setFromTriplets(entries.begin(), entries.end());  // sums duplicates, sorts
    return M;
  }
};

std::string value_text(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf"; }

/// A CSC or CSR matrix: the pointers, then every index and value, then the copy.
SparseMatrix compressed(py::handle obj, bool csc, std::int64_t rows, std::int64_t cols, const std::string& name) {
  const I64Array indptr = index_array(obj, "indptr", name), indices = index_array(obj, "indices", name);
  const F64Array data = value_array(obj, name);
  const std::int64_t outer = csc ? cols : rows, inner = csc ? rows : cols;
  const char* outer_word = csc ? "column" : "row";
  const char* inner_word = csc ? "row" : "column";
  const std::string layout = csc ? "a CSC matrix with " + std::to_string(cols) + " columns"
                                 : "a CSR matrix with " + std::to_string(rows) + " rows";
  if (indptr.size() != outer + 1)
    corrupt(name, "indptr has " + std::to_string(indptr.size()) + " entries; " + layout + " needs " +
                      std::to_string(outer + 1));
  const std::int64_t* p = indptr.data();
  if (p[0] != 0) corrupt(name, "indptr starts at " + std::to_string(p[0]) + ", not 0");
  for (std::int64_t j = 0; j < outer; ++j)
    if (p[j + 1] < p[j])
      corrupt(name, "indptr decreases at " + std::string(outer_word) + " " + std::to_string(j) + " (" +
                        std::to_string(p[j]) + ", then " + std::to_string(p[j + 1]) + ")");
  const std::int64_t nnz = p[outer];
  if (nnz > indices.size() || nnz > data.size())
    corrupt(name, "indptr ends at " + std::to_string(nnz) + " but only " +
                      std::to_string(std::min(indices.size(), data.size())) + " entries are stored");
  const std::int64_t* idx = indices.data();
  const double* val = data.data();
  bool sorted = csc;  // strictly increasing rows in every column: copied as they are
  for (std::int64_t j = 0; j < outer; ++j)
    for (std::int64_t k = p[j]; k < p[j + 1]; ++k) {
      if (idx[k] < 0 || idx[k] >= inner)
        corrupt(name, std::string(outer_word) + " " + std::to_string(j) + " has " + inner_word + " index " +
                          std::to_string(idx[k]) + ", the matrix has " + std::to_string(inner) + " " + inner_word +
                          "s");
      if (!std::isfinite(val[k]))
        corrupt(name, "entry (" + std::to_string(csc ? idx[k] : j) + ", " + std::to_string(csc ? j : idx[k]) + ") is " +
                          value_text(val[k]));
      if (k > p[j] && idx[k] <= idx[k - 1]) sorted = false;
    }
  if (sorted) {
    SparseMatrix M(rows, cols);
    M.resizeNonZeros(static_cast<Index>(nnz));
    for (std::int64_t j = 0; j <= outer; ++j) M.outerIndexPtr()[j] = static_cast<SparseMatrix::StorageIndex>(p[j]);
    for (std::int64_t k = 0; k < nnz; ++k) {
      M.innerIndexPtr()[k] = static_cast<SparseMatrix::StorageIndex>(idx[k]);
      M.valuePtr()[k] = val[k];
    }
    return M;
  }
  check_pointer_memory(rows, cols, name);
  Triplets t;
  t.entries.reserve(static_cast<std::size_t>(nnz));
  for (std::int64_t j = 0; j < outer; ++j)
    for (std::int64_t k = p[j]; k < p[j + 1]; ++k) csc ? t.add(idx[k], j, val[k]) : t.add(j, idx[k], val[k]);
  return t.build(rows, cols);
}

/// A COO matrix: row, col and data of one length, every index inside, every value finite.
SparseMatrix coordinates(py::handle obj, std::int64_t rows, std::int64_t cols, const std::string& name) {
  const I64Array row = index_array(obj, "row", name), col = index_array(obj, "col", name);
  const F64Array data = value_array(obj, name);
  if (row.size() != col.size() || row.size() != data.size())
    corrupt(name, "row, col and data have " + std::to_string(row.size()) + ", " + std::to_string(col.size()) + " and " +
                      std::to_string(data.size()) + " entries; they must have one length");
  check_pointer_memory(rows, cols, name);
  Triplets t;
  t.entries.reserve(static_cast<std::size_t>(data.size()));
  for (py::ssize_t k = 0; k < data.size(); ++k) {
    const std::int64_t r = row.data()[k], c = col.data()[k];
    if (r < 0 || r >= rows)
      corrupt(name, "entry " + std::to_string(k) + " has row index " + std::to_string(r) + ", the matrix has " +
                        std::to_string(rows) + " rows");
    if (c < 0 || c >= cols)
      corrupt(name, "entry " + std::to_string(k) + " has column index " + std::to_string(c) + ", the matrix has " +
                        std::to_string(cols) + " columns");
    if (!std::isfinite(data.data()[k]))
      corrupt(name, "entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is " + value_text(data.data()[k]));
    t.add(r, c, data.data()[k]);
  }
  return t.build(rows, cols);
}

SparseMatrix sparse_matrix(py::handle obj, const std::string& name, bool via_coo) {
  const std::string format = py::str(obj.attr("format"));
  const auto [rows, cols] = sparse_shape(obj, name);
  if (format == "csc" || format == "csr") return compressed(obj, format == "csc", rows, cols, name);
  if (format == "coo") return coordinates(obj, rows, cols, name);
  if (via_coo) corrupt(name, "its tocoo() gave a '" + format + "' matrix");
  // lil, dok, dia, bsr: scipy's tocoo builds row / col with numpy (no unchecked C loops); the
  // COO it gives is then checked like any other.
  py::object coo;
  try {
    coo = obj.attr("tocoo")();
  } catch (py::error_already_set& e) {
    corrupt(name, "scipy could not read this " + format + " matrix (" + std::string(py::str(e.value())) + ")");
  }
  return sparse_matrix(coo, name, true);
}

/// A numpy array of real numbers (bool, int or float dtype) holding obj, or nothing.
std::optional<py::array> numeric_array(py::handle obj) {
  py::array a = py::array::ensure(obj);
  if (!a) return std::nullopt;
  const char k = kind_of(a);
  if (k != 'f' && k != 'i' && k != 'u' && k != 'b') return std::nullopt;
  return a;
}

}  // namespace

std::string describe(py::handle obj) {
  if (!obj || obj.is_none()) return "None";
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::reinterpret_borrow<py::array>(obj);
    return "a " + std::string(py::str(a.dtype())) + " array of shape " + shape_of(a);
  }
  const py::module_ sps = py::module_::import("scipy.sparse");
  if (sps.attr("issparse")(obj).cast<bool>()) {
    std::string shape = "?";
    try {
      const py::tuple s = obj.attr("shape");
      shape = std::string(py::str(s[0])) + " x " + std::string(py::str(s[1]));
    } catch (const std::exception&) {
    }
    return "a " + shape + " scipy.sparse " + std::string(py::str(obj.attr("format"))) + " matrix";
  }
  const std::string type = py::str(py::type::handle_of(obj).attr("__name__"));
  const std::string article = std::string("aeiou").find(type[0]) != std::string::npos ? "an " : "a ";
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj))
    return article + type + " of " + std::to_string(py::len(obj)) + " items";
  return article + type;
}

SparseMatrix sparse_from_python(py::handle obj, const std::string& name) {
  const py::module_ sps = py::module_::import("scipy.sparse");
  if (sps.attr("issparse")(obj).cast<bool>()) return sparse_matrix(obj, name, false);
  const std::optional<py::array> a = numeric_array(obj);
  if (!a || a->ndim() != 2)
    throw py::type_error(name + " must be a scipy.sparse matrix or a 2-D array of numbers, got " + describe(obj));
  const MatrixXd dense = matrix_from_python(*a, name);
  return dense.sparseView();
}

VectorXd vector_from_python(py::handle obj, const std::string& name, Index n) {
  const std::string want = n < 0 ? "a vector of numbers" : "a vector of " + std::to_string(n) + " numbers";
  const std::optional<py::array> a = numeric_array(obj);
  if (!a) throw py::type_error(name + " must be " + want + ", got " + describe(obj));
  const bool vector_shape = a->ndim() == 1 || (a->ndim() == 2 && (a->shape(1) == 1 || a->shape(0) == 1));
  if (!vector_shape || (n >= 0 && a->size() != n))
    throw py::value_error(name + " must be " + want + " (shape (" + (n < 0 ? "n" : std::to_string(n)) + ",) or (" +
                          (n < 0 ? "n" : std::to_string(n)) + ", 1)), got shape " + shape_of(*a));
  const F64Array f = F64Array::ensure(*a);
  return Eigen::Map<const VectorXd>(f.data(), f.size());
}

MatrixXd matrix_from_python(py::handle obj, const std::string& name, Index cols) {
  const std::string want =
      cols < 0 ? "a 2-D array of numbers" : "an (n, " + std::to_string(cols) + ") array of numbers";
  const std::optional<py::array> a = numeric_array(obj);
  if (!a) throw py::type_error(name + " must be " + want + ", got " + describe(obj));
  if (a->ndim() != 2 || (cols >= 0 && a->shape(1) != cols))
    throw py::value_error(name + " must be " + want + ", got shape " + shape_of(*a));
  using FArray = py::array_t<double, py::array::f_style | py::array::forcecast>;
  const FArray f = FArray::ensure(*a);
  MatrixXd M = Eigen::Map<const MatrixXd>(f.data(), f.shape(0), f.shape(1));
  if (!M.allFinite()) throw py::value_error(name + " has NaN or infinite entries");
  return M;
}

MatrixXi index_matrix_from_python(py::handle obj, const std::string& name, Index cols) {
  const std::string want =
      cols < 0 ? "a 2-D array of integers" : "an (n, " + std::to_string(cols) + ") array of integers";
  py::array a = py::array::ensure(obj);
  const bool empty_float = a && a.size() == 0 && kind_of(a) == 'f';  // np.array([]) is float64
  if (!a || (kind_of(a) != 'i' && kind_of(a) != 'u' && !empty_float))
    throw py::type_error(name + " must be " + want + ", got " + describe(obj));
  if (a.ndim() != 2 || (cols >= 0 && a.shape(1) != cols))
    throw py::value_error(name + " must be " + want + ", got shape " + shape_of(a));
  using IArray = py::array_t<std::int64_t, py::array::f_style | py::array::forcecast>;
  const IArray f = IArray::ensure(a);
  MatrixXi M(f.shape(0), f.shape(1));
  for (py::ssize_t k = 0; k < f.size(); ++k) {
    const std::int64_t v = f.data()[k];
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      throw py::value_error(name + " holds " + std::to_string(v) + ", out of range for 32-bit indices");
    M.data()[k] = static_cast<int>(v);
  }
  return M;
}

}  // namespace fastcd::python

namespace pybind11::detail {

handle type_caster<fastcd::SparseMatrix>::cast(const fastcd::SparseMatrix& src, return_value_policy, handle) {
  if (!src.isCompressed()) {
    fastcd::SparseMatrix c = src;
    c.makeCompressed();
    return cast(c, return_value_policy::move, handle());
  }
  const auto nnz = static_cast<ssize_t>(src.nonZeros());
  array data(nnz, src.valuePtr());
  array outer(static_cast<ssize_t>(src.cols() + 1), src.outerIndexPtr());
  array inner(nnz, src.innerIndexPtr());
  return module_::import("scipy.sparse")
      .attr("csc_matrix")(make_tuple(std::move(data), std::move(inner), std::move(outer)),
                          make_tuple(src.rows(), src.cols()))
      .release();
}

}  // namespace pybind11::detail
