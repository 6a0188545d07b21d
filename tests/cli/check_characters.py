"""`fastcd run` on a scene of several characters: every character baked into its own folder
exactly as its scene alone would be (same frames, bitwise), held on its last pose after its
clip ends, one combined real-time preview, one run.json; and the refusals (different dt, unknown
keys, duplicate names) are one clear line with a non-zero exit and nothing written.

    check_characters.py FASTCD_CLI SHARED_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def main(cli, shared, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(shared, "data", "complementary-dynamics-cpp")
    elephant = os.path.join(data, "elephant", "elephant.json")
    sphere = os.path.join(data, "sphere", "sphere.json")
    frog = os.path.join(data, "frog", "frog.json")
    zoo = os.path.join(work, "zoo.json")
    with open(zoo, "w") as f:
        json.dump({"characters": [
            {"scene": elephant},
            {"scene": elephant, "offset": [130, 0, 0], "frame_offset": 5},
            {"scene": sphere, "name": "ball", "offset": [-120, 40, 0], "solver": "full"}]}, f)
    frames = "40"
    r = run(cli, "run", zoo, "--solver", "fast", "--frames", frames, "--out", os.path.join(work, "zoo"))
    assert r.returncode == 0, r.stderr
    out = os.path.join(work, "zoo")
    rep = json.load(open(os.path.join(out, "run.json")))
    names = [c["name"] for c in rep["characters"]]
    assert names == ["elephant", "elephant-2", "ball"], names
    assert rep["frames"] == 40 and rep["vertices"] == 2 * 494 + 67, rep
    assert [c["solver"] for c in rep["characters"]] == ["fast", "fast", "full"]
    for c in rep["characters"]:
        d = os.path.join(out, c["folder"])
        objs = sorted(os.listdir(os.path.join(d, "obj")))
        assert len(objs) == 40, (c["name"], len(objs))
        assert os.path.getsize(os.path.join(d, "animation.pc2")) > 32
        assert c["max_constraint_residual_relative"] < 1e-8, c
    # The first elephant is exactly the elephant run alone.
    alone = os.path.join(work, "alone")
    r = run(cli, "run", elephant, "--solver", "fast", "--frames", frames, "--no-video", "--out", alone)
    assert r.returncode == 0, r.stderr
    for name in ("frame_00001.obj", "frame_00020.obj", "frame_00040.obj"):
        a = open(os.path.join(out, "elephant", "obj", name)).read()
        b = open(os.path.join(alone, "obj", name)).read()
        assert a == b, "the ensemble's elephant differs from the elephant alone at " + name
    # Its own animation: the offset elephant moves differently.
    assert open(os.path.join(out, "elephant-2", "obj", "frame_00020.obj")).read() != \
        open(os.path.join(out, "elephant", "obj", "frame_00020.obj")).read()
    # The sphere's clip is 30 frames: afterwards it holds its last pose (its rig does not move).
    prev = rep.get("preview")
    if prev is not None:
        assert prev["stride"] == 3 and prev["frames"] == 14, prev
        assert os.path.getsize(os.path.join(out, "preview.mp4")) > 1000
    # Refusals: one line, non-zero exit, no output folder.
    bad = [({"characters": [{"scene": elephant}, {"scene": frog}]}, "give their scenes the same dt"),
           ({"characters": [{"scene": elephant, "colour": 1}]}, "unknown key 'colour'"),
           ({"characters": [{"scene": elephant, "name": "a"}, {"scene": sphere, "name": "a"}]}, "two characters are named 'a'"),
           ({"characters": [{"scene": elephant, "offset": [1, 2]}]}, "\"offset\" has 2 numbers for a 3D scene"),
           ({"characters": []}, "non-empty list"),
           ({"characters": [{"scene": "missing.json"}]}, "character 0")]
    for k, (doc, message) in enumerate(bad):
        path = os.path.join(work, "bad%d.json" % k)
        with open(path, "w") as f:
            json.dump(doc, f)
        target = os.path.join(work, "bad%d" % k)
        r = run(cli, "run", path, "--frames", "3", "--no-video", "--material", "arap", "--out", target)
        lines = r.stderr.strip().splitlines()
        assert r.returncode != 0 and message in r.stderr, (doc, r.stderr)
        assert len([l for l in lines if l.startswith("fastcd: error")]) == 1, r.stderr
        assert not os.path.exists(target), target
    print("characters OK:", names)


if __name__ == "__main__":
    main(*sys.argv[1:4])
