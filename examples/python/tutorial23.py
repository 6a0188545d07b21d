#!/usr/bin/env python3
"""Tutorial 23 - Fast Complementary Dynamics - on fastcd.

Simkit tutorial 23 (simkit + numpy/scipy) with every simkit call and both solvers running in
fastcd's C++ core through the `fastcd` Python package. Same sections, same printed numbers,
same figures:

  1  the rig: one global affine handle swept left and right (the "metronome")
  2  full-order complementary dynamics (per-element rotations, constrained global solve)
  4  fast complementary dynamics (rig-orthogonal skinning eigenmodes + rotation clusters)
  5  rig vs. full vs. reduced
  6  timing: how the gap grows with resolution

Run (see README.md next to this file):
  PYTHONPATH=build-py/python /usr/bin/python3 examples/python/tutorial23.py --out media/python
Writes 23_rig.mp4, 23_full.mp4, 23_compare.mp4, 23_clusters.png and 23_timing.png to --out.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.animation import FFMpegWriter, FuncAnimation  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

try:
    import fastcd
except ImportError as e:  # pragma: no cover - a setup problem, not a bug
    sys.exit(f"cannot import fastcd ({e}).\nBuild the bindings and point PYTHONPATH at them:\n"
             "  cmake -S . -B build-py -G Ninja -DPython_EXECUTABLE=/usr/bin/python3\n"
             "  cmake --build build-py --target _fastcd\n"
             "  PYTHONPATH=build-py/python /usr/bin/python3 examples/python/tutorial23.py")
from fastcd import (FullCD, ReducedCD, beam, elastic_operators, handle, lbs_jacobian,  # noqa: E402
                    rig_rest)

warnings.filterwarnings("ignore"); np.seterr(all="ignore")
YM, RHO, DT = 1e5, 1e3, 1e-2                                    # Young's modulus, density, timestep
RIG_C, FULL_C, RED_C = "#d62728", "#1f77b4", "#2ca02c"          # rig / full / reduced colors


# --------------------------------------------------------------------------- plotting helpers
# (the notebook's own helpers and the bits of simkit-tutorials' utils.py it uses)

def thin(states, target=110):
    """Every k-th state, k = max(1, len // target)."""
    k = max(1, len(states) // target)
    return states[::k]


def auto_limits(states, pad=0.6):
    allp = np.concatenate([np.asarray(s) for s in states])
    lo, hi = allp.min(axis=0) - pad, allp.max(axis=0) + pad
    return (lo[0], hi[0]), (lo[1], hi[1])


def setup_axes(ax, xlim=None, ylim=None, title=None, equal=True, grid=True):
    if xlim is not None:
        ax.set_xlim(*xlim)
    if ylim is not None:
        ax.set_ylim(*ylim)
    if title:
        ax.set_title(title, fontsize=11)
    if equal:
        ax.set_aspect("equal")
    if grid:
        ax.grid(True, color="0.9", lw=0.8)
        ax.set_axisbelow(True)
    else:
        ax.grid(False)


class PolyMeshArtist:
    """A triangle mesh as one PolyCollection, updated in place per frame."""

    def __init__(self, ax, U, T, facecolor, edgecolor="0.3", lw=0.5, zorder=2, alpha=0.95):
        self.T = np.asarray(T)
        self.coll = PolyCollection(np.asarray(U)[self.T], facecolors=facecolor, edgecolors=edgecolor,
                                   linewidths=lw, zorder=zorder, alpha=alpha)
        ax.add_collection(self.coll)

    def update(self, U):
        self.coll.set_verts(np.asarray(U)[self.T])


def animate_panels(panels, fps=30, suptitle=None, lims=None):
    """One animated panel per dict(states, T, title, color); shorter panels hold their last frame."""
    npan = len(panels)
    if lims is None:
        lims = auto_limits([s for p in panels for s in p["states"]], pad=0.6)
    fig, axes = plt.subplots(1, npan, figsize=(5.2 * npan, 4.4), dpi=100, squeeze=False)
    artists = []
    for ax, pan in zip(axes[0], panels):
        setup_axes(ax, lims[0], lims[1], pan["title"])
        artists.append(PolyMeshArtist(ax, pan["states"][0], pan["T"], pan["color"]))
    if suptitle:
        fig.suptitle(suptitle, fontsize=12)
    fig.tight_layout(rect=[0, 0, 1, 0.92])
    nframes = max(len(p["states"]) for p in panels)

    def draw(f):
        for art, pan in zip(artists, panels):
            art.update(pan["states"][min(f, len(pan["states"]) - 1)])
        return [a.coll for a in artists]

    anim = FuncAnimation(fig, draw, frames=nframes, interval=1000 / fps, blit=False)
    return fig, anim


def show_video(fig, anim, path, fps=30):
    """Save the animation as mp4 (ffmpeg, libx264) and close the figure. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    anim.save(str(path), writer=FFMpegWriter(fps=fps, bitrate=2400, codec="libx264",
                                             extra_args=["-pix_fmt", "yuv420p"]))
    plt.close(fig)
    print(f"  wrote {path}")
    return path


def line_plot(xs, series, *, xlabel, ylabel, colors=None, logy=False, title=None, markers=False, ax=None):
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, ys in series.items():
        ax.plot(xs, ys, "-o" if markers else "-", lw=2, ms=4, label=name, color=(colors or {}).get(name))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel); ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, color="0.9", lw=0.8)
    if len(series) > 1:
        ax.legend(loc="best", fontsize=9)
    return ax.figure, ax


# --------------------------------------------------------------------------- the tutorial

def run(solver, nsteps):
    """Roll out a solver under the left/right handle sweep. Returns (states, violation)."""
    J, p0, B, dim = solver.J, solver.p0, solver.B, solver.dim
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = p0.copy(); p_dot = np.zeros_like(p)
    states, viol = [], []
    for i in range(nsteps):
        p_next = handle(p0, i)
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        s_dot = (s_new - s) / DT; p_dot = (p_next - p) / DT
        s, p = s_new, p_next.copy()
        uc = (B @ s) if B is not None else s             # u_c in full coordinates
        states.append((J @ p + uc).reshape(-1, dim))
        viol.append(float(np.linalg.norm(solver.A @ uc)))
    return states, viol


def bench(solver, warmup=2, n=12):
    """Median ms/step for one solver under the metronome rig (after warmup)."""
    p0 = solver.p0
    s = np.zeros((solver.state_dim, 1)); s_dot = np.zeros_like(s)
    p = p0.copy(); p_dot = np.zeros_like(p); ts = []
    for i in range(warmup + n):
        p_next = handle(p0, i)
        t0 = time.perf_counter()
        s_new = solver.step(s, s_dot, p, p_dot, p_next)
        dt = time.perf_counter() - t0
        s_dot = (s_new - s) / DT; p_dot = (p_next - p) / DT; s, p = s_new, p_next.copy()
        if i >= warmup:
            ts.append(dt)
    return 1000 * np.median(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="media/python", help="output directory (default: media/python)")
    ap.add_argument("--steps", type=int, default=200, help="time steps of the roll-outs (default 200)")
    ap.add_argument("--bench-steps", type=int, default=50,
                    help="timed steps per solver in the sweep, after 2 warm-up steps (default 50; the tutorial: 12)")
    ap.add_argument("--no-video", action="store_true", help="skip the three animations")
    ap.add_argument("--no-sweep", action="store_true", help="skip section 6 (resolution sweep)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    NSTEPS = args.steps

    # 1 - The rig: one global handle -------------------------------------------------------
    print("## 1 · The rig: one global handle")
    X, T = beam(); n, dim = X.shape
    op = elastic_operators(X, T, ym=YM, rho=RHO)
    J = lbs_jacobian(X, np.ones((n, 1)))                 # control space: one global affine handle
    p0 = rig_rest(J, op["Mv"], X)
    print(f"mesh: {n} verts, {T.shape[0]} triangles | rig: J is {J.shape} -> {J.shape[1]} DOFs")
    rig_states = [(J @ handle(p0, i)).reshape(n, dim) for i in range(NSTEPS)]
    if not args.no_video:
        fig, anim = animate_panels(
            [dict(states=thin(rig_states), T=T, title="rig pose $x = J\\,p$", color=RIG_C)],
            suptitle="The animator's input: a rigid beam swept left and right")
        show_video(fig, anim, out / "23_rig.mp4", fps=30)

    # 2 - Full-order complementary dynamics ------------------------------------------------
    print("\n## 2 · Full-order complementary dynamics")
    full = FullCD(X, T, dt=DT, ym=YM, rho=RHO)
    t0 = time.perf_counter()
    full_states, full_viol = run(full, NSTEPS)
    t_full = (time.perf_counter() - t0) / NSTEPS * 1000
    print(f"full-order: {t_full:.2f} ms/step, {full.n_rot} rotations/step")
    print(f"max rig-orthogonality residual ||J^T M D u_c|| = {max(full_viol):.1e} (constraint holds)")
    if not args.no_video:
        fig, anim = animate_panels([
            dict(states=thin(rig_states), T=T, title="rig only $J\\,p$", color=RIG_C),
            dict(states=thin(full_states), T=T, title="rig + complementary $J\\,p+u_c$", color=FULL_C),
        ], suptitle="Full-order complementary dynamics")
        show_video(fig, anim, out / "23_full.mp4", fps=30)

    # 4 - Fast complementary dynamics -------------------------------------------------------
    print("\n## 4 · Fast complementary dynamics")
    red = ReducedCD(X, T, k_modes=10, n_clusters=20, dt=DT, ym=YM, rho=RHO)
    print(f"subspace B: {red.B.shape} -> {red.state_dim} DOFs")
    print(f"structural rig-orthogonality ||(J^T M D) B|| = {np.linalg.norm(red.A @ red.B):.1e}")
    print(f"rotation clusters: {red.n_rot} (vs {T.shape[0]} triangles)")
    t0 = time.perf_counter()
    red_states, red_viol = run(red, NSTEPS)
    t_red = (time.perf_counter() - t0) / NSTEPS * 1000
    print(f"reduced: {t_red:.3f} ms/step -> {t_full / t_red:.1f}x faster than full-order")
    print(f"  (solver steps alone: full {bench(full, n=50):.3f} ms, reduced {1000 * bench(red, n=200):.1f} us; "
          f"the rest of run() is numpy bookkeeping)")

    # The rotation clusters
    fig, ax = plt.subplots(figsize=(3.6, 6.4))  # the beam stands upright: 0.2 wide, 2 tall
    setup_axes(ax, title="rotation clusters\n(one shared rotation each)", grid=False)
    ax.tripcolor(X[:, 0], X[:, 1], T, facecolors=red.labels.astype(float),
                 cmap="tab20", edgecolors="0.4", linewidth=0.3)
    ax.set_aspect("equal"); ax.set_xticks([-0.1, 0.1]); fig.tight_layout()
    fig.savefig(out / "23_clusters.png", dpi=150); plt.close(fig)
    print(f"  wrote {out / '23_clusters.png'}")

    # 5 - Rig vs. full vs. reduced -----------------------------------------------------------
    if not args.no_video:
        print("\n## 5 · Rig vs. full vs. reduced")
        fig, anim = animate_panels([
            dict(states=thin(rig_states), T=T, title="rig", color=RIG_C),
            dict(states=thin(full_states), T=T, title=f"full ({full.n_rot} rot, {full.state_dim} DOF)",
                 color=FULL_C),
            dict(states=thin(red_states), T=T, title=f"reduced ({red.n_rot} rot, {red.state_dim} DOF)",
                 color=RED_C),
        ], suptitle="Complementary dynamics: full-order vs. fast (skinning eigenmodes)")
        show_video(fig, anim, out / "23_compare.mp4", fps=30)

    # 6 - Timing: how the gap grows with resolution -------------------------------------------
    if not args.no_sweep:
        print("\n## 6 · Timing: how the gap grows with resolution")
        res_list = [(40, 5), (70, 7), (100, 8), (140, 9), (180, 10)]
        verts, t_fulls, t_reds = [], [], []
        for (w, h) in res_list:
            Xr, Tr = beam(w, h)
            tf = bench(FullCD(Xr, Tr), n=args.bench_steps)
            tr = bench(ReducedCD(Xr, Tr), n=args.bench_steps)
            verts.append(Xr.shape[0]); t_fulls.append(tf); t_reds.append(tr)
            print(f"{Xr.shape[0]:5d} verts / {Tr.shape[0]:5d} tris: full {tf:6.3f} ms reduced {tr:6.4f} ms "
                  f"({tf / tr:5.1f}x)")
        fig, (axL, axR) = plt.subplots(1, 2, figsize=(13, 4.2))
        line_plot(verts, {"full-order": t_fulls, "fast (reduced)": t_reds},
                  xlabel="vertices", ylabel="ms / step", markers=True, logy=True,
                  colors={"full-order": FULL_C, "fast (reduced)": RED_C}, ax=axL)
        axL.set_title("per-step cost")
        axR.plot(verts, np.array(t_fulls) / np.array(t_reds), "-o", color="0.2", lw=2)
        axR.set_xlabel("vertices"); axR.set_ylabel("speedup (full / reduced)")
        axR.set_title("speedup grows with resolution"); axR.grid(True, color="0.9")
        fig.tight_layout()
        fig.savefig(out / "23_timing.png", dpi=120); plt.close(fig)
        print(f"  wrote {out / '23_timing.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
