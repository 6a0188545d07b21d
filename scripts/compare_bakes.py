#!/usr/bin/python3
"""Bakes every shipped scene with two fastcd programs and compares what they wrote.

A refactoring must change no result: every file a bake writes is byte-identical, or — only
where a computation now sums in another order — equal to within 1e-12 of the model's size
(the largest side of the rest bounding box). This script proves it:

  scripts/compare_bakes.py --before OLD/fastcd --after build/bin/fastcd [--work DIR]
  scripts/compare_bakes.py --before-rev REV [--after build/bin/fastcd]   # builds REV's CLI first

It bakes the releases' scenes (the 3D C++ release's elephant, frog and sphere; the 2D MATLAB
release's bird, daisy (also on its wire rig) and walrus (on its cage)), the Khronos glTF
characters (Fox, RiggedFigure, RiggedSimple), Keenan Crane's Spot as a plain surface scene and
tutorial 23 on the default beam — each with both solvers (and the fast solver in mixed precision
once) — and compares every output file except run.json's timings and the previews:

  identical      the bytes are the same
  within 1e-12   the numbers differ, never by more than 1e-12 of the model's size (float64 files:
                 OBJ frames, .npy trajectories); float32 files (PC2, MDD, glb) may also differ by
                 the one rounding step that such a change can flip
  DIFFERENT      anything else (another vertex count, another structure, a larger change)

run.json is compared key by key with its timings, memory figures and paths left out (a key only
the new program writes is listed, not counted as a change; a key it lost is a difference), numbers to
1e-9 relative (the statistics of positions equal to 1e-12) and constraint residuals below 1e-12
(rounding) as equal. Keys a version renamed are compared by value under their new names (RENAMED,
below), and a value whose meaning a version changed on purpose is listed as "intended" with the
reason (INTENDED) instead of being counted. The exit status is 0 only when every case is identical
or within 1e-12. Needs Debian's python3-numpy.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TOLERANCE = 1e-12
FRAMES = "12"  # enough for the secondary motion to build up, short enough to run in minutes

CPP = SHARED / "data" / "complementary-dynamics-cpp"
TWO_D = SHARED / "data" / "complementary-dynamics-2d"
GLTF = SHARED / "data" / "khronos-gltf"


def cases(surface_dir):
    """(name, fastcd arguments) of every bake compared."""
    scenes = [
        ("elephant", [str(CPP / "elephant" / "elephant.json")]),
        ("frog", [str(CPP / "frog" / "frog.json"), "--material", "arap"]),
        ("sphere", [str(CPP / "sphere" / "sphere.json")]),
        ("bird", [str(TWO_D / "bird" / "bird_mouth_data" / "bird_mouth.json")]),
        ("daisy", [str(TWO_D / "daisy" / "daisy_data" / "daisy.json")]),
        ("walrus", [str(TWO_D / "walrus" / "walrus_data" / "walrus.json")]),
        ("fox", [str(GLTF / "Fox.glb"), "--scale", "0.01", "--gravity", "9.81"]),
        ("rigged_simple", [str(GLTF / "RiggedSimple.glb")]),
        ("spot_surface", [str(surface_dir / "spot_ply.json")]),
    ]
    out = []
    for name, args in scenes:
        for solver in ("full", "fast"):
            out.append((f"{name}-{solver}", ["run", *args, "--solver", solver, "--frames", FRAMES, "--no-video"]))
    # RiggedFigure's Netgen fill keeps no free vertex for the fast solver's modes: full order there,
    # and both solvers on its voxel fill.
    out.append(("rigged_figure-full", ["run", str(GLTF / "RiggedFigure.glb"), "--frames", FRAMES, "--no-video"]))
    for solver in ("full", "fast"):
        out.append((f"rigged_figure-voxel-{solver}",
                    ["run", str(GLTF / "RiggedFigure.glb"), "--mesher", "voxel", "--solver", solver, "--frames",
                     FRAMES, "--no-video"]))
    out.append(("fox-fast-pca", ["run", str(GLTF / "Fox.glb"), "--scale", "0.01", "--solver", "fast",
                                 "--glb-encoding", "pca", "--frames", FRAMES, "--no-video"]))
    out.append(("daisy-wire-full",
                ["run", str(TWO_D / "daisy" / "daisy_data" / "daisy.json"), "--rig", "wire", "--frames", FRAMES,
                 "--no-video"]))
    out.append(("elephant-fast-mixed",
                ["run", str(CPP / "elephant" / "elephant.json"), "--solver", "fast", "--precision", "mixed",
                 "--frames", FRAMES, "--no-video"]))
    out.append(("elephant-rig-only", ["run", str(CPP / "elephant" / "elephant.json"), "--no-dynamics", "--frames",
                                      FRAMES, "--no-video"]))
    out.append(("tutorial", ["tutorial", "--no-video", "--no-sweep", "--steps", "40", "--bench-steps", "1"]))
    return out


# ------------------------------------------------------------------ baking

def bake(fastcd, name, args, out_root, cache_dir):
    """Runs one case into out_root/name; returns (seconds, error text or None)."""
    out = out_root / name
    if out.exists():
        shutil.rmtree(out)
    cmd = [str(fastcd), *args, "--out", str(out)]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cache_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        return seconds, f"exit {proc.returncode}: {proc.stdout.strip().splitlines()[-1:] }"
    return seconds, None


# ------------------------------------------------------------------ comparing

# run.json keys renamed since the before program (issue 34, "one vocabulary"): in a bake's
# "settings" (a character's, and the run's), old name -> new name. The before document is read under
# the new names, so each is compared by value.
RENAMED = {
    "model_requested": "material_requested",  # "material" everywhere; the releases' "model" is its alias
    "model_simulated": "material_simulated",
    "ym": "ym_normalised",  # the value the solvers took; "ym" is now Young's modulus as given, in Pa
}
# gltf.ym_pa (a glTF character's Young's modulus in Pa) moved to the character's settings.ym.
MOVED = {("gltf", "ym_pa"): ("settings", "ym")}
# Values whose meaning changed on purpose: listed as intended, with the reason, never counted.
PHYSICAL_LAYOUTS = ("gltf", "surface", "skinned")
INTENDED = {
    "settings.ym": "Young's modulus in Pa as given in every run.json; before, glTF characters and plain surfaces "
                   "recorded the normalised value, which is now settings.ym_normalised",
}


def migrate(before, after, where="run.json"):
    """Rewrites the before run.json under the new names (RENAMED, MOVED); returns the intended
    changes (INTENDED) it finds between the two, each named."""
    notes = []
    if isinstance(before, dict) and isinstance(after, dict):
        s = before.get("settings")
        if isinstance(s, dict) and ("model_requested" in s or "model_simulated" in s):  # a bake's settings
            for old, new in RENAMED.items():
                if old in s:
                    s[new] = s.pop(old)
            if "ym_normalised" in s:
                given = s["ym_normalised"]  # a release scene's YM: as given, and what the solvers took
                g = before.get("gltf")
                if isinstance(g, dict) and "ym_pa" in g:
                    given = g.pop("ym_pa")  # MOVED: compared by value with the new settings.ym
                new_ym = (after.get("settings") or {}).get("ym")
                if before.get("layout") in PHYSICAL_LAYOUTS and new_ym is not None and new_ym != s["ym_normalised"]:
                    notes.append(f"{where}.settings.ym: {s['ym_normalised']!r} -> {new_ym!r} (intended: "
                                 f"{INTENDED['settings.ym']})")
                    if before.get("layout") != "gltf":  # no Pa value before to compare with
                        given = new_ym
                s["ym"] = given
        for k in before:
            if k in after:
                notes += migrate(before[k], after[k], f"{where}.{k}")
    elif isinstance(before, list) and isinstance(after, list):
        for i, (x, y) in enumerate(zip(before, after)):
            notes += migrate(x, y, f"{where}[{i}]")
    return notes


# run.json: what may differ between two programs computing the same thing.
VOLATILE = ("seconds", "_s", "ms", "time", "profile", "memory", "bytes", "version", "commit", "path", "out",
            "date", "threads", "host", "command")


def volatile(key):
    k = key.lower()
    return any(v in k for v in VOLATILE)


def compare_json(a, b, where="run.json"):
    """Differences between two run.json documents outside timings, memory and paths."""
    diffs = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if volatile(k):
                continue
            if k not in b:
                diffs.append(f"{where}.{k}: lost (only in before)")
                continue
            if k not in a:
                continue  # a key the new program adds (listed by added_keys), not a changed result
            diffs += compare_json(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{where}: {len(a)} vs {len(b)} entries")
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                diffs += compare_json(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
            diffs.append(f"{where}: {a!r} vs {b!r}")
        elif not (a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or
                  ("residual" in where and max(abs(a), abs(b)) <= 1e-12)):
            # A relative residual below 1e-12 is rounding: a sum in another order changes it.
            diffs.append(f"{where}: {a!r} vs {b!r}")
    elif a != b:
        diffs.append(f"{where}: {a!r} vs {b!r}")
    return diffs


def obj_numbers(path):
    """The OBJ's text with every 'v' / 'vn' number taken out: (skeleton lines, float64 array)."""
    skel, nums = [], []
    with open(path, "r", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            t = line.split()
            if t and t[0] in ("v", "vn"):
                skel.append(t[0] + f" {len(t) - 1}")
                nums += [float(x) for x in t[1:]]
            else:
                skel.append(line.rstrip("\n"))
    return skel, np.array(nums, dtype=np.float64)


def float32_payload(path):
    """(header bytes, float32 array) of a PC2 (32-byte header) or MDD (big-endian) point cache."""
    data = Path(path).read_bytes()
    if path.suffix == ".pc2":
        return data[:32], np.frombuffer(data[32:], dtype="<f4")
    if path.suffix == ".mdd":
        frames, points = struct.unpack(">ii", data[:8])
        head = 8 + 4 * frames
        return data[:head], np.frombuffer(data[head:], dtype=">f4")
    raise ValueError(path)


def glb_chunks(path):
    """(JSON document, BIN chunk bytes) of a .glb."""
    data = Path(path).read_bytes()
    jlen = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[20:20 + jlen])
    rest = data[20 + jlen:]
    binary = rest[8:] if len(rest) >= 8 else b""
    return doc, binary


def within(a, b, size, float32):
    """True when every |a - b| is at most 1e-12 of size (plus one float32 rounding step)."""
    if a.shape != b.shape:
        return False, f"{a.size} vs {b.size} numbers"
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        same_nan = np.array_equal(np.isnan(a), np.isnan(b))
        if not same_nan:
            return False, "non-finite values differ"
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    allowed = TOLERANCE * size
    if float32:
        allowed = allowed + np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(np.float32)).astype(np.float64)
    worst = float(np.max(d / size)) if d.size else 0.0
    ok = bool(np.all(d <= allowed))
    return ok, f"largest change {worst:.3g} of the model's size"


def model_size(folder):
    """The largest side of the bounding box of the bake's rest surface (or first frame)."""
    for cand in [folder / "rest.obj", *sorted((folder / "obj").glob("*.obj"))[:1]]:
        if cand.exists():
            v = []
            with open(cand, encoding="utf-8", errors="surrogateescape") as f:
                for line in f:
                    t = line.split()
                    if t and t[0] == "v":
                        v.append([float(x) for x in t[1:4]])
            if v:
                v = np.array(v)
                return float(np.max(v.max(axis=0) - v.min(axis=0)))
    for npy in sorted(folder.glob("states_*.npy")):
        x = np.load(npy)
        return float(np.max(x[0].max(axis=0) - x[0].min(axis=0)))
    return 1.0


def compare_file(a, b, size):
    """('identical' | 'within' | 'different', detail) for one output file."""
    if a.read_bytes() == b.read_bytes():
        return "identical", ""
    suffix = a.suffix.lower()
    try:
        if suffix == ".obj":
            sa, na = obj_numbers(a)
            sb, nb = obj_numbers(b)
            if sa != sb:
                return "different", "the text besides the coordinates differs"
            ok, detail = within(na, nb, size, False)
        elif suffix in (".pc2", ".mdd"):
            ha, na = float32_payload(a)
            hb, nb = float32_payload(b)
            if ha != hb:
                return "different", "the header differs"
            ok, detail = within(na, nb, size, True)
        elif suffix == ".npy":
            xa, xb = np.load(a), np.load(b)
            if xa.dtype != xb.dtype:
                return "different", f"{xa.dtype} vs {xb.dtype}"
            ok, detail = within(xa.ravel(), xb.ravel(), size, xa.dtype == np.float32)
        elif suffix == ".glb":
            da, ba = glb_chunks(a)
            db, bb = glb_chunks(b)
            if len(ba) != len(bb):
                return "different", "the binary chunk's size differs"
            diffs = compare_json(da, db, a.name)
            if diffs:
                return "different", diffs[0]
            fa = np.frombuffer(ba[: len(ba) // 4 * 4], dtype="<f4")
            fb = np.frombuffer(bb[: len(bb) // 4 * 4], dtype="<f4")
            ok, detail = within(fa, fb, size, True)
        elif suffix == ".json" and a.name == "run.json":
            ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
            intended = migrate(ja, jb)
            diffs = compare_json(ja, jb)
            if diffs:
                return "different", "; ".join(diffs[:3])
            added = sorted(set(jb) - set(ja))
            detail = [f"keys added: {', '.join(added)}"] if added else []
            # Each intended change once (a single scene's top level repeats its character's record).
            detail += sorted({"settings.ym: " + n.split(": ", 1)[1] for n in intended})
            return "identical", ("; ".join(detail) if detail else "timings aside")
        elif a.name == ".fastcd-output":
            return ("identical", "") if json.loads(a.read_text()) == json.loads(b.read_text()) else (
                "different", "lists other files")
        else:
            return "different", "the bytes differ"
    except Exception as e:  # a malformed file on one side
        return "different", f"cannot compare: {e}"
    return ("within", detail) if ok else ("different", detail)


SKIP = {"preview.mp4", "timing.png", "clusters.png", "summary.json"}


def compare_folder(before, after):
    """(verdict, lines) for two bakes of one case."""
    fa = sorted(p.relative_to(before) for p in before.rglob("*") if p.is_file())
    fb = sorted(p.relative_to(after) for p in after.rglob("*") if p.is_file())
    lines = []
    verdict = "identical"
    if fa != fb:
        only_a = sorted(set(fa) - set(fb))
        only_b = sorted(set(fb) - set(fa))
        lines.append(f"files differ: only before {[str(p) for p in only_a[:5]]}, only after "
                     f"{[str(p) for p in only_b[:5]]}")
        verdict = "different"
    size = model_size(before)
    worst = {}
    for rel in sorted(set(fa) & set(fb)):
        if rel.name in SKIP:
            continue
        v, detail = compare_file(before / rel, after / rel, size)
        if v == "different":
            verdict = "different"
            lines.append(f"{rel}: {detail}")
        elif rel.name == "run.json" and detail != "timings aside":
            lines.append(f"{rel}: {detail}")
        elif v == "within":
            if verdict == "identical":
                verdict = "within"
            worst[str(rel.parent) if rel.parent != Path(".") else str(rel)] = detail
    for where, detail in list(worst.items())[:3]:
        lines.append(f"{where}: {detail}")
    return verdict, lines


# ------------------------------------------------------------------ self-test

def self_test():
    """Checks the comparison itself on made-up bakes: a copy is identical, a change of 1e-13 of
    the size is within, one of 1e-9 is different, as are a missing file and another vertex count."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "a"
        (base / "obj").mkdir(parents=True)
        rng = np.random.default_rng(1)
        V = rng.uniform(-2.0, 2.0, (50, 3))  # size ~4

        def write(folder, V, extra=""):
            (folder / "obj").mkdir(parents=True, exist_ok=True)
            text = "# t\n" + "".join(f"v {x!r} {y!r} {z!r}\n" for x, y, z in V) + "f 1 2 3\n" + extra
            (folder / "rest.obj").write_text(text)
            (folder / "obj" / "frame_00001.obj").write_text(text)
            pc2 = struct.pack("<12siiffi", b"POINTCACHE2\0", 1, len(V), 0.0, 1.0, 1) + V.astype("<f4").tobytes()
            (folder / "animation.pc2").write_bytes(pc2)
            np.save(folder / "states.npy", V)
            (folder / "run.json").write_text(json.dumps({"frames": 1, "step_ms": 1.0 + rng.uniform()}))

        write(base, V)
        size = float(np.max(V.max(0) - V.min(0)))
        checks = []
        for label, W, extra, expect in (("copy", V, "", "identical"),
                                        ("rounding", V * (1 + 1e-13) + 1e-14 * size, "", "within"),
                                        ("change", V + 1e-9 * size, "", "different"),
                                        ("text", V, "g extra\n", "different"),
                                        ("count", V[:-1], "", "different")):
            other = Path(tmp) / label
            write(other, W, extra)
            verdict, lines = compare_folder(base, other)
            checks.append((label, verdict, expect))
        # Renamed keys compare by value; a changed meaning is intended only where it is named.
        def settings_json(folder, settings, layout):
            doc = {"frames": 1, "layout": layout, "settings": settings, "gltf": None}
            (folder / "run.json").write_text(json.dumps(dict(doc, characters=[doc])))

        old = {"ym": 40.0, "pr": 0.45, "model_requested": "arap", "model_simulated": "arap"}
        for label, layout, ym, expect in (("renamed", "cpp-3d", 40.0, "identical"),
                                          ("unit", "surface", 2e4, "identical"),
                                          ("ym-change", "cpp-3d", 41.0, "different")):
            for folder, settings in ((Path(tmp) / f"{label}-a", old),
                                     (Path(tmp) / f"{label}-b",
                                      {"ym": ym, "ym_normalised": 40.0, "pr": 0.45, "material_requested": "arap",
                                       "material_simulated": "arap"})):
                write(folder, V)
                settings_json(folder, dict(settings), layout)
            verdict, lines = compare_folder(Path(tmp) / f"{label}-a", Path(tmp) / f"{label}-b")
            if label == "unit" and not any("intended" in line for line in lines):
                verdict = "unnamed"
            checks.append((label, verdict, expect))
        other = Path(tmp) / "missing"
        write(other, V)
        (other / "animation.pc2").unlink()
        checks.append(("missing", compare_folder(base, other)[0], "different"))
        bad = [c for c in checks if c[1] != c[2]]
        for label, got, expect in checks:
            print(f"self-test {label:9s} {got:9s} (expected {expect})")
        return 1 if bad else 0


# ------------------------------------------------------------------ driver

def build_revision(rev, work):
    """Builds the fastcd CLI of git revision rev in a worktree under work; returns its path."""
    tree = work / f"rev-{rev}"
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True)
    subprocess.run(["cmake", "-S", str(tree), "-B", str(tree / "build"), "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DFASTCD_BUILD_TESTS=OFF", "-DFASTCD_BUILD_BENCH=OFF",
                    "-DFASTCD_BUILD_PYTHON=OFF", "-DFASTCD_BUILD_EXAMPLES=OFF"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(tree / "build"), "--target", "fastcd"], check=True)
    return tree / "build" / "bin" / "fastcd"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="the old fastcd program")
    ap.add_argument("--before-rev", help="a git revision whose fastcd program is built and used as --before")
    ap.add_argument("--after", type=Path, default=ROOT / "build" / "bin" / "fastcd", help="the new fastcd program")
    ap.add_argument("--work", type=Path, help="where the bakes go (default: a temporary folder, removed)")
    ap.add_argument("--only", help="run only the cases whose name contains this text")
    ap.add_argument("--keep", action="store_true", help="keep the bakes")
    ap.add_argument("--self-test", action="store_true", help="check the comparison on made-up bakes and exit")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.before and not args.before_rev:
        ap.error("give --before PROGRAM or --before-rev REVISION")

    work = args.work or Path(tempfile.mkdtemp(prefix="fastcd-compare-"))
    work.mkdir(parents=True, exist_ok=True)
    before_prog = (args.before or build_revision(args.before_rev, work)).resolve()
    args.after = args.after.resolve()
    for prog in (before_prog, args.after):
        if not Path(prog).is_file():
            sys.exit(f"compare_bakes: no fastcd program at {prog}")

    surface = work / "surface"
    subprocess.run([sys.executable, str(ROOT / "tests" / "cli" / "make_surface_scene.py"),
                    str(SHARED / "data" / "keenan-crane" / "spot_triangulated.obj"), str(surface)], check=True,
                   stdout=subprocess.DEVNULL)
    failures = 0
    results = []
    for name, argv in cases(surface):
        if args.only and args.only not in name:
            continue
        row = [name]
        outs = []
        for side, prog in (("before", before_prog), ("after", args.after)):
            out_root = work / side
            out_root.mkdir(exist_ok=True)
            cache = work / f"cwd-{side}"  # each side meshes and caches on its own
            cache.mkdir(exist_ok=True)
            secs, err = bake(prog, name, argv, out_root, cache)
            row.append(secs)
            outs.append((out_root / name, err))
        (a, ea), (b, eb) = outs
        if ea or eb:
            verdict = "identical" if (ea and eb and ea.split(":")[0] == eb.split(":")[0]) else "different"
            lines = [f"before: {ea or 'ok'}", f"after: {eb or 'ok'}"]
        else:
            verdict, lines = compare_folder(a, b)
        if verdict == "different":
            failures += 1
        label = {"identical": "identical", "within": "within 1e-12", "different": "DIFFERENT"}[verdict]
        print(f"{name:24s} {label:14s} before {row[1]:6.2f} s  after {row[2]:6.2f} s", flush=True)
        for line in lines:
            print(f"    {line}", flush=True)
        results.append((name, verdict, any("(intended:" in line for line in lines)))
    if not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    n_same = sum(v == "identical" for _, v, _ in results)
    n_within = sum(v == "within" for _, v, _ in results)
    n_intended = sum(intended for _, _, intended in results)
    print(f"{len(results)} cases: {n_same} identical, {n_within} within 1e-12 of the model's size, "
          f"{failures} different; {n_intended} with an intended, named change of meaning in run.json "
          f"({', '.join(INTENDED)}); renamed keys compared by value: "
          f"{', '.join(f'settings.{a} -> settings.{b}' for a, b in RENAMED.items())}, "
          f"{', '.join(f'{a[0]}.{a[1]} -> {b[0]}.{b[1]}' for a, b in MOVED.items())}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
