#!/usr/bin/env python3
"""Issue 39, items 9, 14 and 15: work that would not fit in memory is refused before it
allocates, with the estimate and what to do (never a crash, never a bare std::bad_alloc);
settings outside the method's range are named; divergence advice names the cause it measured.

Memory: each run is a child process under an address-space limit (RLIMIT_AS, as `ulimit -v` or
`prlimit --as` set it), the probe's 6 GB scaled down with the inputs so that every case takes
seconds: the probe's sphere voxelised finely (the automatic weights' factorisation segfaulted),
the voxel grid itself at resolution 256 (a bare std::bad_alloc), and a many-handle rig on the
fast solver (it grew ~22 MB per bone until std::bad_alloc). Each must exit 1 (no signal) with
one line that holds the estimate ("needs about ... GiB, ... available") and the fix.

Settings: a material so soft or heavy, or a step so short, that the mesh never moves while the
rig moves it by half its size (a warning in run.json and on stderr, naming what was measured);
--iterations 0 (refused, naming the setting); a Young's modulus beyond double precision (refused
before the solver's "matrix is not positive definite"); a handle that teleports (the divergence
names the step and the handle, not the material; no number printed with more than a few digits).

usage: check_limits.py FASTCD SHARED_DIR SCRATCH PYTHON_DIR
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

FASTCD, SHARED, SCRATCH = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve()
PYTHON_DIR = str(Path(sys.argv[4]).resolve())
SPHERE = SHARED / "data" / "complementary-dynamics-cpp" / "sphere"
GiB = 1 << 30
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(cmd, cap=None, env=None):
    """Runs cmd, under an address-space limit of `cap` bytes when given."""
    def limit():
        if cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    e = dict(os.environ, MALLOC_ARENA_MAX="2", PYTHONPATH=PYTHON_DIR, **(env or {}))
    return subprocess.run(cmd, capture_output=True, text=True, preexec_fn=limit, env=e, timeout=300)


def refused(r, name, *words):
    """Exit 1 (not a signal), one error line with an estimate, no bare bad_alloc, every word."""
    err = r.stderr
    check(r.returncode == 1, f"{name}: exit code 1 (got {r.returncode}{', a signal' if r.returncode < 0 else ''})")
    check("bad_alloc" not in err, f"{name}: no bare std::bad_alloc")
    check(re.search(r"needs about [0-9.]+ [MGT]iB", err) is not None, f"{name}: the estimate ({err.strip()[-300:]!r})")
    check(re.search(r"[0-9.]+ [MGT]iB available", err) is not None, f"{name}: the memory available")
    for w in words:
        check(w in err, f"{name}: says {w!r}")


def scene(name, **changes):
    """The shipped sphere scene with `changes`, its files by absolute path."""
    j = json.loads((SPHERE / "sphere.json").read_text())
    j = {k: str(SPHERE / v) if isinstance(v, str) and v.startswith("sphere") else v for k, v in j.items()}
    j.update(changes)
    path = SCRATCH / f"{name}.json"
    path.write_text(json.dumps(j))
    return path


def bake(path, *extra, cap=None):
    out = SCRATCH / ("out_" + path.stem)
    return run([FASTCD, "--threads", "1", "run", str(path), "--out", str(out), "--no-video", "--force", *extra],
               cap=cap), out


def surface_voxels(resolution, cap):
    out = SCRATCH / f"voxels_{resolution}"
    return run([FASTCD, "--threads", "1", "run", str(SPHERE / "sphere.obj"), "--handles", str(SPHERE / "sphere.tgf"),
                "--anim", str(SPHERE / "sphere_anim.txt"), "--mesher", "voxel", "--voxel-resolution",
                str(resolution), "--no-cache", "--no-video", "--frames", "2", "--force", "--out", str(out)], cap=cap)


shutil.rmtree(SCRATCH, ignore_errors=True)
SCRATCH.mkdir(parents=True)

# --- memory (item 9)
# The automatic weights' factorisation: 87k voxel vertices need ~3 GiB (the probe: 128 cells,
# a segfault inside the factorisation under 6 GB).
refused(surface_voxels(56, int(1.5 * GiB)), "voxel weights", "automatic (biharmonic) weights",
        "vertices would fit", "voxel resolution")
# The grid itself (the probe: 256 cells, a bare std::bad_alloc).
refused(surface_voxels(256, 1 * GiB), "voxel grid", "voxelising at resolution 256", "lower voxel resolution")

# Many handles on the fast solver, refused before the precompute allocates (Python, the same
# Simulation the Blender add-on builds): 200 handles on 4,913 vertices need a few GiB.
GRID = r"""
import sys, numpy as np, scipy.sparse as sp, fastcd


def tet_grid(n):
    # (n+1)^3 vertices on the unit cube, six positively oriented tets per cell.
    g = np.linspace(0, 1, n + 1)
    X = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    idx = np.arange((n + 1) ** 3).reshape(n + 1, n + 1, n + 1)
    c = {(i, j, k): idx[i:i + n, j:j + n, k:k + n].ravel() for i in (0, 1) for j in (0, 1) for k in (0, 1)}
    T = []
    for p in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        cur, v = [0, 0, 0], [c[(0, 0, 0)]]
        for a in p:
            cur[a] = 1
            v.append(c[tuple(cur)])
        T.append(np.stack(v, 1))
    T = np.concatenate(T)
    P = X[T]
    flip = np.einsum("ij,ij->i", np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), P[:, 3] - P[:, 0]) < 0
    T[flip, 1], T[flip, 2] = T[flip, 2].copy(), T[flip, 1].copy()
    return X, T.astype(np.int32)


def identity_poses(h):
    return np.tile(np.hstack([np.eye(3), np.zeros((3, 1))]).ravel(order="F"), h)
"""
MANY_HANDLES = GRID + r"""
X, T = tet_grid(16)
h = 200
C = np.random.default_rng(0).random((h, 3))
W = np.exp(-((X[:, None] - C[None]) ** 2).sum(-1) / 0.02) + 1e-12
W /= W.sum(1, keepdims=True)
rig = fastcd.LinearRig(fastcd.lbs_jacobian(X, W), identity_poses(h), 3, "lbs")
fastcd.Simulation(X, T, rig, solver=sys.argv[1], modes=16, clusters=50)
print("built")
"""
r = run(["/usr/bin/python3", "-c", MANY_HANDLES, "fast"], cap=int(1.5 * GiB))
check(r.returncode == 1 and "Traceback" in r.stderr, f"many handles (fast): a Python exception (exit {r.returncode})")
check("bad_alloc" not in r.stderr and "built" not in r.stdout, "many handles (fast): refused, no bare std::bad_alloc")
for w in ("the fast solver's precompute for a rig of 200 handles", "needs about", "available",
          "use a rig with fewer handles"):
    check(w in r.stderr, f"many handles (fast): says {w!r} ({r.stderr.strip()[-300:]!r})")
check("MemoryError" in r.stderr, "many handles (fast): a MemoryError")

# A 60,000-bone chain (the probe: only "std::bad_alloc"): each vertex of a small grid on one bone.
CHAIN = GRID + r"""
X, T = tet_grid(4)
h = 60000
bone = np.arange(len(X)) * h // len(X)  # vertex v rides bone[v] alone
rows, cols, vals = [], [], []
for v in range(len(X)):
    for i in range(3):
        for k, value in enumerate(list(X[v]) + [1.0]):
            rows.append(3 * v + i), cols.append(12 * bone[v] + 3 * k + i), vals.append(value)
J = sp.csc_matrix((vals, (rows, cols)), shape=(3 * len(X), 12 * h))
fastcd.Simulation(X, T, fastcd.LinearRig(J, identity_poses(h), 3, "lbs"), solver=sys.argv[1])
print("built")
"""
for solver in ("full", "fast"):
    r = run(["/usr/bin/python3", "-c", CHAIN, solver], cap=int(1.5 * GiB))
    check("MemoryError" in r.stderr and "built" not in r.stdout and "bad_alloc" not in r.stderr,
          f"60,000 bones ({solver}): a MemoryError, no bare std::bad_alloc (exit {r.returncode})")
    check(f"the {solver} solver's precompute for a rig of 60000 handles" in r.stderr and "needs about" in r.stderr,
          f"60,000 bones ({solver}): the estimate, refused up front ({r.stderr.strip()[-250:]!r})")

# Whatever no estimate foresaw still says what happened (Python: MemoryError with a sentence).
r = run(["/usr/bin/python3", "-c", "import fastcd\nfastcd.beam(40000, 40000)"], cap=int(1.5 * GiB))
check("MemoryError: fastcd ran out of memory (" in r.stderr and "bad_alloc" not in r.stderr,
      f"Python, unforeseen: MemoryError with a sentence ({r.stderr.strip()[-200:]!r})")

# --- settings outside the method's range (item 14)
for name, changes in (("soft", {"YM": 1e-6}), ("heavy", {"rho": 1e9}), ("short_step", {"dt": 1e-9})):
    r, out = bake(scene(name, **changes))
    report = json.loads((out / "run.json").read_text()) if (out / "run.json").exists() else {}
    said = [w for w in report.get("warnings", []) if "never moves more than" in w]
    check(r.returncode == 0 and len(said) == 1, f"{name}: the bake warns that the mesh never moves (run.json)")
    check("warning: the simulated mesh's surface never moves more than" in r.stderr, f"{name}: ... and on stderr")
    check(any("of its inertia over one time step" in w and "too soft or too dense" in w for w in said),
          f"{name}: the warning says what it measured and what it means")
r, out = bake(scene("usual"))
report = json.loads((out / "run.json").read_text())
check(r.returncode == 0 and not any("never moves" in w or "secondary motion stays below" in w
                                    for w in report["warnings"]), "usual settings: no such warning")

r, _ = bake(scene("no_iterations"), "--iterations", "0")
check(r.returncode == 1 and "iterations" in r.stderr and "at least 1" in r.stderr, "--iterations 0: refused, named")
check("leaves nothing" not in r.stderr and "warning" not in r.stderr, "--iterations 0: not blamed on the rig")
r = run(["/usr/bin/python3", "-c", "import numpy as np, fastcd\n"
         "X = np.array([[0., 0], [1, 0], [0, 1], [1, 1]]); T = np.array([[0, 1, 2], [1, 3, 2]])\n"
         "fastcd.Simulation(X, T, iterations=0)"])
check("ValueError" in r.stderr and "iterations" in r.stderr and "at least 1" in r.stderr,
      f"Python iterations=0: a ValueError naming the setting ({r.stderr.strip()[-200:]!r})")

# --- messages in the user's terms (item 15)
r, _ = bake(scene("too_stiff", YM=1e20))
check(r.returncode == 1 and "stiffer than its inertia" in r.stderr and "softer material" in r.stderr,
      f"YM 1e20: refused as outside the method's range ({r.stderr.strip()[-300:]!r})")
check("positive definite" not in r.stderr and "matrix" not in r.stderr, "YM 1e20: no solver text")


def teleport(name, jump, ym):
    """The sphere's animation with handle 1 moved by `jump` from frame 11 on."""
    lines = (SPHERE / "sphere_anim.txt").read_text().split("\n")
    h, frames = map(int, lines[0].split())
    for k in range(10, frames):
        i = 1 + 2 * h + (k * h) * 2
        t = [float(x) for x in lines[i].split()]
        t[0] += jump
        lines[i] = " ".join(repr(x) for x in t)
    anim = SCRATCH / f"{name}_anim.txt"
    anim.write_text("\n".join(lines))
    return bake(scene(name, anim_file=str(anim), YM=ym))[0]


for name, jump in (("teleport", 1e6), ("teleport_far", 1e300)):
    r = teleport(name, jump, 1e12)
    err = r.stderr
    check(r.returncode == 1 and "diverged at step 11" in err, f"{name}: diverges at step 11 ({err.strip()[-200:]!r})")
    check("animation jumps: at step 11 handle 1 of 2" in err, f"{name}: names the jump's step and handle")
    check("stiffer material" not in err, f"{name}: does not advise a stiffer material at YM 1e12")
    check(re.search(r"\d{7,}", err) is None, f"{name}: no number printed with more than a few digits")
r = teleport("jump", 3.0, 5e4)
check(r.returncode == 0 and "warning: the animation jumps: at step 11 handle 1 of 2" in r.stderr,
      "a jump that does not diverge: a warning naming step and handle")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
