#!/usr/bin/env python3
"""Interrupts `fastcd run` with a signal in a chosen phase and checks that it stops at once and
leaves nothing behind.

usage: check_interrupt.py FASTCD SCENE OUT_DIR TRIGGER DELAY PHASE SIGNAL [extra CLI args...]

Once a stdout line starts with TRIGGER ("simulating: 25%", "loading", "precomputing"), SIGNAL
(INT or TERM) is sent DELAY seconds later. SCENE may be "grid:N", a generated daisy scene over
an N x N grid with automatic weights (scene_gen.py; slow to load and precompute for large N).
Checks: the exit code is 128 + signal, stderr is exactly one "fastcd: error: interrupted by
SIG... while PHASE..." line (warnings about the input aside), the process ended within the
limit after the signal (the measured time is printed), and no output folder, staging folder,
lock file or temporary file is left next to the output.
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scene_gen  # noqa: E402

EXIT_LIMIT_S = 2.0  # the CLI's watchdog ends the process 0.65 s after the signal at the latest


def main():
    if len(sys.argv) < 8:
        print(__doc__, file=sys.stderr)
        return 2
    exe, scene, out, trigger, delay, phase, signame = sys.argv[1:8]
    delay = float(delay)
    sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[signame]
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(parent, exist_ok=True)
    if scene.startswith("grid:"):
        shared = os.environ.get("FASTCD_SHARED_DIR", "")
        scene = scene_gen.grid_scene(shared, out + "-scene", int(scene[5:]))
    cmd = [exe, "run", scene, "--out", out, "--force"] + sys.argv[8:]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    sent_at = []
    deadline = time.time() + 240

    def send():
        p.send_signal(sig)
        sent_at.append(time.monotonic())

    for line in p.stdout:
        seen.append(line)
        if not sent_at and line.strip().startswith(trigger):
            if delay > 0:
                t = threading.Timer(delay, send)
                t.start()
                t.join()
            else:
                send()
        if time.time() > deadline:
            p.kill()
            break
    rc = p.wait()
    ended = time.monotonic()
    err = p.stderr.read()
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("warning: ")]
    problems = []
    if not sent_at:
        problems.append("never saw a line starting with %r on stdout" % trigger)
    exit_s = ended - sent_at[0] if sent_at else float("nan")
    if rc != 128 + sig:
        problems.append("exit code %d, expected %d" % (rc, 128 + sig))
    want = "fastcd: error: interrupted by SIG%s while %s" % (signame, phase)
    if len(lines) != 1 or not lines[0].startswith(want):
        problems.append("stderr is not one line starting with %r" % want)
    if sent_at and not exit_s < EXIT_LIMIT_S:
        problems.append("the process took %.2f s to end after the signal" % exit_s)
    if os.path.exists(out):
        problems.append("output folder %s exists" % out)
    base = os.path.basename(out)
    left = [d for d in os.listdir(parent)
            if d.startswith(base + ".") or d.startswith("." + base + ".") or ".tmp" in d]
    if left:
        problems.append("left behind next to the output: %s" % ", ".join(left))
    print("command:", " ".join(cmd))
    print("stdout (last lines):\n" + "".join(seen[-4:]), end="")
    print("exit code: %d, %.3f s after the signal" % (rc, exit_s))
    print("stderr:\n" + err, end="" if err.endswith("\n") or not err else "\n")
    for m in problems:
        print("FAIL:", m)
    shutil.rmtree(out + "-scene", ignore_errors=True)
    if problems:
        return 1
    print("OK: interrupted cleanly in %.3f s, nothing left behind" % exit_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
