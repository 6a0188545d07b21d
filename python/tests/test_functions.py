"""The simkit-named functions: return types, shapes and the identities they promise."""
import numpy as np
import pytest
import scipy.sparse as sps

import fastcd


@pytest.fixture(scope="module")
def mesh():
    return fastcd.beam(12, 3)


def is_csc(A):
    return sps.isspmatrix_csc(A) and A.dtype == np.float64


def test_sparse_outputs_are_csc(mesh, full, red):
    X, T = mesh
    n, dim = X.shape
    op = fastcd.elastic_operators(X, T)
    G, Gm = fastcd.cluster_grouping_matrices(np.arange(T.shape[0]) % 3, X, T)
    W, E, B = fastcd.skinning_eigenmodes(X, T, 3)
    for A in [fastcd.massmatrix(X, T), fastcd.deformation_jacobian(X, T), fastcd.dirichlet_laplacian(X, T),
              fastcd.dirichlet_laplacian(X, T, 2.0, vector=True), fastcd.lbs_jacobian(X, np.ones((n, 2))),
              fastcd.kron_identity(fastcd.massmatrix(X, T), dim), G, Gm, B,
              op["Mv"], op["G"], op["AMu"], op["AMue"], op["L"], full.J, full.A, red.J, red.A]:
        assert is_csc(A), type(A)


def test_shapes_and_sizes(mesh):
    X, T = mesh
    n, t = X.shape[0], T.shape[0]
    vol = fastcd.volume(X, T)
    assert vol.shape == (t, 1)
    assert fastcd.massmatrix(X, T, 3.0).shape == (n, n)
    assert fastcd.deformation_jacobian(X, T).shape == (4 * t, 2 * n)
    assert fastcd.lbs_jacobian(X, np.ones((n, 3))).shape == (2 * n, 18)
    assert fastcd.dirichlet_laplacian(X, T, vector=True).shape == (2 * n, 2 * n)
    V, F = fastcd.triangulated_grid(4, 3)
    assert V.shape == (12, 2) and F.shape == (12, 3) and F.dtype == np.intp


def test_beam_area_and_mass(beam):
    X, T = beam
    np.testing.assert_allclose(fastcd.volume(X, T).sum(), 0.4, rtol=1e-12)
    M = fastcd.massmatrix(X, T, rho=1e3)
    np.testing.assert_allclose(M.diagonal().sum(), 400.0, rtol=1e-12)
    np.testing.assert_allclose(M.diagonal().min(), 0.42735, atol=1e-5)  # simkit: a corner vertex
    assert np.isclose(M.diagonal(), 1.28205, atol=1e-5).any()


def test_massmatrix_per_element_rho(mesh):
    X, T = mesh
    rho = np.full(T.shape[0], 3.0)
    np.testing.assert_allclose(fastcd.massmatrix(X, T, rho).diagonal(), fastcd.massmatrix(X, T, 3).diagonal(),
                               rtol=1e-15)


def test_triangulated_grid_matches_libigl_ordering():
    V, F = fastcd.triangulated_grid(3, 2)
    np.testing.assert_allclose(V[1 + 3 * 1], [0.5, 1.0])
    np.testing.assert_array_equal(F[:2], [[0, 1, 3], [1, 4, 3]])


def test_boundary_facets(beam):
    X, T = beam
    F, J, K = fastcd.boundary_facets(T)
    assert F.shape[1] == 2 and J.shape == K.shape == (F.shape[0],)
    assert np.unique(F).shape == (86,)
    np.testing.assert_array_equal(np.unique(F), fastcd.boundary_vertices(T))
    # each facet is the edge of its element opposite corner K
    for f, e, k in zip(F[:10], J[:10], K[:10]):
        assert set(f) == set(T[e]) - {T[e][k]}


def test_orthonormalize(mesh):
    X, T = mesh
    n, dim = X.shape
    M = fastcd.kron_identity(fastcd.massmatrix(X, T, 1e3), dim)
    B = fastcd.lbs_jacobian(X, np.c_[np.ones(n), X[:, 1], X[:, 1] ** 2])  # sparse in
    # Weights 1, y, y^2 times affine maps repeat y and y^2: B has 18 columns but rank 14, and
    # the dependent columns are dropped (simkit would keep 4 rounding-noise directions).
    rank = np.linalg.matrix_rank(B.toarray())
    assert rank == 14
    Q = fastcd.orthonormalize(B, M=M)
    assert isinstance(Q, np.ndarray) and Q.shape == (B.shape[0], rank)
    np.testing.assert_allclose(Q.T @ M @ Q, np.eye(Q.shape[1]), atol=1e-10)
    # same span
    Bd = B.toarray()
    P = Q @ (Q.T @ (M @ Bd))
    np.testing.assert_allclose(P, Bd, atol=1e-10)
    # dense in, identity mass, and M as its diagonal vector
    Q2 = fastcd.orthonormalize(Bd)
    np.testing.assert_allclose(Q2.T @ Q2, np.eye(Q2.shape[1]), atol=1e-10)
    Q3 = fastcd.orthonormalize(Bd, M=M.diagonal())
    np.testing.assert_allclose(Q3, Q, atol=1e-12)
    # a trailing zero column is dropped too
    assert fastcd.orthonormalize(np.c_[Bd, np.zeros(2 * n)], M=M).shape == (B.shape[0], rank)
    # full-rank input keeps every column (simkit's result)
    Bf = fastcd.lbs_jacobian(X, np.c_[np.ones(n), np.sin(3 * X[:, 0] + 1) * np.cos(2 * X[:, 1])]).toarray()
    assert fastcd.orthonormalize(Bf, M=M).shape == Bf.shape
    # numpy's Householder sign convention
    np.testing.assert_allclose(fastcd.orthonormalize(np.array([[3.0], [4.0]])).ravel(), [-0.6, -0.8])


def test_polar_svd_shapes_and_det():
    rng = np.random.default_rng(1)
    for d in (2, 3):
        F = rng.standard_normal((50, d, d))
        R, S = fastcd.polar_svd(F)
        assert R.shape == S.shape == (50, d, d)
        np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-12)
        np.testing.assert_allclose(R.transpose(0, 2, 1) @ R, np.broadcast_to(np.eye(d), R.shape), atol=1e-12)
        np.testing.assert_allclose(S, S.transpose(0, 2, 1), atol=1e-12)
        np.testing.assert_allclose(R @ S, F, atol=1e-12)
        R1, S1 = fastcd.polar_svd(F[0])  # (d, d) is promoted to a batch of one
        assert R1.shape == S1.shape == (1, d, d)
        np.testing.assert_allclose(R1[0], R[0], atol=1e-14)
    R, S = fastcd.polar_svd(np.diag([-2.0, 1.0]))
    np.testing.assert_allclose(R[0], -np.eye(2), atol=1e-14)
    np.testing.assert_allclose(S[0], np.diag([2.0, -1.0]), atol=1e-14)
    with pytest.raises(ValueError):
        fastcd.polar_svd(np.zeros((3, 2, 3)))


def test_project_into_subspace_paths(mesh):
    X, T = mesh
    n, dim = X.shape
    Mv = fastcd.elastic_operators(X, T)["Mv"]
    J = fastcd.lbs_jacobian(X, np.ones((n, 1)))
    x = X.reshape(-1, 1)
    a = fastcd.project_into_subspace(X.flat, J, M=Mv, BMB=J.T @ Mv @ J, BMy=J.T @ Mv @ x)
    b = fastcd.project_into_subspace(x, J, M=Mv)
    c = fastcd.project_into_subspace(x, J.toarray(), M=Mv)
    d = fastcd.project_into_subspace(x.ravel(), J.toarray(), M=Mv, BMB=(J.T @ Mv @ J).toarray())
    e = fastcd.rig_rest(J, Mv, X)
    for z in (a, b, c, d, e):
        assert z.shape == (6, 1)
        np.testing.assert_allclose(z.ravel(), [1, 0, 0, 1, 0, 0], atol=1e-12)


def test_normalize_and_center_in_place():
    X = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [0.0, 3.0]])
    orig = X.copy()
    out = fastcd.normalize_and_center(X)
    assert out is X
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-15)
    np.testing.assert_allclose((X.max(0) - X.min(0)).max(), 2.0)
    Y, t, s = fastcd.normalize_and_center(orig.copy(), return_params=True)
    np.testing.assert_allclose(Y, s * (orig + t))
    np.testing.assert_allclose(t, -orig.mean(axis=0))
    Xi = np.array([[0, 0], [4, 0], [4, 1], [0, 3]])  # not float64: left untouched
    Zi = fastcd.normalize_and_center(Xi)
    assert Zi is not Xi and Xi[1, 0] == 4
    np.testing.assert_allclose(Zi, Y)


def test_ympr_to_lame():
    mu, lam = fastcd.ympr_to_lame(1e5, 0)
    assert (mu, lam) == (5e4, 0.0)
    mu, lam = fastcd.ympr_to_lame(np.array([1e5, 2e5]), 0.25)
    np.testing.assert_allclose(mu, [4e4, 8e4])
    np.testing.assert_allclose(lam, [1e5 * 0.25 / (1.25 * 0.5), 2e5 * 0.25 / (1.25 * 0.5)])


def test_elastic_operators(beam):
    X, T = beam
    op = fastcd.elastic_operators(X, T)
    assert set(op) >= {"Mv", "G", "AMu", "AMue", "L", "dim", "mu"}
    assert op["dim"] == 2 and op["mu"] == 5e4
    L = fastcd.dirichlet_laplacian(X, T, op["mu"], vector=True)
    assert abs(op["L"] - L).max() <= 1e-9 * abs(L).max()
    assert abs(op["L"] - op["G"].T @ op["AMue"] @ op["G"]).max() <= 1e-9 * abs(L).max()


def test_skinning_eigenmodes(mesh):
    X, T = mesh
    n = X.shape[0]
    M = fastcd.massmatrix(X, T)
    W, E, B = fastcd.skinning_eigenmodes(X, T, 4, bI=[0, 1])
    assert W.shape == (n, 4) and E.shape == (4,) and B.shape == (2 * n, 4 * 6)
    np.testing.assert_allclose(W.T @ M @ W, np.eye(4), atol=1e-9)
    np.testing.assert_allclose(W[[0, 1]], 0, atol=1e-12)
    assert np.all(np.diff(E) >= 0)


def test_cluster_grouping_matrices(mesh):
    X, T = mesh
    t = T.shape[0]
    l = np.arange(t) % 4
    G, Gm, mc, mt, fe = fastcd.cluster_grouping_matrices(l, X, T, return_mass=True)
    assert G.shape == Gm.shape == (4, t) and mc.shape == (4,) and mt.shape == (t, 1) and fe.shape == (t, 1)
    np.testing.assert_allclose(G @ np.ones(t), np.bincount(l))
    np.testing.assert_allclose(Gm @ np.ones(t), 1.0)
    np.testing.assert_allclose(mt, fastcd.volume(X, T))


def test_spectral_cubature_returns(mesh):
    X, T = mesh
    W, _, _ = fastcd.skinning_eigenmodes(X, T, 3)
    out = fastcd.spectral_cubature(X, T, W, 5)
    assert len(out) == 2
    lI, mc, labels, cent = fastcd.spectral_cubature(X, T, W, 5, return_labels=True, return_centroids=True)
    assert lI.shape == (5,) and labels.shape == (T.shape[0],) and cent.shape == (5, 3)
    np.testing.assert_allclose(mc.sum(), fastcd.volume(X, T).sum())
    lI2, mc2, c2 = fastcd.spectral_cubature(X, T, W, 5, return_centroids=True)
    np.testing.assert_array_equal(c2, cent)


def test_kmeans2_matches_scipy():
    from scipy.cluster.vq import kmeans2 as scipy_kmeans2
    rng = np.random.default_rng(3)
    data = np.r_[rng.normal(0, 1, (40, 3)), rng.normal(4, 1, (30, 3)), rng.normal(-4, 1, (30, 3))]
    c_ref, l_ref = scipy_kmeans2(data, 5, seed=0, minit="++")
    c, l = fastcd.kmeans2(data, 5, seed=0)
    np.testing.assert_array_equal(l, l_ref)
    np.testing.assert_allclose(c, c_ref, rtol=1e-13, atol=1e-13)
    labels, cent = fastcd.spectral_clustering(data, 5)
    np.testing.assert_array_equal(labels, l_ref)
    # The size the fast precompute clusters (many points, weight-space dimension, many centres).
    data = rng.normal(0, 1, (3000, 16)) * np.linspace(0.2, 2.0, 16)
    c_ref, l_ref = scipy_kmeans2(data, 60, seed=0, minit="++")
    c, l = fastcd.kmeans2(data, 60, seed=0)
    np.testing.assert_array_equal(l, l_ref)
    np.testing.assert_allclose(c, c_ref, rtol=1e-12, atol=1e-12)


def test_block_coord():
    calls = []

    def local(x):
        calls.append(1)
        return 0.5 * x

    def glob(x, r):
        return r + 1.0

    x0 = np.zeros((3, 1))
    x = fastcd.block_coord(x0, glob, local, 0.0, 7)
    assert len(calls) == 7 and np.all(x0 == 0)
    np.testing.assert_allclose(x, 2.0 - 2.0 ** -6)
    calls.clear()
    fastcd.block_coord(x0, glob, local, tolerance=1e-3, max_iter=100)
    assert len(calls) < 100
    calls.clear()
    y = fastcd.block_coord(x0, glob, local, max_iter=0)
    assert len(calls) == 0 and y is not x0 and np.all(y == 0)


def test_handle(red):
    p = fastcd.handle(red.p0, 20)
    assert p.shape == red.p0.shape and p is not red.p0
    np.testing.assert_allclose(p[-2, 0], 3.0)
    np.testing.assert_array_equal(np.delete(p, 4), np.delete(red.p0, 4))
    np.testing.assert_allclose(fastcd.handle(red.p0.ravel(), 10, amp=1.0, period=40)[-2], 1.0)


def test_solver_attributes(full, red):
    assert full.B is None and full.state_dim == 400 and full.n_rot == 312 and full.dim == 2
    assert full.A.shape == (6, 400) and full.J.shape == (400, 6) and full.constraint_rank == 6
    assert red.B.shape == (400, 60) and red.state_dim == 60 and red.n_rot == 20
    assert red.W.shape == (200, 10) and red.eigenvalues.shape == (10,)
    assert red.labels.shape == (312,) and red.labels.max() == 19
    Mv = fastcd.elastic_operators(*fastcd.beam())["Mv"]
    np.testing.assert_allclose(red.B.T @ Mv @ red.B, np.eye(60), atol=1e-10)
    z = np.linspace(0, 1, 60)
    np.testing.assert_allclose(red.lift(z), red.B @ z)
    assert red.positions(z, red.p0).shape == (200, 2)
    assert red.violation(z) < 1e-9
    assert "ReducedCD" in repr(red) and "FullCD" in repr(full)


def test_3d_solvers():
    X, T = fastcd.tetrahedralized_grid(5, 3, 3)
    X = X * [2.0, 0.5, 0.5]
    red = fastcd.ReducedCD(X, T, k_modes=3, n_clusters=4)
    full = fastcd.FullCD(X, T)
    assert red.dim == 3 and red.J.shape == (3 * X.shape[0], 12) and red.state_dim == 36
    for solver in (full, red):
        s = np.zeros(solver.state_dim); p = solver.p0.ravel().copy(); pd = np.zeros_like(p)
        for i in range(3):
            pn = fastcd.handle(solver.p0.ravel(), i + 1, dim=3)
            s_new = solver.step(s, s / solver.dt, p, pd, pn)
            s, pd, p = s_new, (pn - p) / solver.dt, pn
        assert np.abs(s).max() > 0 and solver.violation(s) < 1e-8
