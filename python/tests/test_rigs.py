"""A rig written in Python drives full-order complementary dynamics through the C++ Rig
interface; J(p)^T M D u_c = 0 holds every step (the rig is nonlinear, so the constraint is
rebuilt from its Jacobian each step)."""
import numpy as np
import pytest

import fastcd


class BendRig(fastcd.Rig):
    """Bends the beam about its left end by angle p[0] (growing along the beam), stretches by p[1]."""

    def __init__(self, X, analytic=True):
        super().__init__()
        self.X = np.asarray(X, dtype=float)
        self.analytic = analytic
        self.x0 = self.X[:, 0].min()
        self.length = self.X[:, 0].max() - self.x0

    def dim(self):
        return 2

    def num_vertices(self):
        return self.X.shape[0]

    def num_params(self):
        return 2

    def rest_params(self):
        return np.zeros(2)

    def name(self):
        return "bend (python)"

    def _parts(self, p):
        s = (self.X[:, 0] - self.x0) / self.length
        a = p[0] * s * s
        xs = self.X[:, 0] * (1.0 + p[1] * s)
        return s, a, xs, self.X[:, 1]

    def positions(self, p):
        s, a, xs, y = self._parts(p)
        return np.column_stack([np.cos(a) * xs - np.sin(a) * y, np.sin(a) * xs + np.cos(a) * y]).ravel()

    def jacobian(self, p):
        if not self.analytic:
            raise AttributeError  # pragma: no cover (not reached: see NoJacobianRig)
        s, a, xs, y = self._parts(p)
        J = np.zeros((2 * len(s), 2))
        # d/dp0: a' = s^2
        J[0::2, 0] = (-np.sin(a) * xs - np.cos(a) * y) * s * s
        J[1::2, 0] = (np.cos(a) * xs - np.sin(a) * y) * s * s
        # d/dp1: xs' = X s
        J[0::2, 1] = np.cos(a) * self.X[:, 0] * s
        J[1::2, 1] = np.sin(a) * self.X[:, 0] * s
        return J


class NoJacobianRig(BendRig):
    """Same rig without a Jacobian: fastcd differentiates positions numerically."""
    jacobian = fastcd.Rig.jacobian


def test_python_rig_jacobian_matches_finite_differences():
    X, T = fastcd.beam(20, 4)
    rig = BendRig(X)
    p = np.array([0.3, 0.05])
    Ja = rig.jacobian(p)
    Jf = fastcd.finite_difference_jacobian(rig, p).toarray()
    assert np.abs(Ja - Jf).max() <= 1e-7 * np.abs(Ja).max()


@pytest.mark.parametrize("cls", [BendRig, NoJacobianRig])
def test_python_rig_runs_full_order_and_keeps_the_constraint(cls):
    X, T = fastcd.beam(20, 4)
    sim = fastcd.Simulation(X, T, rig=cls(X), ym=1e4)
    worst = 0.0
    for i in range(1, 31):
        sim.advance(np.array([0.3 * np.sin(0.2 * i), 0.05 * np.sin(0.1 * i)]))
        uc = sim.displacement()
        assert np.isfinite(uc).all()
        worst = max(worst, sim.residual())
    assert np.abs(uc).max() > 1e-6  # the rig's motion excites complementary dynamics
    assert worst <= 1e-8
    assert sim.stats["max_residual"] <= 1e-8
    assert sim.positions().shape == X.shape
    with pytest.raises(ValueError, match="the fast solver needs a linear rig"):
        fastcd.Simulation(X, T, rig=cls(X), solver="fast")


def test_python_rig_errors_are_clear():
    X, T = fastcd.beam(20, 4)

    class Short(BendRig):
        def positions(self, p):
            return np.zeros(3)

    with pytest.raises(ValueError, match="returned 3 values, expected num_vertices"):
        fastcd.Simulation(X, T, rig=Short(X)).advance(np.array([0.1, 0.0]))


def test_cage_rig_from_python():
    X, T = fastcd.beam(20, 4)
    lo, hi = X.min(axis=0) - 0.1, X.max(axis=0) + 0.1
    cage = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
    rig = fastcd.cage_rig(X, cage, edges)
    assert rig.is_linear() and rig.num_params() == 8
    np.testing.assert_allclose(rig.positions(rig.rest_params()), X.ravel(), atol=1e-12)
