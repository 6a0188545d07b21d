"""The bake pipeline of ``fastcd run``, from Python: one scene (a one-character run) or a file of
several characters simulated and written frame by frame by the library, with the same files and
the same run.json as the command line (docs/architecture.md, "The pipeline")."""
import json

from . import _convert as cv
from . import _fastcd
from ._fastcd import defaults as _d

__all__ = ["bake", "rest_space_displacements"]


def bake(scene, out_dir, solver=_d.solver, iterations=_d.iterations, modes=_d.modes, clusters=_d.clusters,
         leak=_d.leak, gravity=_d.gravity, dynamics=True, precision=_d.precision, frames=0, clip="",
         glb_encoding=_d.glb_encoding, pca_tolerance=_d.pca_tolerance, cache_dir="", material="", input="", force=False):
    """Bakes ``scene`` into ``out_dir`` (created) as ``fastcd run`` does, with its options' names:
    obj/frame_NNNNN.obj, rest.obj, animation.pc2, a glTF character's ``<name>.glb`` and rest-space
    PC2 / MDD caches, and run.json, which is returned as a dict.

    ``scene``: a ``fastcd.Scene`` (``read_scene``, ``read_character``, ``read_surface_scene``,
    ``skinned_scene``) or the path of a scene JSON, a .glb / .gltf character (the defaults) or a
    characters file (each character into ``out_dir/<name>``). ``frames``: at most that many (0:
    all). ``input``: run.json's "scene" (default: the path, or the scene's first input file).
    Renders no preview. The defaults are ``fastcd.defaults``'s (the CLI's).

    ``out_dir`` is handled as ``fastcd run`` handles ``--out`` (one rule, the library's
    ``OutputFolder``): the bake is written into a hidden sibling folder and moved into place only
    when complete, with the ``.fastcd-output`` marker listing what it wrote. A non-empty
    ``out_dir`` that holds an earlier bake and nothing else (its marker lists everything in it) is
    replaced only with ``force=True`` (``--force``); any other folder is refused even then
    (RuntimeError naming what is in it), and so is an ``out_dir`` that is or contains an input.
    On an error or Ctrl-C (KeyboardInterrupt, which stops the bake at its next check) the
    previous ``out_dir`` stays as it was and nothing half-written is left. The GIL is released
    while it runs; a ``CancelToken`` entered around the call stops it."""
    what = scene if isinstance(scene, _fastcd.Scene) else cv.path(scene, "scene")
    inputs = list(what.input_files) if isinstance(what, _fastcd.Scene) else [what]
    with _fastcd.OutputFolder(cv.path(out_dir, "out_dir"), inputs, bool(force)) as folder:
        text = _fastcd.bake(what, folder.start(inputs), input=cv.text(input, "input"),
                            **cv.texts(solver=solver, leak=leak, precision=precision, clip=clip,
                                       glb_encoding=glb_encoding, material=material),
                            **cv.integers(iterations=iterations, modes=modes, clusters=clusters, frames=frames),
                            gravity=cv.real(gravity, "gravity"), dynamics=bool(dynamics),
                            pca_tolerance=cv.real(pca_tolerance, "pca_tolerance"), **cv.paths(cache_dir=cache_dir))
        folder.commit()
    return json.loads(text)


def rest_space_displacements(W, poses, U):
    """Displacements after linear blend skinning taken back to rest space, as fastcd's glTF bake and
    the Blender add-on's Mesh Cache hold them: per frame k and vertex v, ``(sum_j W[v, j] L_j)^-1
    U[k][v]`` with ``L_j`` the linear part of joint j in ``poses[k]`` (12 numbers per joint, the
    column-major 3x4 ``[L | t]``). Adding them to the rest positions before skinning lands exactly
    on ``U`` after it. ``W``: (n, joints); ``poses``: per frame (12 * joints,); ``U``: per frame
    (n, 3). Returns a list of (n, 3) arrays. A vertex the rig collapses (a singular blend) is a
    ValueError naming the frame and vertex."""
    return _fastcd.lbs_rest_space_displacements(cv.float_matrix(W, "W"), list(poses), list(U))
