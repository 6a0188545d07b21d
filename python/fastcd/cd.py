"""Complementary dynamics: rigs, the momentum-leak field, the two solvers of simkit tutorial 23
with its ``FullCD`` / ``ReducedCD`` interface, and the ``Simulation`` that runs either::

    solver = ReducedCD(X, T)                       # or FullCD(X, T)
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = solver.p0.copy(); p_dot = np.zeros_like(p)
    for i in range(n):
        p_next = handle(solver.p0, i)
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        s_dot = (s_new - s) / dt; p_dot = (p_next - p) / dt; s, p = s_new, p_next.copy()

or, with the roll-out done for you (the same C++ object the CLI uses)::

    sim = Simulation(X, T, solver="fast")
    for i in range(n):
        sim.advance(handle(sim.rest_params, i))
    x = sim.positions()                            # (n, dim)

The state is u_c (n dim) for FullCD and the subspace coordinates z (u_c = B z) for ReducedCD
(the fast solver of Benchekroun et al. 2023); both keep the rig-orthogonality
J^T M D u_c = 0 (``solver.A @ u_c`` ~ 0).
"""
import copy

import numpy as np

from . import _convert as cv
from . import _fastcd
from ._fastcd import defaults as _d
from .geometry import kron_identity, lbs_jacobian, massmatrix

__all__ = ["rig_rest", "handle", "momentum_leak_field", "FullCD", "ReducedCD", "Simulation", "load_scene",
           "read_scene", "read_character", "read_surface_scene", "write_gltf_outputs"]


def rig_rest(J, Mv, X):
    """Tutorial 23's rig rest pose: p0 = argmin_p ||J p - x||_Mv with x = X.reshape(-1, 1).

    J: (n dim, k) rig Jacobian (sparse or dense), Mv: (n dim, n dim) mass, X: (n, dim).
    Returns p0 (k, 1). When J has dependent columns (a redundant rig) p0 is the minimum-norm
    least-squares solution, as numpy's lstsq gives.
    """
    p0 = _fastcd.rig_rest(cv.sparse(J, "J"), cv.sparse(Mv, "Mv"), cv.float_matrix(X, "X"))
    return p0.reshape(-1, 1)


def _infer_dim(p):
    """The dimension of an LBS pose: bones are column-major [A | t], 6 numbers in 2D, 12 in 3D."""
    n = p.size
    fits = [d for d in (2, 3) if n % (d * (d + 1)) == 0]
    if len(fits) == 1:
        return fits[0]
    if len(fits) == 2:
        # 12k numbers: 2k bones in 2D or k in 3D. A rest pose has identity linear parts; the
        # layout in which they are closer to the identity is the one.
        def distance(d):
            A = p.reshape(-1, d * (d + 1))[:, : d * d].reshape(-1, d, d)
            return np.abs(A - np.eye(d)).max()
        d2, d3 = distance(2), distance(3)
        if min(d2, d3) < 0.5 and abs(d2 - d3) > 1e-6:
            return 2 if d2 < d3 else 3
        raise ValueError(f"handle: a pose of {n} numbers may be {n // 6} bones in 2D or {n // 12} in 3D; "
                         "pass dim=2 or dim=3")
    raise ValueError(f"handle: a pose of {n} numbers is not a set of LBS bones (6 per bone in 2D, 12 in 3D); "
                     "pass dim=2 or dim=3")


def handle(p0, i, amp=3.0, period=80, dim=None):
    """Tutorial 23's metronome: a copy of p0 with the last bone's x-translation (entry -dim) set
    to amp * sin(2 pi i / period). Keeps p0's shape ((k,) or (k, 1)). The dimension is read
    from p0 (6 numbers per bone in 2D, 12 in 3D) unless given."""
    p = np.array(p0, dtype=np.float64, copy=True)
    if dim is None:
        dim = _infer_dim(p.reshape(-1))
    if dim not in (2, 3):
        raise ValueError(f"handle: dim must be 2 or 3, got {dim}")
    p.reshape(-1)[-dim] = amp * np.sin(2.0 * np.pi * i / period)
    return p


def _leak(leak):
    if isinstance(leak, str):
        return leak
    return cv.float_vector(leak, "leak")


def momentum_leak_field(X, T, leak="diffusion", dt=1.0):
    """Per-vertex momentum-leak field D (n,) in [0, 1].

    "diffusion" (simkit / tutorial 23): D = 1 - diffuse_field(X, T, boundary, 1, dt=dt), 0 on
    the boundary (tissue follows the rig), 1 deep inside (momentum conserved).
    "poisson" (Zhang et al. 2020): a Poisson solve with zero on the boundary, normalised.
    "none": D = 1 everywhere. A path to a (n, 1) DMAT, or an array of n values in [0, 1]: those.
    """
    return _fastcd.momentum_leak_field(cv.float_matrix(X, "X"), cv.index_matrix(T, "T"), _leak(leak),
                                       cv.real(dt, "dt"))


def _rig(X, T, J, p0, rho):
    """Default rig (one global affine handle) and rest pose, as the tutorial builds them."""
    n, dim = X.shape
    if J is None:
        J = lbs_jacobian(X, np.ones((n, 1)))
    J = cv.sparse(J, "J")
    if p0 is None:
        Mv = kron_identity(massmatrix(X, T, rho), dim)
        p0 = rig_rest(J, Mv, X)
    return J, cv.float_vector(p0, "p0", J.shape[1])


def _gravity(gravity):
    return None if gravity is None else cv.float_vector(gravity, "gravity")


class _CDBase:
    """Shared attributes and helpers of the two solvers."""

    def _init_common(self, sys, iters):
        self._sys = sys
        self.J = sys.J                        # (n dim, k) csc rig Jacobian
        self.p0 = sys.p0.reshape(-1, 1)       # (k, 1) rest pose
        self.A = sys.C                        # (k, n dim) csc: J^T M D
        self.D = sys.D                        # (n,) momentum-leak field
        self.constraint_rank = int(sys.constraint_rank)
        self.state_dim = int(sys.state_dim)
        self.n_rot = int(sys.n_rot)
        self.dim = int(sys.dim)
        self.dt = float(sys.dt)
        self.iters = cv.integer(iters, "iters")

    def lift(self, s):
        """u_c (n dim) of a state, in the state's shape convention ((m,) -> (n dim,))."""
        return s if self.B is None else self.B @ s

    def positions(self, s, p):
        """Vertex positions J p + u_c as (n, dim)."""
        return (self.J @ cv.float_vector(p, "p") + cv.float_vector(self.lift(s), "s")).reshape(-1, self.dim)

    def violation(self, s):
        """||J^T M D u_c||: the rig-orthogonality residual of a state."""
        return float(np.linalg.norm(self.A @ cv.float_vector(self.lift(s), "s")))

    def step(self, s, s_dot, p, p_dot, p_next, iters=None):
        """The state after one step while the rig moves p -> p_next (velocities s_dot, p_dot).

        s, s_dot: (m,) or (m, 1); p, p_dot, p_next: (k,) or (k, 1). Returns a new array shaped
        like s. iters: local/global iterations (default: the constructor's). NaN or Inf in any
        input raises ValueError. The GIL is released during the C++ step.
        """
        return self._sys.step(s, s_dot, p, p_dot, p_next, -1 if iters is None else cv.integer(iters, "iters"))

    # copy.copy / copy.deepcopy share the immutable precomputed system (a C++ copy); pickling
    # stores the C++ system alone (its construction inputs, checked and precomputed again on
    # loading: deterministic) and the iteration count; every other attribute is read back from
    # the rebuilt system, so nothing unchecked in a pickle is ever used.
    def __deepcopy__(self, memo):
        new = copy.copy(self)
        new._sys = copy.copy(self._sys)
        return new

    def __getstate__(self):
        return {"_sys": self._sys, "iters": self.iters}

    def _state_parts(self, state, system):
        """(sys, iters) of a pickled state, checked (a ValueError naming the object otherwise).
        Pickles of earlier versions (the whole attribute dict) load too."""
        name = f"fastcd.{type(self).__name__}"
        if not isinstance(state, dict):
            raise ValueError(f"cannot unpickle a {name}: its state is {cv.describe(state)}, not a dict "
                             "(the pickle is damaged, or was not written by fastcd)")
        sys, iters = state.get("_sys"), state.get("iters")
        if not isinstance(sys, system):
            raise ValueError(f"cannot unpickle a {name}: its solver is {cv.describe(sys)}, not a "
                             f"{system.__name__} (the pickle is damaged, or was not written by fastcd)")
        if isinstance(iters, bool) or not isinstance(iters, int) or iters < 0:
            raise ValueError(f"cannot unpickle a {name}: its iteration count is {iters!r}, not an integer >= 0 "
                             "(the pickle is damaged, or was not written by fastcd)")
        return sys, iters


class FullCD(_CDBase):
    """Full-order complementary dynamics (tutorial 23's FullCD; Zhang et al. 2020), precomputed
    in C++.

    Per-element ARAP rotations and a prefactored constrained global solve keeping
    J^T M D u_c = 0; ``iters`` local/global iterations per backward-Euler step.

    X: (n, dim) rest positions (dim 2 or 3), T: (t, dim+1) simplices.
    J: (n dim, k) rig Jacobian (default: one global affine handle, lbs_jacobian(X, ones)).
    p0: (k,) rest pose (default rig_rest(J, Mv, X)).
    dt: time step; ym, pr, rho: Young's modulus, Poisson ratio (ARAP uses only mu), density;
    leak: "diffusion" (the tutorial's D), "poisson", "none" (D = 1), a DMAT path or n values;
    leak_dt: its diffusion time; gravity: None or a dim-vector of acceleration.

    Attributes: J (csc), p0 (k, 1), B = None (the state is u_c itself), A = J^T M D (csc),
    D (n,), state_dim = n dim, n_rot = t, dim, constraint_rank, dt, iters.
    """

    def __init__(self, X, T, J=None, p0=None, dt=1e-2, ym=1e5, pr=0.0, rho=1e3, iters=10, leak_dt=1.0,
                 leak="diffusion", gravity=None):
        X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
        J, p0 = _rig(X, T, J, p0, rho)
        sys = _fastcd.FullCD(X, T, J, p0, iterations=cv.integer(iters, "iters"), leak=_leak(leak),
                             gravity=_gravity(gravity), **cv.reals(dt=dt, ym=ym, pr=pr, rho=rho, leak_dt=leak_dt))
        self._init_common(sys, iters)
        self.B = None

    def __setstate__(self, state):
        self._init_common(*self._state_parts(state, _fastcd.FullCD))
        self.B = None

    def __repr__(self):
        return (f"FullCD(state_dim={self.state_dim}, n_rot={self.n_rot}, dim={self.dim}, "
                f"rig_dofs={self.J.shape[1]}, constraint_rank={self.constraint_rank})")


class ReducedCD(_CDBase):
    """Fast complementary dynamics (Benchekroun et al. 2023; tutorial 23's ReducedCD), in C++:
    the fast solver.

    u_c = B z in a rig-orthogonal skinning-eigenmode subspace (J^T M D B = 0 by construction)
    with one ARAP rotation per element cluster; a step costs nothing that grows with the mesh.

    X, T, J, p0 and the physics keywords as in :class:`FullCD`; k_modes skinning eigenmodes
    (subspace size k_modes dim (dim+1)) and n_clusters rotation clusters (the tutorial's names;
    `modes` and `clusters` elsewhere in fastcd). precision "mixed" runs the iteration's two
    products in single precision (about 1.3x faster steps on large systems; differences from
    "double", the default, at single-precision rounding).

    Attributes: J, p0, A, D, dim as FullCD; B (n dim, m) dense M-orthonormal basis (a read-only
    view), state_dim = m, n_rot = n_clusters, labels (t,) cluster of every element,
    W (n, k_modes) weights and eigenvalues (k_modes,), structural_residual
    ||C B|| / (||C|| ||B||), constraint_rank, dt, iters.
    """

    def __init__(self, X, T, k_modes=10, n_clusters=20, J=None, p0=None, dt=1e-2, ym=1e5, pr=0.0, rho=1e3,
                 iters=10, leak_dt=1.0, leak="diffusion", gravity=None, precision="double"):
        X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
        J, p0 = _rig(X, T, J, p0, rho)
        sys = _fastcd.FastCD(X, T, J, p0, modes=cv.integer(k_modes, "k_modes"),
                             clusters=cv.integer(n_clusters, "n_clusters"), iterations=cv.integer(iters, "iters"),
                             leak=_leak(leak), gravity=_gravity(gravity), precision=cv.text(precision, "precision"),
                             **cv.reals(dt=dt, ym=ym, pr=pr, rho=rho, leak_dt=leak_dt))
        self._init_reduced(sys, iters)

    def _init_reduced(self, sys, iters):
        self._init_common(sys, iters)
        self.B = sys.B                        # read-only views into the system
        self.W = sys.W
        self.eigenvalues = sys.eigenvalues
        self.labels = cv.int_array(sys.labels)
        self.structural_residual = float(sys.structural_residual)
        self.k_modes = int(sys.modes)

    def __deepcopy__(self, memo):
        new = super().__deepcopy__(memo)
        new.B, new.W = new._sys.B, new._sys.W
        return new

    def __setstate__(self, state):
        self._init_reduced(*self._state_parts(state, _fastcd.FastCD))

    def __repr__(self):
        return (f"ReducedCD(state_dim={self.state_dim}, n_rot={self.n_rot}, dim={self.dim}, "
                f"k_modes={self.k_modes}, rig_dofs={self.J.shape[1]})")


def Simulation(X, T, rig=None, J=None, p0=None, solver="full", dt=1e-2, ym=1e5, pr=0.0, rho=1e3, iterations=10,
               modes=10, clusters=20, leak="diffusion", leak_dt=1.0, gravity=None, tolerance=0.0, dynamics=True,
               monitor=True, precision="double"):
    """Complementary dynamics of mesh (X, T) under a rig, for either solver: the C++
    ``Simulation`` the CLI uses. It owns the solver, the state and the per-step statistics::

        sim = Simulation(X, T, solver="fast")       # one global affine handle by default
        sim.advance(p_next)                          # one time step to rig pose p_next
        sim.positions(), sim.displacement(), sim.residual(), sim.kinetic_energy(), sim.stats

    rig: a ``fastcd.Rig`` (your own subclass, a cage, a LinearRig ...), or give J (and p0) for
    a linear rig x = J p, or neither for the tutorial's single affine handle.
    solver: "full" or "fast" (the fast solver needs a linear rig).
    The options keep fastcd's names: dt, ym, pr, rho, iterations, modes, clusters, leak
    ("diffusion", "poisson", "none", a DMAT path or n values), leak_dt, gravity (None or a
    dim-vector), tolerance, dynamics (False: the rig alone), monitor (divergence check and
    statistics each step), precision ("double", or "mixed" for the fast solver: its iteration's
    products in single precision, as in :class:`ReducedCD`). The GIL is released while it steps.
    """
    X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
    if rig is not None and not isinstance(rig, _fastcd.Rig):
        raise TypeError(f"Simulation: rig must be a fastcd.Rig (a LinearRig, cage_rig(...), point_handle_rig(...) "
                        f"or your own subclass), got a {type(rig).__name__}; for a linear rig x = J p give J= "
                        "(and p0=) instead")
    if rig is None:
        J, p0 = _rig(X, T, J, p0, rho)
        rig = _fastcd.LinearRig(J, p0, X.shape[1], "lbs" if J is not None else "affine handle")
    elif J is not None or p0 is not None:
        raise ValueError("Simulation: give either rig or J (and p0), not both")
    return _fastcd.Simulation(X, T, rig, leak=_leak(leak), gravity=_gravity(gravity), dynamics=bool(dynamics),
                              monitor=bool(monitor), **cv.texts(solver=solver, precision=precision),
                              **cv.reals(dt=dt, ym=ym, pr=pr, rho=rho, leak_dt=leak_dt, tolerance=tolerance),
                              **cv.integers(iterations=iterations, modes=modes, clusters=clusters))


def read_scene(path, rig="auto", material="", cache_dir=""):
    """Loads a scene as a ``fastcd.Scene``: X, T, poses (one rig pose per frame), rig, dt, ym, pr,
    rho, ... -- a Complementary Dynamics release scene or a scene naming a closed surface or a
    glTF character (JSON; docs/scene-format.md), or a .glb / .gltf character with the defaults.
    A scene asking for another material than ARAP is refused unless ``material="arap"``.
    ``cache_dir``: a folder where the tets of a surface or character are kept for the next load."""
    return _fastcd.read_scene(cv.path(path), **cv.texts(rig=rig, material=material), **cv.paths(cache_dir=cache_dir))


def read_character(path, clip="", metres_per_unit=_d.metres_per_unit, ym=_d.ym, pr=_d.pr, rho=_d.rho, dt=_d.dt,
                   mesher=_d.mesher, voxel_resolution=_d.voxel_resolution, cache_dir=""):
    """A skinned, animated glTF 2.0 character as ``fastcd run CHARACTER.glb`` reads it: every skin
    filled with tets (``mesher`` netgen, tetgen or voxel), one clip (name or index) sampled at
    ``dt``; ``ym`` (Pa), ``rho`` (kg/m^3) physical, ``metres_per_unit`` the file's length unit in metres
    (``fastcd run --scale``). The defaults are ``fastcd.defaults``'s."""
    return _fastcd.read_character(cv.path(path), **cv.texts(clip=clip, mesher=mesher),
                                  **cv.reals(metres_per_unit=metres_per_unit, ym=ym, pr=pr, rho=rho, dt=dt),
                                  voxel_resolution=cv.integer(voxel_resolution, "voxel_resolution"),
                                  **cv.paths(cache_dir=cache_dir))


def skinned_scene(skins, poses, joint_points=None, name="character", source="", metres_per_unit=_d.metres_per_unit,
                  ym=_d.ym, pr=_d.pr, rho=_d.rho, dt=_d.dt, mesher=_d.mesher, voxel_resolution=_d.voxel_resolution,
                  cache_dir=""):
    """A skinned, animated character given as arrays (no file): what the Blender add-on reads from
    Blender, made into a scene as ``fastcd run`` makes a glTF character (welded, filled with tets,
    weights carried inside, normalised; material in physical units, ``metres_per_unit`` the length
    unit in metres; the defaults are ``fastcd.defaults``'s).

    ``skins``: a list of dicts ``{"label", "V" (n, 3), "F" (f, 3), "W" (n, joints), "leak" (n,) or
    None}``, each its own body and joints (numbered skin after skin). ``poses``: one array per step
    of 12 entries per joint, each joint's column-major 3x4 ``[A | t]`` taking bind-space points to
    their posed place; the first pose is where the simulation starts at rest. A painted ``leak``
    field is used by ``simulation_from_scene(..., leak="painted")``."""
    # Every array is converted (and checked, by name: "skins[1]['W']", "poses[3]") in C++.
    skins = [dict(k, label=str(k.get("label", "skin"))) if isinstance(k, dict) else k for k in skins]
    return _fastcd.skinned_scene(skins, list(poses), joint_points=joint_points,
                                 **cv.texts(name=name, source=source, mesher=mesher),
                                 **cv.reals(metres_per_unit=metres_per_unit, ym=ym, pr=pr, rho=rho, dt=dt),
                                 voxel_resolution=cv.integer(voxel_resolution, "voxel_resolution"),
                                 **cv.paths(cache_dir=cache_dir))


def read_surface_scene(path, handles, anim, weights="", metres_per_unit=_d.metres_per_unit, ym=_d.ym, pr=_d.pr,
                       rho=_d.rho, dt=_d.dt, mesher=_d.mesher, cache_dir=""):
    """A closed surface (.obj / .off / .ply) driven by handles (a TGF) and their animation (the
    Complementary Dynamics release's 3D format), as ``fastcd run SURFACE --handles --anim``;
    ``weights`` an optional DMAT with one row per surface vertex. The material is physical (``ym`` Pa,
    ``rho`` kg/m^3, ``metres_per_unit``); the defaults are ``fastcd.defaults``'s."""
    return _fastcd.read_surface_scene(cv.path(path), cv.path(handles, "handles"), cv.path(anim, "anim"),
                                      **cv.paths(weights=weights, cache_dir=cache_dir),
                                      mesher=cv.text(mesher, "mesher"),
                                      **cv.reals(metres_per_unit=metres_per_unit, ym=ym, pr=pr, rho=rho, dt=dt))


def write_gltf_outputs(scene, U, out_dir, clip="", encoding=_d.glb_encoding, pca_tolerance=_d.pca_tolerance):
    """Bakes a glTF scene's secondary motion: ``U`` per frame the (render vertices, 3) complementary
    displacements in file units (``scene.to_file_units`` of the simulated minus the rig-only
    positions). Writes ``<name>.glb`` (rest-space morph targets) and a rest-space PC2 / MDD per mesh
    node into ``out_dir``; returns their paths and the encoding's report as a dict."""
    return _fastcd.write_gltf_outputs(scene, list(U), cv.path(out_dir, "out_dir"),
                                      **cv.texts(clip=clip, encoding=encoding),
                                      pca_tolerance=cv.real(pca_tolerance, "pca_tolerance"))


def load_scene(path, solver=_d.solver, rig="auto", iterations=_d.iterations, modes=_d.modes, clusters=_d.clusters,
               leak=_d.leak, gravity=_d.gravity, dynamics=True, material="", cache_dir=""):
    """A ready ``Simulation`` of a release scene, with the scene's own dt, ym, pr and rho and the
    CLI's defaults (``fastcd.defaults``) for the rest (as ``fastcd run``). ``sim.scene`` holds the loaded scene.
    ``cache_dir`` (as ``fastcd run``'s .fastcd-cache): tets and the fast solver's leak field,
    modes and clusters are kept there and reused when the mesh, rig and subspace settings match::

        sim = fastcd.load_scene("elephant.json", solver="fast")
        frames = []
        for p in sim.scene.poses:
            sim.advance(p)
            frames.append(sim.scene.to_file_units(sim.positions()))   # the output surface
    """
    scene = read_scene(path, rig=rig, material=material, cache_dir=cache_dir)
    sim = _fastcd.simulation_from_scene(scene, **cv.texts(solver=solver, leak=leak),
                                        **cv.integers(iterations=iterations, modes=modes, clusters=clusters),
                                        gravity=cv.real(gravity, "gravity"), dynamics=bool(dynamics),
                                        **cv.paths(cache_dir=cache_dir))
    sim.scene = scene
    return sim
