"""Complementary dynamics: rigs, the momentum-leak field and the two solvers of the seed
tutorial, with its ``FullCD`` / ``ReducedCD`` interface::

    solver = ReducedCD(X, T)                       # or FullCD(X, T)
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = solver.p0.copy(); p_dot = np.zeros_like(p)
    for i in range(n):
        p_next = handle(solver.p0, i)
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        s_dot = (s_new - s) / dt; p_dot = (p_next - p) / dt; s, p = s_new, p_next.copy()
        x = (solver.J @ p + (solver.B @ s if solver.B is not None else s)).reshape(-1, solver.dim)

The state is u_c (n dim) for FullCD and the subspace coordinates z (u_c = B z) for ReducedCD;
both keep the rig-orthogonality J^T M D u_c = 0 (``solver.A @ u_c`` ~ 0).
"""
import numpy as np

from . import _convert as cv
from . import _fastcd
from .geometry import lbs_jacobian, massmatrix, kron_identity

__all__ = ["rig_rest", "handle", "momentum_leak_field", "FullCD", "ReducedCD"]


def rig_rest(J, Mv, X):
    """The seed's rig rest pose: p0 = argmin_p ||J p - x||_Mv with x = X.reshape(-1, 1).

    J: (n dim, k) rig Jacobian (sparse or dense), Mv: (n dim, n dim) mass, X: (n, dim).
    Returns p0 (k, 1). Raises RuntimeError when J^T Mv J is singular.
    """
    p0 = _fastcd.rig_rest(cv.sparse(J, "J"), cv.sparse(Mv, "Mv"), cv.float_matrix(X, "X"))
    return p0.reshape(-1, 1)


def handle(p0, i, amp=3.0, period=80, dim=2):
    """The seed's metronome: a copy of p0 with the last bone's x-translation (entry -dim) set to
    amp * sin(2 pi i / period). Keeps p0's shape ((k,) or (k, 1))."""
    p = np.array(p0, dtype=np.float64, copy=True)
    p.reshape(-1)[-dim] = amp * np.sin(2.0 * np.pi * i / period)
    return p


def momentum_leak_field(X, T, leak="diffusion", dt=1.0):
    """Per-vertex momentum-leak field D (n,) in [0, 1].

    "diffusion" (simkit / the seed): D = 1 - diffuse_field(X, T, boundary, 1, dt=dt), 0 on
    the boundary (tissue follows the rig), 1 deep inside (momentum conserved).
    "none": D = 1 everywhere.
    """
    return _fastcd.momentum_leak_field(cv.float_matrix(X, "X"), cv.index_matrix(T, "T"), str(leak), float(dt))


def _rig(X, T, J, p0, rho):
    """Default rig (one global affine handle) and rest pose, as the seed builds them."""
    n, dim = X.shape
    if J is None:
        J = lbs_jacobian(X, np.ones((n, 1)))
    J = cv.sparse(J, "J")
    if p0 is None:
        Mv = kron_identity(massmatrix(X, T, rho), dim)
        p0 = rig_rest(J, Mv, X)
    return J, cv.float_vector(p0, "p0", J.shape[1])


class _CDBase:
    """Shared attributes and helpers of the two solvers."""

    def _init_common(self, sys, dt, iters):
        self._sys = sys
        self.J = sys.J                        # (n dim, k) csc rig Jacobian
        self.p0 = sys.p0.reshape(-1, 1)       # (k, 1) rest pose
        self.A = sys.C                        # (k, n dim) csc: J^T M D
        self.D = sys.D                        # (n,) momentum-leak field
        self.constraint_rank = int(sys.constraint_rank)
        self.state_dim = int(sys.state_dim)
        self.n_rot = int(sys.n_rot)
        self.dim = int(sys.dim)
        self.dt = float(dt)
        self.iters = int(iters)

    def lift(self, s):
        """u_c (n dim) of a state, in the state's shape convention ((m,) -> (n dim,))."""
        return s if self.B is None else self.B @ s

    def positions(self, s, p):
        """Vertex positions J p + u_c as (n, dim)."""
        return (self.J @ cv.float_vector(p, "p") + cv.float_vector(self.lift(s), "s")).reshape(-1, self.dim)

    def violation(self, s):
        """||J^T M D u_c||: the rig-orthogonality residual of a state."""
        return float(np.linalg.norm(self.A @ cv.float_vector(self.lift(s), "s")))


class FullCD(_CDBase):
    """Full-order complementary dynamics (the seed's FullCD), precomputed in C++.

    Per-element ARAP rotations and a prefactored constrained global solve keeping
    J^T M D u_c = 0; ``iters`` local/global iterations per backward-Euler step.

    X: (n, dim) rest positions (dim 2 or 3), T: (t, dim+1) simplices.
    J: (n dim, k) rig Jacobian (default: one global affine handle, lbs_jacobian(X, ones)).
    p0: (k,) rest pose (default rig_rest(J, Mv, X)).
    dt: time step; ym, pr, rho: Young's modulus, Poisson ratio (ARAP uses only mu), density;
    leak: "diffusion" (the seed's D) or "none" (D = 1); leak_dt: its diffusion time.

    Attributes: J (csc), p0 (k, 1), B = None (the state is u_c itself), A = J^T M D (csc),
    D (n,), state_dim = n dim, n_rot = t, dim, constraint_rank, dt, iters.
    """

    def __init__(self, X, T, J=None, p0=None, dt=1e-2, ym=1e5, pr=0.0, rho=1e3, iters=10, leak_dt=1.0,
                 leak="diffusion"):
        X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
        J, p0 = _rig(X, T, J, p0, rho)
        sys = _fastcd.FullCDSystem(X, T, J, p0, h=float(dt), ym=float(ym), pr=float(pr), rho=float(rho),
                                   iterations=int(iters), leak=str(leak), leak_dt=float(leak_dt))
        self._init_common(sys, dt, iters)
        self.B = None
        self._step = sys.step

    def step(self, uc, uc_dot, p, p_dot, p_next, iters=None):
        """u_c after one step while the rig moves p -> p_next (velocities uc_dot, p_dot).

        uc, uc_dot: (n dim,) or (n dim, 1); p, p_dot, p_next: (k,) or (k, 1).
        Returns a new array shaped like uc. iters: local/global iterations (default: the
        constructor's).
        """
        return self._step(uc, uc_dot, p, p_dot, p_next, -1 if iters is None else iters)

    def __repr__(self):
        return (f"FullCD(state_dim={self.state_dim}, n_rot={self.n_rot}, dim={self.dim}, "
                f"rig_dofs={self.J.shape[1]}, constraint_rank={self.constraint_rank})")


class ReducedCD(_CDBase):
    """Fast complementary dynamics (Benchekroun et al. 2023; the seed's ReducedCD), in C++.

    u_c = B z in a rig-orthogonal skinning-eigenmode subspace (J^T M D B = 0 by construction)
    with one ARAP rotation per element cluster; a step costs nothing that grows with the mesh.

    X, T, J, p0 and the physics keywords as in :class:`FullCD`; k_modes skinning eigenmodes
    (subspace size k_modes dim (dim+1)) and n_clusters rotation clusters.

    Attributes: J, p0, A, D, dim as FullCD; B (n dim, m) dense M-orthonormal basis (a read-only
    view), state_dim = m, n_rot = n_clusters, labels (t,) cluster of every element,
    W (n, k_modes) weights and eigenvalues (k_modes,), structural_residual
    ||C B|| / (||C|| ||B||), constraint_rank, dt, iters.
    """

    def __init__(self, X, T, k_modes=10, n_clusters=20, J=None, p0=None, dt=1e-2, ym=1e5, pr=0.0, rho=1e3,
                 iters=10, leak_dt=1.0, leak="diffusion"):
        X, T = cv.float_matrix(X, "X"), cv.index_matrix(T, "T")
        J, p0 = _rig(X, T, J, p0, rho)
        sys = _fastcd.FastCDSystem(X, T, J, p0, modes=int(k_modes), clusters=int(n_clusters), h=float(dt),
                                   ym=float(ym), pr=float(pr), rho=float(rho), iterations=int(iters),
                                   leak=str(leak), leak_dt=float(leak_dt))
        self._init_common(sys, dt, iters)
        self.B = sys.B
        self.W = sys.W
        self.eigenvalues = sys.E
        self.labels = cv.int_array(sys.labels)
        self.structural_residual = float(sys.structural_residual)
        self.k_modes = int(k_modes)
        self._step = sys.step

    def step(self, z, z_dot, p, p_dot, p_next, iters=None):
        """z after one step while the rig moves p -> p_next (velocities z_dot, p_dot).

        z, z_dot: (m,) or (m, 1); p, p_dot, p_next: (k,) or (k, 1). Returns a new array shaped
        like z. Contiguous float64 inputs are read in place; the step itself is one
        allocation-free C++ call. Not thread-safe on one solver object (shared workspace).
        """
        return self._step(z, z_dot, p, p_dot, p_next, -1 if iters is None else iters)

    def __repr__(self):
        return (f"ReducedCD(state_dim={self.state_dim}, n_rot={self.n_rot}, dim={self.dim}, "
                f"k_modes={self.k_modes}, rig_dofs={self.J.shape[1]})")
