"""Scenes generated for the CLI tests from the shipped daisy (its handles and animation over a
finer or different mesh), so that a test can make any phase as long or as odd as it needs."""
import json
import os

DAISY = os.path.join("data", "complementary-dynamics-2d", "daisy", "daisy_data")


def _daisy(shared):
    return os.path.join(shared, DAISY)


def _bbox(obj):
    xs, ys = [], []
    with open(obj) as f:
        for line in f:
            if line.startswith("v "):
                p = line.split()
                xs.append(float(p[1]))
                ys.append(float(p[2]))
    return min(xs), max(xs), min(ys), max(ys)


def grid_scene(shared, out_dir, n, weights=False, extra=None):
    """A daisy scene over an n x n triangulated grid covering the daisy's box (automatic
    biharmonic weights unless `weights`). Returns the JSON path."""
    d = _daisy(shared)
    x0, x1, y0, y1 = _bbox(os.path.join(d, "daisy.obj"))
    px, py = 0.05 * (x1 - x0), 0.05 * (y1 - y0)
    x0, x1, y0, y1 = x0 - px, x1 + px, y0 - py, y1 + py
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, "grid.obj")
    with open(obj, "w") as f:
        for j in range(n):
            for i in range(n):
                f.write("v %.9g %.9g 0\n" % (x0 + (x1 - x0) * i / (n - 1), y0 + (y1 - y0) * j / (n - 1)))
        for j in range(n - 1):
            for i in range(n - 1):
                a = j * n + i + 1
                b, c, e = a + 1, a + n, a + n + 1
                f.write("f %d %d %d\nf %d %d %d\n" % (a, b, e, a, e, c))
    scene = {"mesh_file": obj, "handle_file": os.path.join(d, "daisy.tgf"),
             "anim_file": os.path.join(d, "daisy_anim.txt"), "dt": 0.01, "YM": 300, "pr": 0.4}
    if extra:
        scene.update(extra)
    path = os.path.join(out_dir, "grid.json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=2)
    return path
