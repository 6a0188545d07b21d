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
        phases = [p["phase"] for p in run["profile"]]
        assert any(p.startswith("precompute") for p in phases) and all(p["seconds"] >= 0 for p in run["profile"])
    print(f"{out.name}: {frames} frames, {points} points, residual {run['max_constraint_residual_relative']:.1e} OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] == "video")
