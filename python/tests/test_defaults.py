"""Every default of a run is written once (fastcd/common/defaults.hpp) and read everywhere:
fastcd.defaults holds the C++ values, and every Python signature that takes a run setting starts
from them (the CLI's are checked by tests/cli/check_bake_pipeline.py, the Blender add-on's by
tests/blender/test_addon.py). A literal default that drifts from the one place fails here."""
import inspect

import pytest

import fastcd

D = fastcd.defaults

# (function, {parameter: the fastcd.defaults name it must equal})
RUN = {"solver": "solver", "iterations": "iterations", "modes": "modes", "clusters": "clusters", "leak": "leak",
       "gravity": "gravity"}
PHYSICAL = {"metres_per_unit": "metres_per_unit", "ym": "ym", "pr": "pr", "rho": "rho", "dt": "dt",
            "mesher": "mesher"}
SIGNATURES = [
    (fastcd.load_scene, RUN),
    (fastcd.bake, dict(RUN, precision="precision", glb_encoding="glb_encoding", pca_tolerance="pca_tolerance")),
    (fastcd.read_character, dict(PHYSICAL, voxel_resolution="voxel_resolution")),
    (fastcd.skinned_scene, dict(PHYSICAL, voxel_resolution="voxel_resolution")),
    (fastcd.read_surface_scene, PHYSICAL),
    (fastcd.write_gltf_outputs, {"encoding": "glb_encoding", "pca_tolerance": "pca_tolerance"}),
]


def test_the_values_are_the_documented_ones():
    assert (D.solver, D.interactive_solver, D.iterations, D.modes, D.clusters) == ("full", "fast", 10, 16, 100)
    assert (D.precision, D.leak, D.gravity) == ("double", "auto", 0.0)
    assert (D.ym, D.pr, D.rho, D.metres_per_unit) == (2e4, 0.45, 1000.0, 1.0)
    assert D.dt == 1.0 / 60.0
    assert (D.mesher, D.voxel_resolution, D.scene_rho_2d, D.scene_rho_3d) == ("netgen", 24, 1.0, 1000.0)
    assert (D.glb_encoding, D.pca_tolerance) == ("frames", 1e-4)


@pytest.mark.parametrize("fn, params", SIGNATURES, ids=[f.__name__ for f, _ in SIGNATURES])
def test_python_signatures_start_from_fastcd_defaults(fn, params):
    sig = inspect.signature(fn)
    for param, name in params.items():
        assert param in sig.parameters, f"{fn.__name__} has no '{param}'"
        assert sig.parameters[param].default == getattr(D, name), (
            f"{fn.__name__}({param}={sig.parameters[param].default!r}) but fastcd.defaults.{name} is "
            f"{getattr(D, name)!r}")


def test_scale_is_metres_per_unit_only():
    """One meaning of scale: the file's length unit is `metres_per_unit` (fastcd run --scale); the
    normalisation is the scene's `half_extent`; no Python setting is called `scale`."""
    for fn in (fastcd.read_character, fastcd.skinned_scene, fastcd.read_surface_scene):
        assert "scale" not in inspect.signature(fn).parameters, fn.__name__
    assert not hasattr(fastcd.Scene, "scale") and hasattr(fastcd.Scene, "half_extent")
    assert hasattr(fastcd.Scene, "material") and not hasattr(fastcd.Scene, "model")
