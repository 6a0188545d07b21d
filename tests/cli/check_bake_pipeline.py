#!/usr/bin/env python3
"""One bake pipeline (bake/bake.hpp) for every input kind and every caller:

* `fastcd run` on a scene JSON, a glTF character, a plain surface and a characters file writes
  run.json with the same keys (a single scene is a one-character run: its record is in
  "characters" too; a key that does not apply is null);
* Python's fastcd.bake on the same inputs writes the same files, byte for byte, and the same
  run.json apart from timings and the input's spelling.

  check_bake_pipeline.py FASTCD PYTHON_PACKAGE_DIR SHARED_DIR WORK_DIR"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

fastcd_exe, package, shared, work = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
sys.path.insert(0, package)
import fastcd  # noqa: E402

data = shared / "data"
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
spot = data / "keenan-crane" / "spot_triangulated.obj"
subprocess.run([sys.executable, str(Path(__file__).with_name("make_surface_scene.py")), str(spot), str(work / "spot")],
               check=True, capture_output=True)
sphere = data / "complementary-dynamics-cpp" / "sphere" / "sphere.json"
(work / "two.json").write_text(json.dumps({"characters": [
    {"scene": str(sphere)}, {"scene": str(sphere), "name": "later", "frame_offset": 2, "offset": [2, 0, 0]}]}))
daisy = data / "complementary-dynamics-2d" / "daisy" / "daisy_data" / "daisy.json"
simple = data / "khronos-gltf" / "RiggedSimple.glb"
handles, anim = work / "spot" / "spot_handles.tgf", work / "spot" / "spot_anim.txt"

# name: (the command line's input and options, what Python bakes, Python's options)
cases = {
    "scene_json": ([str(daisy), "--solver", "fast", "--frames", "8"], str(daisy), dict(solver="fast", frames=8)),
    "gltf": ([str(simple), "--frames", "8"], lambda: fastcd.read_character(str(simple)), dict(frames=8)),
    "surface": ([str(spot), "--handles", str(handles), "--anim", str(anim), "--frames", "5", "--solver", "fast"],
                lambda: fastcd.read_surface_scene(str(spot), str(handles), str(anim)),
                dict(frames=5, solver="fast")),
    "characters": ([str(work / "two.json"), "--frames", "6", "--solver", "fast"], str(work / "two.json"),
                   dict(frames=6, solver="fast")),
}
VOLATILE = {"profile", "timings", "precompute_s", "ms_per_step", "scene", "preview"}


def stable(j):
    """run.json without timings and the input's spelling."""
    if isinstance(j, dict):
        return {k: stable(v) for k, v in j.items() if k not in VOLATILE}
    if isinstance(j, list):
        return [stable(v) for v in j]
    return j


def keys(j, prefix=""):
    out = set()
    for k, v in j.items():
        out.add(prefix + k)
        if isinstance(v, dict) and k not in ("gltf", "preview"):
            out |= keys(v, prefix + k + ".")
    return out


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and p.name not in ("run.json", ".fastcd-output"))


runs = {}
for name, (args, what, opts) in cases.items():
    cli = work / ("cli-" + name)
    r = subprocess.run([fastcd_exe, "run", *args, "--out", str(cli), "--no-video", "--no-cache"],
                       capture_output=True, text=True)
    assert r.returncode == 0, (name, r.stdout[-2000:], r.stderr[-2000:])
    py = work / ("py-" + name)
    report = fastcd.bake(what() if callable(what) else what, str(py), **opts)
    run = json.loads((cli / "run.json").read_text())
    assert report == json.loads((py / "run.json").read_text()), name
    # The same files, byte for byte.
    assert files(cli) == files(py), (name, files(cli), files(py))
    assert files(cli), name
    for f in files(cli):
        assert (cli / f).read_bytes() == (py / f).read_bytes(), f"{name}: {f} differs between fastcd run and fastcd.bake"
    assert stable(run) == stable(report), (name, stable(run), stable(report))
    runs[name] = run
    print(f"{name}: {len(files(cli))} files identical from fastcd run and fastcd.bake")

# The same keys for every input kind.
single = [n for n in runs if n != "characters"]
for n in single:
    assert keys(runs[n]) == keys(runs[single[0]]), (n, keys(runs[n]) ^ keys(runs[single[0]]))
    assert len(runs[n]["characters"]) == 1 and keys(runs[n]["characters"][0]) == keys(runs["gltf"]["characters"][0])
several = runs["characters"]
assert keys(several["settings"]) == keys(runs["gltf"]["settings"]), keys(several["settings"]) ^ keys(runs["gltf"]["settings"])
for c in several["characters"]:
    assert keys(c) == keys(runs["gltf"]["characters"][0]), keys(c) ^ keys(runs["gltf"]["characters"][0])
assert set(several) <= set(runs["gltf"]), set(several) - set(runs["gltf"])
for k in ("ym", "ym_normalised", "pr", "rho", "material_requested", "material_simulated"):  # the settings a run of several lacked
    assert several["settings"][k] == several["characters"][0]["settings"][k], k
assert runs["gltf"]["gltf"] is not None and runs["scene_json"]["gltf"] is None

# Every default is fastcd/common/defaults.hpp's (fastcd.defaults): the command line's help says so,
# and a bake given no settings (the glTF character, the surface: only --frames and --solver) uses them.
D = fastcd.defaults
text = subprocess.run([fastcd_exe, "run", "--help"], capture_output=True, text=True, check=True).stdout


def option_help(flag):
    """The help of one option: its line and the description lines under it."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(flag + " ") or
              line.strip().startswith(flag + ","))
    out = [lines[at]]
    for line in lines[at + 1:]:
        if line.startswith("  -"):  # the next option (descriptions are indented further)
            break
        out.append(line)
    return " ".join(out)


for flag, value in (("--solver", D.solver), ("--modes", D.modes), ("--clusters", D.clusters),
                    ("--iterations", D.iterations), ("--precision", D.precision), ("--leak", D.leak),
                    ("--gravity", f"{D.gravity:g}")):
    assert f"={value} " in option_help(flag) + " ", (flag, value, option_help(flag))
for flag, value in (("--ym", D.ym), ("--pr", D.pr), ("--rho", D.rho), ("--dt", D.dt), ("--scale", D.metres_per_unit),
                    ("--voxel-resolution", D.voxel_resolution), ("--pca-tolerance", D.pca_tolerance),
                    ("--mesher", D.mesher), ("--glb-encoding", D.glb_encoding)):
    shown = f"{value:g}" if isinstance(value, (int, float)) else value
    assert f"(default {shown})" in option_help(flag), (flag, value, option_help(flag))
for name in ("gltf", "surface"):
    s = runs[name]["settings"]
    assert (s["iterations"], s["modes"], s["clusters"]) == (D.iterations, D.modes, D.clusters), (name, s)
    assert (s["leak"], s["precision"], s["gravity"]) == (D.leak, D.precision, D.gravity), (name, s)
    # Young's modulus in Pa as given, for every input kind; the solvers' value beside it.
    assert (s["ym"], s["pr"], s["rho"], s["dt"]) == (D.ym, D.pr, D.rho, D.dt), (name, s)
    assert s["ym_normalised"] != s["ym"], (name, s)
assert runs["gltf"]["solver"] == D.solver, runs["gltf"]["solver"]
print("defaults: the command line's help and a bake without settings use fastcd.defaults")
print("bake pipeline OK: the same run.json keys for every input kind; fastcd run and fastcd.bake bake the same files")
