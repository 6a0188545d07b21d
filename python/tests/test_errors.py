"""Errors: the library's std::invalid_argument -> ValueError, std::runtime_error ->
RuntimeError, with the library's message."""
import numpy as np
import pytest

import fastcd

TRI = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
FACES = np.array([[0, 1, 2], [1, 3, 2]])


def test_degenerate_triangle():
    X = TRI.copy()
    X[2] = [2.0, 0.0]  # corners 0, 1, 2 collinear
    with pytest.raises(ValueError, match="degenerate"):
        fastcd.deformation_jacobian(X, FACES)
    with pytest.raises(ValueError, match="degenerate"):
        fastcd.dirichlet_laplacian(X, FACES)
    with pytest.raises(ValueError, match="degenerate"):
        fastcd.FullCD(X, FACES)


@pytest.mark.parametrize("bad", [4, 99, -1])
def test_out_of_range_index(bad):
    T = FACES.copy()
    T[1, 2] = bad
    with pytest.raises(ValueError, match="out of range"):
        fastcd.massmatrix(TRI, T)
    with pytest.raises(ValueError, match="out of range"):
        fastcd.deformation_jacobian(TRI, T)
    with pytest.raises(ValueError, match="out of range"):
        fastcd.ReducedCD(TRI, T, k_modes=1, n_clusters=1)


def test_index_overflow_and_dtype():
    T = FACES.astype(np.int64)
    T[0, 0] = 2**40  # would wrap to 0 in int32
    with pytest.raises(ValueError, match="out of range"):
        fastcd.massmatrix(TRI, T)
    with pytest.raises(TypeError, match="integer"):
        fastcd.massmatrix(TRI, FACES.astype(float))


def test_too_many_modes():
    X, T = fastcd.beam(12, 3)
    with pytest.raises(ValueError, match="modes"):
        fastcd.skinning_eigenmodes(X, T, 10 * X.shape[0])
    with pytest.raises(ValueError):
        fastcd.ReducedCD(X, T, k_modes=10 * X.shape[0])


def test_bad_shapes_and_options():
    X, T = fastcd.beam(12, 3)
    with pytest.raises(ValueError):
        fastcd.massmatrix(X, T[:, :2])          # T has the wrong width for 2D
    with pytest.raises(ValueError):
        fastcd.massmatrix(X.ravel(), T)         # X must be 2-D
    with pytest.raises(ValueError, match="leak"):
        fastcd.FullCD(X, T, leak="sometimes")
    with pytest.raises(ValueError, match="time step"):
        fastcd.FullCD(X, T, dt=-1.0)
    with pytest.raises(ValueError, match="Poisson"):
        fastcd.ympr_to_lame(1e5, 0.5)
    with pytest.raises(ValueError, match="clusters"):
        fastcd.ReducedCD(X, T, n_clusters=10 * T.shape[0])
    with pytest.raises(TypeError):
        import scipy.sparse as sps
        fastcd.volume(sps.csc_matrix(X), T)


def test_step_shape_errors():
    X, T = fastcd.beam(12, 3)
    red = fastcd.ReducedCD(X, T, k_modes=4, n_clusters=6)
    m = red.state_dim
    z = np.zeros((m, 1)); p = red.p0
    with pytest.raises(ValueError, match=r"shape \(%d,\) or \(%d, 1\)" % (m, m)):
        red.step(np.zeros((m + 1, 1)), z, p, p, p)
    with pytest.raises(ValueError):
        red.step(z, z, p, p, np.zeros(5))
    with pytest.raises(ValueError):
        red.step(np.zeros((m, 2)), z, p, p, p)
    with pytest.raises(TypeError):
        red.step(z, z, p, p, "pose")
    full = fastcd.FullCD(X, T)
    u = np.zeros(full.state_dim)
    with pytest.raises(ValueError):
        full.step(u, u[:-1], p, p, p)


def test_runtime_errors():
    X, T = fastcd.beam(12, 3)
    Mv = fastcd.elastic_operators(X, T)["Mv"]
    B = np.ones((5, 2))
    with pytest.raises(RuntimeError, match="singular"):
        fastcd.project_into_subspace(np.arange(5.0), B)


def test_messages_name_the_function():
    X, T = fastcd.beam(12, 3)
    with pytest.raises(ValueError) as e:
        fastcd.diffuse_field(X, T, [0, 0], np.ones((2, 1)))  # repeated seed
    assert "diffuse_field" in str(e.value)
