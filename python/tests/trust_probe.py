"""The crash-prone probes of test_trust.py, run in a child process (``python trust_probe.py MODE``)
so that a segfault or a hang fails that test instead of killing pytest.

Each mode prints one JSON object per line on stdout: what happened in each case. Before each case
it names the case on stderr, so a crash shows where it happened.

  sparse   scipy.sparse matrices with index arrays edited in place (scipy checks none of them),
           passed to every entry point that takes one
  states   pickled solver states damaged field by field
  pickle   random bit flips in pickled FullCD / ReducedCD objects (fixed seed)
  threads  one Simulation advanced (and read) from several Python threads
"""
import json
import pickle
import random
import resource
import sys
import threading

import numpy as np
import scipy.sparse as sps

import fastcd
from fastcd import _fastcd


def report(**fields):
    print(json.dumps(fields), flush=True)


def attempt(case, fn):
    """Runs fn() and reports its outcome: ok, or the exception's type and message."""
    print(case, file=sys.stderr, flush=True)
    try:
        fn()
    except Exception as e:  # every outcome is reported; the test judges it
        report(case=case, error=type(e).__name__, message=str(e))
    else:
        report(case=case, error=None, message="")


# ---------------------------------------------------------------- sparse

def corruptions(A):
    """(name, broken copy of A) pairs; A is CSC. Each edits the arrays scipy never checks again."""
    rows, cols = A.shape

    def edit(fn):
        B = A.copy()
        fn(B)
        return B

    def set_shape(B, shape):
        B._shape = shape

    yield "row index past the end", edit(lambda B: B.indices.__setitem__(3, rows + 5))
    yield "negative row index", edit(lambda B: B.indices.__setitem__(3, -1))
    yield "indptr entry past nnz", edit(lambda B: B.indptr.__setitem__(2, 10 ** 6))
    yield "indptr ends past nnz", edit(lambda B: B.indptr.__setitem__(cols, B.indptr[cols] + 50))
    yield "indptr too short", edit(lambda B: setattr(B, "indptr", B.indptr[:-2].copy()))
    yield "indptr not starting at 0", edit(lambda B: B.indptr.__setitem__(0, 1))
    yield "NaN value", edit(lambda B: B.data.__setitem__(0, np.nan))
    yield "infinite value", edit(lambda B: B.data.__setitem__(1, np.inf))
    yield "negative shape", edit(lambda B: set_shape(B, (-rows, cols)))
    yield "64-bit index", edit(lambda B: setattr(B, "indices", np.where(np.arange(B.nnz) == 3, 2 ** 40, B.indices)))


def formats(A):
    """The same broken index in other formats: CSR, COO and LIL."""
    rows, cols = A.shape
    csr = A.tocsr()
    csr.indices[2] = cols + 3
    yield "csr column index past the end", csr
    coo = A.tocoo()
    coo.row[4] = rows + 7
    yield "coo row index past the end", coo
    lil = A.tolil()
    lil.rows[1][0] = cols + 2
    yield "lil column index past the end", lil
    csc_array = sps.csc_array(A)
    csc_array.indices[0] = -4
    yield "csc_array negative index", csc_array


def sparse_mode():
    X, T = fastcd.beam(8, 3)
    n, dim = X.shape
    J = fastcd.lbs_jacobian(X, np.ones((n, 1)))  # (n dim, 6) csc
    y = np.ones(n * dim)

    class PythonRig(fastcd.Rig):
        """A rig whose jacobian(p) returns the broken matrix under test."""

        def __init__(self, bad):
            fastcd.Rig.__init__(self)
            self.bad = bad

        def dim(self):
            return dim

        def num_vertices(self):
            return n

        def num_params(self):
            return 6

        def rest_params(self):
            return np.array([1.0, 0, 0, 1, 0, 0])

        def name(self):
            return "probe"

        def positions(self, p):
            return J @ p

        def jacobian(self, p):
            return self.bad

    M = sps.diags(np.full(n * dim, 2.0)).tocsc()  # a mass matrix
    C = J.T.tocsc()  # a constraint on displacements, (6, n dim)
    # entry point -> (call with the broken matrix, the name its message must use, the matrix to break)
    entries = {
        "FullCD(J=)": (lambda B: fastcd.FullCD(X, T, J=B), "J", J),
        "ReducedCD(J=)": (lambda B: fastcd.ReducedCD(X, T, k_modes=2, n_clusters=3, J=B), "J", J),
        "Simulation(J=)": (lambda B: fastcd.Simulation(X, T, J=B), "J", J),
        "LinearRig(J)": (lambda B: fastcd.LinearRig(B, np.zeros(6), dim), "J", J),
        "kron_identity(A)": (lambda B: fastcd.kron_identity(B, 2), "A", J),
        "project_into_subspace(B)": (lambda B: fastcd.project_into_subspace(y, B), "B", J),
        "project_into_subspace(M)": (lambda B: fastcd.project_into_subspace(y, J, M=B), "M", M),
        "project_into_subspace(B, BMB)": (lambda B: fastcd.project_into_subspace(y, B, BMB=np.eye(6)), "B", J),
        "orthonormalize(B)": (lambda B: fastcd.orthonormalize(B), "B", J),
        "orthonormalize(M)": (lambda B: fastcd.orthonormalize(J, M=B), "M", M),
        "rig_rest(J)": (lambda B: fastcd.rig_rest(B, M, X), "J", J),
        "rig_rest(Mv)": (lambda B: fastcd.rig_rest(J, B, X), "Mv", M),
        "lbs_weight_space_constraint(C)": (lambda B: fastcd.lbs_weight_space_constraint(X, T, B), "C", C),
        "skinning_eigenmodes(Aeq)": (lambda B: fastcd.skinning_eigenmodes(X, T, 2, Aeq=B), "Aeq", C[:, :n].tocsc()),
        "point_handle_rig(Mv)": (lambda B: fastcd.point_handle_rig(X, T, [0, 1], B), "Mv", M),
        "Rig.jacobian result": (lambda B: fastcd.Simulation(X, T, rig=PythonRig(B)), "jacobian(p)'s result", J),
        "_fastcd.kron_identity (caster)": (lambda B: _fastcd.kron_identity(B, 2), "a sparse-matrix argument", J),
    }
    for entry, (call, name, base) in entries.items():
        attempt(f"{entry} | healthy", lambda: call(base.copy()))
        for what, B in corruptions(base):
            attempt(f"{entry} | {what} | {name}", lambda: call(B))
    for what, B in formats(J):
        attempt(f"kron_identity(A) | {what} | A", lambda: fastcd.kron_identity(B, 2))


# ---------------------------------------------------------------- pickled states

def states_mode():
    X, T = fastcd.beam(8, 3)
    for cls, kw in ((fastcd.FullCD, {}), (fastcd.ReducedCD, {"k_modes": 2, "n_clusters": 3})):
        good = cls(X, T, **kw)
        system = type(good._sys)
        X0, T0, J0, p00, opts0 = good._sys.__getstate__()

        def load(state, system=system):
            obj = system.__new__(system)
            obj.__setstate__(state)

        def with_option(key, value, opts0=opts0):
            o = dict(opts0)
            if value is KeyError:
                del o[key]
            else:
                o[key] = value
            return o

        bad_J = J0.copy()
        bad_J.indices[5] = 10 ** 7
        bad_T = np.array(T0, copy=True)
        bad_T[2, 1] = 10 ** 6
        bad_X = np.array(X0, copy=True)
        bad_X[0, 0] = np.nan
        cases = {
            "not a tuple": "junk",
            "too short": (X0, T0, J0),
            "J index past the end": (X0, T0, bad_J, p00, opts0),
            "J not a matrix": (X0, T0, "J", p00, opts0),
            "T index past the end": (X0, bad_T, J0, p00, opts0),
            "T of floats": (X0, np.asarray(T0, dtype=float), J0, p00, opts0),
            "X with NaN": (bad_X, T0, J0, p00, opts0),
            "X of 4 columns": (np.ones((X0.shape[0], 4)), T0, J0, p00, opts0),
            "p0 of the wrong size": (X0, T0, J0, np.zeros(len(p00) + 1), opts0),
            "options not a dict": (X0, T0, J0, p00, [1, 2]),
            "options without dt": (X0, T0, J0, p00, with_option("dt", KeyError)),
            "leak kind 99": (X0, T0, J0, p00, with_option("leak_kind", 99)),
            "backend -1": (X0, T0, J0, p00, with_option("backend", -1)),
            "dt a string": (X0, T0, J0, p00, with_option("dt", "fast")),
            "negative iterations": (X0, T0, J0, p00, with_option("iterations", -3)),
            "leak values with NaN": (X0, T0, J0, p00, with_option("leak_values", np.full(X0.shape[0], np.nan))),
        }
        for what, state in cases.items():
            attempt(f"{cls.__name__} C++ state | {what}", lambda: load(state))
        for what, state in {"not a dict": [1], "solver of another kind": {"_sys": 5, "iters": 10},
                            "negative iters": {"_sys": good._sys, "iters": -1}}.items():
            attempt(f"{cls.__name__} state | {what}", lambda: cls.__new__(cls).__setstate__(state))


# ---------------------------------------------------------------- bit flips

def pickle_mode(flips):
    # A flip can turn a length in the pickle into gigabytes; with 1 GB of address space pickle
    # fails on it at once (MemoryError) instead of zeroing that much memory.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    X, T = fastcd.beam(8, 3)
    rng = random.Random(20240639)
    for obj in (fastcd.FullCD(X, T), fastcd.ReducedCD(X, T, k_modes=3, n_clusters=4)):
        name = type(obj).__name__
        data = pickle.dumps(obj)
        again = pickle.loads(data)  # the intact pickle loads and steps
        p = again.p0.ravel()
        assert np.array_equal(again.step(np.zeros(again.state_dim), np.zeros(again.state_dim), p, 0 * p, p),
                              obj.step(np.zeros(obj.state_dim), np.zeros(obj.state_dim), p, 0 * p, p))
        outcomes = {}
        named = 0
        for i in range(flips):
            bit = rng.randrange(len(data) * 8)
            flipped = bytearray(data)
            flipped[bit // 8] ^= 1 << (bit % 8)
            print(f"{name} flip {i}: bit {bit}", file=sys.stderr, flush=True)
            try:
                loaded = pickle.loads(bytes(flipped))
                if isinstance(loaded, (fastcd.FullCD, fastcd.ReducedCD)):  # what loads, steps
                    s = np.zeros(loaded.state_dim)
                    q = loaded.p0.ravel()
                    loaded.step(s, s, q, np.zeros_like(q), q)
                kind = "loaded"
            except Exception as e:
                kind = type(e).__name__
                named += isinstance(e, ValueError) and f"cannot unpickle a fastcd.{name}" in str(e)
            outcomes[kind] = outcomes.get(kind, 0) + 1
        report(object=name, flips=flips, bytes=len(data), outcomes=outcomes, named=named)


# ---------------------------------------------------------------- threads

def run_threads(workers):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except Exception as e:
                errors.append(f"{type(e).__name__}: {e}")
        return run

    threads = [threading.Thread(target=guarded(w)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def threads_mode():
    X, T = fastcd.beam()
    steps = 150
    for solver in ("full", "fast"):
        sim = fastcd.Simulation(X, T, solver=solver, ym=1e4)
        p = sim.rest_params.copy()
        p[-2] += 0.3  # the handle moves away once and stays: every step sees the same pose
        serial = fastcd.Simulation(X, T, solver=solver, ym=1e4)
        for _ in range(2 * steps):
            serial.advance(p)
        stop = []

        def advance():
            for _ in range(steps):
                sim.advance(p)

        def read():
            while not stop:
                sim.positions(), sim.residual(), sim.kinetic_energy(), sim.stats, sim.velocities()

        def advance_then_stop():
            advance()
            stop.append(True)

        errors = run_threads([advance, advance_then_stop, read])
        if not stop:
            stop.append(True)
        report(case=f"{solver}: two threads advancing, one reading", errors=errors[:5],
               steps=sim.step_count, expected_steps=2 * steps,
               same_as_serial=bool(np.array_equal(sim.positions(), serial.positions())),
               max_difference=float(np.abs(sim.positions() - serial.positions()).max()))

    class Swing(fastcd.Rig):
        """A rig in Python: its positions() takes the GIL inside a step."""

        def __init__(self, sim_box=None):
            fastcd.Rig.__init__(self)
            self.sim_box = sim_box

        def dim(self):
            return 2

        def num_vertices(self):
            return X.shape[0]

        def num_params(self):
            return 1

        def rest_params(self):
            return np.zeros(1)

        def name(self):
            return "swing"

        def positions(self, q):
            if self.sim_box:  # a rig that uses its own simulation
                self.sim_box[0].positions()
            return (X + np.array([q[0], 0.0])).ravel()

    sim = fastcd.Simulation(X, T, rig=Swing(), ym=1e4)
    errors = run_threads([lambda: [sim.advance(np.array([0.01 * i])) for i in range(40)] for _ in range(2)])
    report(case="python rig: two threads advancing", errors=errors[:5], steps=sim.step_count, expected_steps=80)

    box = []
    reentrant = fastcd.Simulation(X, T, rig=Swing(box), ym=1e4)  # the rig calls back once box holds it
    box.append(reentrant)
    attempt("python rig calling back into its simulation", lambda: reentrant.advance(np.array([0.1])))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "sparse":
        sparse_mode()
    elif mode == "states":
        states_mode()
    elif mode == "pickle":
        pickle_mode(int(sys.argv[2]) if len(sys.argv) > 2 else 600)
    elif mode == "threads":
        threads_mode()
    else:
        sys.exit(f"unknown mode {mode!r}")
