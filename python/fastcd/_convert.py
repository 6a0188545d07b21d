"""Input conversion shared by the Python layer.

Every public function converts its array arguments once, here, into exactly the layout the C++
core maps without copying (Eigen is column-major: float64 / int32 in Fortran order for
matrices, contiguous float64 for vectors), and raises a ValueError/TypeError naming the
argument when the shape cannot be right. Anything numpy can turn into an array is accepted:
lists, float32, int arrays for coordinates, C- or Fortran-ordered, (n,) or (n, 1) vectors.

scipy.sparse inputs are checked before anything reads them, scipy included (scipy does not check
index arrays edited in place, and its own conversions trust them): every one goes through
:func:`sparse`, i.e. the C++ check every binding applies (python/src/arguments.cpp).
"""
import os

import numpy as np
import scipy.sparse as sps

from . import _errors, _fastcd
from ._errors import describe

_errors.install(_fastcd)  # short, named TypeErrors instead of pybind11's argument dumps

_I32 = np.iinfo(np.int32)


def _shape(a):
    return "x".join(str(s) for s in a.shape) if a.ndim else "scalar"


def _dense(A, name):
    if sps.issparse(A):
        return sparse(A, name).toarray()
    return A


def float_matrix(A, name, cols=None, allow_vector=False):
    """float64, Fortran order, 2-D. A 1-D input becomes one column when `allow_vector`."""
    if sps.issparse(A):
        raise TypeError(f"{name} must be a dense array, got a scipy.sparse matrix")
    a = np.asarray(A, dtype=np.float64)
    if a.ndim == 1 and allow_vector:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {a.shape}")
    if cols is not None and a.shape[1] not in cols:
        raise ValueError(f"{name} must have {' or '.join(map(str, cols))} columns, got shape {a.shape}")
    return np.asfortranarray(a)


def dense_matrix(A, name, allow_vector=False):
    """Like float_matrix, but a scipy.sparse input is densified."""
    return float_matrix(_dense(A, name), name, allow_vector=allow_vector)


def _check_integer(a, name):
    if a.dtype.kind not in "iu":
        if a.size == 0 and a.dtype.kind == "f":  # np.array([]) is float64
            return a.astype(np.int64)
        raise TypeError(f"{name} must hold integer indices, got dtype {a.dtype}")
    if a.size and (a.min() < _I32.min or a.max() > _I32.max):
        bad = a.min() if a.min() < _I32.min else a.max()
        raise ValueError(f"{name} holds index {bad}, which is out of range for the C++ core (int32)")
    return a


def index_matrix(T, name):
    """int32, Fortran order, 2-D (simplices, facets)."""
    if sps.issparse(T):
        raise TypeError(f"{name} must be a dense integer array, got a scipy.sparse matrix")
    a = np.asarray(T)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D integer array, got shape {a.shape}")
    a = _check_integer(a, name)
    return np.asfortranarray(a, dtype=np.int32)


def index_vector(v, name):
    """int32, contiguous, 1-D; accepts (n,), (n, 1) and (1, n)."""
    a = np.asarray(v)
    if a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D integer array, got shape {a.shape}")
    a = _check_integer(a, name)
    return np.ascontiguousarray(a, dtype=np.int32)


def float_vector(v, name, n=None):
    """float64, contiguous, 1-D; accepts (n,) and (n, 1)."""
    if sps.issparse(v):
        v = sparse(v, name).toarray()
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != 1:
        raise ValueError(f"{name} must be a vector of shape (n,) or (n, 1), got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name} must have {n} entries, got {a.shape[0]}")
    return np.ascontiguousarray(a)


def sparse(A, name):
    """A checked scipy.sparse.csc_matrix of float64 (sorted, duplicates summed) from any
    scipy.sparse matrix or 2-D array. Raises ValueError naming `name` and the problem ("J is not
    a valid sparse matrix: column 3 has row index 12, the matrix has 10 rows") for a shape, an
    indptr or an index that is out of range, or a value that is NaN or infinite."""
    return _fastcd.sparse_matrix(A, name)


def diagonal_mass(M, name, n):
    """A diagonal mass as sparse CSC: scipy.sparse or dense (n, n) matrix, or its (n,) diagonal."""
    if not sps.issparse(M):
        a = np.asarray(M, dtype=np.float64)
        if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1 and n != 1):
            return sps.diags(float_vector(a, name, n)).tocsc()
    return sparse(M, name)


def real(x, name):
    """A float from a number (or a size-1 array); TypeError naming `name` otherwise."""
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be a number, got {describe(x)}") from None


def integer(x, name):
    """An int from an integer (or a float, truncated, as int() does); TypeError naming `name` otherwise."""
    try:
        return int(x)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be an integer, got {describe(x)}") from None


def text(x, name):
    """A str; TypeError naming `name` for anything else (str() would turn an array into kilobytes)."""
    if isinstance(x, str):
        return x
    raise TypeError(f"{name} must be a string, got {describe(x)}")


def path(p, name="path"):
    """A file or folder path from a str, bytes or os.PathLike; TypeError naming `name` otherwise."""
    try:
        return os.fsdecode(os.fspath(p))
    except TypeError:
        raise TypeError(f"{name} must be a path (a str or pathlib.Path), got {describe(p)}") from None


def reals(**kw):
    """Keyword arguments as floats, each error naming its keyword."""
    return {k: real(v, k) for k, v in kw.items()}


def integers(**kw):
    """Keyword arguments as ints, each error naming its keyword."""
    return {k: integer(v, k) for k, v in kw.items()}


def texts(**kw):
    """Keyword arguments that must be strs, each error naming its keyword."""
    return {k: text(v, k) for k, v in kw.items()}


def paths(**kw):
    """Keyword arguments that are paths, as strs, each error naming its keyword."""
    return {k: path(v, k) for k, v in kw.items()}


def int_array(a):
    """Index outputs as the platform's default integer (int64), C order."""
    return np.ascontiguousarray(a, dtype=np.intp)
