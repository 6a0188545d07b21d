#!/usr/bin/env python3
"""fastcd writes only where it was asked and deletes only what it wrote (issue 39, items 3, 5, 6, 7):
the probe's cases, each run in a scratch folder and checked on disk.

usage: check_trust_outputs.py FASTCD SHARED_DIR SCRATCH

- --force replaces only a folder whose .fastcd-output marker lists everything in it: a folder with
  run.json beside a thesis, a bake with a user's file added, an unreadable marker and a bake without
  the marker (an older fastcd) are refused and left as they were; `fastcd tutorial` follows the
  same rules instead of writing into any folder;
- `fastcd view --screenshot` onto a (private, mknod) device node or a FIFO is refused, the node kept;
- the output being replaced when a run was killed between the commit's two renames is restored by
  the next run, not deleted; the target is locked before it is judged, and judged again at the
  commit (a file put there during the bake is not deleted, and the bake is kept beside it);
- --out on a mount point (tmpfs, or a bind mount of the same file system) is refused before any
  work; a glTF whose mesh is instanced by two skinned nodes is refused before the simulation; a
  node name or a file name too long for a file name with a suffix still bakes.

Cases that need root (mknod, mount) say "skipped" where they cannot run.
"""
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_output_paths import tree_hash  # noqa: E402

MARKER = ".fastcd-output"
problems = []


def report(name, good, detail=""):
    print("%-62s %s  %s" % (name, "ok  " if good else "FAIL", detail))
    if not good:
        problems.append(name)


def error_line(r):
    errs = [l for l in r.stderr.splitlines() if l.startswith("fastcd: error:")]
    return errs[0] if len(errs) == 1 else None


def refused(name, r, words, untouched=None, before=None, not_in_stdout=()):
    err = error_line(r)
    good = r.returncode != 0 and err is not None and all(w in err for w in words)
    good = good and not any(w in r.stdout for w in not_in_stdout)
    if untouched is not None:
        good = good and tree_hash(untouched) == before
    report(name, good, err or ("exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-400:])))


def marked(folder):
    """The folder's marker lists exactly what is in it."""
    try:
        with open(os.path.join(folder, MARKER)) as f:
            listed = set(json.load(f)["entries"])
    except (OSError, ValueError, KeyError):
        return False
    there = set()
    for d, dirs, files in os.walk(folder):
        for n in dirs + files:
            rel = os.path.relpath(os.path.join(d, n), folder)
            if rel != MARKER:
                there.add(rel)
    return listed == there and ("run.json" in listed or "summary.json" in listed)


def glb_json(path):
    data = open(path, "rb").read()
    n = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[20:20 + n]), data[20 + n:]


def write_glb(path, doc, rest):
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    body = struct.pack("<I", len(js)) + b"JSON" + js + rest
    open(path, "wb").write(b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body)


def can_mount(path):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", path], capture_output=True)
    return r.returncode == 0


def main():
    exe, shared, scratch = sys.argv[1:4]
    exe = os.path.abspath(exe)
    scratch = os.path.abspath(scratch)
    for d, _, _ in os.walk(scratch) if os.path.isdir(scratch) else []:
        if os.path.ismount(d):
            subprocess.run(["umount", d])
    shutil.rmtree(scratch, ignore_errors=True)
    work = os.path.join(scratch, "work")
    sphere = os.path.join(work, "sphere")
    shutil.copytree(os.path.join(shared, "data", "complementary-dynamics-cpp", "sphere"), sphere)
    scene = os.path.join(sphere, "sphere.json")
    riggedsimple = os.path.join(shared, "data", "khronos-gltf", "RiggedSimple.glb")

    def run(out, *extra, scene=scene, frames="3"):
        cmd = [exe, "run", scene, "--out", out, "--no-video", "--frames", frames] + list(extra)
        return subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)

    def at(*p):
        return os.path.join(work, *p)

    # ---- 3: --force replaces only what fastcd's marker proves it wrote -----------------------
    os.makedirs(at("thesis", "data"))
    for name, text in (("run.json", "{}\n"), ("thesis.tex", "\\chapter{One}\n"), ("data/x.csv", "1,2\n")):
        with open(at("thesis", name), "w") as f:
            f.write(text)
    before = tree_hash(at("thesis"))
    refused("run.json beside a thesis, --force", run("thesis", "--force"), ["no .fastcd-output marker", "yourself"],
            at("thesis"), before)

    r = run("bake")
    report("a new bake carries its marker", r.returncode == 0 and marked(at("bake")), error_line(r) or "")
    with open(at("bake", "notes.txt"), "w") as f:
        f.write("mine\n")
    with open(at("bake", "obj", "mine.obj"), "w") as f:
        f.write("v 0 0 0\n")
    os.makedirs(at("bake", "photos"))
    before = tree_hash(at("bake"))
    refused("a bake with a user's files added, --force", run("bake", "--force"),
            ["did not write", "notes.txt", "obj/mine.obj", "photos/"], at("bake"), before)
    for p in ("notes.txt", os.path.join("obj", "mine.obj")):
        if os.path.exists(at("bake", p)):
            os.remove(at("bake", p))
    shutil.rmtree(at("bake", "photos"), ignore_errors=True)
    refused("an earlier bake, no --force", run("bake"), ["not empty", "earlier bake", "--force"])
    r = run("bake", "--force", frames="4")
    report("an earlier bake, --force: replaced", r.returncode == 0 and marked(at("bake")) and
           len(os.listdir(at("bake", "obj"))) == 4, error_line(r) or "")
    with open(at("bake", MARKER), "w") as f:
        f.write("not json")
    before = tree_hash(at("bake"))
    refused("an unreadable marker, --force", run("bake", "--force"), ["cannot read", "yourself"], at("bake"), before)

    # A bake of an older fastcd (no marker): refused, the user deletes it.
    os.makedirs(at("older", "obj"))
    for name, text in (("run.json", "{}\n"), ("obj/frame_00001.obj", "v 0 0 0\n")):
        with open(at("older", name), "w") as f:
            f.write(text)
    before = tree_hash(at("older"))
    refused("a bake without a marker (older fastcd), --force", run("older", "--force"),
            ["no .fastcd-output marker", "delete it yourself"], at("older"), before)

    # The tutorial: staged, marked, and never written into a user's folder.
    def tutorial(out, *extra):
        return subprocess.run([exe, "tutorial", "--out", out, "--no-sweep", "--no-video", "--steps", "3"] + list(extra),
                              cwd=work, capture_output=True, text=True, timeout=300)

    os.makedirs(at("media"))
    with open(at("media", "summary.json"), "w") as f:
        f.write("my summary\n")
    before = tree_hash(at("media"))
    refused("tutorial into a user's folder with summary.json", tutorial("media"),
            ["not a fastcd output"], at("media"), before)
    r = tutorial("tut")
    report("tutorial into a new folder: marked", r.returncode == 0 and marked(at("tut")), error_line(r) or "")
    refused("tutorial again, no --force", tutorial("tut"), ["earlier bake", "--force"])
    r = tutorial("tut", "--force")
    report("tutorial again, --force", r.returncode == 0 and marked(at("tut")), error_line(r) or "")

    # ---- 5: an output that is a device node or a FIFO is refused, never replaced --------------
    nodes = at("nodes")
    os.makedirs(nodes)
    os.mkfifo(os.path.join(nodes, "pipe.png"))
    # A build without the viewer (FASTCD_BUILD_VIEWER=OFF, as scripts/sanitize.sh builds) still
    # lists the verb, as "the interactive viewer (not in this build)".
    view_help = subprocess.run([exe, "view", "--help"], capture_output=True, text=True)
    has_view = view_help.returncode == 0 and "not in this build" not in view_help.stdout
    if not has_view:
        print("(this fastcd is built without the viewer: the view --screenshot cases are skipped)")
    try:
        os.mknod(os.path.join(nodes, "null.png"), 0o666 | 0o020000, os.makedev(1, 3))
        have_null = True
    except PermissionError:
        have_null = False
        print("(mknod needs root: the device-node case is skipped)")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    for name, kind in (("null.png", "a character device"), ("pipe.png", "a FIFO")):
        target = os.path.join(nodes, name)
        if not os.path.exists(target) or not has_view:
            continue
        mode = os.lstat(target).st_mode
        r = subprocess.run([exe, "view", scene, "--screenshot", target, "--size", "64x48"], capture_output=True,
                           text=True, env=env, timeout=300)
        err = error_line(r)
        good = r.returncode != 0 and err is not None and kind in err and "--screenshot" not in r.stdout
        good = good and os.lstat(target).st_mode == mode and "frame" not in r.stdout
        report("view --screenshot onto %s" % kind, good, err or "exit %d" % r.returncode)
    left = sorted(os.listdir(nodes))
    report("nothing written beside the nodes", left == (["null.png", "pipe.png"] if have_null else ["pipe.png"]),
           str(left))

    # ---- 6: the lock before the check; a kill between the commit's renames ---------------------
    r = run("crash")
    before = tree_hash(at("crash"))
    dead = subprocess.Popen(["true"])
    dead.wait()
    os.rename(at("crash"), at(".crash.old-%d" % dead.pid))
    os.makedirs(at(".crash.partial-%d" % dead.pid, "obj"))
    r = run("crash")
    good = r.returncode != 0 and "earlier bake" in (error_line(r) or "") and os.path.isdir(at("crash")) and \
        tree_hash(at("crash")) == before and "restored" in r.stdout
    report("killed between the renames: the old bake is restored", good, error_line(r) or "exit %d" % r.returncode)
    hidden = [n for n in os.listdir(work) if n.startswith(".crash")]
    report("... and no staging or old folder is left", not hidden, str(hidden))
    # Killed after the second rename: the new bake is there, the old marked one is removed; a
    # hidden folder of that name that is not a marked bake is left alone.
    shutil.copytree(at("crash"), at(".crash.old-%d" % dead.pid))
    os.makedirs(at(".crash.old-1%d" % dead.pid))
    open(at(".crash.old-1%d" % dead.pid, "mine.txt"), "w").write("not a bake\n")
    r = run("crash", "--force")
    report("killed after the renames: the old bake removed, a lookalike kept",
           r.returncode == 0 and not os.path.exists(at(".crash.old-%d" % dead.pid)) and
           os.path.isfile(at(".crash.old-1%d" % dead.pid, "mine.txt")), error_line(r) or "")
    shutil.rmtree(at(".crash.old-1%d" % dead.pid), ignore_errors=True)

    # Another run holds the lock: this run says so, whatever is in the folder (judged after locking).
    lock = open(at(".bake.lock"), "w")
    lock.write("4242")
    lock.flush()
    fcntl.flock(lock, fcntl.LOCK_EX)
    refused("an earlier bake while another run holds the lock", run("bake"), ["another fastcd run", "4242"])
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    os.remove(at(".bake.lock"))

    # A file put into the target during the bake: the commit refuses, keeps both.
    os.makedirs(at("during"))
    # (Slow steps, and the run stopped while the file is put there: the commit is seconds away.)
    p = subprocess.Popen([exe, "run", scene, "--out", "during", "--no-video", "--frames", "3", "--iterations",
                          "20000"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stopped = False
    for line in p.stdout:
        if line.strip().startswith("simulating:"):
            p.send_signal(signal.SIGSTOP)
            stopped = True
            break
    with open(at("during", "late.txt"), "w") as f:
        f.write("arrived during the bake\n")
    if stopped:
        p.send_signal(signal.SIGCONT)
    out, err = p.communicate(timeout=300)
    kept = [n for n in os.listdir(work) if n.startswith("during.new-")]
    errs = [l for l in err.splitlines() if l.startswith("fastcd: error:")]
    good = stopped and p.returncode != 0 and len(errs) == 1 and "late.txt" in errs[0] and \
        os.listdir(at("during")) == ["late.txt"] and len(kept) == 1 and \
        os.path.isfile(at(kept[0], "run.json"))
    report("a file put into the target during the bake is kept", good, errs[0] if errs else "exit %d" % p.returncode)

    # ---- 7: what can be checked before the work ------------------------------------------------
    vol = at("vol")
    if can_mount(vol):
        try:
            before = tree_hash(vol)
            refused("--out on a tmpfs mount point (an empty volume)", run(vol), ["mount point", "inside it"], vol, before,
                    not_in_stdout=["loading", "precomputing"])
            os.makedirs(at("bind-src"))
            os.makedirs(at("bind"))
            subprocess.run(["mount", "--bind", at("bind-src"), at("bind")], check=True)
            try:
                refused("--out on a bind mount of the same file system", run("bind"), ["mount point"],
                        not_in_stdout=["loading"])
            finally:
                subprocess.run(["umount", at("bind")])
            os.makedirs(at("ro"))
            subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", at("ro")], check=True)
            try:
                refused("--out in a read-only folder", run(os.path.join("ro", "bake")), ["cannot", "ro"],
                        not_in_stdout=["loading"])
            finally:
                subprocess.run(["umount", at("ro")])
        finally:
            subprocess.run(["umount", vol])
    else:
        print("(mount needs root: the mount-point cases are skipped)")

    doc, rest = glb_json(riggedsimple)
    twin = json.loads(json.dumps(doc))
    twin["nodes"].append({"mesh": 0, "skin": 0, "name": "twin"})
    twin["nodes"][1]["children"].append(len(twin["nodes"]) - 1)
    write_glb(at("twin.glb"), twin, rest)
    refused("a mesh instanced by two skinned nodes: refused before simulating",
            run("twin-out", "--no-cache", scene=at("twin.glb"), frames="5"),
            ["used by 2 nodes", "nothing was simulated"], not_in_stdout=["precomputing", "simulating"])
    report("... and nothing is left", not os.path.exists(at("twin-out")))

    long_name = "limb_" + "x" * 295
    named = json.loads(json.dumps(doc))
    named["meshes"].append(json.loads(json.dumps(named["meshes"][0])))
    named["nodes"].append({"mesh": 1, "skin": 0, "name": long_name})
    named["nodes"][1]["children"].append(len(named["nodes"]) - 1)
    write_glb(at("named.glb"), named, rest)
    r = run("named-out", "--no-cache", scene=at("named.glb"), frames="5")
    files = os.listdir(at("named-out")) if r.returncode == 0 else []
    short = [f for f in files if f.startswith("rest_space_limb_") and f.endswith(".pc2")]
    report("a node name of 300 characters: a shortened cache name", r.returncode == 0 and len(short) == 1 and
           len(short[0]) < 200, error_line(r) or str(short))

    stem = "R" * 251  # <stem>.glb is 255 bytes: the longest file name, no room for a temporary suffix
    shutil.copy(riggedsimple, at(stem + ".glb"))
    r = run("long-out", "--no-cache", scene=at(stem + ".glb"), frames="5")
    report("a 255-byte file name bakes", r.returncode == 0 and os.path.isfile(at("long-out", stem + ".glb")),
           error_line(r) or "")

    left = [n for n in os.listdir(work) if n.startswith(".") and n != ".fastcd-cache"]
    report("no hidden folder, lock or temporary file left", not left, str(left))
    for m in problems:
        print("FAIL:", m)
    if problems:
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    print("OK: fastcd writes only where it was asked and deletes only what it wrote")
    return 0


if __name__ == "__main__":
    sys.exit(main())
