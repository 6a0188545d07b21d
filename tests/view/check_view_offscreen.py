"""`fastcd view --screenshot / --record` with no display at all (EGL surfaceless): a fixed frame
matches the stored picture (tests/view/golden) within a small tolerance; the method's views
(clusters, a mode, the leak field, |u_c|) draw distinct, non-trivial pictures; a scripted drag
moves the mesh; a short recording is an MP4; bad requests are one error line and write nothing.

    check_view_offscreen.py FASTCD_CLI SCENE GOLDEN_PNG WORK_DIR CHARACTER.glb

The character (whose surface is its tet vertices) is drawn with the mesh lifted on the GPU in
skinning form and on the CPU: the pictures agree.
"""
import os
import subprocess
import sys

import numpy as np
import matplotlib.image as mpimg

ENV = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}


def shot(cli, scene, png, *args, frame="40"):
    r = subprocess.run([cli, "view", scene, "--screenshot", png, "--frame", frame, "--size", "480x320", *args],
                       capture_output=True, text=True, env=ENV)
    assert r.returncode == 0, r.stderr
    return mpimg.imread(png)[..., :3]


def refused(cli, scene, png, needle, *args):
    r = subprocess.run([cli, "view", scene, "--screenshot", png, *args], capture_output=True, text=True, env=ENV)
    assert r.returncode != 0 and needle in r.stderr, (needle, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not os.path.exists(png), "a refused request wrote " + png


def main(cli, scene, golden, work, glb):
    os.makedirs(work, exist_ok=True)
    shaded = shot(cli, scene, os.path.join(work, "shaded.png"))
    ref = mpimg.imread(golden)[..., :3]
    diff = np.abs(shaded - ref)
    print(f"against the stored picture: mean difference {diff.mean():.4f}, "
          f"{(diff.max(axis=2) > 0.1).mean():.3%} of the pixels off by more than 10%")
    assert diff.mean() < 0.01 and (diff.max(axis=2) > 0.1).mean() < 0.01, "the frame does not match the stored picture"
    background = shaded[0, 0]
    assert (np.abs(shaded - background).max(axis=2) > 0.05).mean() > 0.05, "no model in the picture"
    for view in ("clusters", "mode", "leak", "displacement"):
        img = shot(cli, scene, os.path.join(work, view + ".png"), "--view", view, "--mode", "3")
        changed = (np.abs(img - shaded).max(axis=2) > 0.1).mean()
        colours = len(np.unique((img * 15).astype(int).reshape(-1, 3), axis=0))
        print(f"{view}: {changed:.1%} of the pixels differ from shaded, {colours} colours")
        assert changed > 0.02 and colours > 20, view + " draws nothing of its own"
    dragged = shot(cli, scene, os.path.join(work, "dragged.png"), "--drag", "5:0,0.3,0")
    moved = (np.abs(dragged - shaded).max(axis=2) > 0.1).mean()
    print(f"--drag: {moved:.1%} of the pixels changed")
    assert moved > 0.005, "a dragged handle did not move the mesh"
    mp4 = os.path.join(work, "clip.mp4")
    r = subprocess.run([cli, "view", scene, "--record", mp4, "--frames", "12", "--size", "320x240"],
                       capture_output=True, text=True, env=ENV)
    assert r.returncode == 0, r.stderr
    head = open(mp4, "rb").read(12)
    assert head[4:8] == b"ftyp", head
    bad = os.path.join(work, "bad.png")
    refused(cli, scene, bad, "mode 99", "--view", "mode", "--mode", "99")
    refused(cli, scene, bad, "--size", "--size", "13x7")
    refused(cli, scene, bad, "--frame 100000", "--frame", "100000")
    refused(cli, scene, bad, "handle 999", "--drag", "999:0,1,0")
    refused(cli, scene, bad, "expected HANDLE:dx,dy[,dz]", "--drag", "2:0,x,0")
    gpu = shot(cli, glb, os.path.join(work, "gpu.png"), "--lift", "gpu")
    cpu = shot(cli, glb, os.path.join(work, "cpu.png"), "--lift", "cpu")
    d = np.abs(gpu - cpu)
    print(f"GPU against CPU lifting: mean difference {d.mean():.2e}, max {d.max():.3f}")
    assert d.mean() < 1e-3 and (d.max(axis=2) > 0.1).mean() < 1e-3, "the GPU lift draws another mesh"
    refused(cli, scene, bad, "no skinning form", "--lift", "gpu")
    # A plain surface with handles, as fastcd run takes it: filled with tets, lifted on the GPU.
    sphere = os.path.join(os.path.dirname(os.path.dirname(scene)), "sphere")
    img = shot(cli, os.path.join(sphere, "sphere.obj"), os.path.join(work, "sphere.png"), "--handles",
               os.path.join(sphere, "sphere.tgf"), "--anim", os.path.join(sphere, "sphere_anim.txt"), "--lift", "gpu", frame="20")
    assert (np.abs(img - img[0, 0]).max(axis=2) > 0.05).mean() > 0.02, "no sphere in the picture"
    refused(cli, os.path.join(sphere, "sphere.obj"), bad, "needs --handles and --anim")
    print("view offscreen OK")


if __name__ == "__main__":
    main(*sys.argv[1:6])
