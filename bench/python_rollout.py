#!/usr/bin/env python3
"""A Python roll-out as a user writes one, timed per frame: ``sim.advance(p); x = sim.positions()``.

Issue 34's case: the Spot tet mesh (shared/data/derived-tetgen/spot_pYq1.414.node, 4,447 vertices),
normalised, tutorial 23's single affine handle, the fast solver with 16 modes, 100 clusters and 10
iterations, the monitor on (the default), on one thread. Prints the per-frame median and 10th/90th
percentiles in microseconds and the solver step's median inside it (``sim.stats``).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_rollout.py [--frames N] [--shared DIR]

A benchmark, never run by the tests (`fastcd bench` has the same roll-out in C++)."""
import argparse
import os
import pathlib
import sys
import time

import numpy as np

import fastcd


def pose(p0, dim, i):
    """`fastcd bench`'s rig motion: tutorial 23's metronome, 0.3 of the normalised size in 3D."""
    return fastcd.handle(p0, i, amp=0.3, period=80, dim=dim)


def main():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--warmup", type=int, default=40)
    ap.add_argument("--shared", default=os.environ.get("FASTCD_SHARED_DIR", str(here.parent.parent / "shared")))
    a = ap.parse_args()
    node = pathlib.Path(a.shared) / "data" / "derived-tetgen" / "spot_pYq1.414.node"
    if not node.is_file():
        sys.exit(f"python_rollout: no Spot mesh at {node} (give --shared)")
    X, T = fastcd.read_volume_mesh(str(node))
    X = fastcd.normalize_and_center(X)  # simkit: the normalised positions
    sim = fastcd.Simulation(X, T, solver="fast", modes=16, clusters=100, iterations=10)
    p0 = np.asarray(sim.rest_params).copy()
    dim = X.shape[1]
    frame_us, step_us = [], []
    x = None
    for i in range(a.warmup + a.frames):
        p = pose(p0, dim, i)
        t = time.perf_counter()
        sim.advance(p)
        x = sim.positions()
        dt = time.perf_counter() - t
        if i >= a.warmup:
            frame_us.append(1e6 * dt)
            step_us.append(1e6 * sim.stats["step_seconds"])
    if not np.isfinite(x).all():
        sys.exit("python_rollout: the positions are not finite")
    f = np.array(frame_us)
    print(f"spot ({X.shape[0]} vertices), one affine handle, fast solver, 16 modes, 100 clusters, 10 iterations, "
          f"{len(f)} frames")
    print(f"per frame (advance + positions): median {np.median(f):.0f} us, p10 {np.percentile(f, 10):.0f}, "
          f"p90 {np.percentile(f, 90):.0f}; solver step median {np.median(step_us):.0f} us")


if __name__ == "__main__":
    main()
