#!/usr/bin/env python3
"""A full disk never ends in exit 0 with a broken bake: `fastcd run` (with its preview video)
writes into a tmpfs too small for the whole output, at sizes from a few percent of it to just
short of it (so every write fails somewhere: frames, the point cache, the preview from ffmpeg,
run.json last). Each run must either succeed with a complete bake, or fail with one error line
and leave nothing at all on the disk. Where mounting a tmpfs is not allowed (not root), the
same is done with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) so that writes fail with
EFBIG instead (FASTCD_TEST_NO_MOUNT=1 forces that).

usage: check_disk_full.py FASTCD SCENE SCRATCH [extra CLI args...]
"""
import json
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys


def du(root):
    total = 0
    for d, _, files in os.walk(root):
        for f in files:
            total += os.path.getsize(os.path.join(d, f))
    return total


def complete(out):
    """The bake is whole: run.json parses, the PC2's size matches its header, every frame OBJ
    ends with a newline, and ffprobe reads every frame of the preview."""
    try:
        names = set(os.listdir(out))
        frames = sorted(os.listdir(os.path.join(out, "obj")))
        with open(os.path.join(out, "run.json")) as f:
            report = json.load(f)
        with open(os.path.join(out, "animation.pc2"), "rb") as f:
            data = f.read()
        _, _, points, _, _, samples = struct.unpack("<12siiffi", data[:32])
        if len(data) != 32 + 12 * points * samples or samples != report["frames"] or len(frames) != samples:
            return False
        for name in frames:
            with open(os.path.join(out, "obj", name), "rb") as f:
                if not f.read().endswith(b"\n"):
                    return False
        if "preview.mp4" in names and shutil.which("ffprobe"):
            r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                "stream=nb_read_frames", "-of", "csv=p=0", os.path.join(out, "preview.mp4")],
                               capture_output=True, text=True)
            if r.returncode != 0 or r.stderr.strip() or int(r.stdout.strip() or 0) < 1:
                return False
    except (OSError, ValueError, KeyError, struct.error):
        return False
    return True


def main():
    exe, scene, scratch = sys.argv[1:4]
    extra = sys.argv[4:]
    scratch = os.path.abspath(scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    ref = os.path.join(scratch, "reference")
    cmd = [os.path.abspath(exe), "run", scene] + extra
    r = subprocess.run(cmd + ["--out", ref], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return 1
    if not complete(ref):
        print("the reference bake itself is incomplete:", os.listdir(ref))
        return 1
    total = du(ref)
    largest = max(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ref) for f in fs)
    mnt = os.path.join(scratch, "disk")
    os.makedirs(mnt)
    can_mount = os.geteuid() == 0 and not os.environ.get("FASTCD_TEST_NO_MOUNT") and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt], capture_output=True).returncode == 0
    if can_mount:
        subprocess.run(["umount", mnt], check=True)
    print("reference bake: %d bytes in all, largest file %d bytes; %s" %
          (total, largest, "tmpfs" if can_mount else "RLIMIT_FSIZE (cannot mount)"))
    problems = []
    fractions = (0.03, 0.2, 0.5, 0.8, 0.9, 0.95, 0.97, 0.99)
    for frac in fractions:
        limit = int((total if can_mount else largest) * frac)
        if can_mount:
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % max(limit, 4096), "tmpfs", mnt], check=True)
            pre = None
        else:
            def pre(lim=max(limit, 1)):
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (lim, lim))
        out = os.path.join(mnt, "bake")
        try:
            r = subprocess.run(cmd + ["--out", out], capture_output=True, text=True, timeout=300, preexec_fn=pre)
            errs = [l for l in r.stderr.splitlines() if l.startswith("fastcd: error:")]
            left = os.listdir(mnt)
            if r.returncode == 0:
                verdict = "complete" if complete(out) else "BROKEN BAKE WITH EXIT 0"
                if not complete(out):
                    problems.append("%.0f%%: exit 0 but the bake is incomplete" % (100 * frac))
            else:
                verdict = "failed cleanly" if (len(errs) == 1 and not left) else "FAILED UNCLEANLY"
                if len(errs) != 1:
                    problems.append("%.0f%%: %d error lines: %r" % (100 * frac, len(errs), r.stderr))
                if left:
                    problems.append("%.0f%%: left on the disk: %s" % (100 * frac, ", ".join(left)))
            print("%5.0f%% of the %s (%9d bytes): exit %d, %s  %s" %
                  (100 * frac, "output" if can_mount else "largest file", limit, r.returncode, verdict,
                   errs[0] if errs else ""))
        finally:
            if can_mount:
                subprocess.run(["umount", mnt], check=True)
            else:
                shutil.rmtree(out, ignore_errors=True)
    for m in problems:
        print("FAIL:", m)
    if problems:
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    print("OK: every run either completed or failed with one line and nothing left")
    return 0


if __name__ == "__main__":
    sys.exit(main())
