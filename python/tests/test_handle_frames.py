"""Rig.handle_frame from Python: each handle's affine frame [A | t] at a pose. A glTF character's
rig reports every joint's skinning transform (its world matrix times its inverse bind matrix),
checked here against the file decoded with nothing but the glTF 2.0 specification."""
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import fastcd


def test_lbs_rigs_report_their_handles_frames_and_the_others_refuse():
    X, T = fastcd.beam(20, 4)
    rig = fastcd.point_handle_rig(X, T, [0, len(X) - 1], fastcd.kron_identity(fastcd.massmatrix(X, T), 2))
    assert rig.num_handles() == 2 and rig.params == "affine_handles"
    p = rig.rest_params().copy()
    A = np.array([[np.cos(0.3), -np.sin(0.3), 0.5], [np.sin(0.3), np.cos(0.3), -0.2]])
    p[6:12] = A.ravel(order="F")  # handle 1's [A | t], column-major
    np.testing.assert_array_equal(rig.handle_frame(p, 1), A)
    np.testing.assert_array_equal(rig.handle_frame(p, 0), p[:6].reshape(2, 3, order="F"))
    with pytest.raises(ValueError, match="has 2 handles, asked for the frame of handle 2"):
        rig.handle_frame(p, 2)
    # A bare Jacobian has no handle layout, unless the caller gives it.
    bare = fastcd.LinearRig(rig.J, rig.p0, 2)
    assert bare.num_handles() == 0 and bare.params == "unspecified"
    with pytest.raises(ValueError, match="bare Jacobian"):
        bare.handle_frame(p, 0)
    laid_out = fastcd.LinearRig(rig.J, rig.p0, 2, "lbs", params="affine_handles")
    np.testing.assert_array_equal(laid_out.handle_frame(p, 1), A)
    with pytest.raises(ValueError, match="params must be"):
        fastcd.LinearRig(rig.J, rig.p0, 2, "lbs", params="bones")
    # A cage's handles are points: no frame.
    lo, hi = X.min(axis=0) - 0.1, X.max(axis=0) + 0.1
    cage = fastcd.cage_rig(X, np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]),
                           np.array([[0, 1], [1, 2], [2, 3], [3, 0]]))
    assert cage.num_handles() == 4 and cage.params == "handle_points"
    with pytest.raises(ValueError, match="no orientation"):
        cage.handle_frame(cage.rest_params(), 0)


# ---- a .glb decoded by the specification alone

_COMPONENTS = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class Glb:
    def __init__(self, path):
        b = Path(path).read_bytes()
        assert b[:4] == b"glTF"
        json_length, = struct.unpack_from("<I", b, 12)
        assert b[16:20] == b"JSON"
        self.doc = json.loads(b[20:20 + json_length])
        bin_length, = struct.unpack_from("<I", b, 20 + json_length)
        assert b[24 + json_length:28 + json_length] == b"BIN\0"
        self.bin = b[28 + json_length:28 + json_length + bin_length]

    def accessor(self, i):
        """A float accessor as a (count, components) array (MAT4: column-major 4x4 per row)."""
        a = self.doc["accessors"][i]
        assert a["componentType"] == 5126, "the test decodes float accessors only"
        n = _COMPONENTS[a["type"]]
        view = self.doc["bufferViews"][a["bufferView"]]
        start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        stride = view.get("byteStride", 4 * n)
        rows = [np.frombuffer(self.bin, dtype="<f4", count=n, offset=start + k * stride) for k in range(a["count"])]
        return np.array(rows, dtype=float)


def _quaternion_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _slerp(a, b, s):
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    d = float(a @ b)
    if d < 0:
        b, d = -b, -d
    angle = np.arccos(min(d, 1.0))
    if angle < 1e-9:
        q = (1 - s) * a + s * b
    else:
        q = (np.sin((1 - s) * angle) * a + np.sin(s * angle) * b) / np.sin(angle)
    return q / np.linalg.norm(q)


def _sample(times, values, interpolation, path, t):
    """A channel's value at time t (STEP or LINEAR; clamped outside the keys)."""
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    k = int(np.searchsorted(times, t, side="right")) - 1
    if interpolation == "STEP" or t == times[k]:
        return values[k]
    assert interpolation == "LINEAR", "the test samples STEP and LINEAR channels"
    s = (t - times[k]) / (times[k + 1] - times[k])
    if path == "rotation":
        return _slerp(values[k], values[k + 1], s)
    return (1 - s) * values[k] + s * values[k + 1]


def _world_matrices(glb, clip, t):
    """Every node's world matrix at time t of animation `clip`."""
    nodes = glb.doc["nodes"]
    trs = []
    for n in nodes:
        assert "matrix" not in n or not any(k in n for k in ("translation", "rotation", "scale"))
        trs.append({"matrix": np.array(n["matrix"], dtype=float).reshape(4, 4, order="F")} if "matrix" in n else
                   {"translation": np.array(n.get("translation", [0, 0, 0]), dtype=float),
                    "rotation": np.array(n.get("rotation", [0, 0, 0, 1]), dtype=float),
                    "scale": np.array(n.get("scale", [1, 1, 1]), dtype=float)})
    animation = glb.doc["animations"][clip]
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        target = channel["target"]
        times = glb.accessor(sampler["input"])[:, 0]
        values = glb.accessor(sampler["output"])
        trs[target["node"]][target["path"]] = _sample(times, values, sampler.get("interpolation", "LINEAR"),
                                                      target["path"], t)
    local = []
    for d in trs:
        if "matrix" in d:
            local.append(d["matrix"])
            continue
        M = np.eye(4)
        M[:3, :3] = _quaternion_matrix(d["rotation"]) @ np.diag(d["scale"])
        M[:3, 3] = d["translation"]
        local.append(M)
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    world = [None] * len(nodes)

    def resolve(i):
        if world[i] is None:
            world[i] = resolve(parent[i]) @ local[i] if i in parent else local[i]
        return world[i]

    return [resolve(i) for i in range(len(nodes))]


def test_a_gltf_characters_handle_frames_are_its_joints_skinning_transforms():
    path = Path(os.environ["FASTCD_SHARED_DIR"]) / "data" / "khronos-gltf" / "Fox.glb"
    dt = 1 / 30
    # (Poses do not depend on the tets: a coarse voxel body keeps the test quick.)
    scene = fastcd.read_character(path, dt=dt, mesher="voxel")
    glb = Glb(path)
    skin = glb.doc["skins"][0]
    joints = skin["joints"]
    inverse_bind = glb.accessor(skin["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
    rig = scene.rig
    assert rig.num_handles() == len(joints) == scene.handles
    c, s = np.asarray(scene.center, dtype=float), float(scene.half_extent)
    frames = len(scene.poses)
    assert frames > 10
    for f in (0, frames // 3, frames - 1):
        world = _world_matrices(glb, 0, f * dt)  # frame f is the clip at f dt
        for j, node in enumerate(joints):
            M = world[node] @ inverse_bind[j]  # the joint's skinning transform, file units
            A, t = M[:3, :3], M[:3, 3]
            # In the scene's normalised frame x_n = (x - c) / s: A stays, t -> (A c + t - c) / s.
            expected = np.column_stack([A, (A @ c + t - c) / s])
            frame = rig.handle_frame(scene.poses[f], j)
            assert frame.shape == (3, 4)
            np.testing.assert_allclose(frame, expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()),
                                       err_msg=f"frame {f}, joint {j}")
    # The frames are the rig's: every vertex goes where its weights blend them, x_v = sum_j
    # W(v, j) (A_j X_v + t_j).
    X, W = np.asarray(scene.X), np.asarray(scene.W)
    p = scene.poses[frames // 2]
    F = np.array([rig.handle_frame(p, j) for j in range(len(joints))])  # (joints, 3, 4)
    blended = np.einsum("vj,jab,vb->va", W, F, np.column_stack([X, np.ones(len(X))]))
    np.testing.assert_allclose(rig.positions(p).reshape(-1, 3), blended, rtol=0, atol=1e-12 * np.abs(X).max())
