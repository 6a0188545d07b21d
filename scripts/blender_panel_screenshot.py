"""Takes the README's picture of the add-on's panel (docs/images/blender_panel.png) in Blender's
own UI under Xvfb; needs the add-on installed (scripts/install_blender_addon.sh):

    blender -b --python scripts/blender_panel_screenshot.py -- build /tmp/panel.blend
    xvfb-run -a -s "-screen 0 1600x1000x24" blender /tmp/panel.blend --python-exit-code 1 \\
        --python scripts/blender_panel_screenshot.py -- shoot docs/images/blender_panel.png

The first builds a tube deformed by a one-bone armature (a file given on the command line also
keeps the splash screen away); the second opens it, shows the Physics tab of the Properties
editor and saves a screenshot of that editor."""
import os
import sys

import bpy

MODE, OUT = sys.argv[sys.argv.index("--") + 1:][:2]
OUT = os.path.abspath(OUT)


def build():
    import bmesh
    bpy.ops.wm.read_homefile(use_empty=True)
    me = bpy.data.meshes.new("Tail")
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=24, radius1=0.1, radius2=0.1, depth=1.0)
    bm.to_mesh(me)
    bm.free()
    tube = bpy.data.objects.new("Tail", me)
    arm = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    for o in (tube, arm):
        bpy.context.scene.collection.objects.link(o)
    tube.modifiers.new("Armature", "ARMATURE").object = arm
    tube.vertex_groups.new(name="Bone").add(list(range(len(me.vertices))), 1.0, "REPLACE")
    tube.vertex_groups.new(name="Jiggle")
    bpy.context.view_layer.objects.active = tube
    tube.select_set(True)
    s = tube.fastcd
    s.gravity, s.leak, s.leak_group, s.substeps = True, "GROUP", "Jiggle", 2
    bpy.ops.wm.save_as_mainfile(filepath=OUT)


def properties_area():
    win = bpy.context.window_manager.windows[0]
    return win, next(a for a in win.screen.areas if a.type == "PROPERTIES")


def show_physics():
    win, area = properties_area()
    area.spaces.active.context = "PHYSICS"
    area.tag_redraw()
    bpy.app.timers.register(shoot, first_interval=1.0)


def shoot():
    win, area = properties_area()
    with bpy.context.temp_override(window=win, screen=win.screen, area=area):
        bpy.ops.screen.screenshot_area(filepath=OUT)
    print("wrote", OUT)
    bpy.ops.wm.quit_blender()


if MODE == "build":
    build()
else:
    bpy.app.timers.register(show_physics, first_interval=1.0)
