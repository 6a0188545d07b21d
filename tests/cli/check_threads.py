"""`fastcd run --threads N` gives byte-identical bakes for N = 1, 2, 3 (full and fast), and a
malformed FASTCD_THREADS / --threads is one error line before any work.

    check_threads.py FASTCD_CLI SCENE WORK_DIR
"""
import os
import shutil
import subprocess
import sys


def main(cli, scene, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for solver in ("full", "fast"):
        caches = []
        for n in ("1", "2", "3"):
            out = os.path.join(work, solver + n)
            r = subprocess.run([cli, "--threads", n, "run", scene, "--solver", solver, "--frames", "80", "--no-video", "--out", out],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            caches.append(open(os.path.join(out, "animation.pc2"), "rb").read())
        assert caches[0] == caches[1] == caches[2], solver + ": the bake depends on the thread count"
    for env, args, message in [({"FASTCD_THREADS": "abc"}, [], "FASTCD_THREADS must be a thread count"),
                               ({}, ["--threads", "0.5"], "--threads must be a thread count")]:
        out = os.path.join(work, "bad")
        r = subprocess.run([cli, *args, "run", scene, "--no-video", "--out", out], capture_output=True, text=True,
                           env={**os.environ, **env})
        assert r.returncode != 0 and message in r.stderr and not os.path.exists(out), r.stderr
        assert r.stdout == "", "work started before the thread count was checked: " + r.stdout
    print("threads OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
