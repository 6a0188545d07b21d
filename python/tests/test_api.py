"""The Python face of the renovation: simkit's module paths verbatim, copying and pickling of
the solvers, the Simulation and the scene layer, readers, and solvers that validate alike."""
import copy
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import fastcd


def _shared():
    return Path(os.environ["FASTCD_SHARED_DIR"])


def _seed_import_lines():
    """The tutorial's own import lines that name simkit, exactly as the seed document (shared/seed) has them."""
    text = (_shared() / "seed" / "000_eea53d4a0e7f2096.txt").read_text()
    start = text.index("from simkit import (")
    end = text.index("from simkit.solvers import block_coord") + len("from simkit.solvers import block_coord")
    block = text[start:end]
    assert block.count("from simkit") == 7, block
    return block


def test_tutorial_import_lines_run_verbatim_with_fastcd():
    code = _seed_import_lines().replace("simkit", "fastcd")
    names = {}
    exec(compile(code, "tutorial-23-imports", "exec"), names)  # noqa: S102 - the tutorial's own lines
    for name in ["massmatrix", "deformation_jacobian", "lbs_jacobian", "volume", "ympr_to_lame", "polar_svd",
                 "orthonormalize", "project_into_subspace", "cluster_grouping_matrices", "diffuse_field",
                 "normalize_and_center", "lbs_weight_space_constraint", "skinning_eigenmodes", "spectral_cubature",
                 "block_coord"]:
        assert callable(names[name]), name
    # The submodule imports leave the package's functions in place.
    assert callable(fastcd.diffuse_field) and fastcd.diffuse_field is names["diffuse_field"]
    assert callable(fastcd.skinning_eigenmodes) and callable(fastcd.spectral_cubature)
    X, T = fastcd.beam()
    bnd = np.unique(fastcd.boundary_facets(T)[0])
    leak = names["diffuse_field"](X, T, bnd, np.ones((bnd.shape[0], 1)), dt=1, normalize=True)
    np.testing.assert_allclose(1 - leak.ravel(), fastcd.momentum_leak_field(X, T), atol=1e-12)


def _roll(solver, steps=12):
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = solver.p0.copy(); p_dot = np.zeros_like(p)
    for i in range(steps):
        p_next = fastcd.handle(solver.p0, i)
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        s_dot = (s_new - s) / solver.dt; p_dot = (p_next - p) / solver.dt
        s, p = s_new, p_next.copy()
    return s


@pytest.mark.parametrize("cls", [fastcd.FullCD, fastcd.ReducedCD])
def test_solvers_deepcopy_and_pickle(cls, beam):
    solver = cls(*beam)
    ref = _roll(solver)
    twin = copy.deepcopy(solver)
    assert twin._sys is not solver._sys
    np.testing.assert_array_equal(_roll(twin), ref)
    loaded = pickle.loads(pickle.dumps(solver))
    np.testing.assert_array_equal(_roll(loaded), ref)  # the precompute is deterministic
    assert loaded.state_dim == solver.state_dim and loaded.constraint_rank == solver.constraint_rank
    if cls is fastcd.ReducedCD:
        np.testing.assert_array_equal(loaded.B, solver.B)
        np.testing.assert_array_equal(loaded.labels, solver.labels)


def test_simulation_runs_the_tutorial_and_copies(beam, ref):
    X, T = beam
    sim = fastcd.Simulation(X, T, solver="fast")
    for i in range(40):
        sim.advance(fastcd.handle(sim.rest_params, i))
    assert sim.step_count == 40 and sim.stats["steps"] == 40
    err = np.linalg.norm(sim.positions() - np.array(ref["positions_reduced"]["40"])) / np.linalg.norm(
        np.array(ref["positions_reduced"]["40"]))
    assert err < 1e-6
    assert sim.stats["max_residual"] < 1e-10 and sim.residual() < 1e-10
    assert sim.kinetic_energy() > 0 and sim.memory_bytes > 0
    twin = copy.deepcopy(sim)
    for s in (sim, twin):
        s.advance(fastcd.handle(sim.rest_params, 40))
    np.testing.assert_array_equal(sim.positions(), twin.positions())
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(sim)
    sim.reset()
    assert sim.step_count == 0 and np.abs(sim.displacement()).max() == 0


def test_handle_infers_the_dimension():
    p2 = np.array([1.0, 0, 0, 1, 0, 0])
    p3 = np.array([1.0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])
    assert fastcd.handle(p2, 20)[-2] == pytest.approx(3.0)
    q = fastcd.handle(p3, 20)
    assert q[-3] == pytest.approx(3.0) and q[-2] == 0.0  # x of the 3D translation, not y
    two_bones_2d = np.concatenate([p2, p2])  # 12 numbers: identity blocks only in the 2D reading
    assert fastcd.handle(two_bones_2d, 20)[-2] == pytest.approx(3.0)
    q = fastcd.handle(two_bones_2d.reshape(-1, 1), 20)
    assert q.shape == (12, 1)
    with pytest.raises(ValueError, match="not a set of LBS bones"):
        fastcd.handle(np.zeros(7), 1)
    with pytest.raises(ValueError, match="pass dim=2 or dim=3"):
        fastcd.handle(np.zeros(12), 1)
    assert fastcd.handle(np.zeros(12), 20, dim=3)[-3] == pytest.approx(3.0)


def test_rig_rest_of_a_redundant_rig_is_the_minimum_norm_pose():
    X, T = fastcd.beam(12, 3)
    Mv = fastcd.elastic_operators(X, T)["Mv"]
    J = fastcd.lbs_jacobian(X, np.ones((X.shape[0], 2)))  # two identical bones: J^T M J singular
    p0 = fastcd.rig_rest(J, Mv, X).ravel()
    np.testing.assert_allclose(J @ p0, X.ravel(), atol=1e-10)  # reproduces the rest shape
    half = 0.5 * np.array([1.0, 0, 0, 1, 0, 0])
    np.testing.assert_allclose(p0, np.concatenate([half, half]), atol=1e-10)  # and has the least norm
    lstsq = np.linalg.lstsq(np.sqrt(Mv.diagonal())[:, None] * J.toarray(), np.sqrt(Mv.diagonal()) * X.ravel(),
                            rcond=None)[0]
    np.testing.assert_allclose(p0, lstsq, atol=1e-10)


def test_both_solvers_validate_alike(beam):
    X, T = beam
    for solver in (fastcd.FullCD(X, T), fastcd.ReducedCD(X, T)):
        s = np.zeros(solver.state_dim); p = solver.p0.ravel()
        for bad in ("s", "s_dot", "p", "p_dot", "p_next"):
            args = dict(s=s.copy(), s_dot=s.copy(), p=p.copy(), p_dot=np.zeros_like(p), p_next=p.copy())
            args[bad][0] = np.nan
            with pytest.raises(ValueError, match="non-finite"):
                solver.step(args["s"], args["s_dot"], args["p"], args["p_dot"], args["p_next"])
    J = fastcd.lbs_jacobian(X, np.ones((X.shape[0], 1))).tolil()
    J[3, 1] = np.nan
    for cls in (fastcd.FullCD, fastcd.ReducedCD):
        with pytest.raises(ValueError, match=r"J is not a valid sparse matrix: entry \(3, 1\) is NaN"):
            cls(X, T, J=J.tocsc(), p0=np.array([1.0, 0, 0, 1, 0, 0]))
    with pytest.raises(ValueError, match="NaN"):
        fastcd.Simulation(X, T).advance(np.full(6, np.nan))


def test_load_scene_gives_a_ready_simulation():
    path = _shared() / "data" / "complementary-dynamics-2d" / "daisy" / "daisy_data" / "daisy.json"
    sim = fastcd.load_scene(path, solver="fast")
    scene = sim.scene
    assert scene.dim == 2 and len(scene.poses) > 10 and sim.solver == "fast"
    assert sim.dt == scene.dt
    for p in scene.poses[:10]:
        sim.advance(p)
    V = scene.to_file_units(sim.positions())
    assert V.shape[1] == 2 and np.isfinite(V).all()
    assert sim.stats["max_residual"] < 1e-8
    # The same as building the simulation by hand from the scene with the CLI's settings.
    by_hand = fastcd.Simulation(scene.X, scene.T, rig=scene.rig, solver="fast", dt=scene.dt, ym=scene.ym,
                                pr=scene.pr, rho=scene.rho, modes=16, clusters=100, leak="poisson")
    for p in scene.poses[:10]:
        by_hand.advance(p)
    np.testing.assert_array_equal(by_hand.positions(), sim.positions())
    assert "daisy" in repr(scene)


def test_readers_round_trip(tmp_path):
    X, T = fastcd.tetrahedralized_grid(3, 3, 3)
    fastcd.write_mesh(tmp_path / "a.mesh", X, T)
    X2, T2, _ = fastcd.read_mesh(tmp_path / "a.mesh")
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(T2, T)
    X3, T3 = fastcd.read_volume_mesh(tmp_path / "a.mesh")
    np.testing.assert_array_equal(T3, T)
    V = np.random.default_rng(0).random((5, 3)); F = np.array([[0, 1, 2], [2, 3, 4]])
    fastcd.write_obj(tmp_path / "s.obj", V, F)
    V2, F2 = fastcd.read_obj(tmp_path / "s.obj")
    np.testing.assert_array_equal(V2, V)
    np.testing.assert_array_equal(F2, F)
    W = np.random.default_rng(1).random((4, 3))
    for binary in (False, True):
        fastcd.write_dmat(tmp_path / "w.dmat", W, binary=binary)
        np.testing.assert_array_equal(fastcd.read_dmat(tmp_path / "w.dmat"), W)
    frames = np.random.default_rng(2).random((3, 5, 3)).astype(np.float32).astype(float)
    fastcd.write_pc2(tmp_path / "c.pc2", frames, 1.0, 1.0)
    got, start, rate = fastcd.read_pc2(tmp_path / "c.pc2")
    np.testing.assert_array_equal(got, frames)
    assert (start, rate) == (1.0, 1.0)
    tgf = _shared() / "data" / "complementary-dynamics-2d" / "daisy" / "daisy_data" / "daisy.tgf"
    if tgf.exists():
        g = fastcd.read_tgf(tgf)
        assert g["C"].shape[1] == 3
    with pytest.raises(RuntimeError, match=re.escape("read_obj")):
        fastcd.read_obj(tmp_path / "missing.obj")


def test_readme_python_example_runs(capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, flags=re.S | re.M)
    assert blocks, "README.md has no python example"
    for code in blocks:
        exec(compile(code.replace("../shared", str(_shared())), "README", "exec"), {})  # noqa: S102
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) < 1e-8 and float(printed[1]) > 0  # max residual, seconds per step


def test_results_do_not_depend_on_the_thread_count():
    """The elephant's 24 bones make its full-order KKT singular, so any thread-dependent rounding
    in the building blocks (dense products, CHOLMOD/OpenBLAS) would show in the positions."""
    path = _shared() / "data" / "complementary-dynamics-cpp" / "elephant" / "elephant.json"

    def run(n, solver):
        fastcd.set_threads(n)
        try:
            assert fastcd.threads() == n
            sim = fastcd.load_scene(path, solver=solver)
            for p in sim.scene.poses[:8]:
                sim.advance(p)
            return sim.positions()
        finally:
            fastcd.set_threads(0)

    for solver in ("full", "fast"):
        one = run(1, solver)
        np.testing.assert_array_equal(run(2, solver), one)
        np.testing.assert_array_equal(run(3, solver), one)
    with pytest.raises(ValueError, match="set_threads"):
        fastcd.set_threads(-2)


def test_mixed_precision_agrees_with_double_to_single_precision(beam):
    X, T = beam
    # 2 modes / 20 clusters: the structured iteration, where precision="mixed" applies.
    dbl, mix = (fastcd.ReducedCD(X, T, k_modes=2, n_clusters=20, precision=p) for p in ("double", "mixed"))
    sd, sm = _roll(dbl), _roll(mix)
    gap = np.linalg.norm(sm - sd) / np.linalg.norm(sd)
    assert 0 < gap < 1e-5, gap  # > 0: the single-precision products ran
    loaded = pickle.loads(pickle.dumps(mix))  # the precision travels with the solver
    np.testing.assert_array_equal(_roll(loaded), sm)
    sims = [fastcd.Simulation(X, T, solver="fast", modes=2, clusters=20, precision=p) for p in ("double", "mixed")]
    for i in range(30):
        for s in sims:
            s.advance(fastcd.handle(s.rest_params, i))
    u = sims[0].displacement()
    assert np.abs(u).max() > 0
    assert 0 < np.abs(sims[1].displacement() - u).max() < 1e-5 * np.abs(u).max()
    with pytest.raises(ValueError, match='"half"'):
        fastcd.ReducedCD(X, T, precision="half")
    with pytest.raises(ValueError, match="fast-solver setting"):
        fastcd.Simulation(X, T, solver="full", precision="mixed")
