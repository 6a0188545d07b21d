"""Checks a `fastcd run` output folder: run.json numbers, one OBJ per frame, a PC2 whose header
and size match the rest OBJ and the frame count, finite positions, and (optionally) a decodable
preview.mp4."""
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np


def read_obj_vertices(path):
    return np.array([[float(t) for t in line.split()[1:4]] for line in path.read_text().splitlines()
                     if line.startswith("v ")])


def check_3d_preview(mp4, prev):
    """A 3D preview is rendered while the simulation runs, and frames the model so it fills most
    of its panel: the coloured (model, not title ink) pixels of the rig and rig + CD panels span
    at least half the panel's width or height in the middle frame."""
    assert prev["camera"] in ("fixed", "follow"), prev
    assert prev["encoded_during_simulation"] is True, prev
    dims = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=width,height", "-of", "csv=p=0", str(mp4)],
                          check=True, capture_output=True, text=True).stdout.strip().split(",")
    w, h = int(dims[0]), int(dims[1])
    mid = prev["frames"] // 2
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(mp4), "-vf", f"select=eq(n\\,{mid})",
                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    img = np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 3).astype(int)
    coloured = img.max(axis=2) - img.min(axis=2) > 40
    panel_w = w // 3
    for p in (0, 1):
        ys, xs = np.nonzero(coloured[:, p * panel_w:(p + 1) * panel_w])
        assert len(xs) > 0, f"panel {p} of the preview's frame {mid} shows no model"
        span = max((xs.max() - xs.min() + 1) / panel_w, (ys.max() - ys.min() + 1) / h)
        assert span >= 0.5, f"panel {p}: the model spans only {span:.0%} of the panel (frame {mid})"


def main(out, solver, video):
    out = Path(out)
    run = json.loads((out / "run.json").read_text())
    frames = run["frames"]
    assert run["solver"] == solver, run["solver"]
    assert run["max_constraint_residual_relative"] <= 1e-8, run["max_constraint_residual_relative"]
    if solver == "fast":
        assert run["structural_residual_relative"] <= 1e-8, run["structural_residual_relative"]
    # What the run says about itself: the constraint holds every rig direction (the shipped
    # scenes all have interior vertices or a fallback), the leak field named, inversions counted.
    assert 0 < run["constraint_rank"] <= run["rig_rank"], (run["constraint_rank"], run["rig_rank"])
    if run["constraint_rank"] < run["rig_rank"]:
        assert any("directions" in w for w in run["warnings"]), run["warnings"]
    assert run["leak_field"] in ("poisson", "diffusion", "centroid", "none", "values"), run["leak_field"]
    inv = run["inverted_elements"]
    assert len(inv["per_frame"]) == frames and inv["max_per_frame"] == max(inv["per_frame"])
    assert inv["frames_with_inversions"] == sum(1 for k in inv["per_frame"] if k > 0)
    assert 0 <= inv["rig_max_per_frame"] <= run["elements"], inv["rig_max_per_frame"]
    if not run["settings"]["dynamics"]:  # the bake is the rig: the same inversions
        assert inv["max_per_frame"] == inv["rig_max_per_frame"], inv
    if inv["frames_with_inversions"]:
        assert any("inverted elements" in w for w in run["warnings"]), run["warnings"]
    assert run["timings"]["ms_per_step"] > 0 and run["timings"]["precompute_s"] >= 0
    objs = sorted((out / "obj").glob("frame_*.obj"))
    assert len(objs) == frames, (len(objs), frames)
    rest = read_obj_vertices(out / "rest.obj")
    data = (out / "animation.pc2").read_bytes()
    magic, version, points, start, rate, samples = struct.unpack("<12siiffi", data[:32])
    assert magic == b"POINTCACHE2\0" and version == 1, (magic, version)
    assert points == len(rest) and samples == frames, (points, len(rest), samples, frames)
    assert len(data) == 32 + 12 * points * samples
    cache = np.frombuffer(data[32:], dtype="<f4").reshape(samples, points, 3)
    assert np.isfinite(cache).all()
    last = read_obj_vertices(objs[-1])
    assert np.allclose(cache[-1], last, rtol=1e-5, atol=1e-5 * np.abs(last).max()), "PC2 and OBJ disagree"
    if video:
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                                str(out / "preview.mp4")], check=True, capture_output=True, text=True)
        prev = run["preview"]
        stride, fps = prev["stride"], prev["fps"]
        assert prev["frames"] == (frames + stride - 1) // stride, (prev, frames)
        assert int(probe.stdout.strip()) == prev["frames"], (probe.stdout, prev)
        # real time: stride simulated steps of dt per video frame at fps
        speed = fps * stride * run["settings"]["dt"]
        assert 0.9 <= speed <= 1.1, ("the preview does not play in real time", prev, run["settings"]["dt"])
        if run["dim"] == 3:
            check_3d_preview(out / "preview.mp4", prev)
        phases = [p["phase"] for p in run["profile"]]
        assert any(p.startswith("precompute") for p in phases) and all(p["seconds"] >= 0 for p in run["profile"])
    print(f"{out.name}: {frames} frames, {points} points, residual {run['max_constraint_residual_relative']:.1e} OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] == "video")
