#!/usr/bin/env python3
"""Runs `fastcd run <scene> --out <dir> [extra args]` on a malformed scene and checks the CLI's
error contract: a non-zero exit code, exactly one line on stderr of the form
"fastcd: error: ..." containing the expected fragment, and no output folder left behind.

usage: check_cli_error.py FASTCD SCENE OUT_DIR FRAGMENT [extra CLI args...]
"""
import os
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    exe, scene, out, fragment = sys.argv[1:5]
    extra = sys.argv[5:]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    cmd = [exe, "run", scene, "--out", out, "--no-video"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    problems = []
    if p.returncode == 0:
        problems.append("exit code 0, expected non-zero")
    if len(lines) != 1:
        problems.append("%d lines on stderr, expected exactly 1" % len(lines))
    elif not lines[0].startswith("fastcd: error: "):
        problems.append("stderr line does not start with 'fastcd: error: '")
    if fragment not in p.stderr:
        problems.append("stderr does not contain %r" % fragment)
    if os.path.exists(out):
        problems.append("output folder %s was left behind" % out)
    parent = os.path.dirname(os.path.abspath(out))
    leftovers = [d for d in (os.listdir(parent) if os.path.isdir(parent) else [])
                 if d.startswith(os.path.basename(out) + ".partial-")]
    if leftovers:
        problems.append("staging folder(s) left behind: %s" % ", ".join(leftovers))
    print("command:", " ".join(cmd))
    print("exit code:", p.returncode)
    print("stderr:\n" + p.stderr, end="" if p.stderr.endswith("\n") else "\n")
    if problems:
        for m in problems:
            print("FAIL:", m)
        return 1
    print("OK: one error line, non-zero exit, no output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
