"""Checks a `fastcd run` bake of a plain surface (OBJ / OFF / PLY with handles): run.json says a
surface scene filled with tets, and the baked surface is the input surface itself -- rest.obj has
its vertices (bit for bit in value) and its triangles, every frame has as many vertices, and
the frames move.

  check_surface_outputs.py OUT_DIR SURFACE_VERTICES SURFACE_TRIANGLES"""
import json
import sys
from pathlib import Path

import numpy as np


def read_obj(path):
    V, F = [], []
    for line in path.read_text().splitlines():
        t = line.split()
        if t and t[0] == "v":
            V.append([float(x) for x in t[1:4]])
        elif t and t[0] == "f":
            idx = [int(c.split("/")[0]) for c in t[1:]]
            F += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
    return np.array(V), np.array(F)


def main():
    out, nv, nf = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    run = json.loads((out / "run.json").read_text())
    assert run["layout"] == "surface", run["layout"]
    assert run["dim"] == 3 and run["elements"] > 0, run  # voxel grids may have fewer vertices than the surface
    assert run["max_constraint_residual_relative"] < 1e-8, run["max_constraint_residual_relative"]
    V, F = read_obj(out / "rest.obj")
    assert V.shape == (nv, 3) and F.shape == (nf, 3), (V.shape, F.shape, nv, nf)
    frames = sorted((out / "obj").iterdir())
    assert len(frames) == run["frames"], (len(frames), run["frames"])
    last, faces = read_obj(frames[-1])
    assert last.shape == V.shape and np.array_equal(faces, F), (last.shape, V.shape)
    moved = np.linalg.norm(last - V, axis=1).max() / np.ptp(V, axis=0).max()
    assert moved > 1e-3, f"the surface did not move ({moved:.2e} of its size)"
    print(f"{out.name}: {nv} surface vertices on {run['vertices']} tet vertices, {len(frames)} frames, "
          f"last frame moved {moved:.3f} of the size")


main()
