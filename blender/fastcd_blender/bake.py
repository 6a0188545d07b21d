"""The bake, apart from Blender's UI: read a rigged mesh straight from Blender's data, run fastcd
on it, and wire the result back as a rest-space point cache in a Mesh Cache modifier placed before
the Armature modifier (so the viewport plays the live rig plus the secondary motion).

The bake is a generator of progress reports, so the operator can run it a slice at a time from a
modal timer (the UI keeps drawing, Esc cancels) or all at once in the background. Blender's data
is read and written only on the main thread; meshing, the precompute and the simulation run in a
worker thread (fastcd releases the GIL) while the generator keeps reporting. Each bake has its own
fastcd.CancelToken, so Esc on one bake stops that bake alone while others run on.

What a bake writes is recorded on its object and in its .json (record.py): Free Bake and a
re-bake delete or replace only files that record proves this add-on wrote and that are unchanged
since.

Frames: Blender is Z-up; fastcd simulates with gravity along -Y, so the world is turned to Y-up
((x, y, z) -> (x, z, -y), as the glTF exporter does) and back. Each bone's deformation is read as
Blender's Armature modifier applies it in the mesh object's local space,
    M_b = P^-1 (pose_bone.matrix bone.matrix_local^-1) P,   P = armature.matrix_world^-1 obj.matrix_world,
and its world form G_b(f) = obj.matrix_world(f) M_b(f) obj.matrix_world(f0)^-1 is the pose fastcd
gets (bind space = the world at the first frame). The cache holds, per frame, the mesh as it enters
the Armature modifier plus d = (sum_b w_b L_b)^-1 u, u the simulated displacement in local axes and
L_b the linear part of M_b (fastcd.rest_space_displacements, the function fastcd's glTF bakes use):
the Armature modifier then lands exactly on fastcd's positions.
"""
import os
import re
import threading
import time
from types import SimpleNamespace

import numpy as np

import bpy

from . import record as _record

MODIFIER = "fastcd"
# Blender's Z-up world -> fastcd's Y-up frame.
Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


class BakeError(Exception):
    """A problem with the user's input or settings, said in one line."""


def _fastcd():
    import fastcd  # found through the path the installer recorded (see __init__.py)
    return fastcd


def armature_modifier(obj):
    """The one Armature modifier that deforms obj, checked for what fastcd's rig reproduces."""
    if obj is None or obj.type != "MESH":
        raise BakeError(f"'{obj.name if obj else 'nothing'}' is not a mesh object: select the rigged mesh")
    mods = [m for m in obj.modifiers if m.type == "ARMATURE" and m.show_viewport]
    if not mods or mods[0].object is None:
        raise BakeError(f"object '{obj.name}' has no Armature modifier with an armature: fastcd needs the rig "
                        "that deforms it (Object > Parent > With Automatic Weights, or add an Armature modifier)")
    if len(mods) > 1:
        raise BakeError(f"object '{obj.name}' has {len(mods)} Armature modifiers: fastcd reads one rig")
    m = mods[0]
    if m.use_deform_preserve_volume:
        raise BakeError(f"the Armature modifier of '{obj.name}' has Preserve Volume on (dual quaternions): fastcd's "
                        "rig is linear blend skinning; switch Preserve Volume off")
    if m.use_bone_envelopes or not m.use_vertex_groups:
        raise BakeError(f"the Armature modifier of '{obj.name}' binds by bone envelopes: fastcd reads vertex "
                        "groups; use Vertex Groups only")
    if m.use_multi_modifier:
        raise BakeError(f"the Armature modifier of '{obj.name}' has Multi Modifier on: switch it off")
    if m.vertex_group:
        raise BakeError(f"the Armature modifier of '{obj.name}' is masked by vertex group '{m.vertex_group}': "
                        "clear the mask")
    return m


def bake_folder(settings):
    """The absolute bake folder; a relative one ('//...') needs a saved .blend."""
    d = settings.directory or "//fastcd_bake"
    if d.startswith("//") and not bpy.data.filepath:
        raise BakeError("save the .blend file first: the bake is stored next to it (" + d + ")")
    return os.path.normpath(bpy.path.abspath(d))


def cache_path(obj, settings):
    return os.path.join(bake_folder(settings), bpy.path.clean_name(obj.name) + ".pc2")


def cache_modifier(obj):
    """fastcd's Mesh Cache modifier on obj, or None."""
    mod = obj.modifiers.get(MODIFIER)
    if mod is not None and mod.type != "MESH_CACHE":
        raise BakeError(f"'{obj.name}' has a modifier named '{MODIFIER}' that is not a Mesh Cache modifier: rename it")
    return mod


def output_paths(obj, settings, write_positions):
    """The files a bake of obj writes: the cache, the bake's numbers (.json) and, when asked for,
    the world positions (.npz)."""
    pc2 = cache_path(obj, settings)
    stem = os.path.splitext(pc2)[0]
    return [pc2, stem + ".json"] + ([stem + "_positions.npz"] if write_positions else [])


def check_outputs(obj, settings, paths):
    """Refuses to replace a file at an output name (paths: the cache, the .json, ...) that is not an
    earlier fastcd bake, unchanged."""
    ours = _record.verdicts(_record.entries(settings.bake_record) + _record.vouched(paths[1]), obj.library)
    for p in paths:
        if os.path.lexists(p) and ours.get(p, _record.FOREIGN) is not None:
            raise BakeError(f"the bake folder {os.path.dirname(p)} already holds {os.path.basename(p)}, which is not "
                            f"a fastcd bake or has changed since: move it away, or choose another Folder")


def frame_range(scene, settings):
    if settings.use_scene_range:
        f0, f1 = scene.frame_start, scene.frame_end
    else:
        f0, f1 = settings.frame_start, settings.frame_end
    if f1 <= f0:
        raise BakeError(f"the frame range {f0}..{f1} is empty: the end must come after the start")
    return f0, f1


class _Hidden:
    """Switches off, for its scope, the Armature modifier, every modifier after it and fastcd's
    own cache, so the evaluated mesh is the mesh as it enters the Armature modifier."""

    def __init__(self, obj, arm_mod):
        mods = list(obj.modifiers)
        i = mods.index(arm_mod)
        self.saved = [(m, m.show_viewport) for m in mods if mods.index(m) >= i or m.name == MODIFIER]

    def __enter__(self):
        for m, _ in self.saved:
            m.show_viewport = False
        return self

    def __exit__(self, *exc):
        for m, v in self.saved:
            m.show_viewport = v
        return False


def _pre_armature_mesh(obj, context, with_triangles=False):
    depsgraph = context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(depsgraph)
    me = ev.to_mesh()
    try:
        co = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", co)
        tris = None
        if with_triangles:
            me.calc_loop_triangles()
            tris = np.empty(len(me.loop_triangles) * 3, dtype=np.int32)
            me.loop_triangles.foreach_get("vertices", tris)
            tris = tris.reshape(-1, 3)
    finally:
        ev.to_mesh_clear()
    return co.reshape(-1, 3), tris


def _weights(obj, bones, leak_group):
    """Normalised skin weights (#V x bones) from the vertex groups named after deforming bones,
    as the Armature modifier uses them, and the painted leak field (or None)."""
    col = {}
    for j, b in enumerate(bones):
        g = obj.vertex_groups.get(b.name)
        if g is not None:
            col[g.index] = j
    if not col:
        raise BakeError(f"none of the armature's deforming bones has a vertex group on '{obj.name}': weight the "
                        "mesh to the bones (Object > Parent > With Automatic Weights)")
    leak_index = None
    if leak_group:
        g = obj.vertex_groups.get(leak_group)
        if g is None:
            raise BakeError(f"the leak field's vertex group '{leak_group}' does not exist on '{obj.name}'")
        leak_index = g.index
    n = len(obj.data.vertices)
    W = np.zeros((n, len(bones)))
    leak = np.zeros(n) if leak_index is not None else None
    for v in obj.data.vertices:
        for g in v.groups:
            j = col.get(g.group)
            if j is not None:
                W[v.index, j] += g.weight
            if g.group == leak_index:
                leak[v.index] = g.weight
    total = W.sum(axis=1)
    bad = np.flatnonzero(~(total > 1e-4))  # the Armature modifier leaves these at rest
    if bad.size:
        raise BakeError(f"{bad.size} vertices of '{obj.name}' have no weight on a deforming bone (first: vertex "
                        f"{bad[0]}): they would not follow the rig; weight them to the bones")
    return W / total[:, None], (np.clip(leak, 0.0, 1.0) if leak is not None else None)


def _to_y_up(M):
    """A 4x4 world transform in Blender's Z-up frame, as the same map in fastcd's Y-up frame."""
    R = np.eye(4)
    R[:3, :3] = Y_UP
    return R @ M @ R.T


class Bake:
    """One bake of one object; `steps()` yields (fraction, text) until it is done."""

    def __init__(self, context, obj, settings, write_positions=False):
        self.context, self.obj, self.s = context, obj, settings
        self.write_positions = write_positions
        self.cancelled = False
        self.token = _fastcd().CancelToken()  # this bake's own: cancelling it leaves other bakes running
        self.result = None  # what the bake measured (also written as <object>.json)
        self.worker_error = None
        self._progress = (0.0, "")

    # -- the parts run on the main thread -------------------------------------------------
    def read(self):
        obj, s, scene = self.obj, self.s, self.context.scene
        arm_mod = armature_modifier(obj)
        arm = arm_mod.object
        self.folder = bake_folder(s)
        self.outputs = output_paths(obj, s, self.write_positions)
        check_outputs(obj, s, self.outputs)
        if s.output == "MESH_CACHE":
            cache_modifier(obj)
        # What the worker thread needs, read here: it never touches Blender's data.
        self.name = obj.name
        self.opts = SimpleNamespace(**{k: getattr(s, k) for k in (
            "solver", "ym", "pr", "rho", "modes", "clusters", "iterations", "gravity", "dynamics", "leak", "mesher")})
        self.f0, self.f1 = frame_range(scene, s)
        self.substeps = max(1, int(s.substeps))
        fps = scene.render.fps / scene.render.fps_base
        self.dt = 1.0 / (fps * self.substeps)
        bones = [b for b in arm.data.bones if b.use_deform]
        for b in bones:
            if b.bbone_segments > 1:
                raise BakeError(f"bone '{b.name}' is a B-Bone ({b.bbone_segments} segments): its curved deformation "
                                "is not linear blend skinning; set its segments to 1")
        W, leak = _weights(obj, bones, s.leak_group if s.leak == "GROUP" else "")
        if s.leak == "GROUP" and not (leak > 0).any():
            raise BakeError(f"the leak field's vertex group '{s.leak_group}' is zero everywhere: paint where "
                            "momentum is conserved (1) and where the tissue follows the rig (0)")
        frame0 = scene.frame_current
        n_frames = self.f1 - self.f0 + 1
        steps = (n_frames - 1) * self.substeps + 1
        poses, rest, L_frames, M_obj_frames = [], [], [], []
        with _Hidden(obj, arm_mod):
            try:
                for k in range(steps):
                    f, sub = divmod(k, self.substeps)
                    scene.frame_set(self.f0 + f, subframe=sub / self.substeps)
                    M_obj = np.array(obj.matrix_world)
                    P = np.linalg.inv(np.array(arm.matrix_world)) @ M_obj
                    P_inv = np.linalg.inv(P)
                    if k == 0:
                        V_local, F = _pre_armature_mesh(obj, self.context, with_triangles=True)
                        if V_local.shape[0] != len(obj.data.vertices):
                            raise BakeError(f"the modifiers above the Armature modifier of '{obj.name}' change its "
                                            f"vertex count ({len(obj.data.vertices)} -> {V_local.shape[0]}): only "
                                            "deforming modifiers may come before the rig")
                        M0_inv = np.linalg.inv(M_obj)
                        X0 = V_local @ M_obj[:3, :3].T + M_obj[:3, 3]
                        joints = np.array([np.array(arm.matrix_world) @ np.append(np.array(b.head_local), 1.0)
                                           for b in bones])[:, :3]
                    pose = np.empty(12 * len(bones))
                    local = np.zeros(12 * len(bones))  # each bone's [L_b | 0]: the rest-space displacement's blend
                    for j, b in enumerate(bones):
                        D = np.array(arm.pose.bones[b.name].matrix) @ np.linalg.inv(np.array(b.matrix_local))
                        M_b = P_inv @ D @ P
                        local[12 * j:12 * j + 9] = M_b[:3, :3].flatten(order="F")
                        G = _to_y_up(M_obj @ M_b @ M0_inv)
                        pose[12 * j:12 * j + 12] = G[:3, :4].flatten(order="F")
                    poses.append(pose)
                    if sub == 0:
                        L_frames.append(local)
                        M_obj_frames.append(M_obj)
                        rest.append(_pre_armature_mesh(obj, self.context)[0] if k > 0 else V_local)
                    yield 0.3 * (k + 1) / steps, f"reading frame {self.f0 + f}"
            finally:
                scene.frame_set(frame0)
        self.inputs = dict(V=X0 @ Y_UP.T, F=F, W=W, leak=leak, poses=poses, joints=joints @ Y_UP.T)
        self.W, self.rest, self.L_frames, self.M_obj_frames = W, rest, L_frames, M_obj_frames
        self.arm_mod_name = arm_mod.name

    def wire(self):
        """Writes the rest-space PC2 and puts fastcd's Mesh Cache modifier before the Armature modifier."""
        fc = _fastcd()
        obj = self.obj
        os.makedirs(self.folder, exist_ok=True)
        check_outputs(obj, self.s, self.outputs)  # again: the folder may have changed during the bake
        path, json_path = self.outputs[:2]
        fc.write_pc2(path, self.cache_frames, start_frame=float(self.f0), sample_rate=1.0)
        if self.write_positions:
            _replace(self.outputs[2], lambda fh: np.savez(fh, simulated=np.array(self.world_sim, dtype=np.float32),
                                                          rig=np.array(self.world_rig, dtype=np.float32)))
        # The record: the .json vouches for the files beside it, the object for all of them and
        # for whatever of an earlier bake this one did not replace.
        written = [_record.entry(p) for p in self.outputs if p != json_path]
        info = dict(self.result, object=obj.name, frames=[self.f0, self.f1], cache=os.path.basename(path))
        _replace(json_path, lambda fh: fh.write(_record.signed_json(info, written).encode()))
        written.append(_record.entry(json_path))
        earlier = [e for e in _record.entries(self.s.bake_record)
                   if _record.resolve(e["path"], obj.library) not in self.outputs]
        self.s.bake_record = _record.dumps(written + earlier)
        _remove_shape_keys(obj)
        if self.s.output == "SHAPE_KEYS":
            self._write_shape_keys()
            self.obj.fastcd.cache_file = ""
            return
        mod = cache_modifier(obj) or obj.modifiers.new(MODIFIER, "MESH_CACHE")
        mod.cache_format = "PC2"
        mod.filepath = _record.blender_path(path)
        mod.time_mode = "FRAME"
        mod.play_mode = "SCENE"
        mod.deform_mode = "OVERWRITE"
        mod.interpolation = "LINEAR"
        mod.forward_axis = "POS_Y"
        mod.up_axis = "POS_Z"
        mod.flip_axis = set()
        mod.frame_start = float(self.f0)
        mod.frame_scale = 1.0
        mod.factor = 1.0
        mod.show_viewport = mod.show_render = True
        names = [m.name for m in obj.modifiers]
        target = names.index(self.arm_mod_name)
        if names.index(MODIFIER) > target:
            with self.context.temp_override(object=obj, active_object=obj):
                bpy.ops.object.modifier_move_to_index(modifier=MODIFIER, index=target)
        self.obj.fastcd.cache_file = mod.filepath

    def _write_shape_keys(self):
        """The secondary motion as one shape key per frame ('fastcd <frame>', relative to the Basis,
        whose value is keyed 1 at its frame and 0 at its neighbours: linear in between, as the Mesh
        Cache modifier interpolates). The keys add d_f to whatever the mesh has at that frame, so
        existing shape keys keep working under them."""
        obj = self.obj
        mod = obj.modifiers.get(MODIFIER)
        if mod is not None and mod.type == "MESH_CACHE":
            obj.modifiers.remove(mod)
        if obj.data.shape_keys is None:
            obj.shape_key_add(name="Basis", from_mix=False)
        basis = obj.data.shape_keys.reference_key
        n = len(obj.data.vertices)
        base = np.empty(3 * n)
        basis.data.foreach_get("co", base)
        base = base.reshape(-1, 3)
        for i, frame in enumerate(range(self.f0, self.f1 + 1)):
            k = obj.shape_key_add(name=f"{MODIFIER} {frame}", from_mix=False)
            k.relative_key = basis
            d = self.cache_frames[i] - self.rest[i]
            k.data.foreach_set("co", (base + d).ravel())
            for f, v in ((frame - 1, 0.0), (frame, 1.0), (frame + 1, 0.0)):
                k.value = v
                k.keyframe_insert("value", frame=f)
        for fc in obj.data.shape_keys.animation_data.action.fcurves:
            if fc.data_path.startswith(f'key_blocks["{MODIFIER} '):
                for kp in fc.keyframe_points:
                    kp.interpolation = "LINEAR"

    # -- the worker --------------------------------------------------------------------------
    def _work(self):
        try:
            with _progress_routed(self), self.token:
                self._simulate()
        except Exception as e:  # reported on the main thread, as Blender reports
            self.worker_error = e

    def _simulate(self):
        fc = _fastcd()
        s, inp = self.opts, self.inputs
        t0 = time.perf_counter()
        if self.cancelled:
            return
        cache_dir = os.path.join(self.folder, ".fastcd-cache")
        scene = fc.skinned_scene(
            [dict(label=f"object '{self.name}'", V=inp["V"], F=inp["F"], W=inp["W"], leak=inp["leak"])],
            inp["poses"], joint_points=inp["joints"], name=self.name,
            source=f"Blender object '{self.name}'", metres_per_unit=self.unit_scale, ym=s.ym, pr=s.pr, rho=s.rho,
            dt=self.dt, mesher=s.mesher.lower(), cache_dir=cache_dir)
        t_scene = time.perf_counter()
        if self.cancelled:
            return
        leak = {"AUTO": "auto", "DIFFUSION": "diffusion", "NONE": "none", "GROUP": "painted"}[s.leak]
        sim = fc._fastcd.simulation_from_scene(
            scene, solver=s.solver.lower(), iterations=int(s.iterations), modes=int(s.modes),
            clusters=min(int(s.clusters), len(scene.T)), leak=leak, gravity=9.81 if s.gravity else 0.0,
            dynamics=bool(s.dynamics), cache_dir=cache_dir)
        t_pre = time.perf_counter()
        R = Y_UP  # rows: Y-up vectors -> Blender world is v @ R
        poses = scene.poses  # in the scene's normalised frame, as the simulation takes them
        steps = len(poses)
        self.cache_frames, self.world_sim, self.world_rig = [], [], []
        for k in range(steps):
            if self.cancelled:
                return
            if k > 0:
                sim.advance(poses[k])
            if k % self.substeps:
                continue
            f = k // self.substeps
            x = scene.to_file_units(sim.positions()) @ R
            xr = scene.to_file_units(sim.rig_positions()) @ R
            u_world = x - xr
            M = self.M_obj_frames[f]
            u_local = u_world @ np.linalg.inv(M[:3, :3]).T
            # The rest-space displacement d = (sum_b w_b L_b)^-1 u, by fastcd (as its glTF bakes).
            d = fc.rest_space_displacements(self.W, [self.L_frames[f]], [u_local])[0]
            self.cache_frames.append(self.rest[f] + d)
            if self.write_positions:
                self.world_sim.append(x)
                self.world_rig.append(xr)
            self._progress = (0.35 + 0.6 * (k + 1) / steps, f"simulating frame {self.f0 + f}")
        stats = sim.stats
        self.result = dict(
            solver=s.solver.lower(), vertices=len(scene.X), tets=len(scene.T), steps=steps,
            substeps=self.substeps, dt=self.dt, notes=list(scene.notes), warnings=list(scene.warnings),
            seconds=dict(meshing_and_weights=t_scene - t0, precompute=t_pre - t_scene,
                         simulation=time.perf_counter() - t_pre),
            max_residual=stats["max_residual"])

    def steps(self):
        """The whole bake as progress reports (fraction in [0, 1], text)."""
        self.unit_scale = self.context.scene.unit_settings.scale_length or 1.0
        yield from self.read()
        worker = threading.Thread(target=self._work, daemon=True, name=f"fastcd bake of {self.name}")
        self._progress = (0.3, "starting fastcd")
        try:
            worker.start()
            while worker.is_alive():
                worker.join(0.02)
                yield self._progress
        finally:
            if worker.is_alive():  # closed early (Esc, an error on the main thread): stop this bake
                self.cancel()
                # It stops at fastcd's next check, normally at once. It touches no Blender data and
                # writes nothing but the optional precompute cache, so if it is still waiting (for
                # another bake's meshing, say), Blender does not wait for it.
                worker.join(2.0)
        if self.cancelled:
            raise BakeError("bake cancelled; nothing was changed")
        if self.worker_error is not None:
            raise BakeError(_in_blenders_words(str(self.worker_error))) from self.worker_error
        yield 0.97, "writing the cache"
        self.wire()
        yield 1.0, "done"

    def cancel(self):
        """Stops this bake (from any thread); other bakes run on."""
        self.cancelled = True
        self.token.request()


# fastcd's messages name the command line's options; in Blender, the settings that do the same.
_OPTIONS_IN_BLENDER = (
    (re.compile(r"(use )?--mesher voxel"), "set Mesher to Voxel in fastcd's panel"),
    (re.compile(r"--scale\b"), "Unit Scale in Scene Properties > Units"),
)


def _in_blenders_words(message):
    for option, words in _OPTIONS_IN_BLENDER:
        message = option.sub(words, message)
    return message


def _replace(path, write):
    """Writes a file whole or not at all: write(binary file) into a temporary file beside it, then
    renamed over path."""
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


# fastcd's progress callback is one per process: one callback serves every running bake, each
# report going to the bake whose worker thread made it (a report from a thread of fastcd's own,
# e.g. the meshing watcher, goes to the bake when only one runs).
_running = {}
_running_lock = threading.Lock()


def _route_progress(work, stage, done, total):
    with _running_lock:
        job = _running.get(threading.get_ident())
        if job is None and len(_running) == 1:
            job = next(iter(_running.values()))
    if job is not None:
        job._progress = (0.32, f"{work}: {stage}")


class _progress_routed:
    """For its scope, fastcd's progress reports made on this thread go to job."""

    def __init__(self, job):
        self.job = job

    def __enter__(self):
        with _running_lock:
            if not _running:
                _fastcd().set_progress_callback(_route_progress)
            _running[threading.get_ident()] = self.job

    def __exit__(self, *exc):
        with _running_lock:
            _running.pop(threading.get_ident(), None)
            if not _running:
                _fastcd().set_progress_callback(None)
        return False


def _remove_shape_keys(obj):
    """Removes the shape keys (and their keyframes) an earlier shape-key bake added."""
    keys = obj.data.shape_keys
    if keys is None:
        return
    ad = keys.animation_data
    if ad is not None and ad.action is not None:
        for fc in list(ad.action.fcurves):
            if fc.data_path.startswith(f'key_blocks["{MODIFIER} '):
                ad.action.fcurves.remove(fc)
    for k in list(keys.key_blocks):
        if k.name.startswith(MODIFIER + " "):
            obj.shape_key_remove(k)


def free_bake(obj, settings):
    """Removes the bake of obj: fastcd's Mesh Cache modifier or shape keys, and the files the bake's
    record (on the object, or the bake's own .json beside the cache) proves this add-on wrote and
    that are unchanged since (record.py). Every other file stays: the file a Mesh Cache modifier
    named 'fastcd' plays without such a record (a .blend file from elsewhere), a recorded file
    changed since the bake, and a bake another object still plays. The precompute cache stays
    too, so a re-bake of the same mesh and rig skips the meshing and most of the precompute.
    Returns (the deleted files, [(a file left in place, why)])."""
    mod = obj.modifiers.get(MODIFIER)
    mod = mod if mod is not None and mod.type == "MESH_CACHE" else None
    keyed = obj.data.shape_keys is not None and any(k.name.startswith(MODIFIER + " ")
                                                    for k in obj.data.shape_keys.key_blocks)
    files = _record.entries(settings.bake_record)
    if mod is None and not keyed and not files:
        raise BakeError(f"'{obj.name}' has no fastcd bake")
    _remove_shape_keys(obj)
    # The bake's own .json vouches too: beside the cache the modifier plays, or where a bake of obj
    # writes now (a shape-key bake whose .blend file was not saved afterwards).
    played = None
    if mod is not None:
        played = _record.resolve(mod.filepath, obj.library)
        files += _record.vouched(os.path.splitext(played)[0] + ".json")
        obj.modifiers.remove(mod)
    try:
        files += _record.vouched(output_paths(obj, settings, False)[1])
    except BakeError:  # a folder relative to a .blend file never saved: nothing was written there
        pass
    ours = _record.verdicts(files, obj.library)
    deleted, kept = [], []
    if played is not None and os.path.lexists(played) and played not in ours:
        kept.append((played, _record.NOT_RECORDED))
    players = _players(set(ours), exclude=obj)
    for p, why in ours.items():
        if players:
            why = f"object '{players[0]}' still plays this bake"
        if why is None:
            try:
                os.remove(p)
                deleted.append(p)
                continue
            except OSError as err:
                why = f"could not be deleted: {err.strerror}"
        kept.append((p, why))
    settings.bake_record = ""
    settings.cache_file = ""
    return deleted, kept


def _players(paths, exclude):
    """The objects (other than exclude) whose Mesh Cache modifier plays one of paths."""
    return [o.name for o in bpy.data.objects if o != exclude and any(
        m.type == "MESH_CACHE" and _record.resolve(m.filepath, o.library) in paths for m in o.modifiers)]


def free_report(obj_name, deleted, kept):
    """What Free Bake did, as Blender reports it: (report type, one line)."""
    text = f"fastcd: freed the bake of '{obj_name}'"
    if deleted:
        text += "; deleted " + ", ".join(os.path.basename(p) for p in deleted)
    if not kept:
        return "INFO", text
    by_reason = {}
    for p, why in kept:
        by_reason.setdefault(why, []).append(p)
    text += "".join(f"; left {', '.join(paths)} in place: {why}" for why, paths in by_reason.items())
    return "WARNING", text + ". Delete what you no longer need yourself"
