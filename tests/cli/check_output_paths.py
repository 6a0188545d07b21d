#!/usr/bin/env python3
"""`fastcd run --out` never loses data: a table of output paths, each run on a copy of the
sphere scene in a scratch folder, with every input hashed before and after.

usage: check_output_paths.py FASTCD SHARED_DIR SCRATCH

Rows: --out '.', the scene's own folder, a folder above it, a symlink to it, an existing file,
a non-empty folder that is not a bake (with --force), a trailing slash, an earlier bake (without
and with --force), a stale staging folder of a dead process, a run while another holds the
lock. Each row says whether the run must succeed, and which words its one error line holds.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(os.path.relpath(p, root).encode())
            if os.path.isfile(p):
                with open(p, "rb") as fh:
                    h.update(fh.read())
    return h.hexdigest()


def main():
    exe, shared, scratch = sys.argv[1:4]
    exe = os.path.abspath(exe)
    scratch = os.path.abspath(scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    src = os.path.join(shared, "data", "complementary-dynamics-cpp", "sphere")
    work = os.path.join(scratch, "work")
    inputs = os.path.join(work, "sphere")
    shutil.copytree(src, inputs)
    scene = os.path.join(inputs, "sphere.json")
    os.symlink(inputs, os.path.join(work, "link-to-inputs"))
    with open(os.path.join(work, "notes.txt"), "w") as f:
        f.write("a user's file\n")
    os.makedirs(os.path.join(work, "photos"))
    with open(os.path.join(work, "photos", "a.jpg"), "w") as f:
        f.write("not a bake\n")
    before = tree_hash(inputs)
    problems = []

    def run(out, *extra, cwd=work):
        cmd = [exe, "run", scene, "--out", out, "--no-video", "--frames", "4"] + list(extra)
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)

    def expect(name, r, ok, words=(), where=None):
        errs = [l for l in r.stderr.splitlines() if l.startswith("fastcd: error:")]
        good = (r.returncode == 0) == ok
        if not ok:
            good = good and len(errs) == 1 and all(w in errs[0] for w in words)
        if where is not None and ok:
            good = good and os.path.isfile(os.path.join(where, "run.json")) and \
                len(os.listdir(os.path.join(where, "obj"))) == 4
        print("%-44s %s  %s" % (name, "ok  " if good else "FAIL", (errs[0] if errs else "exit 0")))
        if not good:
            problems.append(name + ": " + r.stdout[-300:] + r.stderr)

    expect("--out . --force (in the scene's parent)", run(".", "--force"), False, ["--out '.'", "contains the input"])
    elsewhere = os.path.join(scratch, "elsewhere")
    os.makedirs(elsewhere)
    with open(os.path.join(elsewhere, "keep.txt"), "w") as f:
        f.write("keep\n")
    expect("--out . --force (in another folder)", run(".", "--force", cwd=elsewhere), False, ["current folder"])
    expect("--out .. --force (above the current folder)", run("..", "--force", cwd=elsewhere), False,
           ["contains the input"])
    expect("--out <scene folder> --force", run(inputs, "--force"), False, ["contains the input", "sphere.json"])
    expect("--out <folder above the scene> --force", run(work, "--force"), False, ["contains the input"])
    expect("--out <symlink to the scene folder>", run("link-to-inputs", "--force"), False, ["contains the input"])
    expect("--out <existing file>", run("notes.txt"), False, ["existing file"])
    expect("--out <non-empty folder, not a bake> --force", run("photos", "--force"), False, ["not a fastcd output"])
    expect("--out bake/ (trailing slash)", run("bake/"), True, where=os.path.join(work, "bake"))
    expect("--out bake (again, no --force)", run("bake"), False, ["not empty", "--force"])
    expect("--out bake --force (replaces the bake)", run("bake", "--force"), True, where=os.path.join(work, "bake"))
    # A killed run's staging folder (a pid that cannot be alive) is removed by the next run.
    stale = os.path.join(work, ".bake2.partial-999999999")
    os.makedirs(os.path.join(stale, "obj"))
    expect("--out bake2 (stale staging of a dead run)", run("bake2"), True, where=os.path.join(work, "bake2"))
    if os.path.exists(stale):
        problems.append("the stale staging folder was not removed")
    # Another run holds the lock on the target.
    lock = open(os.path.join(work, ".bake3.lock"), "w")
    lock.write("12345")
    lock.flush()
    fcntl.flock(lock, fcntl.LOCK_EX)
    expect("--out bake3 while another run holds it", run("bake3"), False, ["another fastcd run", "12345"])
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    expect("--out bake3 once it is free", run("bake3"), True, where=os.path.join(work, "bake3"))

    after = tree_hash(inputs)
    if after != before:
        problems.append("the scene's files changed")
    if not os.path.isfile(os.path.join(elsewhere, "keep.txt")):
        problems.append("the user's elsewhere/keep.txt is gone")
    for name in ("notes.txt", os.path.join("photos", "a.jpg")):
        if not os.path.isfile(os.path.join(work, name)):
            problems.append("the user's %s is gone" % name)
    left = [d for d in os.listdir(work) if d.startswith(".")]
    if left:
        problems.append("left next to the outputs: %s" % ", ".join(left))
    for m in problems:
        print("FAIL:", m)
    if problems:
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    print("OK: every output path behaves, the inputs are untouched")
    return 0


if __name__ == "__main__":
    sys.exit(main())
