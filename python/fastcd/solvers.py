"""Solvers: batched polar decomposition and block coordinate descent."""
import numpy as np

from . import _convert as cv
from . import _fastcd

__all__ = ["polar_svd", "block_coord"]


def polar_svd(F, flip=True):
    """Rotation-variant polar decomposition F = R S (simkit.polar_svd).

    F: (t, d, d) or (d, d), d = 2 or 3. Returns (R, S), each (t, d, d) (a single matrix is
    promoted to a batch of 1): R the proper rotation (det +1) closest to F, S = R^T F
    symmetric; when det F < 0, S carries one negative eigenvalue. Only flip=True exists
    (simkit's flip=False raises).
    """
    if not flip:
        raise ValueError("polar_svd: only flip=True is supported (simkit's flip=False is broken)")
    a = np.asarray(F, dtype=np.float64)
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise ValueError(f"F must have shape (t, d, d) or (d, d), got {np.shape(F)}")
    d = a.shape[1]
    R, S = _fastcd.polar_svd(np.ascontiguousarray(a).reshape(-1), d)
    return R.reshape(-1, d, d), S.reshape(-1, d, d)


def block_coord(x0, global_step_func, local_step_func, tolerance=1e-6, max_iter=1):
    """Alternating local/global minimisation (simkit.solvers.block_coord).

    x = copy(x0); up to max_iter times: x_prev = x; r = local_step_func(x);
    x = global_step_func(x, r); stop when ||x - x_prev|| < tolerance (strict: tolerance 0 runs
    exactly max_iter iterations; max_iter 0 returns a copy of x0). Returns x.
    """
    x = np.array(x0, copy=True)
    for _ in range(cv.integer(max_iter, "max_iter")):
        x_prev = x
        r = local_step_func(x)
        x = global_step_func(x, r)
        if np.linalg.norm(np.asarray(x) - np.asarray(x_prev)) < tolerance:
            break
    return x
