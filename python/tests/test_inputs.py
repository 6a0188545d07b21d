"""dtype / memory order / shape handling of the Python layer."""
import numpy as np
import pytest

import fastcd


@pytest.fixture(scope="module")
def mesh():
    X, T = fastcd.beam(12, 3)
    return X, T


def _mass(M):
    return M.diagonal()


@pytest.mark.parametrize("tdtype", [np.int32, np.int64, np.uint32, np.intc, np.longlong])
def test_index_dtypes(mesh, tdtype):
    X, T = mesh
    ref = fastcd.massmatrix(X, T.astype(np.int64), 2.0)
    M = fastcd.massmatrix(X, T.astype(tdtype), 2.0)
    np.testing.assert_array_equal(_mass(M), _mass(ref))
    G = fastcd.deformation_jacobian(X, T.astype(tdtype))
    assert (G != fastcd.deformation_jacobian(X, T)).nnz == 0


def test_float32_and_int_coordinates(mesh):
    X, T = mesh
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(fastcd.volume(X32, T), fastcd.volume(X32.astype(np.float64), T))
    Xi = np.array([[0, 0], [2, 0], [0, 2]])  # integer coordinates
    np.testing.assert_allclose(fastcd.volume(Xi, [[0, 1, 2]]), [[2.0]])


def test_fortran_order_and_views(mesh):
    X, T = mesh
    XF, TF = np.asfortranarray(X), np.asfortranarray(T)
    assert XF.flags.f_contiguous and not XF.flags.c_contiguous
    np.testing.assert_array_equal(fastcd.volume(XF, TF), fastcd.volume(X, T))
    # strided views (every other column of a wider array)
    Xw = np.zeros((X.shape[0], 4)); Xw[:, ::2] = X
    np.testing.assert_array_equal(fastcd.volume(Xw[:, ::2], T), fastcd.volume(X, T))
    L1 = fastcd.dirichlet_laplacian(XF, TF)
    L2 = fastcd.dirichlet_laplacian(X, T)
    assert abs(L1 - L2).max() == 0


def test_lists(mesh):
    X, T = mesh
    np.testing.assert_array_equal(fastcd.volume(X.tolist(), T.tolist()), fastcd.volume(X, T))
    V, F = fastcd.triangulated_grid(3, 2)
    W = fastcd.diffuse_field(V.tolist(), F.tolist(), [0, 5], [[1.0], [0.0]])
    assert W.shape == (6, 1)


def test_vector_shapes(mesh):
    X, T = mesh
    t = T.shape[0]
    rho = np.linspace(1, 2, t)
    a = fastcd.massmatrix(X, T, rho)
    b = fastcd.massmatrix(X, T, rho.reshape(-1, 1))
    c = fastcd.massmatrix(X, T, rho.tolist())
    np.testing.assert_array_equal(_mass(a), _mass(b))
    np.testing.assert_array_equal(_mass(a), _mass(c))
    # lbs_jacobian: (n,) weights are one bone
    J1 = fastcd.lbs_jacobian(X, np.ones(X.shape[0]))
    J2 = fastcd.lbs_jacobian(X, np.ones((X.shape[0], 1)))
    assert J1.shape == J2.shape == (2 * X.shape[0], 6) and abs(J1 - J2).max() == 0
    # project_into_subspace: y as (n,), (n, 1) or a list gives z (r, 1)
    B = np.random.default_rng(0).standard_normal((10, 3))
    y = np.arange(10.0)
    for yy in (y, y.reshape(-1, 1), y.tolist()):
        z = fastcd.project_into_subspace(yy, B)
        assert z.shape == (3, 1)
        np.testing.assert_allclose(z.ravel(), np.linalg.lstsq(B, y, rcond=None)[0], rtol=1e-10)


def _roll(solver, column, steps=5, as_list=False):
    m, k = solver.state_dim, solver.p0.shape[0]
    shape = (m, 1) if column else (m,)
    s = np.zeros(shape); s_dot = np.zeros(shape)
    p0 = solver.p0 if column else solver.p0.ravel()
    p = p0.copy(); p_dot = np.zeros_like(p)
    for i in range(steps):
        p_next = fastcd.handle(p0, i + 3)
        args = (s, s_dot, p, p_dot, p_next)
        if as_list:
            args = tuple(np.asarray(a).tolist() for a in args)
        s_new = solver.step(*args)
        assert s_new.shape == (shape if not as_list else np.asarray(args[0]).shape)
        assert s_new.dtype == np.float64
        s_dot = (s_new - s) / solver.dt; p_dot = (p_next - p) / solver.dt
        s, p = s_new, p_next.copy()
    return np.asarray(s).ravel()


@pytest.mark.parametrize("cls", [fastcd.FullCD, fastcd.ReducedCD])
def test_solver_state_shapes(mesh, cls):
    X, T = mesh
    solver = cls(X, T) if cls is fastcd.FullCD else cls(X, T, k_modes=4, n_clusters=6)
    col = _roll(solver, column=True)
    flat = _roll(solver, column=False)
    lst = _roll(solver, column=True, as_list=True)
    assert np.abs(col).max() > 0
    np.testing.assert_array_equal(col, flat)
    np.testing.assert_array_equal(col, lst)


@pytest.mark.parametrize("cls", [fastcd.FullCD, fastcd.ReducedCD])
def test_solver_mesh_dtypes(mesh, cls):
    X, T = mesh
    kw = {} if cls is fastcd.FullCD else dict(k_modes=4, n_clusters=6)
    base = _roll(cls(X, T, **kw), column=True)
    for XX, TT in [(np.asfortranarray(X), T.astype(np.int32)), (X.tolist(), T.tolist()),
                   (X, np.asfortranarray(T))]:
        np.testing.assert_array_equal(_roll(cls(XX, TT, **kw), column=True), base)
    X32 = X.astype(np.float32)
    a = _roll(cls(X32, T, **kw), column=True)
    b = _roll(cls(X32.astype(np.float64), T, **kw), column=True)
    np.testing.assert_array_equal(a, b)


def test_step_mixed_input_dtypes(red):
    m = red.state_dim
    s = np.zeros((m, 1)); p = red.p0.copy(); pn = fastcd.handle(red.p0, 7)
    ref = red.step(s, s, p, np.zeros_like(p), pn)
    out = red.step(s.astype(np.float32), np.zeros(m, dtype=np.int64), p.ravel().tolist(),
                   np.zeros(6, dtype=np.float32), np.asfortranarray(pn))
    assert out.shape == (m, 1)
    np.testing.assert_array_equal(out, ref)
    # the input is not modified and the output is a fresh array
    assert np.all(s == 0) and not np.shares_memory(out, s)


def test_explicit_rig(mesh):
    """J and p0 passed in (dense J, (k,) p0) give the same solver as the defaults."""
    X, T = mesh
    J = fastcd.lbs_jacobian(X, np.ones((X.shape[0], 1)))
    Mv = fastcd.elastic_operators(X, T)["Mv"]
    p0 = fastcd.rig_rest(J, Mv, X).ravel()
    a = fastcd.FullCD(X, T, J=J.toarray(), p0=p0)
    b = fastcd.FullCD(X, T)
    np.testing.assert_array_equal(a.p0, b.p0)
    np.testing.assert_array_equal(_roll(a, True), _roll(b, True))
