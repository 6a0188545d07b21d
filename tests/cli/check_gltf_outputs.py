"""Checks a `fastcd run CHARACTER.glb` output folder with the Khronos glTF validator and numpy:
run.json's glTF section, 0 validator errors on <name>.glb, the morph targets of the .glb against
the rest-space PC2 and MDD (same positions, Blender's Z-up frame), and the caches' exact sizes.

  check_gltf_outputs.py OUT_DIR VALIDATOR_DIR [expected encoding [expected mesh nodes [CHARACTER]]]

With CHARACTER, OUT_DIR is the bake of a characters file and the character of that name (its
folder, its entry of run.json's "characters") is checked."""
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np


def read_glb(path):
    b = path.read_bytes()
    assert b[:4] == b"glTF", path
    version, total = struct.unpack_from("<II", b, 4)
    assert version == 2 and total == len(b), (version, total, len(b))
    jl, = struct.unpack_from("<I", b, 12)
    assert b[16:20] == b"JSON"
    doc = json.loads(b[20:20 + jl])
    bl, = struct.unpack_from("<I", b, 20 + jl)
    assert b[24 + jl:28 + jl] == b"BIN\0"
    return doc, b[28 + jl:28 + jl + bl]


def floats(doc, binary, index):
    a = doc["accessors"][index]
    assert a["componentType"] == 5126, a
    n = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
    if "bufferView" not in a:
        return np.zeros((a["count"], n))
    v = doc["bufferViews"][a["bufferView"]]
    off = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    stride = v.get("byteStride", 4 * n)
    raw = np.frombuffer(binary, dtype="<f4", count=(a["count"] - 1) * stride // 4 + n, offset=off)
    return np.stack([raw[e * stride // 4:e * stride // 4 + n] for e in range(a["count"])]).astype(float)


def main():
    out, validator = Path(sys.argv[1]), Path(sys.argv[2])
    want_encoding = sys.argv[3] if len(sys.argv) > 3 else "frames"
    want_nodes = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    run = json.loads((out / "run.json").read_text())
    if len(sys.argv) > 5:  # one character of a characters file
        entry = next(c for c in run["characters"] if c["name"] == sys.argv[5])
        out = out / entry["folder"]
        run = dict(entry, frames=run["frames"])
    g = run["gltf"]
    frames = run["frames"]
    assert g["encoding"] == want_encoding, g
    assert g["frames"] == frames, (g, frames)
    assert g["worst_blend_condition"] >= 1 and g["worst_blend_condition"] < 1e3, g
    # Young's modulus in Pa as given, and what the solvers took: ym / L^2 (L metres per normalised unit).
    L, s = g["metres_per_normalised_unit"], run["settings"]
    assert L > 0 and s["ym"] > 0, (g, s)
    assert abs(s["ym_normalised"] * L * L - s["ym"]) <= 1e-12 * s["ym"], (s["ym"], s["ym_normalised"], L)
    assert run["max_constraint_residual_relative"] < 1e-8, run["max_constraint_residual_relative"]
    glb = out / g["glb"]
    assert glb.stat().st_size == g["bytes"], (glb.stat().st_size, g["bytes"])

    # The real client: the Khronos validator, 0 errors.
    r = subprocess.run(["node", str(validator / "validate.mjs"), str(glb)], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["errors"] == 0, report
    print(f"{glb.name}: validator {report['errors']} errors, {report['warnings']} warnings", report["messages"])

    # Morphed rest positions at every key = each mesh node's rest-space caches (glTF (x, y, z) ->
    # (x, -z, y)) where Blender imports the vertices at POSITION; the caches' nodes are every node with a baked mesh, each cache the node's
    # primitives one after another, at its rows of animation.pc2.
    doc, binary = read_glb(glb)
    anim = [a for a in doc["animations"] if any(c["target"]["path"] == "weights" for c in a["channels"])]
    assert len(anim) == 1, "one animation carries the secondary motion"
    a = anim[0]
    caches = g["caches"]
    assert len(caches) == want_nodes, f"{len(caches)} mesh nodes baked, expected {want_nodes}"
    baked = [i for i, n in enumerate(doc["nodes"])
             if "mesh" in n and any("targets" in p for p in doc["meshes"][n["mesh"]]["primitives"])]
    assert sorted(c["node"] for c in caches) == baked, (caches, baked)
    assert g["rest_space_pc2"] == caches[0]["pc2"] and g["rest_space_mdd"] == caches[0]["mdd"]
    assert sum(c["vertices"] for c in caches) == g["render_vertices"], (caches, g["render_vertices"])
    world_pc2 = (out / "animation.pc2").read_bytes()
    _, world_pts, _, _, _ = struct.unpack_from("<iiffi", world_pc2, 12)
    assert world_pts == g["render_vertices"], (world_pts, g["render_vertices"])
    worst = 0.0
    for cache in caches:
        m = doc["meshes"][doc["nodes"][cache["node"]]["mesh"]]
        ch = next(c for c in a["channels"] if c["target"] == {"node": cache["node"], "path": "weights"})
        s = a["samplers"][ch["sampler"]]
        assert s["interpolation"] == "LINEAR"
        times = floats(doc, binary, s["input"])[:, 0]
        assert len(times) == frames and np.all(np.diff(times) > 0), times
        rest = []
        for p in m["primitives"]:
            if p.get("mode", 4) not in (4, 5, 6):
                continue
            base = floats(doc, binary, p["attributes"]["POSITION"])
            K = len(p["targets"])
            assert K == cache["targets"] and len(m["weights"]) == K, (K, cache)
            w = floats(doc, binary, s["output"])[:, 0].reshape(frames, K)
            assert w.min() >= 0 and w.max() <= 1, (w.min(), w.max())
            T = np.stack([floats(doc, binary, t["POSITION"]) for t in p["targets"]])
            rest.append(base[None] + np.einsum("fk,kvc->fvc", w, T))
        rest = np.concatenate(rest, axis=1)
        zup = np.stack([rest[..., 0], -rest[..., 2], rest[..., 1]], axis=-1)
        V = rest.shape[1]
        assert V == cache["vertices"], (V, cache)
        pc2 = (out / cache["pc2"]).read_bytes()
        assert len(pc2) == 32 + frames * V * 12, (len(pc2), frames, V)
        assert pc2[:12] == b"POINTCACHE2\0"
        _, n_pts, _, _, n_samples = struct.unpack_from("<iiffi", pc2, 12)
        assert (n_pts, n_samples) == (V, frames)
        p = np.frombuffer(pc2, dtype="<f4", offset=32).reshape(frames, V, 3)
        mdd = (out / cache["mdd"]).read_bytes()
        assert len(mdd) == 8 + 4 * frames + frames * V * 12
        assert struct.unpack_from(">ii", mdd, 0) == (frames, V)
        q = np.frombuffer(mdd, dtype=">f4", offset=8 + 4 * frames).reshape(frames, V, 3)
        assert np.array_equal(p, q), "PC2 and MDD differ"
        size = np.ptp(rest[0], axis=0).max()
        if cache["bind_offset"] > 1e-4 * size:
            # Blender imports this node's vertices elsewhere than POSITION (an armature away from
            # the origin, or inverse bind matrices off the rest pose): the cache is in that
            # space, which only Blender itself checks (check_blender_import.py).
            print(f"{cache['name']}: {cache['pc2']} in Blender's bind space ({cache['bind_offset']:.3g} from POSITION)")
            continue
        err = np.abs(zup - p).max() / size
        tol = 1e-5 if g["encoding"] == "frames" else 4 * max(g["encoding_error_relative"], 1e-6)
        tol += 2 * cache["bind_offset"] / size  # Blender's bind space, a float32 rounding away from POSITION
        assert err < tol, f"{cache['name']}: the .glb's morphed positions and {cache['pc2']} differ by {err:.2e}"
        worst = max(worst, err)
        print(f"{cache['name']}: {cache['pc2']}, {V} vertices from {cache['first_vertex']}, {K} targets")
    print(f"{out.name}: {frames} frames, {g['targets']} targets, {len(caches)} mesh nodes, glb vs pc2 {worst:.1e}")


main()
