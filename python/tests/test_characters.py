"""glTF characters and plain surfaces from Python, as fastcd run reads them: a .glb as a scene,
a simulation of it, and the bake back into glTF (morph targets, per-node rest-space caches)."""
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import fastcd


@pytest.fixture
def data():
    return Path(os.environ["FASTCD_SHARED_DIR"]) / "data"


def test_a_character_simulates_and_bakes(data, tmp_path):
    glb = data / "khronos-gltf" / "RiggedSimple.glb"
    scene = fastcd.read_character(glb, ym=3e4, dt=1 / 30)
    assert scene.layout == "gltf" and scene.handles == 2
    assert scene.metres_per_normalised_unit == pytest.approx(scene.half_extent)
    assert scene.ym == 3e4  # Pa, as given; the solvers take it over L^2 (L metres per normalised unit)
    assert scene.ym_normalised == pytest.approx(3e4 / scene.half_extent ** 2, rel=1e-15)
    sim = fastcd.load_scene(glb, solver="fast", modes=4, clusters=8)  # the .glb itself is a scene
    assert sim.scene.dt == pytest.approx(1 / 60)
    sim = fastcd._fastcd.simulation_from_scene(scene, solver="fast", modes=4, clusters=8)
    U = []
    for p in scene.poses[:20]:
        sim.advance(p)
        U.append(scene.to_file_units(sim.positions()) - scene.to_file_units(sim.rig_positions()))
    assert max(np.abs(u).max() for u in U) > 0
    out = fastcd.write_gltf_outputs(scene, U, tmp_path)
    assert Path(out["glb"]).name == "RiggedSimple.glb" and out["targets"] == 20
    assert [c["name"] for c in out["caches"]] == ["Cylinder"]
    pc2 = Path(out["caches"][0]["pc2"]).read_bytes()
    assert pc2[:12] == b"POINTCACHE2\0"
    assert struct.unpack_from("<i", pc2, 16)[0] == len(scene.render_V)
    jl, = struct.unpack_from("<I", Path(out["glb"]).read_bytes(), 12)
    doc = json.loads(Path(out["glb"]).read_bytes()[20:20 + jl])
    assert len(doc["meshes"][0]["primitives"][0]["targets"]) == 20


def test_a_surface_with_handles(data, tmp_path):
    sphere = data / "complementary-dynamics-cpp" / "sphere"
    scene = fastcd.read_surface_scene(sphere / "sphere.obj", sphere / "sphere.tgf", sphere / "sphere_anim.txt",
                                      ym=5e4, metres_per_unit=0.01)
    V, F = fastcd.read_obj(sphere / "sphere.obj")
    assert scene.layout == "surface" and scene.render_V.shape == V.shape
    assert np.array_equal(scene.to_file_units(scene.X), V)
    sim = fastcd.load_scene(sphere / "sphere.json", solver="fast", modes=4, clusters=8)
    assert sim.scene.layout == "cpp-3d"
    with pytest.raises(RuntimeError, match="--anim"):
        fastcd.read_surface_scene(sphere / "sphere.obj", sphere / "sphere.tgf", "")


def test_load_scene_keeps_tets_and_the_fast_subspace_in_a_cache(data, tmp_path):
    glb = data / "khronos-gltf" / "RiggedSimple.glb"
    cache = tmp_path / "cache"
    first = fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache)
    names = sorted(p.name[:5] for p in cache.iterdir())
    assert names == ["fast-", "tets-"]
    second = fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache)
    for p in first.scene.poses[:10]:
        first.advance(p)
        second.advance(p)
    assert np.array_equal(first.positions(), second.positions())
    assert len(list(cache.iterdir())) == 2


def test_progress_callback_and_cancel(data, tmp_path):
    glb = data / "khronos-gltf" / "RiggedSimple.glb"
    seen = []
    fastcd.set_progress_callback(lambda work, stage, done, total: seen.append((work, stage, total)))
    try:
        fastcd.load_scene(glb, solver="fast", modes=4, clusters=8)
    finally:
        fastcd.set_progress_callback(None)
    assert any(w.startswith("precompute") for w, _, _ in seen), seen
    fastcd.request_cancel()
    try:
        with pytest.raises(RuntimeError, match="cancelled"):
            fastcd.load_scene(glb, solver="fast", modes=4, clusters=8)
    finally:
        fastcd.clear_cancel()
    fastcd.load_scene(glb, solver="fast", modes=4, clusters=8)  # runs again
