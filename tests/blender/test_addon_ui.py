"""The add-on's interactive path in Blender's own UI under Xvfb (xvfb-run blender --python
test_addon_ui.py -- WORK_DIR): Bake invoked as a click would (INVOKE_DEFAULT) runs as a modal
operator -- the window keeps handling events and redrawing while fastcd works in the background,
the status bar shows the progress -- and ends with the Mesh Cache modifier before the Armature
modifier; a second bake cancelled mid-way (the Esc handler's path) changes nothing."""
import os
import shutil
import sys
import time

import bpy

sys.argv = [sys.argv[0], "--"] + sys.argv[sys.argv.index("--") + 1:]
HERE = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(HERE, "test_addon.py")).read().replace("\nmain()\n", "\n"))  # build_rig, settings

state = {"t0": 0.0, "ticks": 0, "phase": "bake", "status": []}


def fail(msg):
    print("FAILED:", msg)
    sys.stdout.flush()
    os._exit(1)


def context_override():
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    return dict(window=win, screen=win.screen, area=area)


def start():
    shutil.rmtree(WORK, ignore_errors=True)  # the test's own folder: no bake of an earlier run
    os.makedirs(WORK)
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(WORK, "ui.blend"))
    obj, _ = build_rig()
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    settings(obj, substeps=4)
    bpy.context.view_layer.objects.active = obj
    state["obj"] = obj
    with bpy.context.temp_override(**context_override()):
        r = bpy.ops.fastcd.bake("INVOKE_DEFAULT")
    if r != {"RUNNING_MODAL"}:
        fail(f"Bake did not run as a modal operator: {r}")
    state["t0"] = time.perf_counter()
    bpy.app.timers.register(watch, first_interval=0.02)


def watch():
    """Runs between the modal operator's ticks: the UI is alive while the bake works."""
    obj = state["obj"]
    state["ticks"] += 1
    now = time.perf_counter()
    state.setdefault("gaps", []).append(now - state.get("last", now))
    state["last"] = now
    if time.perf_counter() - state["t0"] > 120:
        fail("the bake did not finish in 120 s")
    if state["phase"] == "bake":
        if "fastcd" not in obj.modifiers:
            return 0.02
        names = [m.name for m in obj.modifiers]
        if names.index("fastcd") > names.index("Armature"):
            fail(f"modifier order {names}")
        print(f"modal bake done after {time.perf_counter() - state['t0']:.2f} s; the UI ran {state['ticks']} "
              f"timer ticks meanwhile, longest gap {max(state['gaps']):.2f} s")
        if state["ticks"] < 2:  # (software rendering under Xvfb: ~0.5 s per redraw)
            fail("the UI did not run while the bake worked")
        # A second bake, cancelled: nothing changes.
        state["pc2"] = os.path.getmtime(bpy.path.abspath(obj.modifiers["fastcd"].filepath))
        settings(obj, ym=5e4)
        from fastcd_blender import bake as B
        job = B.Bake(bpy.context, obj, obj.fastcd)
        steps = job.steps()
        for fraction, _ in steps:
            if fraction >= 0.3:  # the worker runs: Esc now
                job.cancel()
                steps.close()
                break
        if os.path.getmtime(bpy.path.abspath(obj.modifiers["fastcd"].filepath)) != state["pc2"]:
            fail("a cancelled bake rewrote the cache")
        if [m.name for m in obj.modifiers] != names:
            fail("a cancelled bake changed the modifiers")
        import fastcd
        fastcd.load_scene  # the module is still usable
        print("add-on UI OK")
        sys.stdout.flush()
        os._exit(0)
    return 0.02


def guarded(fn):
    """A timer that fails the test on any exception (Blender would only print it and go on)."""
    def run():
        try:
            return fn()
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            fail(f"{fn.__name__}: {e}")
    run.__name__ = fn.__name__
    return run


start, watch = guarded(start), guarded(watch)
bpy.app.timers.register(start, first_interval=1.0)
