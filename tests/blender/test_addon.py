"""The Blender add-on in Debian's Blender, headless (blender -b --python-exit-code 1 --python
test_addon.py -- WORK_DIR), with the add-on installed by scripts/install_blender_addon.sh into the
profile that BLENDER_USER_CONFIG / BLENDER_USER_SCRIPTS select.

A script-built rig (a closed tube with two bones, the mesh and armature objects both moved,
turned and scaled, the tip bone swinging) is baked through the add-on's operator; then:
(a) fastcd's Mesh Cache modifier sits before the Armature modifier and points next to the .blend;
(b) the evaluated mesh at several frames equals fastcd's simulated positions, and with the cache
    off Blender's own armature equals fastcd's rig, both within 1e-5 of the bounding box, and the
    secondary motion is there;
(c) with dynamics off the bake reproduces the rig-only pose;
(d) bad input (no armature; a mesh with a hole) is one clear error and changes nothing;
(e) the rest-space cache is fastcd's own (fastcd.rest_space_displacements), not the add-on's;
and a re-bake with another stiffness reuses the precompute cache, a shape-keyed mesh and a painted
leak group bake too. Files: Free Bake deletes exactly the files the bake recorded writing (Mesh Cache
and shape-key output), and nothing else: not the files a Mesh Cache modifier named 'fastcd' from a
.blend file made elsewhere points at (with no record, or with a record made by another Blender), not
a recorded file changed since the bake, not a bake another object still plays; a bake refuses to
replace a file it did not write. Two bakes run at once: cancelling one leaves the other to finish.
"""
import hashlib
import json
import math
import os
import shutil
import sys
import threading

import numpy as np

import bpy

WORK = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
TOL = 1e-5


def build_rig(name="Tube", hole=False, shape_key=False):
    """A closed tube (radius 0.1, length 1, 16 x 13 rings, capped) along the armature's two bones."""
    rings, seg = 13, 16
    verts, faces = [], []
    for r in range(rings):
        z = r / (rings - 1)
        for s in range(seg):
            a = 2 * math.pi * s / seg
            verts.append((0.1 * math.cos(a), 0.1 * math.sin(a), z))
    for r in range(rings - 1):
        for s in range(seg):
            a, b = r * seg + s, r * seg + (s + 1) % seg
            faces.append((a, b, b + seg, a + seg))
    bottom, top = len(verts), len(verts) + 1
    verts += [(0, 0, 0), (0, 0, 1)]
    for s in range(seg):
        faces.append((bottom, (s + 1) % seg, s))
        t = (rings - 1) * seg
        faces.append((top, t + s, t + (s + 1) % seg))
    if hole:
        faces.pop(5)
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(obj)
    arm_data = bpy.data.armatures.new(name + "Rig")
    arm = bpy.data.objects.new(name + "Rig", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    b0 = arm_data.edit_bones.new("root")
    b0.head, b0.tail = (0, 0, 0), (0, 0, 0.5)
    b1 = arm_data.edit_bones.new("tip")
    b1.head, b1.tail, b1.parent = (0, 0, 0.5), (0, 0, 1), b0
    bpy.ops.object.mode_set(mode="OBJECT")
    # Both objects off the origin: the armature turned, the mesh turned, moved and scaled.
    arm.location, arm.rotation_euler = (0.3, -0.2, 0.1), (0.0, 0.0, 0.4)
    obj.parent = arm
    obj.location, obj.rotation_euler, obj.scale = (0.05, 0.02, 0.0), (0.1, 0.0, 0.2), (1.2, 1.2, 1.2)
    g0, g1 = obj.vertex_groups.new(name="root"), obj.vertex_groups.new(name="tip")
    for v in me.vertices:
        t = min(max((v.co.z - 0.35) / 0.3, 0.0), 1.0)
        w1 = t * t * (3 - 2 * t)
        if w1 < 1:
            g0.add([v.index], 1 - w1, "REPLACE")
        if w1 > 0:
            g1.add([v.index], w1, "REPLACE")
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    pb = arm.pose.bones["tip"]
    pb.rotation_mode = "XYZ"
    for f, angle in [(1, 0.0), (6, 1.0), (11, -0.6), (14, 0.0)]:
        pb.rotation_euler = (angle, 0.0, 0.0)
        pb.keyframe_insert("rotation_euler", frame=f)
    if shape_key:
        obj.shape_key_add(name="Basis")
        k = obj.shape_key_add(name="Bulge")
        for i, v in enumerate(k.data):
            if me.vertices[i].co.z > 0.6:
                v.co.x *= 1.3
        k.value = 0.0
        k.keyframe_insert("value", frame=1)
        k.value = 1.0
        k.keyframe_insert("value", frame=20)
    return obj, arm


def evaluated_world(obj):
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = ev.to_mesh()
    co = np.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    M = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]


def settings(obj, **kw):
    s = obj.fastcd
    s.use_scene_range = True
    s.modes, s.clusters, s.ym = 6, 12, 3e4
    for k, v in kw.items():
        setattr(s, k, v)


def bake(obj, **kw):
    bpy.context.view_layer.objects.active = obj
    return bpy.ops.fastcd.bake(write_positions=True, **kw)


def check_against_fastcd(obj, label, frames=(1, 4, 7, 12, 20), displacement_only=False, cache_modifier=True):
    """Blender's evaluated mesh against fastcd's positions (or, with displacement_only, what the
    cache adds to Blender's own rig against what fastcd's simulation adds to its rig: for an
    animated shape key, which changes the mesh under the rig but does not drive the dynamics)."""
    s = obj.fastcd
    folder = bpy.path.abspath(s.directory)
    data = np.load(os.path.join(folder, bpy.path.clean_name(obj.name) + "_positions.npz"))
    sim, rig = data["simulated"].astype(float), data["rig"].astype(float)
    size = np.ptp(rig[0], axis=0).max()
    scene = bpy.context.scene
    keys = [k for k in obj.data.shape_keys.key_blocks if k.name.startswith("fastcd ")] if not cache_modifier else []

    class Switch:  # turns the bake off and on: the modifier, or the shape keys (muted)
        @property
        def show_viewport(self):
            return True

        @show_viewport.setter
        def show_viewport(self, on):
            if cache_modifier:
                obj.modifiers["fastcd"].show_viewport = on
            for k in keys:
                k.mute = not on
    mod = Switch()
    worst_sim = worst_rig = 0.0
    for f in frames:
        k = f - scene.frame_start
        scene.frame_set(f)
        baked = evaluated_world(obj)
        mod.show_viewport = False
        scene.frame_set(f)
        own_rig = evaluated_world(obj)
        mod.show_viewport = True
        if displacement_only:
            worst_sim = max(worst_sim, np.abs((baked - own_rig) - (sim[k] - rig[k])).max() / size)
        else:
            worst_sim = max(worst_sim, np.abs(baked - sim[k]).max() / size)
            worst_rig = max(worst_rig, np.abs(own_rig - rig[k]).max() / size)
    motion = np.abs(sim - rig).max() / size
    print(f"{label}: Blender vs fastcd {worst_sim:.1e}, Blender's armature vs fastcd's rig {worst_rig:.1e}, "
          f"secondary motion up to {motion:.3f} of the size")
    assert worst_sim < TOL, f"{label}: the baked mesh differs from fastcd's positions by {worst_sim:.2e}"
    assert worst_rig < TOL, f"{label}: Blender's armature differs from fastcd's rig by {worst_rig:.2e}"
    return motion


def expect_refused(obj, needle, **kw):
    before = [(m.name, m.type) for m in obj.modifiers]
    folder = bpy.path.abspath(obj.fastcd.directory)
    files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    try:
        bake(obj, **kw)
    except RuntimeError as e:
        msg = str(e)
        assert needle in msg, f"expected {needle!r} in the error, got: {msg}"
        assert " --" not in msg, f"a message in Blender names a command-line option: {msg}"
        assert len(msg.strip().splitlines()) == 1, msg
        print("refused:", msg.strip())
    else:
        raise AssertionError(f"a bad input baked: expected an error about {needle!r}")
    assert [(m.name, m.type) for m in obj.modifiers] == before, "a refused bake changed the modifiers"
    assert (sorted(os.listdir(folder)) if os.path.isdir(folder) else []) == files, "a refused bake wrote files"


def listing(folder):
    return sorted(os.listdir(folder))


def recorded_names(obj):
    text = getattr(obj.fastcd, "bake_record", "")
    return sorted(os.path.basename(e["path"]) for e in json.loads(text)["files"]) if text else []


def digests(folder, names):
    return {n: hashlib.sha256(open(os.path.join(folder, n), "rb").read()).hexdigest() for n in names}


def check_free_bake_deletes_only_what_the_bake_wrote(obj):
    """(b) for each output kind: the bake records exactly the files it added to the folder, and
    Free Bake deletes exactly those (a file of the user's beside them stays)."""
    folder = bpy.path.abspath(obj.fastcd.directory)
    with open(os.path.join(folder, "notes.txt"), "w") as fh:
        fh.write("the user's own file in the bake folder\n")
    for output in ("MESH_CACHE", "SHAPE_KEYS"):
        settings(obj, output=output)
        before = listing(folder)
        bake(obj)
        written = sorted(set(listing(folder)) - set(before))
        assert written == [f"{obj.name}.json", f"{obj.name}.pc2", f"{obj.name}_positions.npz"], written
        recorded = recorded_names(obj)
        bpy.context.view_layer.objects.active = obj
        bpy.ops.fastcd.free_bake()
        assert listing(folder) == before, f"{output}: Free Bake left {sorted(set(listing(folder)) - set(before))}, " \
                                          f"deleted {sorted(set(before) - set(listing(folder)))}"
        assert recorded == written, (recorded, written)
        # The record on the object lost (a .blend file not saved after the bake, opened again):
        # the bake's own .json still vouches for its files, so a re-bake replaces them and Free
        # Bake deletes them.
        bake(obj)
        obj.fastcd.bake_record = ""
        bake(obj)
        obj.fastcd.bake_record = ""
        bpy.ops.fastcd.free_bake()
        assert listing(folder) == before, f"{output}, record lost: Free Bake left " \
                                          f"{sorted(set(listing(folder)) - set(before))}"
    settings(obj, output="MESH_CACHE")


def check_changed_file_stays(obj):
    """(c) a recorded file changed after the bake stays; the unchanged ones go."""
    from fastcd_blender import bake as B
    folder = bpy.path.abspath(obj.fastcd.directory)
    bake(obj)
    edited = os.path.join(folder, obj.name + ".json")
    with open(edited, "a") as fh:
        fh.write(" ")
    result = B.free_bake(obj, obj.fastcd)
    assert os.path.isfile(edited), "Free Bake deleted a file changed since the bake"
    deleted, kept = result
    assert sorted(os.path.basename(p) for p in deleted) == [obj.name + ".pc2", obj.name + "_positions.npz"], deleted
    level, text = B.free_report(obj.name, deleted, kept)
    assert level == "WARNING" and "changed since the bake" in text and edited in text, text
    expect_refused(obj, f"already holds {obj.name}.json")  # nor does a re-bake replace it
    os.remove(edited)


def check_shared_bake_stays(obj):
    """A duplicate of a baked object plays the same cache: freeing the duplicate keeps the files."""
    from fastcd_blender import bake as B
    bake(obj)
    pc2 = bpy.path.abspath(obj.modifiers["fastcd"].filepath)
    twin = obj.copy()
    bpy.context.scene.collection.objects.link(twin)
    deleted, kept = B.free_bake(twin, twin.fastcd)
    assert deleted == [] and os.path.isfile(pc2), deleted
    assert "fastcd" not in twin.modifiers and "fastcd" in obj.modifiers
    assert f"object '{obj.name}' still plays this bake" in B.free_report(twin.name, deleted, kept)[1]
    bpy.data.objects.remove(twin)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.fastcd.free_bake()
    assert not os.path.exists(pc2)


def check_foreign_files_are_never_deleted():
    """(a) A Mesh Cache modifier named 'fastcd', as a .blend file from someone else may hold, points
    at the user's thesis.pc2 with thesis.json and thesis_positions.npz beside it: Free Bake removes
    the modifier and deletes none of them -- with no record, and with a record of their true sizes
    and checksums made by another Blender (another key)."""
    from fastcd_blender import bake as B
    folder = os.path.join(WORK, "thesis")
    os.makedirs(folder)
    names = ["thesis.pc2", "thesis.json", "thesis_positions.npz", "thesis.tex"]
    for n in names:
        with open(os.path.join(folder, n), "wb") as fh:
            fh.write(f"the user's {n}\n".encode())
    sums = digests(folder, names)
    obj, _ = build_rig("Received")
    bpy.context.view_layer.objects.active = obj
    for forged in (False, True):
        mod = obj.modifiers.new("fastcd", "MESH_CACHE")
        mod.filepath = bpy.path.relpath(os.path.join(folder, "thesis.pc2"))
        if forged:  # the record, and a thesis.json signed as a bake's own, by another Blender
            from fastcd_blender import record as R
            own, R._key_cache = R._key(), b"another Blender's key, 32 bytes."
            try:
                with open(os.path.join(folder, "thesis.json"), "w") as fh:
                    fh.write(R.signed_json(dict(object="Received"), [R.entry(os.path.join(folder, "thesis.pc2"))]))
                obj.fastcd.bake_record = R.dumps([R.entry(os.path.join(folder, n)) for n in names])
            finally:
                R._key_cache = own
            sums = digests(folder, names)
            deleted, kept = B.free_bake(obj, obj.fastcd)
            level, text = B.free_report(obj.name, deleted, kept)
            assert level == "WARNING" and "another Blender" in text and "thesis.pc2" in text and "--" not in text, text
            print("Free Bake with a forged record:", text)
        else:
            bpy.ops.fastcd.free_bake()
        assert listing(folder) == sorted(names), f"Free Bake deleted {sorted(set(names) - set(listing(folder)))}"
        assert digests(folder, names) == sums
        assert "fastcd" not in obj.modifiers
    # Without a record the report names the file and says why it stays.
    mod = obj.modifiers.new("fastcd", "MESH_CACHE")
    mod.filepath = os.path.join(folder, "thesis.pc2")
    level, text = B.free_report(obj.name, *B.free_bake(obj, obj.fastcd))
    assert level == "WARNING" and "has no record of writing it" in text and "thesis.pc2" in text, text
    assert listing(folder) == sorted(names)


def check_bake_never_replaces_a_foreign_file():
    """A file at a bake's output name that no fastcd bake wrote stays, and so does what a link
    there points at, and a named pipe there blocks nothing: the bake is refused."""
    obj, _ = build_rig("Occupied")
    settings(obj)
    folder = bpy.path.abspath(obj.fastcd.directory)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(WORK, "thesis.tex")
    with open(target, "w") as fh:
        fh.write("the user's thesis\n")
    for name, make in (("Occupied.json", lambda p: open(p, "w").write("the user's Occupied.json\n")),
                       ("Occupied.pc2", lambda p: os.symlink(target, p)),
                       ("Occupied.json", os.mkfifo)):
        path = os.path.join(folder, name)
        make(path)
        before = os.lstat(path)
        expect_refused(obj, f"already holds {name}")
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino, after.st_size) == (before.st_mode, before.st_ino, before.st_size), name
        os.remove(path)
    assert open(target).read() == "the user's thesis\n"


def check_cache_is_the_librarys_rest_space(obj):
    """(e) The rest-space cache is fastcd's: the add-on's cache minus the mesh entering the Armature
    modifier is, bit for bit, fastcd.rest_space_displacements (the function fastcd's glTF bakes use)
    of the simulated displacement in the object's axes; it agrees with the rest-space formula
    d = (sum_b w_b L_b)^-1 u solved here with numpy to 1e-12 of the size; and the PC2 written holds
    it to float32 rounding."""
    import fastcd
    from fastcd_blender import bake as B
    job = B.Bake(bpy.context, obj, obj.fastcd, write_positions=True)
    for _ in job.steps():
        pass
    size = np.ptp(job.world_rig[0], axis=0).max()
    pc2 = fastcd.read_pc2(job.outputs[0])[0]
    worst_numpy = worst_pc2 = 0.0
    for f, cached in enumerate(job.cache_frames):
        M = job.M_obj_frames[f]
        u_local = (np.array(job.world_sim[f]) - np.array(job.world_rig[f])) @ np.linalg.inv(M[:3, :3]).T
        d = fastcd.rest_space_displacements(job.W, [job.L_frames[f]], [u_local])[0]
        assert np.array_equal(job.rest[f] + d, cached), f"frame {f}: the cache is not fastcd's rest-space displacement"
        L = job.L_frames[f].reshape(-1, 4, 3).transpose(0, 2, 1)[:, :, :3]  # each bone's L_b (column-major 3x4)
        A = np.einsum("vb,bij->vij", job.W, L)
        d_numpy = np.linalg.solve(A, u_local[..., None])[..., 0]
        worst_numpy = max(worst_numpy, np.abs(d - d_numpy).max() / size)
        worst_pc2 = max(worst_pc2, np.abs(pc2[f] - cached).max() / size)
    print(f"rest-space cache: fastcd's, numpy's formula within {worst_numpy:.1e}, the PC2 within {worst_pc2:.1e}")
    assert worst_numpy < 1e-12, worst_numpy
    assert worst_pc2 < 1e-6, worst_pc2


def check_cancel_one_of_two_bakes():
    """(d) Two bakes on two objects at once; cancelling one leaves the other to finish. Both
    workers are held just before fastcd's meshing (fastcd.skinned_scene) until the cancel, so the
    cancel lands while both are running."""
    import fastcd
    from fastcd_blender import bake as B
    objs = {}
    for name in ("JobA", "JobB"):
        objs[name], _ = build_rig(name)
        settings(objs[name])
    arrived = {n: threading.Event() for n in objs}
    release = threading.Event()
    real = fastcd.skinned_scene

    def held(*args, **kw):
        arrived[kw["name"]].set()
        release.wait()
        return real(*args, **kw)
    fastcd.skinned_scene = held
    try:
        jobs = {n: B.Bake(bpy.context, o, o.fastcd) for n, o in objs.items()}
        steps = {n: j.steps() for n, j in jobs.items()}
        for n in objs:  # each reads Blender's data on this thread, then starts its worker
            while not arrived[n].is_set():
                next(steps[n])
        jobs["JobA"].cancel()
        release.set()
        for _ in steps["JobB"]:
            pass
        try:
            for _ in steps["JobA"]:
                pass
            raise AssertionError("the cancelled bake finished")
        except B.BakeError as e:
            assert "cancelled" in str(e), e
    finally:
        release.set()
        fastcd.skinned_scene = real
    b, a = objs["JobB"], objs["JobA"]
    assert b.fastcd.bake_record and "fastcd" in b.modifiers, "the bake that was not cancelled did not finish"
    assert recorded_names(b) == ["JobB.json", "JobB.pc2"], recorded_names(b)
    assert "fastcd" not in a.modifiers and a.fastcd.bake_record == ""
    assert not os.path.exists(os.path.join(bpy.path.abspath(a.fastcd.directory), "JobA.pc2"))


def check_defaults_are_fastcds():
    """The add-on's settings start from fastcd.defaults (fastcd/common/defaults.hpp), the values
    fastcd run and fastcd.bake use: a default changed in one place only fails here."""
    import fastcd
    from fastcd_blender import FastcdSettings
    d = fastcd.defaults
    props = FastcdSettings.bl_rna.properties
    # property: (fastcd.defaults' name, the property's value for it)
    expected = {"solver": ("interactive_solver", d.interactive_solver.upper()), "ym": ("ym", d.ym),
                "pr": ("pr", d.pr), "rho": ("rho", d.rho), "modes": ("modes", d.modes),
                "clusters": ("clusters", d.clusters), "iterations": ("iterations", d.iterations),
                "gravity": ("gravity", d.gravity != 0), "leak": ("leak", d.leak.upper()),
                "mesher": ("mesher", d.mesher.upper())}
    for name, (source, value) in expected.items():
        got = props[name].default
        if isinstance(value, float):
            ok = abs(got - value) <= 1e-6 * abs(value)  # Blender keeps FloatProperty defaults in float32
        else:
            ok = got == value
        assert ok, f"the add-on's {props[name].name} defaults to {got!r}, fastcd.defaults.{source} is {value!r}"
    print(f"add-on defaults: {len(expected)} settings equal fastcd.defaults")


def main():
    assert "fastcd_blender" in bpy.context.preferences.addons, "the add-on is not enabled in this profile"
    check_defaults_are_fastcds()
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    scene.render.fps = 24
    shutil.rmtree(WORK, ignore_errors=True)  # the test's own folder: a fresh bake and precompute cache
    os.makedirs(WORK)
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(WORK, "rig.blend"))

    obj, arm = build_rig()
    settings(obj, substeps=2, gravity=True)
    bake(obj)
    names = [m.name for m in obj.modifiers]
    assert names.index("fastcd") < names.index("Armature"), names  # (a)
    assert obj.modifiers["fastcd"].filepath.startswith("//"), obj.modifiers["fastcd"].filepath
    motion = check_against_fastcd(obj, "tube")  # (b)
    assert motion > 1e-3, f"no secondary motion ({motion:.2e} of the size)"
    check_cache_is_the_librarys_rest_space(obj)  # (e)

    # Re-bake with another stiffness: the tets and the fast subspace come from the cache.
    cache = os.path.join(bpy.path.abspath(obj.fastcd.directory), ".fastcd-cache")
    entries = sorted(os.listdir(cache))
    assert [e[:5] for e in entries] == ["fast-", "tets-"], entries
    settings(obj, ym=6e4)
    bake(obj)
    assert sorted(os.listdir(cache)) == entries, "a material change did not reuse the precompute cache"
    check_against_fastcd(obj, "tube, stiffer")

    # (c) dynamics off: the rig alone.
    settings(obj, dynamics=False)
    bake(obj)
    assert check_against_fastcd(obj, "tube, dynamics off") < 1e-6
    settings(obj, dynamics=True)

    # Free bake: the modifier and the cache file go, the mesh plays the rig alone again.
    pc2 = bpy.path.abspath(obj.modifiers["fastcd"].filepath)
    bpy.ops.fastcd.free_bake()
    assert "fastcd" not in obj.modifiers and not os.path.exists(pc2)
    check_free_bake_deletes_only_what_the_bake_wrote(obj)
    check_changed_file_stays(obj)
    check_shared_bake_stays(obj)
    check_foreign_files_are_never_deleted()
    check_bake_never_replaces_a_foreign_file()
    check_cancel_one_of_two_bakes()

    # A painted leak field and the full solver.
    g = obj.vertex_groups.new(name="leak")
    for v in obj.data.vertices:
        g.add([v.index], min(1.0, max(0.0, v.co.z)), "REPLACE")
    settings(obj, leak="GROUP", leak_group="leak", solver="FULL", substeps=1)
    bake(obj)
    check_against_fastcd(obj, "tube, painted leak field, full solver")

    # A shape-keyed mesh (the shape key animates under the rig and the cache).
    sk, _ = build_rig("Keyed", shape_key=True)
    settings(sk)
    bake(sk)
    check_against_fastcd(sk, "shape-keyed tube", displacement_only=True)

    # The shape-key output: the same motion without a modifier; free_bake takes the keys away.
    bpy.ops.fastcd.free_bake()
    settings(obj, output="SHAPE_KEYS")
    bake(obj)
    assert "fastcd" not in obj.modifiers
    assert sum(k.name.startswith("fastcd ") for k in obj.data.shape_keys.key_blocks) == 24
    check_against_fastcd(obj, "tube, shape keys", displacement_only=False, cache_modifier=False)
    bpy.ops.fastcd.free_bake()
    assert not any(k.name.startswith("fastcd ") for k in obj.data.shape_keys.key_blocks)
    settings(obj, output="MESH_CACHE")

    # (d) bad input: nothing changes.
    loose = bpy.data.objects.new("Loose", bpy.data.meshes.new("Loose"))
    loose.data.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], [], [(0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)])
    scene.collection.objects.link(loose)
    expect_refused(loose, "has no Armature modifier")
    holed, _ = build_rig("Holed", hole=True)
    settings(holed)
    expect_refused(holed, "does not bound a solid")
    settings(obj, leak="GROUP", leak_group="missing")
    expect_refused(obj, "'missing' does not exist")
    print("add-on OK")


main()
