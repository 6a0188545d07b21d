"""fastcd for Blender: bake complementary dynamics (rig-orthogonal secondary motion: jiggle, sag,
follow-through) on a mesh deformed by an Armature modifier, from the Physics tab.

Install with scripts/install_blender_addon.sh (it records where the fastcd Python module is).
"""
import os
import sys

bl_info = {
    "name": "fastcd: complementary dynamics",
    "author": "fastcd",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > fastcd",
    "description": "Secondary motion on a rigged mesh that never fights the rig (complementary dynamics)",
    "category": "Physics",
}


def _add_module_path():
    """Puts the fastcd module's folder (recorded by the installer in fastcd_location.txt, or the
    FASTCD_PYTHON environment variable) on sys.path."""
    here = os.path.dirname(os.path.abspath(__file__))
    where = os.environ.get("FASTCD_PYTHON", "")
    record = os.path.join(here, "fastcd_location.txt")
    if not where and os.path.isfile(record):
        with open(record) as fh:
            where = fh.read().strip()
    if where and where not in sys.path:
        sys.path.insert(0, where)


_add_module_path()

import bpy  # noqa: E402
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty, StringProperty  # noqa: E402

from . import bake as _bake  # noqa: E402

try:
    # The defaults fastcd run and fastcd.bake use (fastcd/common/defaults.hpp): the properties below
    # start from them, so a bake with untouched settings is the command line's.
    from fastcd import defaults as _defaults  # noqa: E402
except ImportError as _e:
    raise ImportError("fastcd for Blender cannot find the fastcd Python module (" + str(_e) + "): install the "
                      "add-on with scripts/install_blender_addon.sh, which records where the module is, or set "
                      "FASTCD_PYTHON to the folder holding the fastcd package") from _e


class FastcdSettings(bpy.types.PropertyGroup):
    solver: EnumProperty(name="Solver", items=[
        ("FAST", "Fast", "Skinning-eigenmode subspace and clustered rotations: a step costs microseconds"),
        ("FULL", "Full", "Every element rotates and the constraint is solved exactly: slower, reference quality")],
        default=_defaults.interactive_solver.upper())
    ym: FloatProperty(name="Young's Modulus", description="Stiffness of the tissue (Pa)", default=_defaults.ym,
                      min=1.0, soft_max=1e7)
    pr: FloatProperty(name="Poisson's Ratio", description="With Young's Modulus, the tissue's shear stiffness "
                      "(ARAP's mu = E / (2 (1 + nu)))", default=_defaults.pr, min=-0.99, max=0.499)
    rho: FloatProperty(name="Density", description="kg/m^3", default=_defaults.rho, min=1e-3)
    modes: IntProperty(name="Modes", description="Fast solver: skinning eigenmodes", default=_defaults.modes, min=1,
                       max=256)
    clusters: IntProperty(name="Clusters", description="Fast solver: rotation clusters", default=_defaults.clusters,
                          min=1, max=10000)
    iterations: IntProperty(name="Iterations", description="Local/global iterations per step",
                            default=_defaults.iterations, min=1, max=100)
    gravity: BoolProperty(name="Gravity", description="9.81 m/s^2 along the world's -Z",
                          default=_defaults.gravity != 0)
    dynamics: BoolProperty(name="Dynamics", description="Off: bake the rig alone (a check of the set-up)",
                           default=True)
    leak: EnumProperty(name="Leak Field", items=[
        ("AUTO", "Automatic", "Momentum conserved deep inside, the surface follows the rig (Poisson field)"),
        ("DIFFUSION", "Diffusion", "simkit's diffusion field"),
        ("NONE", "None", "Momentum conserved everywhere"),
        ("GROUP", "Vertex Group", "A vertex group painted as the field: 1 keeps momentum, 0 follows the rig")],
        default=_defaults.leak.upper())
    leak_group: StringProperty(name="Leak Group", description="Vertex group painted as the leak field")
    use_scene_range: BoolProperty(name="Scene Frame Range", default=True)
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=250)
    substeps: IntProperty(name="Substeps", description="Simulation steps per frame", default=1, min=1, max=32)
    mesher: EnumProperty(name="Mesher", items=[
        ("NETGEN", "Netgen", "Fill the closed skin with tets, keeping its vertices"),
        ("TETGEN", "TetGen", "The TetGen program (when installed)"),
        ("VOXEL", "Voxel", "A grid embedding the skin: works for open or self-intersecting meshes")],
        default=_defaults.mesher.upper())
    output: EnumProperty(name="Output", items=[
        ("MESH_CACHE", "Mesh Cache", "A rest-space PC2 in a Mesh Cache modifier before the Armature modifier"),
        ("SHAPE_KEYS", "Shape Keys", "One shape key per frame, keyed on and off (kept in the .blend)")],
        default="MESH_CACHE")
    directory: StringProperty(name="Folder", description="Where the bake is written (relative to the .blend)",
                              default="//fastcd_bake", subtype="DIR_PATH")
    cache_file: StringProperty(name="Cache", description="The baked point cache", default="")
    bake_record: StringProperty(name="Bake Record", options={"HIDDEN"}, default="",
                                description="The files the last bake wrote, with their sizes and checksums: Free "
                                            "Bake deletes only these, and only while unchanged")


class FASTCD_OT_bake(bpy.types.Operator):
    """Simulate complementary dynamics on the active mesh and play it through a Mesh Cache modifier"""
    bl_idname = "fastcd.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER"}

    write_positions: BoolProperty(name="Write Positions", default=False, options={"HIDDEN"},
                                  description="Also write the simulated and rig-only world positions (.npz)")

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"

    def _start(self, context):
        obj = context.active_object
        self._job = _bake.Bake(context, obj, obj.fastcd, write_positions=self.write_positions)
        self._steps = self._job.steps()

    def execute(self, context):  # blocking: scripts and background mode
        self._start(context)
        try:
            for _ in self._steps:
                pass
        except _bake.BakeError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, self._summary())
        return {"FINISHED"}

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        self._start(context)
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.05, window=context.window)
        wm.progress_begin(0, 100)
        self._shown = 0.0
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _finish(self, context):
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)

    def modal(self, context, event):
        if event.type == "ESC":
            self._job.cancel()
            self._steps.close()  # the worker stops and is joined; nothing was written
            self._finish(context)
            self.report({"WARNING"}, "fastcd: bake cancelled; nothing was changed")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        t_end = _now() + 0.03  # at most a frame's worth of work per tick: the UI keeps drawing
        try:
            while _now() < t_end:
                fraction, text = next(self._steps)
                if fraction >= 0.3:  # the worker runs: poll, do not spin
                    break
            # The status bar at most 5 times a second: each change redraws the window.
            if _now() - self._shown > 0.2:
                self._shown = _now()
                context.window_manager.progress_update(int(100 * fraction))
                context.workspace.status_text_set(f"fastcd: {text} ({int(100 * fraction)}%)  Esc cancels")
        except StopIteration:
            self._finish(context)
            self.report({"INFO"}, self._summary())
            return {"FINISHED"}
        except _bake.BakeError as e:
            self._finish(context)
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"RUNNING_MODAL"}

    def _summary(self):
        r = self._job.result or {}
        sec = r.get("seconds", {})
        return (f"fastcd: {r.get('steps', 0)} steps on {r.get('tets', 0)} tets; meshing {sec.get('meshing_and_weights', 0):.2f} s, "
                f"precompute {sec.get('precompute', 0):.2f} s, simulation {sec.get('simulation', 0):.2f} s")


class FASTCD_OT_free_bake(bpy.types.Operator):
    """Remove fastcd's bake from the active mesh: its Mesh Cache modifier or shape keys, and the files the bake wrote (files it did not write, or that changed since, stay)"""
    bl_idname = "fastcd.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"

    def execute(self, context):
        obj = context.active_object
        try:
            deleted, kept = _bake.free_bake(obj, obj.fastcd)
        except _bake.BakeError as e:
            self.report({"ERROR"}, f"fastcd: {e}")
            return {"CANCELLED"}
        level, text = _bake.free_report(obj.name, deleted, kept)
        self.report({level}, text)
        return {"FINISHED"}


class FASTCD_PT_panel(bpy.types.Panel):
    bl_label = "fastcd: Complementary Dynamics"
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "MESH"

    def draw(self, context):
        obj = context.object
        s = obj.fastcd
        layout = self.layout
        layout.use_property_split = True
        if not any(m.type == "ARMATURE" and m.object for m in obj.modifiers):
            layout.label(text="Needs an Armature modifier with an armature", icon="ERROR")
        col = layout.column()
        col.prop(s, "solver")
        sub = col.column(align=True)
        sub.active = s.solver == "FAST"
        sub.prop(s, "modes")
        sub.prop(s, "clusters")
        col.prop(s, "iterations")
        col = layout.column(heading="Material")
        col.prop(s, "ym")
        col.prop(s, "pr")
        col.prop(s, "rho")
        col = layout.column()
        col.prop(s, "gravity")
        col.prop(s, "dynamics")
        col.prop(s, "leak")
        if s.leak == "GROUP":
            col.prop_search(s, "leak_group", obj, "vertex_groups")
        col.prop(s, "use_scene_range")
        sub = col.column(align=True)
        sub.active = not s.use_scene_range
        sub.prop(s, "frame_start")
        sub.prop(s, "frame_end")
        col.prop(s, "substeps")
        col.prop(s, "mesher")
        col.prop(s, "output")
        col.prop(s, "directory")
        row = layout.row(align=True)
        row.operator("fastcd.bake", icon="PHYSICS")
        row.operator("fastcd.free_bake", icon="TRASH")
        if s.cache_file:
            layout.label(text="Baked: " + s.cache_file, icon="CHECKMARK")


def _now():
    import time
    return time.perf_counter()


_classes = (FastcdSettings, FASTCD_OT_bake, FASTCD_OT_free_bake, FASTCD_PT_panel)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    bpy.types.Object.fastcd = PointerProperty(type=FastcdSettings)


def unregister():
    del bpy.types.Object.fastcd
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
