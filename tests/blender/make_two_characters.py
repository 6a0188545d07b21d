"""Makes a glTF file of two characters with Debian's Blender, as an artist would: the Khronos
Fox and RiggedSimple imported into one scene (two armatures: two skins), the Fox given an
eyeball (a separate sphere bound to the bone that moves the nearest skin: a second mesh node of
the Fox's skin, a shell crossing the body's), RiggedSimple moved beside the Fox and scaled to
its size, its clip renamed so both play in one animation; exported as .glb with skins and
animations. Run as
  blender -b --factory-startup --python-exit-code 1 --python make_two_characters.py -- FOX.glb SIMPLE.glb OUT.glb
(Both inputs are CC-BY 4.0 Khronos samples, see ../shared/data/khronos-gltf/SOURCES.)"""
import sys
import warnings

import numpy

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if not hasattr(numpy, "bool"):  # Debian numpy 1.24 vs Blender 3.4's glTF importer
        numpy.bool = bool

import bpy  # noqa: E402
import mathutils  # noqa: E402


def imported(path):
    """Imports a .glb and returns the new objects."""
    before = set(bpy.context.scene.objects)
    bpy.ops.import_scene.gltf(filepath=path)
    return [o for o in bpy.context.scene.objects if o not in before]


def main():
    fox_path, simple_path, dst = sys.argv[sys.argv.index("--") + 1:]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    fox_objs = imported(fox_path)
    fox = next(o for o in fox_objs if o.type == "MESH")
    fox_rig = next(o for o in fox_objs if o.type == "ARMATURE")
    simple_objs = imported(simple_path)
    simple = next(o for o in simple_objs if o.type == "MESH")
    simple_rig = next(o for o in simple_objs if o.type == "ARMATURE")

    # An eyeball where the Fox's head is: on the highest skin vertex at the front, half inside.
    world = [fox.matrix_world @ v.co for v in fox.data.vertices]
    lo = mathutils.Vector([min(p[i] for p in world) for i in range(3)])
    hi = mathutils.Vector([max(p[i] for p in world) for i in range(3)])
    size = max(hi - lo)
    front = min(range(len(world)), key=lambda i: world[i].y - 0.5 * world[i].z)  # Blender -Y is glTF +Z
    centre = world[front]
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2, radius=0.04 * size, location=centre)
    eye = bpy.context.active_object
    eye.name = "eye"
    groups = fox.data.vertices[front].groups
    bone = fox.vertex_groups[max(groups, key=lambda g: g.weight).group].name
    vg = eye.vertex_groups.new(name=bone)
    vg.add([v.index for v in eye.data.vertices], 1.0, "REPLACE")
    eye.parent = fox_rig
    eye.matrix_parent_inverse = fox_rig.matrix_world.inverted()
    eye.modifiers.new("Armature", "ARMATURE").object = fox_rig
    print(f"eye: {len(eye.data.vertices)} vertices on bone {bone}, radius {0.04 * size:.3g}")

    # RiggedSimple beside the Fox, scaled to half its size.
    s_world = [simple.matrix_world @ v.co for v in simple.data.vertices]
    s_size = max(max(p[i] for p in s_world) - min(p[i] for p in s_world) for i in range(3))
    simple_rig.scale = simple_rig.scale * (0.5 * size / s_size)
    simple_rig.location = simple_rig.location + mathutils.Vector((hi.x - lo.x, 0, 0))

    # One clip for both: RiggedSimple's action stashed under the Fox's first clip's name.
    fox_track = fox_rig.animation_data.nla_tracks[0].name
    for track in simple_rig.animation_data.nla_tracks:
        track.name = fox_track
    for strip in (s for t in simple_rig.animation_data.nla_tracks for s in t.strips):
        strip.name = fox_track
    print(f"clips: {[t.name for t in fox_rig.animation_data.nla_tracks]}")
    bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB", export_animations=True, export_skins=True)


try:
    main()
except Exception:  # noqa: BLE001
    import traceback
    traceback.print_exc()
    sys.exit(1)
