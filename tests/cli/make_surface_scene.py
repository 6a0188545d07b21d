"""Writes the inputs of a plain-surface bake of Keenan Crane's Spot (a closed, textured OBJ
surface): five point handles (the four hooves and the head, as vertex positions of the surface)
in a TGF, a point-handle animation in the 3D Complementary Dynamics release's format (the
hooves stay, the head nods, everything travels forward), inverse-distance weights with one row
per surface vertex (DMAT), the surface again as binary PLY and as OFF, and scene JSONs naming
the surface as their mesh_file.

  make_surface_scene.py SPOT.obj OUT_DIR"""
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np

FRAMES = 60


def read_obj(path):
    V, F = [], []
    for line in Path(path).read_text().splitlines():
        t = line.split()
        if not t:
            continue
        if t[0] == "v":
            V.append([float(x) for x in t[1:4]])
        elif t[0] == "f":
            idx = [int(c.split("/")[0]) - 1 for c in t[1:]]
            F += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
    return np.array(V), np.array(F)


def main():
    spot, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    V, F = read_obj(spot)
    lo, hi = V.min(axis=0), V.max(axis=0)
    mid = (lo + hi) / 2
    # Hooves: the lowest vertex (y) in each x / z quadrant; the head: the farthest along +z.
    handles = []
    for sx in (-1, 1):
        for sz in (-1, 1):
            q = np.where((np.sign(V[:, 0] - mid[0]) == sx) & (np.sign(V[:, 2] - mid[2]) == sz))[0]
            handles.append(int(q[np.argmin(V[q, 1])]))
    handles.append(int(np.argmax(V[:, 2])))
    P = V[handles]
    size = (hi - lo).max()

    with open(out / "spot_handles.tgf", "w") as f:
        for i, p in enumerate(P):
            f.write(f"{i + 1} {p[0]!r} {p[1]!r} {p[2]!r}\n")
        f.write("#\n#\n")
    with open(out / "spot_anim.txt", "w") as f:
        f.write(f"{len(P)} {FRAMES}\n")
        for p in P:
            f.write(f"{p[0]!r} {p[1]!r} {p[2]!r}\n0 0 0\n")
        for k in range(FRAMES):
            s = k / (FRAMES - 1)
            travel = np.array([0.0, 0.0, 0.6 * size * s * s * (3 - 2 * s)])  # eases in and out
            for h, p in enumerate(P):
                q = p + travel
                if h == 4:
                    q = q + np.array([0.0, 0.12 * size * math.sin(2 * math.pi * 2 * s), 0.0])
                f.write(f"{q[0]!r} {q[1]!r} {q[2]!r}\n0 0 0\n")
    # Inverse-distance weights, a partition of unity, one row per surface vertex.
    d = np.linalg.norm(V[:, None, :] - P[None, :, :], axis=2)
    W = 1.0 / np.maximum(d, 1e-9) ** 4
    W /= W.sum(axis=1, keepdims=True)
    with open(out / "spot_weights.dmat", "w") as f:
        f.write(f"{W.shape[1]} {W.shape[0]}\n")
        for x in W.T.ravel():
            f.write(f"{x!r}\n")
    # The same surface as binary little-endian PLY and as OFF.
    with open(out / "spot.ply", "wb") as f:
        f.write(("ply\nformat binary_little_endian 1.0\ncomment Spot, Keenan Crane (public domain)\n"
                 f"element vertex {len(V)}\nproperty double x\nproperty double y\nproperty double z\n"
                 f"element face {len(F)}\nproperty list uchar int vertex_indices\nend_header\n").encode())
        f.write(V.astype("<f8").tobytes())
        for t in F:
            f.write(struct.pack("<B3i", 3, *t))
    with open(out / "spot.off", "w") as f:
        f.write(f"OFF\n{len(V)} {len(F)} 0\n")
        for p in V:
            f.write(f"{p[0]!r} {p[1]!r} {p[2]!r}\n")
        for t in F:
            f.write(f"3 {t[0]} {t[1]} {t[2]}\n")
    common = {"handle_file": "spot_handles.tgf", "anim_file": "spot_anim.txt", "dt": 1 / 60, "YM": 2e4, "pr": 0.4}
    (out / "spot_obj.json").write_text(json.dumps({"mesh_file": str(spot.resolve()), **common}, indent=1))
    (out / "spot_ply.json").write_text(
        json.dumps({"mesh_file": "spot.ply", "weight_file": "spot_weights.dmat", **common}, indent=1))
    (out / "spot_voxel.json").write_text(
        json.dumps({"mesh_file": "spot.off", "mesher": "voxel", "voxel_resolution": 12, **common}, indent=1))
    (out / "handles.json").write_text(json.dumps({"vertices": handles, "frames": FRAMES}))
    print(f"{len(P)} handles at vertices {handles}; {FRAMES} frames; {len(V)} vertices, {len(F)} triangles")


main()
