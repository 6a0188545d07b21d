"""Input conversion shared by the Python layer.

Every public function converts its array arguments once, here, into exactly the layout the C++
core maps without copying (Eigen is column-major: float64 / int32 in Fortran order for
matrices, contiguous float64 for vectors), and raises a ValueError/TypeError naming the
argument when the shape cannot be right. Anything numpy can turn into an array is accepted:
lists, float32, int arrays for coordinates, C- or Fortran-ordered, (n,) or (n, 1) vectors.
"""
import numpy as np
import scipy.sparse as sps

_I32 = np.iinfo(np.int32)


def _shape(a):
    return "x".join(str(s) for s in a.shape) if a.ndim else "scalar"


def _dense(A, name):
    if sps.issparse(A):
        return A.toarray()
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
        v = v.toarray()
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != 1:
        raise ValueError(f"{name} must be a vector of shape (n,) or (n, 1), got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name} must have {n} entries, got {a.shape[0]}")
    return np.ascontiguousarray(a)


def sparse(A, name):
    """scipy.sparse.csc_matrix of float64 (what the C++ core's SparseMatrix maps)."""
    if sps.issparse(A):
        A = sps.csc_matrix(A, dtype=np.float64)
    else:
        a = np.asarray(A, dtype=np.float64)
        if a.ndim != 2:
            raise ValueError(f"{name} must be a 2-D matrix, got shape {a.shape}")
        A = sps.csc_matrix(a)
    A.sort_indices()
    return A


def diagonal_mass(M, name, n):
    """A diagonal mass as sparse CSC: scipy.sparse or dense (n, n) matrix, or its (n,) diagonal."""
    if not sps.issparse(M):
        a = np.asarray(M, dtype=np.float64)
        if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1 and n != 1):
            return sps.diags(float_vector(a, name, n)).tocsc()
    return sparse(M, name)


def int_array(a):
    """Index outputs as the platform's default integer (int64), C order."""
    return np.ascontiguousarray(a, dtype=np.intp)
