"""Mesh measures and assembled operators (simkit names, argument names, defaults, returns).

Vertices are ``(n, dim)`` float arrays, simplices ``(t, dim+1)`` integer arrays; vectors over
DOFs are vertex-interleaved ``[x0, y0, (z0), x1, ...]``; stacked deformation gradients are
element-major, each ``dim x dim`` block flattened row-major. Sparse results are
``scipy.sparse.csc_matrix``.
"""
import numpy as np
import scipy.sparse as sps

from . import _convert as cv
from . import _fastcd

__all__ = [
    "volume", "massmatrix", "deformation_jacobian", "dirichlet_laplacian", "lbs_jacobian",
    "ympr_to_lame", "boundary_facets", "boundary_vertices", "triangulated_grid",
    "tetrahedralized_grid", "diffuse_field", "normalize_and_center", "cluster_grouping_matrices",
    "beam", "elastic_operators", "kron_identity",
]


def _mesh(X, T, name="X"):
    return cv.float_matrix(X, name), cv.index_matrix(T, "T")


def volume(V, F):
    """Measure of every simplex.

    V: (n, d) vertices. F: (m, s) simplices; s = 2 edge lengths, 3 unsigned triangle areas
    (2-D or 3-D), 4 signed tet volumes (det[x1-x0, x2-x0, x3-x0] / 6, needs d = 3).
    Returns (m, 1) float64.
    """
    return _fastcd.volume(cv.float_matrix(V, "V"), cv.index_matrix(F, "F")).reshape(-1, 1)


def massmatrix(X, T, rho=1):
    """Lumped (diagonal) mass: m_v = sum over elements e containing v of rho_e |vol_e| / s.

    X: (n, dim) rest positions, dim 2 or 3. T: (t, dim+1) simplices.
    rho: scalar density, or one per element as (t,) or (t, 1) (simkit only supports (t, 1)).
    Returns the (n, n) diagonal as scipy.sparse.csc_matrix (simkit: dia_matrix). Lift to DOFs
    with ``scipy.sparse.kron(M, identity(dim))`` or :func:`kron_identity`.
    """
    X, T = _mesh(X, T)
    if np.ndim(rho) == 0:
        return _fastcd.massmatrix(X, T, cv.real(rho, "rho"))
    return _fastcd.massmatrix_per_element(X, T, cv.float_vector(rho, "rho", T.shape[0]))


def kron_identity(A, k):
    """kron(A, I_k) as csc: lifts a per-vertex operator to interleaved DOFs."""
    return _fastcd.kron_identity(cv.sparse(A, "A"), cv.integer(k, "k"))


def deformation_jacobian(X, T):
    """G with (G x).reshape(t, dim, dim) = the per-element deformation gradients F = dx/dX.

    X: (n, dim) rest positions. T: (t, dim+1). Returns csc (dim^2 t, dim n).
    Raises ValueError naming the element for a degenerate rest simplex.
    """
    return _fastcd.deformation_jacobian(*_mesh(X, T))


def dirichlet_laplacian(X, T, mu=1, vector=False):
    """P1 stiffness K_vw = sum_e mu_e |vol_e| grad(phi_v).grad(phi_w) (PSD, minus the cotangent matrix).

    mu: scalar or one per element ((t,) or (t, 1)). With `vector`, returns kron(K, I_dim)
    (the ARAP stiffness G^T (mu vol (x) I) G). Returns csc (n, n) or (dim n, dim n).
    """
    X, T = _mesh(X, T)
    if np.ndim(mu) == 0:
        return _fastcd.dirichlet_laplacian(X, T, cv.real(mu, "mu"), bool(vector))
    return _fastcd.dirichlet_laplacian_per_element(X, T, cv.float_vector(mu, "mu", T.shape[0]), bool(vector))


def lbs_jacobian(V, W):
    """Jacobian of linear blend skinning: x = J p, p the bones' column-major vec([A | t]).

    V: (n, d) rest positions. W: (n, k) weights ((n,) = one bone).
    Returns J (n d, k d (d+1)) as **scipy.sparse.csc_matrix** -- simkit returns a dense
    ndarray; use ``J.toarray()`` if you need one. ``J @ p`` works the same either way.
    Entry rule: J[v d + r, (b (d+1) + c) d + r] = W[v, b] [V_v, 1][c].
    """
    return _fastcd.lbs_jacobian(cv.float_matrix(V, "V"), cv.float_matrix(W, "W", allow_vector=True))


def ympr_to_lame(ym, pr):
    """(mu, lam) from Young's modulus and Poisson ratio, elementwise for arrays.

    mu = ym / (2 (1 + pr)), lam = ym pr / ((1 + pr)(1 - 2 pr)). Raises ValueError unless
    ym > 0 and -1 < pr < 0.5 (simkit divides by zero at 0.5).
    """
    if np.ndim(ym) == 0 and np.ndim(pr) == 0:
        return _fastcd.ympr_to_lame(cv.real(ym, "ym"), cv.real(pr, "pr"))
    y, p = np.broadcast_arrays(np.asarray(ym, dtype=np.float64), np.asarray(pr, dtype=np.float64))
    pairs = [_fastcd.ympr_to_lame(float(a), float(b)) for a, b in zip(y.ravel(), p.ravel())]
    mu = np.array([m for m, _ in pairs], dtype=np.float64).reshape(y.shape)
    lam = np.array([l for _, l in pairs], dtype=np.float64).reshape(y.shape)
    return mu, lam


def boundary_facets(T):
    """Facets that belong to exactly one element (libigl's boundary_facets).

    T: (t, 3) triangles or (t, 4) tets. Returns (F, J, K): F (f, s-1) boundary facets oriented
    outward for positively oriented elements, J (f,) their element, K (f,) their local index
    (the opposite corner). All int64.
    """
    F, J, K = _fastcd.boundary_facets(cv.index_matrix(T, "T"))
    return cv.int_array(F), cv.int_array(J), cv.int_array(K)


def boundary_vertices(T):
    """Sorted unique vertex indices of the boundary facets, int64 (b,)."""
    return cv.int_array(_fastcd.boundary_vertices(cv.index_matrix(T, "T")))


def triangulated_grid(nx, ny):
    """libigl's triangulated_grid: (V, F), V (nx ny, 2) on [0,1]^2, vertex x + nx y at
    (x/(nx-1), y/(ny-1)); F (2 (nx-1)(ny-1), 3) counter-clockwise, int64."""
    V, F = _fastcd.triangulated_grid(cv.integer(nx, "nx"), cv.integer(ny, "ny"))
    return np.ascontiguousarray(V), cv.int_array(F)


def tetrahedralized_grid(nx, ny, nz):
    """(V, T): box grid on [0,1]^3 with nx ny nz vertices, six positive tets per cube."""
    V, T = _fastcd.tetrahedralized_grid(cv.integer(nx, "nx"), cv.integer(ny, "ny"), cv.integer(nz, "nz"))
    return np.ascontiguousarray(V), cv.int_array(T)


def beam(width=40, height=5, thickness=0.1):
    """Simkit tutorial 23's beam: (X, T) with X (width height, 2), T int64.

    triangulated_grid(width, height), y scaled by `thickness`, rotated by (x, y) <- (-y, x),
    then normalize_and_center. The default is 200 vertices and 312 triangles, x in
    [-0.1, 0.1], y in [-1, 1].
    """
    X, T = _fastcd.beam(cv.integer(width, "width"), cv.integer(height, "height"), cv.real(thickness, "thickness"))
    return np.ascontiguousarray(X), cv.int_array(T)


def diffuse_field(Vv, Tv, bI, phi, dt=None, normalize=True):
    """One backward-Euler heat step from Dirichlet seeds (simkit.diffuse_field).

    Solves (dt K + M)_ii W_ii = -(dt K + M)_ib phi on the non-seed vertices, sets W[bI] = phi,
    then (if `normalize`) rescales each column to [0, 1].
    Vv: (n, dim), Tv: (t, dim+1), bI: (b,) distinct seed vertices, phi: (b, k) (or (b,)).
    dt: diffusion time; default = squared mean length of all element edges (simkit uses only
    each simplex's first edge). A constant column is left as is (simkit: NaN).
    Returns (n, k) float64.
    """
    V, T = _mesh(Vv, Tv, "Vv")
    bI = cv.index_vector(bI, "bI")
    phi = cv.float_matrix(phi, "phi", allow_vector=True)
    return _fastcd.diffuse_field(V, T, bI, phi, None if dt is None else cv.real(dt, "dt"), bool(normalize))


def normalize_and_center(X, return_params=False):
    """Translate to the vertex centroid and scale the largest bounding-box extent to 2.

    t = -mean(X, axis=0), s = 2 / max(max - min); X <- s (X + t). Like simkit this works in
    place when X is a writable float64 numpy array (and returns that same object); any other
    input is left untouched and a new float64 array is returned.
    Returns X, or (X, t, s) with `return_params` (t (dim,), s float).
    """
    Xn, t, s = _fastcd.normalize_and_center(cv.float_matrix(X, "X"))
    if isinstance(X, np.ndarray) and X.dtype == np.float64 and X.flags.writeable and X.ndim == 2:
        X[...] = Xn
        out = X
    else:
        out = np.ascontiguousarray(Xn)
    return (out, np.asarray(t), float(s)) if return_params else out


def cluster_grouping_matrices(l, V, T, return_mass=False):
    """Element -> cluster operators for labels l (t,), with c = max(l) + 1 clusters.

    Returns (G, Gm): G csc (c, t) with G[l_e, e] = 1 (sums per cluster); Gm = diag(1/mc) G
    diag(mt), the |volume|-weighted average (an empty cluster gets a zero row; simkit: inf).
    With `return_mass` also mc (c,) cluster volumes, mt (t, 1) element volumes and
    fe (t, 1) = mt_e / mc_{l_e}.
    """
    l = cv.index_vector(l, "l")
    G, Gm, mc, mt, fe = _fastcd.cluster_grouping_matrices(l, *_mesh(V, T, "V"))
    if return_mass:
        return G, Gm, mc, mt.reshape(-1, 1), fe.reshape(-1, 1)
    return G, Gm


def elastic_operators(X, T, ym=1e5, pr=0, rho=1e3):
    """Simkit tutorial 23's ARAP operators as a dict.

    Mv: csc (n dim)^2 lumped mass kron(massmatrix(X, T, rho), I_dim); G: deformation_jacobian;
    AMu: csc (t, t) diag(mu |vol|); AMue: kron(AMu, I_{dim^2}); L: G^T AMue G (csc, the ARAP
    stiffness); dim: int; mu: float (first Lame parameter); vol: (t,) element |volume|.
    """
    X, T = _mesh(X, T)
    return _fastcd.elastic_operators(X, T, cv.real(ym, "ym"), cv.real(pr, "pr"), cv.real(rho, "rho"))
