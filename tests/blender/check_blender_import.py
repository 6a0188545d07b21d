"""Debian's Blender as the client (run by `blender -b --factory-startup --python-exit-code 1
--python check_blender_import.py -- OUT_DIR`): imports the <name>.glb that `fastcd run` wrote,
plays every baked frame and compares every imported mesh object (one per skinned mesh node,
run.json's gltf.caches) with fastcd's own positions (its rows of animation.pc2: world space,
file units, glTF Y-up) -- within 1e-5 of the bounding box plus the encoding's own error for
--glb-encoding pca; then drops the shape keys, puts a Mesh Cache modifier reading the object's
rest-space PC2 above its Armature modifier and compares again (exact: 1e-5)."""
import json
import struct
import sys
import warnings
from pathlib import Path

import numpy

# Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses
# (KhronosGroup/glTF-Blender-IO#1844, fixed in Blender 3.5).
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if not hasattr(numpy, "bool"):
        numpy.bool = bool

import bpy  # noqa: E402

TOL = 1e-5


def read_pc2(path):
    b = Path(path).read_bytes()
    assert b[:12] == b"POINTCACHE2\0", path
    _, n, _, _, s = struct.unpack_from("<iiffi", b, 12)
    return numpy.frombuffer(b, dtype="<f4", offset=32).reshape(s, n, 3).astype(float)


def evaluated_world(obj, depsgraph):
    ev = obj.evaluated_get(depsgraph)
    me = ev.to_mesh()
    co = numpy.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    co = co.reshape(-1, 3)
    M = numpy.array(obj.matrix_world)
    return co @ M[:3, :3].T + M[:3, 3]


def compare(label, obj, expected, size, tol=TOL):
    scene = bpy.context.scene
    worst, at = 0.0, 0
    for k in range(expected.shape[0]):
        scene.frame_set(k)
        got = evaluated_world(obj, bpy.context.evaluated_depsgraph_get())
        assert got.shape == expected[k].shape, f"{label}: Blender has {got.shape[0]} vertices, fastcd {expected[k].shape[0]}"
        err = numpy.abs(got - expected[k]).max() / size
        if err > worst:
            worst, at = err, k
    print(f"{label}: {expected.shape[0]} frames, worst {worst:.2e} of the size (frame {at})")
    assert worst < tol, f"{label}: Blender's positions differ from fastcd's by {worst:.2e} of the size at frame {at}"


def glb_json(glb):
    b = Path(glb).read_bytes()
    jl, = struct.unpack_from("<I", b, 12)
    return json.loads(b[20:20 + jl])


def blender_clip_name(glb, index):
    """The importer names an animation by its glTF name, or Anim_<index> when it has none."""
    anim = glb_json(glb)["animations"][index]
    return anim.get("name") or f"Anim_{index}"


def play_clip(clip, objs):
    """Makes the baked clip the active action of every armature and of the objects' shape keys
    (the importer makes the file's first animation active and stashes the others, shape keys
    included, in NLA tracks), with the NLA muted so nothing else blends in."""
    for o in bpy.context.scene.objects:
        ad = o.animation_data
        if o.type == "ARMATURE":
            action = bpy.data.actions.get(f"{clip}_{o.name}")
            assert action is not None, f"no action for clip {clip!r} on {o.name}: {[a.name for a in bpy.data.actions]}"
            ad.action = action
            for t in ad.nla_tracks:
                t.mute = True
    for obj in objs:
        keys = obj.data.shape_keys
        if keys is not None and keys.animation_data is not None:
            ad = keys.animation_data
            action = bpy.data.actions.get(f"{clip}_{obj.name}")
            assert action is not None, f"no shape-key action for clip {clip!r}: {[a.name for a in bpy.data.actions]}"
            ad.action = action
            for t in ad.nla_tracks:
                t.mute = True


def main():
    out = Path(sys.argv[sys.argv.index("--") + 1])
    run = json.loads((out / "run.json").read_text())
    dt = run["settings"]["dt"]
    fps = round(1.0 / dt)
    assert abs(fps * dt - 1) < 1e-9, f"the check needs a bake at an integer frame rate, dt = {dt}"
    world = read_pc2(out / "animation.pc2")  # glTF Y-up, file units
    expected = numpy.stack([world[..., 0], -world[..., 2], world[..., 1]], axis=-1)  # Blender Z-up
    size = numpy.ptp(expected[0], axis=0).max()

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = fps  # the importer maps glTF time t to frame t * fps
    scene.render.fps_base = 1
    bpy.ops.import_scene.gltf(filepath=str(out / run["gltf"]["glb"]))
    caches = run["gltf"]["caches"]
    meshes = [o for o in scene.objects if o.type == "MESH"]
    assert len(meshes) == len(caches), f"expected {[c['name'] for c in caches]}, got {[o.name for o in meshes]}"
    # The importer names a mesh object after its node, or after its mesh when it has to split the
    # node (a skinned mesh node it cannot move under its armature as a whole), with Blender's
    # .001 suffixes on clashes.
    doc = glb_json(out / run["gltf"]["glb"])
    objs = []
    for c in caches:
        mesh_name = doc["meshes"][doc["nodes"][c["node"]]["mesh"]].get("name", "")
        found = [o for o in meshes if o.name == c["name"]] or \
                [o for o in meshes if o.name.split(".")[0] == mesh_name.split(".")[0] and
                 len(o.data.vertices) == c["vertices"]]
        assert len(found) == 1, f"no single mesh object for node {c['name']!r}: {[o.name for o in meshes]}"
        objs.append(found[0])
    play_clip(blender_clip_name(out / run["gltf"]["glb"], run["gltf"]["clip_index"]), objs)
    # "pca" approximates the deltas within encoding_error_relative of the bind-pose diagonal
    # (at most sqrt(3) sizes); "frames" is exact up to float32.
    for c, obj in zip(caches, objs):
        keys = obj.data.shape_keys
        assert keys is not None and len(keys.key_blocks) == c["targets"] + 1, f"{obj.name}: shape keys missing"
        rows = slice(c["first_vertex"], c["first_vertex"] + c["vertices"])
        compare(f"{obj.name}: glb morph targets", obj, expected[:, rows], size,
                TOL + 2 * run["gltf"]["encoding_error_relative"])

    # The rest-space caches instead of the morphs: shape keys gone, Mesh Cache above the Armature.
    for c, obj in zip(caches, objs):
        obj.shape_key_clear()
        mod = obj.modifiers.new("fastcd", "MESH_CACHE")
        mod.cache_format = "PC2"
        mod.filepath = str(out / c["pc2"])
        bpy.ops.object.select_all(action="DESELECT")
        bpy.context.view_layer.objects.active = obj
        while obj.modifiers[0].name != "fastcd":
            bpy.ops.object.modifier_move_up(modifier="fastcd")
        assert any(m.type == "ARMATURE" for m in obj.modifiers), f"{obj.name}: no Armature modifier after import"
    for c, obj in zip(caches, objs):
        rows = slice(c["first_vertex"], c["first_vertex"] + c["vertices"])
        compare(f"{obj.name}: {c['pc2']} above Armature", obj, expected[:, rows], size)


try:
    main()
except Exception as e:  # noqa: BLE001 -- any failure must fail the test with its message
    import traceback
    traceback.print_exc()
    sys.exit(1)
