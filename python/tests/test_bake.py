"""fastcd.bake: the library's bake pipeline (what fastcd run writes) from Python, and
fastcd.rest_space_displacements (what the glTF bake and the Blender add-on's cache hold)."""
import os
import threading
from pathlib import Path

import numpy as np
import pytest

import fastcd


@pytest.fixture
def data():
    return Path(os.environ["FASTCD_SHARED_DIR"]) / "data"


def test_rest_space_displacements_land_on_the_displacement_after_skinning():
    rng = np.random.default_rng(4)
    n, joints = 60, 3
    V = rng.uniform(-1, 1, (n, 3))
    W = rng.uniform(0, 1, (n, joints))
    W[: n // 4, 1] = 0  # joints of zero weight are skipped
    W /= W.sum(axis=1, keepdims=True)
    poses, U = [], []
    for _ in range(4):
        A = np.eye(3, 4)[None] + rng.uniform(-0.2, 0.2, (joints, 3, 4))
        poses.append(np.concatenate([a.flatten(order="F") for a in A]))
        U.append(rng.uniform(-0.1, 0.1, (n, 3)))
    d = fastcd.rest_space_displacements(W, poses, U)
    J = fastcd.lbs_jacobian(V, W)
    for p, u, dk in zip(poses, U, d):
        moved = (J @ p).reshape(-1, 3)
        moved_d = (fastcd.lbs_jacobian(V + dk, W) @ p).reshape(-1, 3)
        assert np.abs(moved_d - moved - u).max() < 1e-13
        # The same as the formula solved with numpy (Eigen's 3x3 inverse: rounding apart).
        L = p.reshape(joints, 4, 3).transpose(0, 2, 1)[:, :, :3]
        ref = np.linalg.solve(np.einsum("vb,bij->vij", W, L), u[..., None])[..., 0]
        assert np.abs(dk - ref).max() < 1e-14
    flat, on_first = poses[0].copy(), np.zeros((n, joints))
    flat[0:3], on_first[:, 0] = 0, 1  # joint 0 squashes x, and every vertex follows it alone
    with pytest.raises(ValueError, match="frame 0, vertex 0"):
        fastcd.rest_space_displacements(on_first, [flat], [U[0]])


def test_bake_writes_what_the_pipeline_writes(data, tmp_path):
    sphere = data / "complementary-dynamics-cpp" / "sphere" / "sphere.json"
    run = fastcd.bake(sphere, tmp_path / "out", solver="fast", modes=6, clusters=20, frames=4)
    out = tmp_path / "out"
    assert sorted(p.name for p in (out / "obj").iterdir()) == [f"frame_{k:05d}.obj" for k in range(1, 5)]
    assert (out / "rest.obj").is_file() and (out / "animation.pc2").is_file() and (out / "run.json").is_file()
    assert run["frames"] == 4 and run["solver"] == "fast" and len(run["characters"]) == 1
    assert run["characters"][0]["folder"] == "." and run["gltf"] is None and run["preview"] is None
    assert run["scene"] == str(sphere)
    # The frames are the simulation's positions, in the scene file's units (float32 in the PC2).
    sim = fastcd.load_scene(sphere, solver="fast", modes=6, clusters=20)
    pc2 = fastcd.read_pc2(out / "animation.pc2")[0]
    for k in range(4):
        sim.advance(sim.scene.poses[k])
        x = sim.scene.to_file_units(sim.positions())
        assert np.abs(pc2[k] - x).max() < 1e-6 * np.ptp(x, axis=0).max()
    # A loaded scene bakes the same bytes as its path.
    fastcd.bake(fastcd.read_scene(sphere), tmp_path / "again", solver="fast", modes=6, clusters=20, frames=4)
    for f in ("animation.pc2", "rest.obj", "obj/frame_00004.obj"):
        assert (out / f).read_bytes() == (tmp_path / "again" / f).read_bytes(), f


def test_bake_refusals_and_cancel(data, tmp_path):
    with pytest.raises(TypeError, match="fastcd.Scene or the path"):
        fastcd._fastcd.bake(3, str(tmp_path))
    with pytest.raises(ValueError, match="solver"):
        fastcd.bake(data / "complementary-dynamics-cpp" / "sphere" / "sphere.json", tmp_path / "o", solver="medium")
    token = fastcd.CancelToken()
    token.request()
    errors = []

    def work():
        try:
            with token:
                fastcd.bake(data / "complementary-dynamics-cpp" / "sphere" / "sphere.json", tmp_path / "c", frames=3)
        except RuntimeError as e:
            errors.append(str(e))
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert errors and "cancelled" in errors[0], errors
