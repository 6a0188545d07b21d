"""Parity with simkit 0.1.4 running simkit tutorial 23 on the default beam
(shared/reference/tutorial23_beam_simkit.json; produced without fastcd)."""
import numpy as np
import pytest

import fastcd
from fastcd import (beam, boundary_facets, cluster_grouping_matrices, diffuse_field, elastic_operators,
                    handle, lbs_jacobian, lbs_weight_space_constraint, orthonormalize, rig_rest,
                    skinning_eigenmodes, spectral_cubature)

from conftest import rel_err

DT = 1e-2


def run(solver, nsteps):
    """Simkit tutorial 23's roll-out loop, verbatim except for `nsteps` and `dim`."""
    J, p0, B = solver.J, solver.p0, solver.B
    dim = solver.dim
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = p0.copy(); p_dot = np.zeros_like(p)
    states, viol = [], []
    for i in range(nsteps):
        p_next = handle(p0, i)
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        s_dot = (s_new - s) / DT; p_dot = (p_next - p) / DT
        s, p = s_new, p_next.copy()
        uc = (B @ s) if B is not None else s  # u_c in full coordinates
        states.append((J @ p + uc).reshape(-1, dim))
        viol.append(float(np.linalg.norm(solver.A @ uc)))
    return states, viol


def test_reference_settings_are_the_defaults(ref):
    st = ref["settings"]
    assert st["beam"] == [40, 5] and st["thickness"] == 0.1
    assert (st["YM"], st["poisson"], st["rho"], st["dt"]) == (1e5, 0.0, 1e3, DT)
    assert (st["bcd_iters"], st["amp"], st["period"], st["leak_dt"]) == (10, 3.0, 80, 1.0)
    assert (st["k_modes"], st["n_clusters"]) == (10, 20)


def test_beam_and_rest_pose(ref, beam, full, red):
    X, T = beam
    assert X.shape == (ref["n"], 2) and T.shape == (ref["t"], 3)
    np.testing.assert_allclose(X.min(axis=0), [-0.1, -1.0], atol=1e-14)
    np.testing.assert_allclose(X.max(axis=0), [0.1, 1.0], atol=1e-14)
    for solver in (full, red):
        assert solver.p0.shape == (6, 1)
        np.testing.assert_allclose(solver.p0.ravel(), ref["p0"], atol=1e-12)
    # the tutorial's own construction of the rig, through the functional API
    op = elastic_operators(X, T)
    J = lbs_jacobian(X, np.ones((X.shape[0], 1)))
    assert J.shape == (400, 6)
    np.testing.assert_allclose(rig_rest(J, op["Mv"], X).ravel(), ref["p0"], atol=1e-12)


def test_leak_field(ref, beam, full, red):
    X, T = beam
    D_ref = np.array(ref["leak_field_D"])
    np.testing.assert_allclose(full.D, D_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(red.D, D_ref, rtol=0, atol=1e-9)
    # the tutorial's construction: D = 1 - diffuse_field(boundary -> 1, dt=1)
    bnd = np.unique(boundary_facets(T)[0])
    assert bnd.shape == (86,)
    leak = diffuse_field(X, T, bnd, np.ones((bnd.shape[0], 1)), dt=1, normalize=True)
    np.testing.assert_allclose((1 - leak).ravel(), D_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fastcd.momentum_leak_field(X, T), D_ref, rtol=0, atol=1e-9)


def test_eigenvalues_and_clusters(ref, beam, red):
    E_ref = np.array(ref["eigenvalues"])
    np.testing.assert_allclose(red.eigenvalues, E_ref, rtol=1e-6)
    assert sorted(np.bincount(red.labels, minlength=20).tolist()) == ref["cluster_counts_sorted"]
    assert red.labels.shape == (ref["t"],)
    assert red.n_rot == 20 and red.state_dim == 60 and red.B.shape == (400, 60)


def test_seed_reduced_pipeline_through_functions(ref, beam):
    """The tutorial's ReducedCD.__init__ written with fastcd's simkit-named functions."""
    X, T = beam
    n, dim = X.shape
    op = elastic_operators(X, T)
    Mv = op["Mv"]
    J = lbs_jacobian(X, np.ones((n, 1)))
    bnd = np.unique(boundary_facets(T)[0])
    leak = diffuse_field(X, T, bnd, np.ones((bnd.shape[0], 1)), dt=1, normalize=True)
    import scipy.sparse as sps
    D = sps.kron(sps.diags((1 - leak).flatten()), sps.identity(dim))
    Aeq = lbs_weight_space_constraint(X, T, (D @ Mv @ J).T)
    W, E, B = skinning_eigenmodes(X, T, 10, Aeq=Aeq)
    np.testing.assert_allclose(E, ref["eigenvalues"], rtol=1e-6)
    B = orthonormalize(B, M=Mv)
    assert B.shape == (400, 60)
    np.testing.assert_allclose(B.T @ Mv @ B, np.eye(60), atol=1e-10)
    A = sps.csc_matrix(J.T @ Mv @ D)
    assert np.linalg.norm(A @ B) / (sps.linalg.norm(A) * np.linalg.norm(B)) < 1e-10
    _cI, _cW, labels = spectral_cubature(X, T, W, 20, return_labels=True)
    assert sorted(np.bincount(labels).tolist()) == ref["cluster_counts_sorted"]
    P, _Pm = cluster_grouping_matrices(labels, X, T)
    assert P.shape == (20, 312)


@pytest.mark.parametrize("kind, tol", [("full", 1e-8), ("reduced", 1e-6)])
def test_positions_through_the_seed_run_loop(ref, full, red, kind, tol):
    solver = full if kind == "full" else red
    states, viol = run(solver, 120)
    for k in ("10", "40", "120"):
        expected = np.array(ref[f"positions_{kind}"][k])
        err = rel_err(states[int(k) - 1], expected)
        assert err <= tol, f"{kind} step {k}: relative error {err:.3e}"
    # the rig-orthogonality constraint holds along the whole roll-out
    assert max(viol) < 1e-10  # simkit's full order: 1.2e-13; its reduced basis: ~1e-8


def test_structural_residual(red):
    C = red.A.toarray()
    rel = np.linalg.norm(C @ red.B) / (np.linalg.norm(C) * np.linalg.norm(red.B))
    assert rel < 1e-10
    assert red.structural_residual < 1e-10
    assert red.constraint_rank == 6
