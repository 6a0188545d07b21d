#!/usr/bin/env python3
"""A bake reads and copies only what the user named: every reference inside an input file (a glTF
buffer or image URI, an OBJ's mtllib, a material library's texture maps) is followed only to a
regular file inside the input's own folder, symbolic links resolved first, and never copied onto
a file the bake writes itself. Anything else is left out with a warning naming it, and the output
refers to nothing that was left out. Probe cases of issue 39 (1, 2, 10), run through the real CLI:

- glTF image URIs `../../../../etc/passwd`, `%2e%2e/...`, an absolute path, a FIFO, a folder, a
  missing file, a symbolic link out of the folder — from a .gltf and from a .glb;
- an external buffer outside the folder: refused, naming the buffer;
- an OBJ whose mtllib and textures escape through `tex -> /` and `secret.png -> <secret>`, an
  `mtllib obj/frame_00001.obj`, `../` and absolute mtllib names.

usage: check_input_references.py FASTCD RIGGED_SIMPLE.glb SPHERE_SCENE_DIR VALIDATOR_DIR WORK_DIR
"""
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
from pathlib import Path

SECRET = b"fastcd-probe-secret-3f9c1e"


def run(fastcd, *args, timeout=120):
    r = subprocess.run([str(fastcd), "run", *map(str, args)], capture_output=True, text=True, timeout=timeout)
    print("$ fastcd run", " ".join(map(str, args)), "->", r.returncode)
    print(r.stderr.strip()[-3000:])
    return r


def read_glb(path):
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n]), data


def write_glb(doc, binary, path):
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    binary += b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    path.write_bytes(b"glTF" + struct.pack("<II", 2, total) + struct.pack("<I", len(js)) + b"JSON" + js +
                     struct.pack("<I", len(binary)) + b"BIN\0" + binary)


# A 1 x 1 PNG: a real image inside the folder, kept and embedded.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082")


def hostile_images(folder, secret_file):
    """The image URIs of the probe (name, uri), with the files they name made in `folder`."""
    (folder / "good.png").write_bytes(PNG)
    (folder / "textures").mkdir()
    os.mkfifo(folder / "pipe.png")
    os.symlink(secret_file, folder / "link.png")
    up = "../" * (len(folder.resolve().parts) + 2)
    return [
        ("dotdot", up + str(secret_file).lstrip("/")),
        ("percent", "%2e%2e/" + "%2e%2e/" * len(folder.resolve().parts) + str(secret_file).lstrip("/")),
        ("absolute", str(secret_file)),
        ("passwd", "../../../../etc/passwd"),
        ("fifo", "pipe.png"),
        ("folder", "textures"),
        ("missing", "not-there.png"),
        ("symlink", "link.png"),
        ("good", "good.png"),
    ]


def gltf_case(fastcd, rigged, validator, work, secret_file, binary_container):
    kind = "glb" if binary_container else "gltf"
    folder = work / f"in-{kind}"
    folder.mkdir()
    doc, data = read_glb(rigged)
    jlen = struct.unpack_from("<I", data, 12)[0]
    bin_chunk = data[20 + jlen + 8:]
    images = hostile_images(folder, secret_file)
    doc["images"] = [{"uri": uri, "name": name} for name, uri in images]
    doc["samplers"] = [{}]
    doc["textures"] = [{"source": i, "sampler": 0} for i in range(len(images))]
    # The good image comes last, so the texture that shows it and the material's reference are
    # renumbered; the material's other references show left-out images and must go.
    good = len(images) - 1
    doc["materials"] = doc.get("materials", []) + [{"name": "probe", "pbrMetallicRoughness": {"baseColorTexture": {"index": good},
                                                                   "metallicFactor": 0.0},
                         "normalTexture": {"index": 0}, "emissiveTexture": {"index": 4}}]
    # (Not bound to a primitive: RiggedSimple has no texture coordinates.)
    if binary_container:
        src = folder / "character.glb"
        write_glb(doc, bin_chunk, src)
    else:
        (folder / "character.bin").write_bytes(bin_chunk)
        doc["buffers"][0]["uri"] = "character.bin"
        src = folder / "character.gltf"
        src.write_text(json.dumps(doc))
    out = work / f"out-{kind}"
    r = run(fastcd, src, "--out", out, "--frames", 4, "--no-video", "--solver", "full", "--no-cache")
    assert r.returncode == 0, f"{kind}: the bake failed"
    for name, uri in images[:-1]:
        assert uri in r.stderr, f"{kind}: no warning names the image {uri!r} ({name})"
    run_json = json.loads((out / "run.json").read_text())
    assert any("pipe.png" in w for w in run_json["warnings"]), "run.json keeps the warnings"
    glb = out / run_json["gltf"]["glb"]
    baked, raw = read_glb(glb)
    assert SECRET not in raw, f"{kind}: the secret file was copied into {glb}"
    assert b"root:x:0:0" not in raw, f"{kind}: /etc/passwd was copied into {glb}"
    assert len(baked["images"]) == 1 and "uri" not in baked["images"][0], baked["images"]
    assert baked["images"][0]["name"] == "good"
    assert len(baked["textures"]) == 1 and baked["textures"][0]["source"] == 0, baked["textures"]
    assert baked["materials"][-1] == {"name": "probe", "pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0}, "metallicFactor": 0.0}}, baked["materials"]
    v = subprocess.run(["node", str(validator / "validate.mjs"), str(glb)], capture_output=True, text=True)
    report = json.loads(v.stdout.strip().splitlines()[-1])
    assert report["errors"] == 0, report
    print(f"{kind}: {len(images) - 1} hostile image URIs left out, the good one embedded, validator 0 errors")

    # An external buffer outside the folder is refused, naming it.
    if not binary_container:
        doc["buffers"][0]["uri"] = "../" + "../" * len(folder.resolve().parts) + str(secret_file).lstrip("/")
        doc.pop("images"), doc.pop("textures")
        doc["materials"].pop()
        bad = folder / "buffer-outside.gltf"
        bad.write_text(json.dumps(doc))
        r = run(fastcd, bad, "--out", work / "out-buffer", "--frames", 2, "--no-video")
        assert r.returncode != 0, "a buffer outside the folder was read"
        assert "buffer" in r.stderr and "outside" in r.stderr, r.stderr
        assert not (work / "out-buffer").exists()
        print("gltf: a buffer outside the folder is refused")


def obj_case(fastcd, sphere, work, secret_file):
    folder = work / "in-obj"
    shutil.copytree(sphere, folder)
    for p in folder.iterdir():
        p.chmod(0o644)
    os.symlink("/", folder / "tex")
    os.symlink(secret_file, folder / "secret.png")
    (folder / "good.png").write_bytes(PNG)
    (folder / "good.png").chmod(0o640)
    (folder / "mats").mkdir()
    (folder / "mats" / "body.mtl").write_text(
        "newmtl body\nmap_Kd ../good.png\nmap_Ks ../secret.png\nmap_Bump -bm 1 ../tex/etc/shadow\n"
        "map_d /etc/passwd\nmap_Ka ../../outside.png\n")
    (folder / "frame.mtl").write_text("newmtl frame\n")
    obj = folder / "sphere.obj"
    libs = ["mats/body.mtl", "tex/etc/passwd", "../outside.mtl", str(secret_file), "obj/frame_00001.obj",
            "run.json", "missing.mtl", "frame.mtl"]
    os.makedirs(folder / "obj", exist_ok=True)
    (folder / "obj" / "frame_00001.obj").write_text("# not a bake frame\n")
    (folder / "run.json").write_text("{}\n")
    obj.write_text("mtllib " + " ".join(libs) + "\n" + obj.read_text())
    out = work / "out-obj"
    r = run(fastcd, folder / "sphere.json", "--out", out, "--frames", 3, "--no-video", "--solver", "fast")
    assert r.returncode == 0, "the bake failed"
    for lib in libs[1:7]:
        assert lib in r.stderr, f"no warning names the mtllib {lib!r}"
    for tex in ("../secret.png", "../tex/etc/shadow", "/etc/passwd", "../../outside.png"):
        assert tex in r.stderr, f"no warning names the texture {tex!r}"
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    print("written:", [w for w in written if not w.startswith("obj/")])
    assert not (out / "tex").exists() and not (out / "secret.png").exists(), written
    for p in out.rglob("*"):
        if p.is_file():
            assert SECRET not in p.read_bytes(), f"{p} holds the secret"
            assert b"root:x:0:0" not in p.read_bytes(), f"{p} holds /etc/passwd"
    assert (out / "mats" / "body.mtl").read_text() == "newmtl body\nmap_Kd ../good.png\n", \
        (out / "mats" / "body.mtl").read_text()
    assert (out / "good.png").read_bytes() == PNG
    assert stat.S_IMODE((out / "good.png").stat().st_mode) & ~0o640 == 0, oct((out / "good.png").stat().st_mode)
    assert (out / "frame.mtl").exists()
    # rest.obj, a copy of the input OBJ, is no more readable than the input.
    obj.chmod(0o600)
    out2 = work / "out-obj-private"
    assert run(fastcd, folder / "sphere.json", "--out", out2, "--frames", 2, "--no-video").returncode == 0
    assert stat.S_IMODE((out2 / "rest.obj").stat().st_mode) & ~0o600 == 0, oct((out2 / "rest.obj").stat().st_mode)
    first = (out / "obj" / "frame_00001.obj").read_text()
    assert first.startswith("mtllib ../mats/body.mtl ../frame.mtl\n"), first[:200]
    assert "# not a bake frame" not in first and first.count("\nv ") == 58
    rest = (out / "rest.obj").read_text()
    assert rest.startswith("mtllib mats/body.mtl frame.mtl\n"), rest[:200]
    assert json.loads((out / "run.json").read_text()).get("frames") == 3
    print("obj: 6 mtllib and 4 texture references left out; the kept ones copied, frames name only them")


def main():
    fastcd, rigged, sphere, validator, work = map(Path, sys.argv[1:6])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    secret_dir = work / "private"
    secret_dir.mkdir()
    secret_file = (secret_dir / "passwd").resolve()
    secret_file.write_bytes(SECRET + b"\n")
    secret_file.chmod(0o600)
    gltf_case(fastcd, rigged, validator, work, secret_file, binary_container=False)
    gltf_case(fastcd, rigged, validator, work, secret_file, binary_container=True)
    obj_case(fastcd, sphere, work, secret_file)
    print("OK: every reference outside the input's folder was left out or refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
