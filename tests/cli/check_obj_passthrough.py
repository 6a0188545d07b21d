#!/usr/bin/env python3
"""A bake keeps the user's render OBJ: rest.obj is the input file byte for byte, and every baked
frame is that file with new `v` positions (and unit `vn` normals turned with the mesh) — its
texture coordinates, faces, groups, smoothing groups and materials unchanged.

usage: check_obj_passthrough.py OUT_DIR INPUT_OBJ
"""
import math
import os
import sys


def main():
    out, src = sys.argv[1:3]
    problems = []
    with open(src, "rb") as f:
        original = f.read()
    with open(os.path.join(out, "rest.obj"), "rb") as f:
        if f.read() != original:
            problems.append("rest.obj differs from %s" % src)
    lines = original.decode().splitlines()
    frames = sorted(os.listdir(os.path.join(out, "obj")))
    for name in (frames[0], frames[len(frames) // 2], frames[-1]):
        with open(os.path.join(out, "obj", name)) as f:
            baked = f.read().splitlines()
        if len(baked) != len(lines):
            problems.append("%s has %d lines, the input %d" % (name, len(baked), len(lines)))
            continue
        moved = 0
        for k, (a, b) in enumerate(zip(lines, baked)):
            key = a.split()[0] if a.split() else ""
            if key == "v":
                if b.split()[0] != "v" or len(b.split()) != len(a.split()):
                    problems.append("%s line %d: %r is not a vertex like %r" % (name, k + 1, b, a))
                    break
                moved += any(abs(float(x) - float(y)) > 1e-9 for x, y in zip(a.split()[1:4], b.split()[1:4]))
            elif key == "vn":
                n = [float(x) for x in b.split()[1:4]]
                if b.split()[0] != "vn" or abs(math.sqrt(sum(x * x for x in n)) - 1) > 1e-9:
                    problems.append("%s line %d: %r is not a unit normal" % (name, k + 1, b))
                    break
            elif key == "mtllib":
                if b.split()[1:] != ["../" + t for t in a.split()[1:]]:
                    problems.append("%s line %d: %r does not point at the copied library" % (name, k + 1, b))
            elif a != b:
                problems.append("%s line %d changed: %r -> %r" % (name, k + 1, a, b))
                break
        print("%s: %d lines as the input, %d vertices moved" % (name, len(baked), moved))
    for m in problems:
        print("FAIL:", m)
    if problems:
        return 1
    print("OK: the bake keeps %s" % src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
