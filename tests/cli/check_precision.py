"""`fastcd run --precision mixed` against the default double precision on a real character: the
baked positions (single-precision PC2) agree to well under a millionth of the model's size while
the secondary motion itself is many thousand times larger; run.json names the precision; the
full solver refuses mixed with a message that says what to do.

    check_precision.py FASTCD_CLI CHARACTER.glb WORK_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np


def read_pc2(path):
    with open(path, "rb") as f:
        head = f.read(32)
        assert head[:12] == b"POINTCACHE2\0", path
        points, _, _, samples = struct.unpack("<iffi", head[16:32])
        data = np.frombuffer(f.read(), dtype="<f4")
    assert data.size == samples * points * 3, (path, data.size, samples, points)
    return data.reshape(samples, points, 3).astype(np.float64)


def bake(cli, glb, out, *args):
    r = subprocess.run([cli, "run", glb, "--frames", "90", "--no-video", "--out", out, *args], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return read_pc2(os.path.join(out, "animation.pc2")), json.load(open(os.path.join(out, "run.json")))


def main(cli, glb, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rig, _ = bake(cli, glb, os.path.join(work, "rig"), "--no-dynamics")
    dbl, run_d = bake(cli, glb, os.path.join(work, "double"), "--solver", "fast")
    mix, run_m = bake(cli, glb, os.path.join(work, "mixed"), "--solver", "fast", "--precision", "mixed")
    assert run_d["settings"]["precision"] == "double", run_d["settings"]
    assert run_m["settings"]["precision"] == "mixed", run_m["settings"]
    size = np.ptp(dbl[0], axis=0).max()
    secondary = np.linalg.norm(dbl - rig, axis=2).max()
    gap = np.linalg.norm(mix - dbl, axis=2).max()
    print(f"size {size:.4g}, secondary motion up to {secondary:.4g}, mixed - double up to {gap:.3g}")
    assert secondary > 1e-2 * size, "the character hardly moves: the comparison would mean nothing"
    assert gap < 1e-6 * size, gap
    r = subprocess.run([cli, "run", glb, "--frames", "2", "--no-video", "--precision", "mixed", "--out",
                        os.path.join(work, "full")], capture_output=True, text=True)
    assert r.returncode != 0 and "--precision mixed is a fast-solver setting" in r.stderr, (r.returncode, r.stderr)
    assert not os.path.exists(os.path.join(work, "full")), "a refused run left an output folder"
    print("precision OK")


if __name__ == "__main__":
    main(*sys.argv[1:])
