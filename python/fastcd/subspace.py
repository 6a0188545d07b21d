"""Subspaces: orthonormal bases, projections, rig-orthogonal skinning eigenmodes, clustering."""
import warnings

import numpy as np
import scipy.sparse as sps

from . import _convert as cv
from . import _fastcd

__all__ = [
    "orthonormalize", "project_into_subspace", "lbs_weight_space_constraint",
    "skinning_eigenmodes", "spectral_cubature", "spectral_clustering", "kmeans2",
]


def orthonormalize(B, M=None, threshold=1e-16, rank_rtol=1e-10):
    """M-orthonormal basis of span(B) (simkit.orthonormalize).

    Householder QR of M^{1/2} B = Q R (numpy/LAPACK sign convention); column j of Q is kept
    iff sum_k |R[j, k]| > threshold (simkit's test) and |R[j, j]| > rank_rtol * max |R[i, i]|
    (not in simkit: it drops numerically dependent columns instead of keeping a rounding-noise
    direction outside span(B)); returns M^{-1/2} Q_kept.
    B: (n, r) dense or scipy.sparse (densified). M: (n, n) **diagonal** mass (scipy.sparse or
    dense; or its (n,) diagonal); None = identity.
    Returns dense (n, r') float64 with out.T @ M @ out = I.
    """
    B = cv.dense_matrix(B, "B", allow_vector=True)
    if M is None:
        return _fastcd.orthonormalize(B, cv.real(threshold, "threshold"), cv.real(rank_rtol, "rank_rtol"))
    return _fastcd.orthonormalize_mass(B, cv.diagonal_mass(M, "M", B.shape[0]), cv.real(threshold, "threshold"),
                                       cv.real(rank_rtol, "rank_rtol"))


def project_into_subspace(y, B, M=None, BMB=None, BMy=None):
    """z solving (B^T M B) z = B^T M y: M-weighted least-squares coordinates of y in span(B).

    y: (n,) or (n, 1). B: (n, r) dense or sparse. M: (n, n) (default identity).
    BMB (r, r) and BMy (r,) may be given precomputed (the tutorial's rig_rest does).
    Returns z (r, 1). Raises RuntimeError when B^T M B is singular.
    """
    y = cv.float_vector(y, "y")
    if sps.issparse(B):
        B = cv.sparse(B, "B")  # checked before scipy's own products read it
    if BMB is not None or BMy is not None:
        if BMB is None or BMy is None:
            MB = B if M is None else (cv.sparse(M, "M") @ B)
            if BMB is None:
                BMB = B.T @ MB
            if BMy is None:
                BMy = MB.T @ y
        z = _fastcd.project_into_subspace_normal(cv.dense_matrix(BMB, "BMB"), cv.float_vector(BMy, "BMy"))
    elif sps.issparse(B):
        Mm = sps.identity(y.shape[0], format="csc") if M is None else cv.sparse(M, "M")
        z = _fastcd.project_into_subspace_sparse(y, B, Mm)
    else:
        Bd = cv.float_matrix(B, "B", allow_vector=True)
        z = (_fastcd.project_into_subspace(y, Bd) if M is None
             else _fastcd.project_into_subspace_mass(y, Bd, cv.sparse(M, "M")))
    return np.asarray(z).reshape(-1, 1)


def lbs_weight_space_constraint(V, T, C, rtol=1e-10):
    """A constraint C u = 0 on displacements (c, n dim) as one on skinning weights: A (r, n).

    Every LBS displacement u_v = sum_b W[v, b] A_b [V_v; 1] satisfies C u = 0 for all affine
    A_b exactly when A W = 0. Returns an orthonormal basis of that row space (rank by
    mass-weighted singular values above rtol * max), not simkit's "first r rows" (rows of
    size 1e-17 that enforce nothing). C: dense or scipy.sparse.
    """
    V, T = cv.float_matrix(V, "V"), cv.index_matrix(T, "T")
    if sps.issparse(C):
        return _fastcd.lbs_weight_space_constraint(V, T, cv.sparse(C, "C"), cv.real(rtol, "rtol"))
    return _fastcd.lbs_weight_space_constraint_dense(V, T, cv.float_matrix(C, "C"), cv.real(rtol, "rtol"))


def skinning_eigenmodes(X, T, k, mu=1, bI=None, Aeq=None):
    """The k smallest modes of L w = E M w (Dirichlet energy, lumped mass), w = 0 on bI, Aeq w = 0.

    X: (n, dim), T: (t, dim+1), k: number of modes, mu: stiffness scale, bI: fixed vertices,
    Aeq: (r, n) weight-space constraint (dense or sparse; e.g. lbs_weight_space_constraint).
    Unlike simkit, bI and Aeq may be combined.
    Returns (W, E, B): W (n, k) with W^T M W = I (sign: largest-magnitude entry positive),
    E (k,) ascending, B = lbs_jacobian(X, W) as **scipy.sparse.csc_matrix** (simkit: dense).
    Raises ValueError when k exceeds the free, unconstrained vertices.
    """
    X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
    bI = None if bI is None else cv.index_vector(bI, "bI")
    Aeq = None if Aeq is None else cv.dense_matrix(Aeq, "Aeq")
    return _fastcd.skinning_eigenmodes(X, T, cv.integer(k, "k"), cv.real(mu, "mu"), bI, Aeq)


def spectral_cubature(X, T, W, k, return_labels=False, return_centroids=False):
    """Cluster elements by the per-element mean of the vertex weights W (simkit.spectral_cubature).

    X: (n, dim), T: (t, dim+1), W: (n, p) (e.g. skinning eigenmodes), k: clusters.
    Returns (lI, mc[, labels][, centroids]): lI (k,) element nearest each centroid (lowest
    index on ties), mc (max(labels)+1,) total |volume| per cluster, labels (t,) cluster of
    every element, centroids (k, p). Clustering is scipy's kmeans2(seed=0, minit="++"),
    reproduced bit for bit.
    """
    X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
    lI, mc, labels, centroids = _fastcd.spectral_cubature(X, T, cv.float_matrix(W, "W", allow_vector=True),
                                                          cv.integer(k, "k"))
    out = (cv.int_array(lI), mc)
    if return_labels:
        out += (cv.int_array(labels),)
    if return_centroids:
        out += (np.ascontiguousarray(centroids),)
    return out


def spectral_clustering(W, k, D=None, seed=0):
    """simkit.spectral_clustering: kmeans2(W * D[:, None], k, seed=seed, minit="++").

    W: (N, p) points, D: (N,) row weights (default ones). Returns (labels (N,), centroids (k, p)).
    """
    W = cv.float_matrix(W, "W", allow_vector=True)
    D = np.zeros(0) if D is None else cv.float_vector(D, "D", W.shape[0])
    labels, centroids = _fastcd.spectral_clustering(W, cv.integer(k, "k"), D, cv.integer(seed, "seed"))
    return cv.int_array(labels), np.ascontiguousarray(centroids)


def kmeans2(data, k, iter=10, thresh=1e-5, minit="++", missing="warn", check_finite=True, *, seed=0):
    """scipy.cluster.vq.kmeans2 with minit="++", reproduced exactly (legacy RandomState(seed)).

    Returns (centroid, label) like scipy. Only `minit="++"` and an integer `k` are supported;
    `thresh` is unused (as in scipy). An empty cluster keeps its previous centre and warns
    (missing="warn") or raises scipy's ClusterError (missing="raise").
    """
    if minit != "++":
        raise ValueError(f"fastcd.kmeans2 supports only minit='++', got {minit!r}")
    if missing not in ("warn", "raise"):
        raise ValueError(f"missing must be 'warn' or 'raise', got {missing!r}")
    if np.ndim(k) != 0:
        raise TypeError("fastcd.kmeans2 needs an integer k (initial centroids are not supported)")
    a = np.asarray(data, dtype=np.float64)
    if check_finite and not np.isfinite(a).all():
        raise ValueError("array must not contain infs or NaNs")
    one_d = a.ndim == 1
    centroids, labels = _fastcd.kmeans2(cv.float_matrix(a, "data", allow_vector=True), cv.integer(k, "k"),
                                        cv.integer(iter, "iter"), 0 if seed is None else cv.integer(seed, "seed"))
    labels = np.ascontiguousarray(labels)
    if np.bincount(labels, minlength=int(k)).min() == 0:
        msg = "One of the clusters is empty. Re-run kmeans with a different initialization."
        if missing == "raise":
            from scipy.cluster.vq import ClusterError
            raise ClusterError(msg)
        warnings.warn(msg, stacklevel=2)
    centroids = np.ascontiguousarray(centroids)
    return (centroids[:, 0] if one_d else centroids), labels
