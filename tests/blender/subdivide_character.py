"""Makes a denser character from a glTF one with Debian's Blender, as an artist would: import,
merge the split vertices, Catmull-Clark subdivide (vertex groups, i.e. skin weights, follow),
export as .glb with the skin and every animation. Run as
  blender -b --factory-startup --python-exit-code 1 --python subdivide_character.py -- IN.glb OUT.glb LEVELS
(The Khronos Fox at 1 level: 6,912 render vertices, 1,730 welded; it is CC-BY 4.0 like the
original, see ../shared/data/khronos-gltf.)"""
import sys
import warnings

import numpy

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if not hasattr(numpy, "bool"):  # Debian numpy 1.24 vs Blender 3.4's glTF importer
        numpy.bool = bool

import bpy  # noqa: E402


def main():
    src, dst, levels = sys.argv[sys.argv.index("--") + 1:]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    assert meshes, "no mesh imported"
    for o in meshes:
        bpy.context.view_layer.objects.active = o
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.mesh.remove_doubles(threshold=1e-5)
        bpy.ops.object.mode_set(mode="OBJECT")
        m = o.modifiers.new("subdivide", "SUBSURF")
        m.levels = m.render_levels = int(levels)
        while o.modifiers[0].name != "subdivide":
            bpy.ops.object.modifier_move_up(modifier="subdivide")
        bpy.ops.object.modifier_apply(modifier="subdivide")
        print(f"{o.name}: {len(o.data.vertices)} vertices after {levels} level(s)")
    bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB", export_animations=True, export_skins=True)


try:
    main()
except Exception:  # noqa: BLE001
    import traceback
    traceback.print_exc()
    sys.exit(1)
