"""fastcd: complementary dynamics in C++, with simkit's names for notebook users.

Every function keeps simkit's name, module path, argument names, defaults and return tuples;
numpy arrays go in (any dtype, C or Fortran order, (n,) or (n, 1) vectors, lists), numpy
arrays and ``scipy.sparse.csc_matrix`` come out. Simkit tutorial 23's import lines work with
``simkit`` replaced by ``fastcd``::

    from fastcd import massmatrix, deformation_jacobian, lbs_jacobian, volume, ...
    from fastcd.diffuse_field import diffuse_field
    from fastcd.skinning_eigenmodes import skinning_eigenmodes
    from fastcd.solvers import block_coord

Deliberate differences from simkit are noted in each docstring (notably: ``lbs_jacobian`` and
the ``B`` of ``skinning_eigenmodes`` are sparse).

The two solvers of the tutorial are classes with its interface (``FullCD``; ``ReducedCD`` is
fastcd's fast solver), and ``Simulation`` runs either with the roll-out done for you::

    from fastcd import beam, FullCD, ReducedCD, Simulation, handle
    X, T = beam()
    red = ReducedCD(X, T)                 # 10 modes, 20 rotation clusters
    z_new = red.step(z, z_dot, p, p_dot, handle(red.p0, i))
    sim = Simulation(X, T, solver="fast")
    sim.advance(handle(sim.rest_params, i)); x = sim.positions()

Scenes and files: ``fastcd.load_scene(path)`` gives a ready Simulation of a Complementary
Dynamics release scene (``sim.scene`` holds its mesh, rig and animation); ``fastcd.bake(scene,
out_dir)`` bakes one as ``fastcd run`` does (the same files and run.json; an earlier bake in
``out_dir`` is replaced only with ``force=True``, as ``--force`` does); ``fastcd.io`` reads
and writes the meshes, rigs, weights and point caches.

Any rig, including one written in Python, drives full order::

    class Bend(fastcd.Rig):          # define dim, num_vertices, num_params, rest_params,
        def positions(self, p): ...  # positions(p) -> (n*dim,), optionally jacobian(p)
    sim = fastcd.Simulation(X, T, rig=Bend(X))

Errors: invalid input raises ValueError (or TypeError for a wrong kind of object) with the
library's message; a numerical failure (e.g. a factorisation, a diverged simulation) raises
RuntimeError.
"""
from . import _fastcd
# simkit's module paths: importing the submodule first, then binding the function of the same
# name, so that both `fastcd.diffuse_field(...)` and `from fastcd.diffuse_field import
# diffuse_field` work (as in simkit).
from .diffuse_field import diffuse_field
from .normalize_and_center import normalize_and_center
from .lbs_weight_space_constraint import lbs_weight_space_constraint
from .skinning_eigenmodes import skinning_eigenmodes
from .spectral_cubature import spectral_cubature
from . import io, solvers
from .bake import bake, rest_space_displacements
from .cd import (FullCD, ReducedCD, Simulation, handle, load_scene, momentum_leak_field, read_character, read_scene,
                 read_surface_scene, rig_rest, skinned_scene, write_gltf_outputs)
from ._fastcd import defaults
from ._fastcd import CancelToken, clear_cancel, request_cancel, set_progress_callback, set_threads, threads

import atexit as _atexit

# A progress callback still installed at exit would be released after the interpreter is gone.
_atexit.register(set_progress_callback, None)
from ._fastcd import LinearRig, Rig, Scene, cage_rig, extremity_vertices, finite_difference_jacobian, point_handle_rig
from .geometry import (beam, boundary_facets, boundary_vertices, cluster_grouping_matrices,
                       deformation_jacobian, dirichlet_laplacian, elastic_operators, kron_identity,
                       lbs_jacobian, massmatrix, tetrahedralized_grid, triangulated_grid, volume,
                       ympr_to_lame)
from .io import (read_dmat, read_mesh, read_msh, read_obj, read_obj_2d, read_off, read_pc2, read_tetgen, read_tgf,
                 read_volume_mesh, write_dmat, write_mesh, write_obj, write_pc2)
from .solvers import block_coord, polar_svd
from .subspace import kmeans2, orthonormalize, project_into_subspace, spectral_clustering

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
    # complementary dynamics and the tutorial's helpers
    "beam", "elastic_operators", "rig_rest", "handle", "momentum_leak_field", "FullCD", "ReducedCD",
    "Simulation",
    # any rig: subclass Rig in Python (positions(p), optionally jacobian(p)); cages; point handles
    "Rig", "LinearRig", "cage_rig", "point_handle_rig", "extremity_vertices", "finite_difference_jacobian",
    # scenes and files
    "Scene", "load_scene", "read_scene", "read_character", "read_surface_scene", "skinned_scene", "write_gltf_outputs",
    "bake", "rest_space_displacements", "defaults",
    "io", "read_obj", "read_obj_2d", "write_obj", "read_off", "read_mesh",
    "write_mesh", "read_msh", "read_tetgen", "read_volume_mesh", "read_tgf", "read_dmat", "write_dmat",
    "read_pc2", "write_pc2",
    # threads, cancellation, progress
    "set_threads", "threads", "request_cancel", "clear_cancel", "CancelToken", "set_progress_callback",
]
