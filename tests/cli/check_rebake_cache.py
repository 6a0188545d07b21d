"""A re-bake through .fastcd-cache: the first `fastcd run CHARACTER.glb` meshes and precomputes
and keeps both beside the output folder; a second bake with another material reuses the tets
and the fast subspace (and says so), a third with other modes computes a new subspace. Each
bake's caches agree with a bake that used no cache at all.

    check_rebake_cache.py FASTCD_CLI CHARACTER.glb WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys


def bake(cli, glb, out, *args, modes="6"):
    r = subprocess.run([cli, "run", glb, "--solver", "fast", "--frames", "30", "--modes", modes, "--clusters", "10",
                        "--no-video", "--out", out, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout, json.load(open(os.path.join(out, "run.json")))


def main(cli, glb, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cache = os.path.join(work, ".fastcd-cache")
    log, run = bake(cli, glb, os.path.join(work, "a"))
    assert not run["timings"]["precompute_from_cache"], log
    assert sorted(f[:5] for f in os.listdir(cache)) == ["fast-", "tets-"], os.listdir(cache)
    log, run = bake(cli, glb, os.path.join(work, "b"), "--ym", "6e4")
    assert "from the cache" in log and run["timings"]["precompute_from_cache"], log
    assert run["settings"]["ym"] != 0 and len(os.listdir(cache)) == 2
    log, run = bake(cli, glb, os.path.join(work, "c"), modes="5")
    assert not run["timings"]["precompute_from_cache"] and len(os.listdir(cache)) == 3, log
    # The cached bake equals a bake without any cache, byte for byte.
    bake(cli, glb, os.path.join(work, "d"), "--ym", "6e4", "--no-cache")
    for name in ("animation.pc2",):
        b = open(os.path.join(work, "b", name), "rb").read()
        d = open(os.path.join(work, "d", name), "rb").read()
        assert b == d, name + " differs between the cached and the uncached bake"
    print("re-bake cache OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
