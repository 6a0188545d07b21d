#!/usr/bin/env python3
"""Interrupts `fastcd run` with a signal and checks that nothing is left behind.

usage: check_interrupt.py FASTCD SCENE OUT_DIR PHASE SIGNAL [extra CLI args...]

PHASE is the progress label to wait for ("simulating" or "preview.mp4"): once the CLI reports
25 % of it on stdout, SIGNAL (INT or TERM) is sent. Checks: exit code 128 + signal, exactly one
"fastcd: error: interrupted by SIG... while PHASE ..." line on stderr, no output folder, no
staging folder and no temporary file next to it.
"""
import os
import shutil
import signal
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    exe, scene, out, phase, signame = sys.argv[1:6]
    sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[signame]
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(parent, exist_ok=True)
    cmd = [exe, "run", scene, "--out", out, "--force"] + sys.argv[6:]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    sent = False
    deadline = time.time() + 240
    for line in p.stdout:
        seen.append(line)
        if not sent and line.strip() == "%s: 25%%" % phase:
            p.send_signal(sig)
            sent = True
        if time.time() > deadline:
            p.kill()
            break
    rc = p.wait()
    err = p.stderr.read()
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if not sent:
        problems.append("never saw '%s: 25%%' on stdout" % phase)
    if rc != 128 + sig:
        problems.append("exit code %d, expected %d" % (rc, 128 + sig))
    want = "fastcd: error: interrupted by SIG%s while %s " % (signame, phase)
    if len(lines) != 1 or not lines[0].startswith(want):
        problems.append("stderr is not one line starting with %r" % want)
    if os.path.exists(out):
        problems.append("output folder %s exists" % out)
    left = [d for d in os.listdir(parent) if d.startswith(os.path.basename(out) + ".") or ".tmp" in d]
    if left:
        problems.append("left behind next to the output: %s" % ", ".join(left))
    print("command:", " ".join(cmd))
    print("stdout (last lines):\n" + "".join(seen[-4:]), end="")
    print("exit code:", rc)
    print("stderr:\n" + err, end="" if err.endswith("\n") or not err else "\n")
    for m in problems:
        print("FAIL:", m)
    if problems:
        return 1
    print("OK: interrupted cleanly, nothing left behind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
