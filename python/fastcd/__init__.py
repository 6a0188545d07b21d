"""fastcd: complementary dynamics in C++, with simkit's names for notebook users.

Every function keeps simkit's name, argument names, defaults and return tuples; numpy arrays
go in (any dtype, C or Fortran order, (n,) or (n, 1) vectors, lists), numpy arrays and
``scipy.sparse.csc_matrix`` come out. Deliberate differences from simkit are noted in each
docstring (notably: ``lbs_jacobian`` and the ``B`` of ``skinning_eigenmodes`` are sparse).

The two solvers of tutorial 23 are classes with the seed tutorial's interface::

    from fastcd import beam, FullCD, ReducedCD, handle
    X, T = beam()
    red = ReducedCD(X, T)                 # 10 modes, 20 rotation clusters
    z_new = red.step(z, z_dot, p, p_dot, handle(red.p0, i))

Any rig, including one written in Python, drives full order::

    class Bend(fastcd.Rig):          # define dim, num_vertices, num_params, rest_params,
        def positions(self, p): ...  # positions(p) -> (n*dim,), optionally jacobian(p)
    sim = fastcd.RigFullCD(X, T, Bend(X))
    u_c = sim.advance(p_next)

Errors: invalid input raises ValueError (or TypeError for a wrong kind of object) with the
library's message; a numerical failure (e.g. a factorisation) raises RuntimeError.
"""
from . import _fastcd
from .cd import FullCD, ReducedCD, handle, momentum_leak_field, rig_rest
from ._fastcd import LinearRig, Rig, RigFullCD, cage_rig, finite_difference_jacobian
from .geometry import (beam, boundary_facets, boundary_vertices, cluster_grouping_matrices,
                       deformation_jacobian, diffuse_field, dirichlet_laplacian, elastic_operators,
                       kron_identity, lbs_jacobian, massmatrix, normalize_and_center,
                       tetrahedralized_grid, triangulated_grid, volume, ympr_to_lame)
from .solvers import block_coord, polar_svd
from .subspace import (kmeans2, lbs_weight_space_constraint, orthonormalize, project_into_subspace,
                       skinning_eigenmodes, spectral_clustering, spectral_cubature)

__version__ = "0.1.0"

__all__ = [
    # geometry
    "volume", "massmatrix", "deformation_jacobian", "dirichlet_laplacian", "lbs_jacobian",
    "ympr_to_lame", "boundary_facets", "boundary_vertices", "triangulated_grid",
    "tetrahedralized_grid", "diffuse_field", "normalize_and_center", "cluster_grouping_matrices",
    "kron_identity",
    # subspace
    "orthonormalize", "project_into_subspace", "lbs_weight_space_constraint",
    "skinning_eigenmodes", "spectral_cubature", "spectral_clustering", "kmeans2",
    # solvers
    "polar_svd", "block_coord",
    # complementary dynamics and the seed tutorial's helpers
    "beam", "elastic_operators", "rig_rest", "handle", "momentum_leak_field", "FullCD", "ReducedCD",
    # any rig: subclass Rig in Python (positions(p), optionally jacobian(p)); cages; full order
    "Rig", "LinearRig", "cage_rig", "finite_difference_jacobian", "RigFullCD",
]
