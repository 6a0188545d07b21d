"""Issue 39 (trust), the Python bindings: no input crashes them, two threads may share a
Simulation, and a call that does not fit says so in a line.

The crash-prone probes run in a child process (trust_probe.py) so that a segfault or a hang fails
the test that found it instead of killing pytest.
"""
import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps

import fastcd

PROBE = Path(__file__).with_name("trust_probe.py")


def probe(*args, timeout=120):
    """The JSON lines trust_probe.py prints; fails on a crash or a hang, naming the last case."""
    try:
        run = subprocess.run([sys.executable, str(PROBE), *map(str, args)], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired as e:
        last = (e.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        pytest.fail(f"trust_probe.py {' '.join(map(str, args))} hung; last case: {last}")
    last = run.stderr.strip().splitlines()[-1:]
    assert run.returncode == 0, f"trust_probe.py {' '.join(map(str, args))} died ({run.returncode}) at {last}:\n" \
                                f"{run.stderr[-2000:]}"
    return [json.loads(line) for line in run.stdout.splitlines()]


# ---------------------------------------------------------------- item 8: sparse inputs

EXPECTED = {  # corruption -> what the message must say
    "row index past the end": "has row index",
    "negative row index": "has row index -1",
    "indptr entry past nnz": "indptr decreases at column 2",
    "indptr ends past nnz": "indptr ends at",
    "indptr too short": "indptr has",
    "indptr not starting at 0": "indptr starts at 1",
    "NaN value": "is NaN",
    "infinite value": "is inf",
    "negative shape": "a negative size",
    "64-bit index": "row index 1099511627776",
    "csr column index past the end": "row 0 has column index",
    "coo row index past the end": "entry 4 has row index",
    "lil column index past the end": "column index exceeds matrix dimensions",
    "csc_array negative index": "has row index -4",
}


def test_broken_sparse_matrices_raise_named_errors_at_every_entry_point():
    """scipy checks none of a matrix's index arrays after it is built (nor do its own conversions):
    every entry point that takes one refuses a broken one with a ValueError that names the
    argument and the problem, and still works with the intact matrix."""
    results = probe("sparse")
    entries = {r["case"].split(" | ")[0] for r in results}
    assert {"FullCD(J=)", "ReducedCD(J=)", "Simulation(J=)", "kron_identity(A)", "project_into_subspace(B)",
            "LinearRig(J)", "Rig.jacobian result"} <= entries
    wrong = []
    for r in results:
        parts = r["case"].split(" | ")
        if parts[1] == "healthy":
            if r["error"] is not None:
                wrong.append(f"{r['case']}: {r['error']}: {r['message']}")
            continue
        _, what, name = parts
        ok = (r["error"] == "ValueError" and r["message"].startswith(f"{name} is not a valid sparse matrix: ")
              or name.endswith("result") and f"{name} is not a valid sparse matrix: " in r["message"]) \
            and EXPECTED[what] in r["message"] and len(r["message"]) < 300
        if not ok:
            wrong.append(f"{r['case']}: {r['error']}: {r['message']}")
    assert not wrong, "\n".join(wrong)
    full = next(r for r in results if r["case"] == "FullCD(J=) | row index past the end | J")
    assert full["message"] == "J is not a valid sparse matrix: column 0 has row index 53, the matrix has 48 rows"


def test_sparse_inputs_keep_scipy_meaning():
    """Unsorted indices and duplicate entries (valid scipy) are summed, in every format."""
    A = sps.csc_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3, 3])), shape=(3, 2))
    want = A.toarray()
    for B in (A, A.tocsr(), A.tocoo(), A.tolil(), A.todok(), sps.csr_array(A), A.toarray()):
        got = fastcd.kron_identity(B, 1)
        assert got.has_sorted_indices and np.array_equal(got.toarray(), want), type(B)


# ---------------------------------------------------------------- item 8: pickles

def test_damaged_pickled_states_raise_value_errors_naming_the_object():
    results = probe("states")
    assert len(results) >= 30
    wrong = [r for r in results
             if r["error"] != "ValueError" or not r["message"].startswith(f"cannot unpickle a fastcd.{r['case'].split()[0]}")
             or len(r["message"]) > 300]
    assert not wrong, "\n".join(f"{r['case']}: {r['error']}: {r['message']}" for r in wrong)


def test_random_bit_flips_in_pickled_solvers_never_crash():
    """600 single-bit flips (fixed seed) in a pickled FullCD and ReducedCD: each load raises or gives a
    solver that steps; none crashes or hangs, and the damage fastcd's checks catch is named."""
    results = {r["object"]: r for r in probe("pickle", 600, timeout=60)}
    assert set(results) == {"FullCD", "ReducedCD"}
    for name, r in results.items():
        assert sum(r["outcomes"].values()) == 600
        assert r["outcomes"].get("loaded", 0) > 0, r
        assert r["named"] > 0, r  # flips inside the arrays reach fastcd's checks


def test_pickles_round_trip_and_old_pickles_load(beam):
    X, T = beam
    for solver in (fastcd.FullCD(X, T), fastcd.ReducedCD(X, T, k_modes=3, n_clusters=4)):
        again = pickle.loads(pickle.dumps(solver))
        assert set(vars(again)) == set(vars(solver))
        assert np.array_equal(again.p0, solver.p0) and again.iters == solver.iters
        old = type(solver).__new__(type(solver))  # a pickle of the earlier layout: every attribute
        old.__setstate__(dict(vars(solver)))
        assert np.array_equal(old.D, solver.D) and (old.B is None) == (solver.B is None)


def test_simulation_refuses_pickling_with_a_reason(beam):
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(fastcd.Simulation(*beam))


# ---------------------------------------------------------------- item 11: threads

def test_one_simulation_shared_by_threads_steps_as_in_serial():
    """Two threads advancing one Simulation (and a third reading it) give no error and the state of
    the same steps taken one after the other; a Python rig (which takes the GIL inside a step)
    does not deadlock; a rig calling back into its own simulation is refused, not hung."""
    results = {r["case"]: r for r in probe("threads")}
    for solver in ("full", "fast"):
        r = results[f"{solver}: two threads advancing, one reading"]
        assert r["errors"] == [] and r["steps"] == r["expected_steps"], r
        assert r["same_as_serial"], r
    r = results["python rig: two threads advancing"]
    assert r["errors"] == [] and r["steps"] == r["expected_steps"], r
    r = results["python rig calling back into its simulation"]
    assert r["error"] == "RuntimeError" and "must not use its simulation" in r["message"], r


def test_copies_of_a_simulation_are_independent(beam):
    sim = fastcd.Simulation(*beam)
    p = sim.rest_params.copy()
    p[-2] += 0.2
    sim.advance(p)
    twin = copy.deepcopy(sim)
    twin.advance(p)
    assert sim.step_count == 1 and twin.step_count == 2


# ---------------------------------------------------------------- item 15: short, named errors

@pytest.fixture(scope="module")
def small():
    X, T = fastcd.beam(12, 3)
    return X, T, fastcd.Simulation(X, T), fastcd.lbs_jacobian(X, np.ones((X.shape[0], 1)))


BIG = np.random.default_rng(0).random((3000, 7, 2))  # its repr alone would be kilobytes
LONG = [["x"] * 50] * 100


@pytest.mark.parametrize("call, error, words", [
    (lambda s: s[2].advance("pose"), TypeError, "p_next must be a vector of 6 numbers, got a str"),
    (lambda s: s[2].advance(LONG), TypeError, "p_next must be a vector of 6 numbers, got a list of 100 items"),
    (lambda s: s[2].advance(np.ones((6, 2))), ValueError, "p_next must be a vector of 6 numbers"),
    (lambda s: s[2].advance(1, 2), TypeError, "Simulation.advance(): takes 1 argument (p_next), got 2"),
    (lambda s: fastcd.Simulation(s[0], s[1], rig=BIG), TypeError, "rig must be a fastcd.Rig"),
    (lambda s: fastcd.Simulation(s[0], s[1], solver=BIG), TypeError, "solver must be a string, got a float64 array"),
    (lambda s: fastcd.FullCD(s[0], s[1], dt="fast"), TypeError, "dt must be a number, got the string 'fast'"),
    (lambda s: fastcd.LinearRig(BIG, np.zeros(6), 2), TypeError, "J must be a scipy.sparse matrix or a 2-D array"),
    (lambda s: fastcd.LinearRig(s[3], np.zeros(6), "two"), TypeError, "LinearRig(): dim must be an integer"),
    (lambda s: fastcd.LinearRig(s[3]), TypeError, "LinearRig(): the argument 'p0' is missing"),
    (lambda s: fastcd.cage_rig(s[0], BIG, s[1]), ValueError, "cage_V must be a 2-D array of numbers"),
    (lambda s: fastcd.point_handle_rig(s[0], s[1], "abc", s[3]), TypeError, "handles must be a list"),
    (lambda s: fastcd.set_threads(BIG), TypeError, "set_threads(): n must be an integer"),
    (lambda s: fastcd.read_scene(BIG), TypeError, "path must be a path"),
    (lambda s: fastcd.skinned_scene([{"V": BIG, "F": [[0, 1, 2]], "W": np.ones((3, 1))}], [np.zeros(12)]),
     ValueError, "skins[0]['V'] must be an (n, 3) array of numbers"),
    (lambda s: fastcd.skinned_scene([{"V": np.zeros((3, 3)), "F": [[0, 1, 2]], "W": np.ones((3, 1))}], [LONG]),
     TypeError, "poses[0] must be a vector of numbers"),
    (lambda s: fastcd.Rig(BIG), TypeError, "Rig(): takes 0 arguments"),
])
def test_misuse_gives_one_short_line_naming_the_argument(small, call, error, words):
    with pytest.raises(error) as e:
        call(small)
    msg = str(e.value)
    assert words in msg
    assert len(msg) < 200 and "\n" not in msg and "Invoked with" not in msg, msg
