"""`fastcd view` in a real window under Xvfb, driven by synthetic mouse input (xdotool):
run it paused at a frame and save what it draws; run it again and drag the handle that moves
the most tissue with the mouse, and once more select it and drag its ring (the rotate gizmo)
a quarter turn; those pictures must differ from the first (the mesh followed), and all must show
a model, not an empty viewport.

    xvfb-run -a check_view_window.py FASTCD_CLI SCENE WORK_DIR   (PYTHONPATH: the fastcd module)
"""
import os
import subprocess
import sys
import time

import numpy as np
import matplotlib.image as mpimg

import fastcd


def run(cli, scene, png, drag_handle=None, turn=False, slide=False):
    args = [cli, "view", scene, "--layout", "single", "--size", "800x600", "--frame", "40", "--paused",
            "--quit-after", "12", "--window-screenshot", png, "--print-handles"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if drag_handle is not None:
        at = None
        while True:  # its handles' positions, then "window ready" after the first frame is shown
            line = p.stdout.readline()
            assert line, "the viewer ended before it was ready: " + p.stderr.read()
            if line.startswith(f"handle {drag_handle} at "):
                at = [int(float(v)) for v in line.split()[3:5]]
            if slide and line.startswith("slider iterations from "):
                f = line.split()
                at = [int(float(f[3])) + 4, int(float(f[7]))]
                end = int(float(f[5])) - 4
            if line.startswith("window ready"):
                break
        wid = subprocess.run(["xdotool", "search", "--sync", "--name", "fastcd view"], capture_output=True,
                             text=True, check=True).stdout.split()[0]
        time.sleep(0.5)
        x, y = at
        subprocess.run(["xdotool", "mousemove", "--window", wid, str(x), str(y)], check=True)
        time.sleep(0.6)  # a few frames, so the viewer has seen the pointer there
        if slide:  # drag the iterations slider to its right end and let go: the solver rebuilds
            path = [(x + (end - x) * k / 10, y) for k in range(1, 11)]
        elif turn:  # select the handle with a click, then drag its ring (radius 40 px) a quarter turn
            subprocess.run(["xdotool", "click", "1"], check=True)
            time.sleep(0.6)
            x0, y0, path = x, y, [(x + 40 * np.cos(a), y - 40 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 11)]
            x, y = path[0]
            subprocess.run(["xdotool", "mousemove", "--window", wid, str(int(x)), str(int(y))], check=True)
            time.sleep(0.6)
        else:
            path = [(x + 8 * k, y - 4 * k) for k in range(1, 11)]
        subprocess.run(["xdotool", "mousedown", "1"], check=True)
        time.sleep(0.3)
        for px, py in path:
            subprocess.run(["xdotool", "mousemove", "--window", wid, str(int(px)), str(int(py))], check=True)
            time.sleep(0.15)
        subprocess.run(["xdotool", "mouseup", "1"], check=True)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    if turn:
        assert f"ring of handle {drag_handle} grabbed" in out, out
    if slide:
        assert "simulating with 30 iterations" in out, "the slider did not reach the solver:\n" + out
    return mpimg.imread(png)


def main(cli, scene, work):
    os.makedirs(work, exist_ok=True)
    W = fastcd.read_scene(scene).W
    j = int(np.argmax(W.sum(axis=0)))
    a = run(cli, scene, os.path.join(work, "still.png"))
    b = run(cli, scene, os.path.join(work, "dragged.png"), drag_handle=j)
    background = a[0, 0]
    for img, name in ((a, "still"), (b, "dragged")):
        model = np.abs(img - background).max(axis=2) > 0.05
        assert model.mean() > 0.02, f"{name}: the window shows no model ({model.mean():.3%} of the pixels)"
    changed = (np.abs(a - b).max(axis=2) > 0.1).mean()
    print(f"dragging handle {j} changed {changed:.2%} of the pixels")
    assert changed > 0.002, "the drag did not move the mesh"
    c = run(cli, scene, os.path.join(work, "turned.png"), drag_handle=j, turn=True)
    turned = (np.abs(a - c).max(axis=2) > 0.1).mean()
    print(f"turning handle {j} by its ring changed {turned:.2%} of the pixels")
    assert turned > 0.002, "turning the handle did not move the mesh"
    run(cli, scene, os.path.join(work, "slid.png"), drag_handle=j, slide=True)
    print("the iterations slider reached the solver")
    print("view window OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
