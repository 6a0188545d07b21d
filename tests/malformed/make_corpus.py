#!/usr/bin/env python3
"""Writes the malformed-input corpus of tests/malformed/ (and the small valid files it is
derived from). The files are committed; re-run after editing a case:

    /usr/bin/python3 tests/malformed/make_corpus.py

Each case is one small file; test_malformed.cpp holds the expected error of every file.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(rel, content):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    with open(path, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- small valid meshes
# Unit cube, 8 vertices (v = x + 2y + 4z), 6 Kuhn tets, all positively oriented.
CUBE_V = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
CUBE_T = [(0, 1, 3, 7), (0, 5, 1, 7), (0, 3, 2, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 6, 4, 7)]
# Its six sides as outward quads.
CUBE_QUADS = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
# 3 x 3 grid on [0, 2]^2, 9 vertices (v = x + 3y), 8 triangles.
SQ_V = [(x, y) for y in range(3) for x in range(3)]
SQ_T = []
for y in range(2):
    for x in range(2):
        a, b, c, d = x + 3 * y, x + 1 + 3 * y, x + 3 * (y + 1), x + 1 + 3 * (y + 1)
        SQ_T += [(a, b, d), (a, d, c)]


def medit(V, T, dim=3, extra=""):
    s = "MeshVersionFormatted 1\nDimension %d\nVertices\n%d\n" % (dim, len(V))
    s += "".join(" ".join(str(c) for c in v) + " 0\n" for v in V)
    s += extra
    s += "%s\n%d\n" % ("Tetrahedra" if dim == 3 else "Triangles", len(T))
    s += "".join(" ".join(str(i + 1) for i in t) + " 0\n" for t in T)
    return s + "End\n"


def obj2d(V, T):
    return "".join("v %g %g 0\n" % v for v in V) + "".join(
        "f %d %d %d\n" % tuple(i + 1 for i in t) for t in T)


def obj3d(V, F):
    return "".join("v %g %g %g\n" % v for v in V) + "".join(
        "f " + " ".join(str(i + 1) for i in f) + "\n" for f in F)


def off(V, F):
    return "OFF\n%d %d 0\n" % (len(V), len(F)) + "".join(
        "%g %g %g\n" % v for v in V) + "".join(
        "%d %s\n" % (len(f), " ".join(str(i) for i in f)) for f in F)


def msh22(V, T, ttype=4):
    s = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % len(V)
    s += "".join("%d %g %g %g\n" % ((i + 1,) + tuple(v) + ((0,) if len(v) == 2 else ()))
                 for i, v in enumerate(V))
    s += "$EndNodes\n$Elements\n%d\n" % len(T)
    s += "".join("%d %d 2 1 1 %s\n" % (e + 1, ttype, " ".join(str(i + 1) for i in t))
                 for e, t in enumerate(T))
    return s + "$EndElements\n"


def msh22_binary(V, T):
    s = b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n"
    s += b"$Nodes\n%d\n" % len(V)
    for i, v in enumerate(V):
        s += struct.pack("<i3d", i + 1, *v)
    s += b"\n$EndNodes\n$Elements\n%d\n" % len(T)
    s += struct.pack("<3i", 4, len(T), 2)
    for e, t in enumerate(T):
        s += struct.pack("<7i", e + 1, 1, 1, *[i + 1 for i in t])
    return s + b"\n$EndElements\n"


def msh41(V, T, binary=False):
    """Gmsh 4.1, one volume entity holding every tet, one node block."""
    if not binary:
        s = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
        s += "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 7 0\n$EndEntities\n"
        s += "$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (len(V), len(V), len(V))
        s += "".join("%d\n" % (i + 1) for i in range(len(V)))
        s += "".join("%g %g %g\n" % v for v in V)
        s += "$EndNodes\n$Elements\n1 %d 1 %d\n3 1 4 %d\n" % (len(T), len(T), len(T))
        s += "".join("%d %s\n" % (e + 1, " ".join(str(i + 1) for i in t)) for e, t in enumerate(T))
        return s + "$EndElements\n"
    q = lambda *a: struct.pack("<%dQ" % len(a), *a)
    s = b"$MeshFormat\n4.1 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n"
    s += b"$Entities\n" + q(0, 0, 0, 1) + struct.pack("<i6d", 1, 0, 0, 0, 1, 1, 1) + q(1)
    s += struct.pack("<i", 7) + q(0) + b"\n$EndEntities\n"
    s += b"$Nodes\n" + q(1, len(V), 1, len(V)) + struct.pack("<3i", 3, 1, 0) + q(len(V))
    s += q(*range(1, len(V) + 1))
    for v in V:
        s += struct.pack("<3d", *v)
    s += b"\n$EndNodes\n$Elements\n" + q(1, len(T), 1, len(T)) + struct.pack("<3i", 3, 1, 4)
    s += q(len(T))
    for e, t in enumerate(T):
        s += q(e + 1, *[i + 1 for i in t])
    return s + b"\n$EndElements\n"


def node(V, base=0):
    dim = len(V[0])
    return "%d %d 0 0\n" % (len(V), dim) + "".join(
        "%d %s\n" % (i + base, " ".join("%g" % c for c in v)) for i, v in enumerate(V))


def ele(T, base=0):
    return "%d %d 0\n" % (len(T), len(T[0])) + "".join(
        "%d %s\n" % (e + base, " ".join(str(i + base) for i in t)) for e, t in enumerate(T))


def dmat(rows):
    r, c = len(rows), len(rows[0])
    return "%d %d\n" % (c, r) + "".join("%g\n" % rows[i][j] for j in range(c) for i in range(r))


def dmat_binary(rows):
    r, c = len(rows), len(rows[0])
    vals = [rows[i][j] for j in range(c) for i in range(r)]
    return b"0 0\n%d %d\n" % (c, r) + struct.pack("<%dd" % len(vals), *vals)


def ply(V, F, fmt="ascii", vtype="float", count="uchar", index="int", nv=None, nf=None, after=""):
    """A PLY surface: x y z of `vtype`, a `count`/`index` vertex_indices list, `after` appended
    to the header before end_header (more elements)."""
    head = "ply\nformat %s 1.0\ncomment fastcd malformed corpus\nelement vertex %d\n" % (
        fmt, len(V) if nv is None else nv)
    head += "".join("property %s %s\n" % (vtype, c) for c in "xyz")
    head += "element face %d\nproperty list %s %s vertex_indices\n" % (len(F) if nf is None else nf, count, index)
    head += after + "end_header\n"
    if fmt == "ascii":
        num = lambda c: c if isinstance(c, str) else "%g" % c
        return head + "".join(" ".join(num(c) for c in v) + "\n" for v in V) + "".join(
            "%d %s\n" % (len(f), " ".join(str(i) for i in f)) for f in F)
    code = {"char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I", "float": "f",
            "double": "d"}
    e = "<" if fmt == "binary_little_endian" else ">"
    body = b"".join(struct.pack(e + "3" + code[vtype], *v) for v in V)
    body += b"".join(struct.pack(e + code[count] + str(len(f)) + code[index], len(f), *f) for f in F)
    return head.encode() + body


def pc2(frames, start=1.0, rate=1.0, np_=None, ns=None, version=1):
    np_ = len(frames[0]) if np_ is None else np_
    ns = len(frames) if ns is None else ns
    s = b"POINTCACHE2\0" + struct.pack("<iiffi", version, np_, start, rate, ns)
    for f in frames:
        for p in f:
            s += struct.pack("<3f", *p)
    return s


def npy(descr, shape, payload, fortran="False", version=(1, 0)):
    shape_s = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_s)
    pre = 10 if version[0] == 1 else 12
    total = pre + len(d) + 1
    d += " " * ((total + 63) // 64 * 64 - total) + "\n"
    if version[0] == 1:
        head = b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(d))
    else:
        head = b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(d))
    return head + d.encode() + payload


# Point handles at the cube's top and bottom; weights = z and 1 - z.
CUBE_W = [(1.0 - v[2], float(v[2])) for v in CUBE_V]
SQ_W = [(1.0 - v[0] / 2, v[0] / 2) for v in SQ_V]
TGF_POINTS_3D = "1 0.5 0.5 0\n2 0.5 0.5 1\n#\n#\n"
TGF_BONES_3D = "1 0.5 0.5 0\n2 0.5 0.5 0.5\n3 0.5 0.5 1\n#\n1 2 1 0 0\n2 3 1 0 0\n#\n"
TGF_POINTS_2D = "1 0 1 0\n2 2 1 0\n#\n#\n"
TGF_BONES_2D = "1 0 1 0\n2 1 1 0\n3 2 1 0\n#\n1 2 1 0 0\n2 3 1 0 0\n#\n"
# 3D point animation: handles frames; per handle rest translation + rest angles; per frame and
# handle translation + angles.
ANIM_POINTS_3D = ("2 2\n0.5 0.5 0 0 0 0\n0.5 0.5 1 0 0 0\n"
                  "0.5 0.5 0 0 0 0\n0.5 0.5 1.1 0 0 10\n"
                  "0.5 0.5 0 0 0 0\n0.5 0.5 1.2 0 0 20\n")
# 3D bones: bones frames; root rest translation, root rest angles, each bone's rest angles; per
# frame root rotation, root translation, bone angles.
ANIM_BONES_3D = ("2 2\n0.5 0.5 0\n0 0 0\n0 0 0\n0 0 0\n"
                 "0 0 0\n0.5 0.5 0\n0 0 0\n0 0 10\n"
                 "0 0 0\n0.5 0.5 0\n0 0 0\n0 0 20\n")
# 2D: frames handles; frames + 1 rows of (x y angle) per handle.
ANIM_2D = "2 2\n0 1 0 2 1 0\n0 1 0 2.1 1 5\n0 1 0 2.2 1 10\n"


def scene_json(mesh, tgf, anim, weights=None, extra=""):
    s = '{"mesh_file": "%s", "handle_file": "%s", ' % (mesh, tgf)
    if weights:
        s += '"weight_file": "%s", ' % weights
    s += '"anim_file": "%s", "dt": 0.01, "YM": 1e4, "pr": 0.3%s}\n' % (anim, extra)
    return s


def write_valid():
    """Valid files: the scene side files (scene/base/) and one valid file per reader."""
    b = "scene/base/"
    put(b + "cube.mesh", medit(CUBE_V, CUBE_T))
    put(b + "cube.msh", msh22(CUBE_V, CUBE_T))
    put(b + "cube.node", node(CUBE_V))
    put(b + "cube.ele", ele(CUBE_T))
    put(b + "cube.obj", obj3d(CUBE_V, [(0, 2, 3, 1), (4, 5, 7, 6)]))
    put(b + "cube.dmat", dmat(CUBE_W))
    put(b + "points.tgf", TGF_POINTS_3D)
    put(b + "bones.tgf", TGF_BONES_3D)
    put(b + "bones.dmat", dmat([(1.0 - v[2], float(v[2])) for v in CUBE_V]))
    put(b + "points_anim.txt", ANIM_POINTS_3D)
    put(b + "bones_anim.txt", ANIM_BONES_3D)
    put(b + "square.obj", obj2d(SQ_V, SQ_T))
    put(b + "square.dmat", dmat(SQ_W))
    put(b + "points2d.tgf", TGF_POINTS_2D)
    put(b + "bones2d.tgf", TGF_BONES_2D)
    put(b + "anim2d.txt", ANIM_2D)
    put(b + "cube.json", scene_json("cube.mesh", "points.tgf", "points_anim.txt", "cube.dmat"))
    put(b + "cube_bones.json", scene_json("cube.mesh", "bones.tgf", "bones_anim.txt", "bones.dmat"))
    put(b + "cube_msh.json", scene_json("cube.msh", "points.tgf", "points_anim.txt", "cube.dmat"))
    put(b + "cube_node.json", scene_json("cube.node", "points.tgf", "points_anim.txt", "cube.dmat"))
    put(b + "square.json", scene_json("square.obj", "points2d.tgf", "anim2d.txt", "square.dmat"))


def write_valid_readers():
    """One valid file per reader (fuzz seeds; the test checks they load)."""
    v = "valid/"
    put(v + "cube.obj", obj3d(CUBE_V, [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4)]))
    put(v + "square.obj", obj2d(SQ_V, SQ_T))
    put(v + "cube.off", off(CUBE_V, [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5)]))
    put(v + "cube.ply", ply(CUBE_V, CUBE_QUADS))
    put(v + "cube_binary.ply", ply(CUBE_V, CUBE_QUADS, "binary_little_endian"))
    put(v + "cube_big_endian.ply", ply(CUBE_V, CUBE_QUADS, "binary_big_endian", vtype="double", count="int"))
    put(v + "cube.mesh", medit(CUBE_V, CUBE_T))
    put(v + "square.mesh", medit(SQ_V, SQ_T, dim=2))
    put(v + "cube22.msh", msh22(CUBE_V, CUBE_T))
    put(v + "cube22_binary.msh", msh22_binary(CUBE_V, CUBE_T))
    put(v + "cube41.msh", msh41(CUBE_V, CUBE_T))
    put(v + "cube41_binary.msh", msh41(CUBE_V, CUBE_T, binary=True))
    put(v + "square22.msh", msh22(SQ_V, SQ_T, ttype=2))
    put(v + "cube.node", node(CUBE_V))
    put(v + "cube.ele", ele(CUBE_T))
    put(v + "cube.tgf", TGF_BONES_3D)
    put(v + "cube.dmat", dmat(CUBE_W))
    put(v + "cube_binary.dmat", dmat_binary(CUBE_W))
    put(v + "two_frames.pc2", pc2([[(0, 0, 0), (1, 2, 3)], [(0, 0, 1), (1, 2, 4)]]))
    put(v + "anim2d.txt", ANIM_2D)
    put(v + "bones_anim.txt", ANIM_BONES_3D)
    put(v + "points_anim.txt", ANIM_POINTS_3D)
    put(v + "matrix.npy", npy("<f8", (2, 3), struct.pack("<6d", 1, 2, 3, 4, 5, 6)))
    put(v + "ints.npy", npy("<i4", (3,), struct.pack("<3i", 1, 2, 3)))
    # (valid/zero_rows_many_columns.dmat is a fuzz_dmat artifact, copied as is.)


GARBAGE = bytes((i * 151 + 7) % 256 for i in range(300))          # contains NUL bytes
GARBAGE_HIGH = bytes(0x80 + (i * 37) % 0x7f for i in range(200))  # no NUL, no newline
TRI3 = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"


def write_obj_cases():
    d = "obj/"
    put(d + "empty.obj", "")
    put(d + "comments_only.obj", "# nothing here\n\n   \n")
    put(d + "truncated_vertex.obj", "v 0 0 0\nv 1 0")
    put(d + "truncated_face.obj", TRI3 + "f 1 2\n")
    put(d + "vertex_index_out_of_range.obj", TRI3 + "f 1 2 12\n")
    put(d + "vertex_index_zero.obj", TRI3 + "f 0 1 2\n")
    put(d + "negative_index_out_of_range.obj", TRI3 + "f -4 1 2\n")
    put(d + "index_overflow.obj", TRI3 + "f 1 2 99999999999999999999\n")
    put(d + "face_before_vertices.obj", "f 1 2 3\n" + TRI3)
    put(d + "nan_coordinate.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n")
    put(d + "inf_coordinate.obj", "v 0 0 0\nv 1 0 0\nv 0 -inf 0\nf 1 2 3\n")
    put(d + "overflow_coordinate.obj", "v 0 0 0\nv 1e999 0 0\nv 0 1 0\nf 1 2 3\n")
    put(d + "non_numeric_coordinate.obj", "v 0 0 0\nv 1 zero 0\n")
    put(d + "non_numeric_index.obj", TRI3 + "f 1 2 three\n")
    put(d + "texture_index_out_of_range.obj", TRI3 + "vt 0 0\nf 1/1 2/1 3/5\n")
    put(d + "normal_index_out_of_range.obj", TRI3 + "vn 0 0 1\nf 1//1 2//1 3//2\n")
    put(d + "malformed_corner.obj", TRI3 + "f 1// 2// 3//\n")
    put(d + "binary_garbage.obj", GARBAGE)
    put(d + "binary_garbage_no_nul.obj", GARBAGE_HIGH)
    put(d + "binary_after_text.obj", TRI3.encode() + b"f 1 2 3\n" + GARBAGE)


def write_obj2d_cases():
    d = "obj2d/"
    put(d + "empty.obj", "")
    put(d + "not_planar.obj", "v 0 0 0\nv 1 0 0\nv 0 1 1\nf 1 2 3\n")
    put(d + "no_faces.obj", TRI3)
    put(d + "vertex_index_out_of_range.obj", TRI3 + "f 1 2 4\n")
    put(d + "nan_z.obj", "v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")


OFF_HEAD = "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"


def write_off_cases():
    d = "off/"
    put(d + "empty.off", "")
    put(d + "bad_header.off", "OFX\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    put(d + "four_dimensional.off", "4OFF\n3 1 0\n0 0 0 0\n1 0 0 0\n0 1 0 0\n3 0 1 2\n")
    put(d + "binary.off", "OFF BINARY\n")
    put(d + "missing_counts.off", "OFF\n")
    put(d + "truncated_vertices.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n")
    put(d + "truncated_mid_vertex.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1")
    put(d + "truncated_faces.off", OFF_HEAD.replace("4 1 0", "4 3 0") + "3 0 1 2\n")
    put(d + "more_faces_than_declared.off", OFF_HEAD + "3 0 1 2\n3 0 1 3\n")
    put(d + "huge_vertex_count.off", "OFF\n1099511627776 1 0\n0 0 0\n")
    put(d + "large_vertex_count.off", "OFF\n2000000000 1 0\n0 0 0\n")
    put(d + "large_face_count.off", "OFF\n3 2000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    put(d + "negative_count.off", "OFF\n-3 1 0\n")
    put(d + "vertex_index_out_of_range.off", OFF_HEAD + "3 0 1 12\n")
    put(d + "negative_vertex_index.off", OFF_HEAD + "3 0 -1 2\n")
    put(d + "nan_coordinate.off", OFF_HEAD.replace("1 0 0\n", "1 nan 0\n") + "3 0 1 2\n")
    put(d + "inf_coordinate.off", OFF_HEAD.replace("0 0 1\n", "0 0 inf\n") + "3 0 1 2\n")
    put(d + "face_with_two_corners.off", OFF_HEAD + "2 0 1\n")
    put(d + "huge_corner_count.off", OFF_HEAD + "99999999999 0 1 2\n")
    put(d + "non_numeric.off", OFF_HEAD.replace("0 1 0\n", "0 one 0\n") + "3 0 1 2\n")
    put(d + "binary_garbage.off", b"OFF\n" + GARBAGE)


def write_ply_cases():
    d = "ply/"
    V, F = CUBE_V, CUBE_QUADS
    LE, BE = "binary_little_endian", "binary_big_endian"
    ok = ply(V, F)
    head, data = ok.split("end_header\n")
    binary = ply(V, F, LE)
    put(d + "empty.ply", "")
    put(d + "not_ply.ply", off(V, F))
    put(d + "binary_garbage.ply", GARBAGE)
    put(d + "control_character_in_header.ply", ok.replace("comment fastcd", "comment \x01\x02 fastcd"))
    put(d + "unknown_format.ply", ply(V, F, "binary_middle_endian"))
    put(d + "version_2.ply", ok.replace(" 1.0\n", " 2.0\n", 1))
    put(d + "unknown_type.ply", ply(V, F, vtype="float16"))
    put(d + "float_list_count.ply", ply(V, F, count="float"))
    put(d + "no_end_header.ply", head)
    put(d + "missing_z.ply", ok.replace("property float z\n", ""))
    put(d + "point_cloud.ply", head[:head.index("element face")] + "end_header\n" + data[:data.index("4 ")])
    put(d + "no_vertex_indices.ply", ok.replace("vertex_indices", "vertex_ids"))
    put(d + "huge_vertex_count.ply", ply(V, F, nv=10 ** 12))
    put(d + "large_vertex_count_binary.ply", ply(V, F, LE, nv=2 * 10 ** 9))
    put(d + "large_face_count.ply", ply(V, F, nf=2 * 10 ** 9))
    put(d + "huge_unknown_element.ply", ply(V, F, LE, after="element edge 1000000000000\nproperty int vertex1\n"))
    put(d + "truncated_binary.ply", binary[:-30])
    put(d + "trailing_data_binary.ply", binary + b"\0\0\0\0")
    put(d + "more_faces_than_declared.ply", ply(V, F, nf=5))
    put(d + "nan_coordinate_big_endian.ply", ply(V[:3] + [(1, float("nan"), 0)] + V[4:], F, BE))
    put(d + "inf_coordinate.ply", ply(V[:5] + [(1, 0, "inf")] + V[6:], F))
    put(d + "non_numeric.ply", ply(V[:2] + [("one", 1, 0)] + V[3:], F))
    put(d + "vertex_index_out_of_range.ply", ply(V, F[:1] + [(4, 5, 8, 6)] + F[2:]))
    put(d + "negative_vertex_index_binary.ply", ply(V, [(0, -1, 3, 1)] + F[1:], LE))
    put(d + "uint_index_overflow.ply", ply(V, F[:5] + [(1, 3, 7, 4294967295)], LE, index="uint"))
    put(d + "negative_list_count.ply", ply(V, F, count="char").replace("\n4 0 4 6 2\n", "\n-4 0 4 6 2\n"))
    put(d + "face_with_two_corners.ply", ply(V, F[:3] + [(2, 6)] + F[4:]))
    put(d + "ascii_with_binary_data.ply", (head + "end_header\n").encode() + binary.split(b"end_header\n")[1])


def medit_cube(vcount=None, tets=CUBE_T, V=CUBE_V, dim=3, extra=""):
    s = medit(V, tets, dim, extra)
    if vcount is not None:
        s = s.replace("Vertices\n%d\n" % len(V), "Vertices\n%s\n" % vcount)
    return s


def write_mesh_cases():
    d = "mesh/"
    full = medit(CUBE_V, CUBE_T)
    put(d + "empty.mesh", "")
    put(d + "no_version.mesh", full.replace("MeshVersionFormatted 1\n", ""))
    put(d + "truncated_header.mesh", "MeshVersionFormatted")
    put(d + "truncated_vertices.mesh", full[: full.index("0.5") if "0.5" in full else full.index("Tetrahedra") - 20])
    put(d + "truncated_tetrahedra.mesh", full[: full.rindex("\n", 0, len(full) - 10)])
    put(d + "huge_vertex_count.mesh", medit_cube("1099511627776"))
    put(d + "large_vertex_count.mesh", medit_cube("2000000000"))
    put(d + "large_tet_count.mesh", full.replace("Tetrahedra\n6\n", "Tetrahedra\n2000000000\n"))
    put(d + "more_vertices_declared.mesh", medit_cube("9"))
    put(d + "fewer_vertices_declared.mesh", medit_cube("7"))
    put(d + "tet_index_out_of_range.mesh", full.replace("1 2 4 8 0", "1 2 4 12 0"))
    put(d + "negative_tet_index.mesh", full.replace("1 2 4 8 0", "1 -2 4 8 0"))
    put(d + "zero_tet_index.mesh", full.replace("1 2 4 8 0", "0 2 4 8 0"))
    put(d + "nan_vertex.mesh", full.replace("1 1 1 0", "1 nan 1 0"))
    put(d + "inf_vertex.mesh", full.replace("1 1 1 0", "1 1 inf 0"))
    put(d + "non_numeric_vertex.mesh", full.replace("1 1 1 0", "1 one 1 0"))
    put(d + "surface_only.mesh", medit(CUBE_V, [(0, 1, 3), (0, 3, 2)], 3).replace("Tetrahedra", "Triangles"))
    put(d + "quads_only_2d.mesh", medit(SQ_V, [], 2).replace("Triangles\n0\n", "Quadrilaterals\n1\n1 2 5 4 0\n"))
    put(d + "tetrahedra_in_2d.mesh", medit(SQ_V, SQ_T, 2).replace("Triangles\n8\n", "Tetrahedra\n1\n1 2 3 4 0\nTriangles\n8\n"))
    put(d + "dimension_4.mesh", full.replace("Dimension 3", "Dimension 4"))
    put(d + "vertices_before_dimension.mesh", full.replace("Dimension 3\n", "").replace("End\n", "Dimension 3\nEnd\n"))
    put(d + "unknown_keyword.mesh", full.replace("Tetrahedra", "Tetrahedrons"))
    put(d + "no_vertices.mesh", "MeshVersionFormatted 1\nDimension 3\nEnd\n")
    put(d + "binary_garbage.mesh", b"MeshVersionFormatted 1\n" + GARBAGE)


def msh22_cube(nodes_decl=None, extra_elem=None):
    s = msh22(CUBE_V, CUBE_T)
    if nodes_decl is not None:
        s = s.replace("$Nodes\n8\n", "$Nodes\n%s\n" % nodes_decl)
    return s


def write_msh_cases():
    d = "msh/"
    a22 = msh22(CUBE_V, CUBE_T)
    b22 = msh22_binary(CUBE_V, CUBE_T)
    a41 = msh41(CUBE_V, CUBE_T)
    b41 = msh41(CUBE_V, CUBE_T, binary=True)
    put(d + "empty.msh", "")
    put(d + "not_msh.msh", "hello world\n")
    put(d + "truncated_header.msh", "$MeshFormat\n2.2 0 8\n")
    put(d + "version_4_0.msh", a22.replace("2.2 0 8", "4.0 0 8"))
    put(d + "version_3.msh", a22.replace("2.2 0 8", "3.0 0 8"))
    put(d + "ascii22_truncated_nodes.msh", a22[: a22.index("$EndNodes") - 12])
    put(d + "ascii22_fewer_nodes_than_declared.msh", msh22_cube("9"))
    put(d + "ascii22_more_nodes_than_declared.msh", msh22_cube("7"))
    put(d + "ascii22_huge_node_count.msh", msh22_cube("1099511627776"))
    put(d + "ascii22_large_node_count.msh", msh22_cube("2000000000"))
    put(d + "ascii22_large_element_count.msh", a22.replace("$Elements\n6\n", "$Elements\n2000000000\n"))
    put(d + "ascii22_undefined_node.msh", a22.replace("6 4 2 1 1 1 7 5 8", "6 4 2 1 1 1 7 5 12"))
    put(d + "ascii22_negative_node_tag.msh", a22.replace("6 4 2 1 1 1 7 5 8", "6 4 2 1 1 1 -7 5 8"))
    put(d + "ascii22_nan_node.msh", a22.replace("\n8 1 1 1\n", "\n8 1 nan 1\n"))
    put(d + "ascii22_inf_node.msh", a22.replace("\n8 1 1 1\n", "\n8 1 1 -inf\n"))
    put(d + "ascii22_duplicate_node_tag.msh", a22.replace("\n8 1 1 1\n", "\n7 1 1 1\n"))
    put(d + "ascii22_element_missing_node.msh", a22.replace("6 4 2 1 1 1 7 5 8", "6 4 2 1 1 1 7 5"))
    put(d + "ascii22_huge_tag_count.msh", a22.replace("6 4 2 1 1 1 7 5 8", "6 4 9223372036854775807 1 1 1 7 5 8"))
    put(d + "ascii22_non_numeric_element.msh", a22.replace("6 4 2 1 1 1 7 5 8", "6 4 2 1 1 1 7 five 8"))
    put(d + "ascii22_surface_not_planar.msh", msh22(CUBE_V, [(0, 1, 3), (4, 5, 7)], ttype=2))
    put(d + "ascii22_quads_only.msh", msh22(SQ_V, [(0, 1, 4, 3)], ttype=3))
    put(d + "ascii22_no_elements.msh", a22[: a22.index("$Elements")])
    put(d + "ascii22_elements_before_nodes.msh",
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + a22[a22.index("$Elements"):])
    put(d + "ascii22_missing_end_section.msh", a22.replace("$EndNodes\n", ""))
    i = b22.index(b"$EndElements")
    put(d + "binary22_truncated.msh", b22[: i - 30])
    put(d + "binary22_big_endian.msh", b22.replace(b"2.2 1 8\n\x01\x00\x00\x00", b"2.2 1 8\n\x00\x00\x00\x01"))
    put(d + "binary22_bad_element_type.msh", b22.replace(struct.pack("<3i", 4, 6, 2), struct.pack("<3i", 999, 6, 2)))
    put(d + "binary22_too_many_elements_following.msh",
        b22.replace(struct.pack("<3i", 4, 6, 2), struct.pack("<3i", 4, 60, 2)))
    put(d + "binary22_large_node_count.msh", b22.replace(b"$Nodes\n8\n", b"$Nodes\n2000000000\n"))
    put(d + "binary22_nan_node.msh", b22.replace(struct.pack("<i3d", 8, 1, 1, 1), struct.pack("<i3d", 8, 1, float("nan"), 1)))
    put(d + "binary22_undefined_node.msh",
        b22.replace(struct.pack("<7i", 6, 1, 1, 1, 7, 5, 8), struct.pack("<7i", 6, 1, 1, 1, 7, 5, 12)))
    q = lambda *a: struct.pack("<%dQ" % len(a), *a)
    put(d + "ascii41_node_count_mismatch.msh", a41.replace("$Nodes\n1 8 1 8\n", "$Nodes\n1 9 1 8\n"))
    put(d + "ascii41_huge_node_count.msh", a41.replace("$Nodes\n1 8 1 8\n", "$Nodes\n1 1099511627776 1 8\n"))
    put(d + "ascii41_large_block_count.msh", a41.replace("$Nodes\n1 8 1 8\n", "$Nodes\n2000000000 8 1 8\n"))
    put(d + "ascii41_node_tag_zero.msh", a41.replace("$Nodes\n1 8 1 8\n3 1 0 8\n1\n", "$Nodes\n1 8 1 8\n3 1 0 8\n0\n"))
    put(d + "ascii41_unknown_element_type.msh", a41.replace("3 1 4 6\n", "3 1 77 6\n"))
    put(d + "ascii41_element_count_mismatch.msh", a41.replace("$Elements\n1 6 1 6\n", "$Elements\n1 7 1 6\n"))
    j = b41.index(b"$EndNodes")
    put(d + "binary41_truncated.msh", b41[: j - 20])
    put(d + "binary41_huge_node_count.msh", b41.replace(b"$Nodes\n" + q(1, 8, 1, 8), b"$Nodes\n" + q(1, 1 << 40, 1, 8)))
    put(d + "binary41_large_element_count.msh",
        b41.replace(b"$Elements\n" + q(1, 6, 1, 6), b"$Elements\n" + q(1, 2000000000, 1, 6)))
    k = b41.index(q(*range(1, 9)))  # the node tags 1..8 of the only block
    put(d + "binary41_garbage_node_tags.msh", b41[:k] + GARBAGE[8:72] + b41[k + 64:])
    put(d + "binary_garbage.msh", GARBAGE)
    put(d + "garbage_after_header.msh", b"$MeshFormat\n2.2 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n" + GARBAGE)


def write_tetgen_cases():
    d = "tetgen/"
    N, E = node(CUBE_V), ele(CUBE_T)
    cases = {
        "empty_node": ("", E),
        "empty_ele": (N, ""),
        "dimension_4": (N.replace("8 3 0 0", "8 4 0 0"), E),
        "truncated_nodes": (N[: N.index("\n5 ")], E),
        "truncated_mid_node": (N[: N.index("\n5 ") + 5], E),
        "more_nodes_than_declared": (N.replace("8 3 0 0", "7 3 0 0"), E),
        "huge_node_count": (N.replace("8 3 0 0", "1099511627776 3 0 0"), E),
        "large_node_count": (N.replace("8 3 0 0", "2000000000 3 0 0"), E),
        "large_element_count": (N, E.replace("6 4 0", "2000000000 4 0")),
        "nan_node": (N.replace("\n7 1 1 1", "\n7 1 nan 1"), E),
        "inf_node": (N.replace("\n7 1 1 1", "\n7 1 1 inf"), E),
        "non_consecutive_nodes": (N.replace("\n3 1 1 0", "\n4 1 1 0"), E),
        "base_2": (N.replace("\n0 0 0 0", "\n2 0 0 0"), E),
        "element_index_out_of_range": (N, E.replace("\n5 0 6 4 7", "\n5 0 6 4 12")),
        "negative_element_index": (N, E.replace("\n5 0 6 4 7", "\n5 0 -6 4 7")),
        "quadratic_elements": (N, "1 10 0\n0 0 1 2 3 4 5 6 7 0 1\n"),
        "triangles_in_3d": (N, "1 3 0\n0 0 1 2\n"),
        "more_elements_than_declared": (N, E.replace("6 4 0", "5 4 0")),
        "truncated_elements": (N, E[: E.index("\n4 ")]),
        "non_numeric_element": (N, E.replace("\n5 0 6 4 7", "\n5 0 six 4 7")),
        "binary_garbage_node": (GARBAGE, E),
        "binary_garbage_ele": (N, GARBAGE),
    }
    for name, (n, e) in cases.items():
        put(d + name + ".node", n)
        put(d + name + ".ele", e)


TGF = "1 0 0 0\n2 1 0 0\n3 1 1 0\n#\n1 2 1 0 0\n2 3 1 0 0\n#\n"


def write_tgf_cases():
    d = "tgf/"
    put(d + "empty.tgf", "")
    put(d + "no_vertices.tgf", "#\n#\n")
    put(d + "truncated_vertex.tgf", "1 0 0 0\n2 1 0")
    put(d + "nan_vertex.tgf", TGF.replace("2 1 0 0", "2 nan 0 0"))
    put(d + "inf_vertex.tgf", TGF.replace("2 1 0 0", "2 1 inf 0"))
    put(d + "vertex_out_of_order.tgf", TGF.replace("2 1 0 0", "4 1 0 0"))
    put(d + "edge_index_out_of_range.tgf", TGF.replace("2 3 1 0 0", "2 12 1 0 0"))
    put(d + "edge_index_zero.tgf", TGF.replace("2 3 1 0 0", "0 3 1 0 0"))
    put(d + "negative_edge_index.tgf", TGF.replace("2 3 1 0 0", "-2 3 1 0 0"))
    put(d + "self_edge.tgf", TGF.replace("2 3 1 0 0", "3 3 1 0 0"))
    put(d + "bad_edge_flag.tgf", TGF.replace("2 3 1 0 0", "2 3 2 0 0"))
    put(d + "edge_missing_end.tgf", TGF.replace("2 3 1 0 0", "2"))
    put(d + "non_numeric_vertex.tgf", TGF.replace("3 1 1 0", "3 1 one 0"))
    put(d + "vertex_after_edges.tgf", TGF.replace("2 3 1 0 0\n#", "2 3 1 0 0\n4 0 0 1\n#"))
    put(d + "binary_garbage.tgf", GARBAGE)


def write_dmat_cases():
    d = "dmat/"
    put(d + "empty.dmat", "")
    put(d + "bad_header.dmat", "two three\n1\n")
    put(d + "header_one_number.dmat", "3\n1\n2\n3\n")
    put(d + "negative_size.dmat", "-1 3\n")
    put(d + "huge_size.dmat", "1099511627776 1\n1\n")
    put(d + "large_size.dmat", "1 2000000000\n1\n2\n")
    put(d + "too_few_values.dmat", "2 3\n1\n2\n3\n4\n5\n")
    put(d + "too_many_values.dmat", "1 3\n1\n2\n3\n4\n")
    put(d + "nan_value.dmat", "1 3\n1\nnan\n3\n")
    put(d + "inf_value.dmat", "1 3\n1\n2\n-inf\n")
    put(d + "non_numeric_value.dmat", "1 3\n1\ntwo\n3\n")
    put(d + "binary_garbage.dmat", b"2 3\n" + GARBAGE)
    b = dmat_binary([(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)])
    put(d + "binary_truncated.dmat", b[:-5])
    put(d + "binary_trailing_data.dmat", b + b"\x00\x01")
    put(d + "binary_nan.dmat", b.replace(struct.pack("<d", 4.0), struct.pack("<d", float("nan"))))
    put(d + "binary_large_size.dmat", b"0 0\n2000000000 1\n" + struct.pack("<2d", 1, 2))
    put(d + "binary_bad_second_header.dmat", b"0 0\nx y\n" + struct.pack("<2d", 1, 2))
    # (2^30 + 1) x (2^31 - 1) doubles: 8 * rows * cols wraps around 2^64 to 2^33 - 8.
    put(d + "binary_wrapping_size.dmat", b"0 0\n1073741825 2147483647\n" + struct.pack("<2d", 1, 2))


PC2_OK = pc2([[(0, 0, 0), (1, 2, 3)], [(0, 0, 1), (1, 2, 4)]])


def write_pc2_cases():
    d = "pc2/"
    put(d + "empty.pc2", b"")
    put(d + "bad_magic.pc2", b"POINTCACHE3\0" + PC2_OK[12:])
    put(d + "truncated_header.pc2", PC2_OK[:20])
    put(d + "bad_version.pc2", PC2_OK[:12] + struct.pack("<i", 2) + PC2_OK[16:])
    put(d + "negative_points.pc2", PC2_OK[:16] + struct.pack("<i", -2) + PC2_OK[20:])
    put(d + "negative_samples.pc2", PC2_OK[:28] + struct.pack("<i", -1) + PC2_OK[32:])
    put(d + "huge_counts.pc2", PC2_OK[:16] + struct.pack("<i", 1 << 30) + PC2_OK[20:28] + struct.pack("<i", 1 << 30) + PC2_OK[32:])
    put(d + "truncated_data.pc2", PC2_OK[:-6])
    put(d + "trailing_data.pc2", PC2_OK + b"\x00" * 12)
    put(d + "nan_value.pc2", PC2_OK[:44] + struct.pack("<f", float("nan")) + PC2_OK[48:])
    put(d + "inf_start.pc2", PC2_OK[:20] + struct.pack("<f", float("inf")) + PC2_OK[24:])
    put(d + "zero_sample_rate.pc2", PC2_OK[:24] + struct.pack("<f", 0.0) + PC2_OK[28:])
    put(d + "binary_garbage.pc2", GARBAGE)
    # Found by fuzz_pc2: 0 points x 10^8 samples fits in a 32-byte file and allocated 10^8 frames.
    put(d + "zero_points_many_samples.pc2", pc2([], np_=0, ns=100000000))
    # (pc2/fuzz_oom_zero_points.pc2 is the fuzzer's own artifact, copied as is, not written here.)


def write_anim_cases():
    d = "anim2d/"
    put(d + "empty.txt", "")
    put(d + "truncated_header.txt", "2")
    put(d + "truncated_data.txt", ANIM_2D[:-8])
    put(d + "zero_frames.txt", "0 2\n0 1 0 2 1 0\n")
    put(d + "huge_frame_count.txt", "99999999 3\n0 0 0\n")
    put(d + "huge_handle_count.txt", "2 1099511627776\n0 0 0\n")
    put(d + "negative_handle_count.txt", "2 -2\n0 0 0\n")
    put(d + "nan_value.txt", ANIM_2D.replace("2.1 1 5", "2.1 nan 5"))
    put(d + "inf_value.txt", ANIM_2D.replace("2.1 1 5", "2.1 1 inf"))
    put(d + "non_numeric.txt", ANIM_2D.replace("2.1 1 5", "2.1 one 5"))
    put(d + "extra_values.txt", ANIM_2D + "1 2 3\n")
    put(d + "binary_garbage.txt", GARBAGE)
    d = "anim3d/"
    put(d + "bones_empty.txt", "")
    put(d + "bones_truncated.txt", ANIM_BONES_3D[:-8])
    put(d + "bones_huge_frame_count.txt", "2 99999999\n0 0 0\n")
    put(d + "bones_huge_bone_count.txt", "1099511627776 2\n0 0 0\n")
    put(d + "bones_zero_bones.txt", "0 2\n0 0 0\n")
    put(d + "bones_nan.txt", ANIM_BONES_3D.replace("0 0 20", "0 nan 20"))
    put(d + "bones_extra_values.txt", ANIM_BONES_3D + "0 0 0\n")
    put(d + "bones_non_numeric.txt", ANIM_BONES_3D.replace("0 0 10", "0 ten 10"))
    put(d + "points_empty.txt", "")
    put(d + "points_truncated.txt", ANIM_POINTS_3D[:-10])
    put(d + "points_huge_frame_count.txt", "2 99999999\n0 0 0 0 0 0\n")
    put(d + "points_huge_handle_count.txt", "1099511627776 2\n0 0 0\n")
    put(d + "points_nan.txt", ANIM_POINTS_3D.replace("0.5 0.5 1.2 0 0 20", "0.5 0.5 1.2 0 inf 20"))
    put(d + "points_extra_values.txt", ANIM_POINTS_3D + "0\n")
    put(d + "binary_garbage.txt", GARBAGE)


def write_npy_cases():
    d = "npy/"
    ok = npy("<f8", (2, 3), struct.pack("<6d", 1, 2, 3, 4, 5, 6))
    put(d + "empty.npy", b"")
    put(d + "bad_magic.npy", b"\x93NUMPX" + ok[6:])
    put(d + "bad_version.npy", ok[:6] + b"\x04\x00" + ok[8:])
    put(d + "truncated_prefix.npy", ok[:9])
    put(d + "header_length_beyond_file.npy", ok[:8] + struct.pack("<H", 60000) + ok[10:])
    put(d + "truncated_header.npy", ok[:40])
    put(d + "unterminated_dict.npy", npy("<f8", (2,), struct.pack("<2d", 1, 2)).replace(b", }", b",  "))
    put(d + "missing_shape_key.npy", npy("<f8", (2,), struct.pack("<2d", 1, 2)).replace(b"'shape'", b"'shapf'"))
    put(d + "unsupported_dtype.npy", npy("<f4", (2,), struct.pack("<2f", 1, 2)))
    put(d + "object_dtype.npy", npy("|O", (2,), b"\x00" * 16))
    put(d + "negative_shape.npy", npy("<f8", (2,), struct.pack("<2d", 1, 2)).replace(b"(2,)", b"(-2,)"))
    put(d + "huge_shape.npy", npy("<f8", (1 << 40, 1 << 40), struct.pack("<2d", 1, 2)))
    put(d + "overflowing_shape.npy", npy("<f8", (2, 99999999999999999999999), struct.pack("<2d", 1, 2)))
    put(d + "truncated_data.npy", ok[:-5])
    put(d + "trailing_data.npy", ok + b"\x00" * 8)
    put(d + "bad_fortran_order.npy", npy("<f8", (2,), struct.pack("<2d", 1, 2), fortran="Maybe"))
    put(d + "non_ascii_header.npy", npy("<f8", (2,), struct.pack("<2d", 1, 2)).replace(b"'descr'", b"'d\xe9scr'"))
    put(d + "binary_garbage.npy", GARBAGE)
    # Found by fuzz_npy: a key with a newline and a NUL byte was echoed raw into the message.
    put(d + "key_with_control_chars.npy",
        npy("<f8", (2,), struct.pack("<2d", 1, 2)).replace(b"'fortran_order'", b"'for\n\x00tran_order'"))


def scene(rel, **kw):
    """Scene JSON beside base/ (paths relative to tests/malformed/scene/)."""
    keys = {"mesh_file": "base/cube.mesh", "handle_file": "base/points.tgf",
            "weight_file": "base/cube.dmat", "anim_file": "base/points_anim.txt",
            "dt": 0.01, "YM": 1e4, "pr": 0.3}
    for k, v in kw.items():
        if v is None:
            keys.pop(k, None)
        else:
            keys[k] = v
    import json
    text = json.dumps(keys) if not isinstance(keys, str) else keys
    put("scene/" + rel, text + "\n")


def write_scene_cases():
    d = "scene/"
    s = "scene/side/"
    put(d + "empty.json", "")
    put(d + "not_json.json", '{"mesh_file": "base/cube.mesh",')
    put(d + "not_an_object.json", '["base/cube.mesh"]\n')
    scene("missing_mesh_file.json", mesh_file=None)
    scene("missing_handle_file.json", handle_file=None)
    scene("missing_anim_file.json", anim_file=None)
    scene("missing_referenced_mesh.json", mesh_file="base/no_such_mesh.mesh")
    scene("missing_referenced_weights.json", weight_file="base/no_such_weights.dmat")
    scene("mesh_file_not_a_string.json", mesh_file=3)
    scene("unsupported_mesh_format.json", mesh_file="base/cube.dmat")
    scene("dt_zero.json", dt=0)
    scene("dt_negative.json", dt=-0.01)
    scene("dt_not_a_number.json", dt="0.01")
    scene("ym_zero.json", YM=0)
    scene("ym_negative.json", YM=-1e4)
    scene("pr_half.json", pr=0.5)
    scene("pr_above_half.json", pr=0.7)
    scene("pr_minus_one.json", pr=-1)
    put(d + "dt_overflow.json", '{"mesh_file": "base/cube.mesh", "handle_file": "base/points.tgf", '
        '"weight_file": "base/cube.dmat", "anim_file": "base/points_anim.txt", "dt": 1e400, "YM": 1e4, "pr": 0.3}\n')
    put(d + "ym_overflow.json", '{"mesh_file": "base/cube.mesh", "handle_file": "base/points.tgf", '
        '"weight_file": "base/cube.dmat", "anim_file": "base/points_anim.txt", "dt": 0.01, "YM": 1e999, "pr": 0.3}\n')
    scene("rho_negative.json", rho=-1000)
    scene("cage_rig.json", skeleton_file="base/points.tgf", handle_file=None)
    # Meshes
    put(s + "surface.mesh", medit(CUBE_V, [(0, 1, 3), (0, 3, 2)], 3).replace("Tetrahedra", "Triangles"))
    scene("triangle_mesh_where_tets_required.json", mesh_file="side/surface.mesh")
    put(s + "surface.msh", msh22(CUBE_V, [(0, 1, 3), (4, 5, 7)], ttype=2))
    scene("surface_msh_where_tets_required.json", mesh_file="side/surface.msh")
    put(s + "quads.msh", msh22(SQ_V, [(0, 1, 4, 3)], ttype=3))
    scene("quads_msh.json", mesh_file="side/quads.msh")
    put(s + "cube_bad_index.mesh", medit(CUBE_V, CUBE_T).replace("1 2 4 8 0", "1 2 4 12 0"))
    scene("mesh_index_out_of_range.json", mesh_file="side/cube_bad_index.mesh")
    put(s + "cube_nan.mesh", medit(CUBE_V, CUBE_T).replace("1 1 1 0", "1 nan 1 0"))
    scene("mesh_nan_vertex.json", mesh_file="side/cube_nan.mesh")
    flat = [(v[0], v[1], 0) for v in CUBE_V]
    put(s + "flat.mesh", medit(flat, CUBE_T))
    scene("flat_mesh.json", mesh_file="side/flat.mesh")   # every tet has zero volume
    point = [(0.5, 0.5, 0.5)] * 8
    put(s + "point.mesh", medit(point, CUBE_T))
    scene("all_vertices_coincide.json", mesh_file="side/point.mesh")
    degen_V = CUBE_V + [(0.25, 0.25, 0), (0.75, 0.25, 0), (0.25, 0.75, 0), (0.75, 0.75, 0)]
    put(s + "degenerate_tet.mesh", medit(degen_V, CUBE_T + [(8, 9, 10, 11)]))
    put(s + "degenerate_tet.dmat", dmat([(1.0 - v[2], float(v[2])) for v in degen_V]))
    scene("degenerate_element.json", mesh_file="side/degenerate_tet.mesh", weight_file="side/degenerate_tet.dmat")
    # (one transposition flips the orientation; reversing all four vertices would not)
    inv_T = [(CUBE_T[0][1], CUBE_T[0][0]) + CUBE_T[0][2:]] + CUBE_T[1:]
    put(s + "inverted_tet.mesh", medit(CUBE_V, inv_T))
    scene("inverted_element.json", mesh_file="side/inverted_tet.mesh")
    # Weights
    put(s + "weights_7_rows.dmat", dmat(CUBE_W[:7]))
    scene("weight_rows_mismatch.json", weight_file="side/weights_7_rows.dmat")
    put(s + "weights_3_cols.dmat", dmat([w + (0.0,) for w in CUBE_W]))
    scene("weight_cols_mismatch.json", weight_file="side/weights_3_cols.dmat")
    put(s + "weights_nan.dmat", dmat(CUBE_W).replace("\n1\n", "\nnan\n", 1))
    scene("weight_nan.json", weight_file="side/weights_nan.dmat")
    # Handles and animations
    put(s + "points3_anim.txt", "3 1\n" + "0.5 0.5 0 0 0 0\n" * 3 + "0.5 0.5 0 0 0 0\n" * 3)
    scene("anim_handles_mismatch.json", anim_file="side/points3_anim.txt")
    put(s + "bones1_anim.txt", "1 1\n0.5 0.5 0\n0 0 0\n0 0 0\n0 0 0\n0.5 0.5 0\n0 0 0\n")
    scene("anim_bones_mismatch.json", handle_file="base/bones.tgf", weight_file="base/bones.dmat",
          anim_file="side/bones1_anim.txt")
    put(s + "anim2d_3handles.txt", "1 3\n" + "0 0 0 " * 3 + "\n" + "0 0 0 " * 3 + "\n")
    scene("anim2d_handles_mismatch.json", mesh_file="base/square.obj", handle_file="base/points2d.tgf",
          weight_file="base/square.dmat", anim_file="side/anim2d_3handles.txt")
    scene("anim_wrong_format.json", anim_file="base/anim2d.txt")   # 2D animation for a 3D rig
    put(s + "mixed.tgf", "1 0.5 0.5 0\n2 0.5 0.5 0.5\n3 0.5 0.5 1\n4 0 0 0\n#\n1 2 1 0 0\n2 3 1 0 0\n#\n")
    scene("mixed_points_and_bones.json", handle_file="side/mixed.tgf")
    put(s + "bad.tgf", "1 0 0 0\n2 0 0 nan\n#\n#\n")
    scene("handles_nan.json", handle_file="side/bad.tgf")
    scene("model_not_a_string.json", model=5)
    scene("with_dynamics_string.json", with_dynamics="yes")


# ---------------------------------------------------------------- glTF (read_gltf)
def glb(doc, binary):
    """A .glb: 12-byte header, the JSON chunk (space-padded), the BIN chunk (zero-padded)."""
    import json
    doc = dict(doc)
    doc["buffers"] = [{"byteLength": len(binary)}]
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    b = binary + b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(js) + 8 + len(b)
    return b"glTF" + struct.pack("<II", 2, total) + struct.pack("<I", len(js)) + b"JSON" + js + \
        struct.pack("<I", len(b)) + b"BIN\0" + b


class GltfDoc:
    """A two-joint skinned strip (8 vertices, 6 triangles) with one clip, as test_gltf_io.cpp's."""

    def __init__(self):
        self.bin = b""
        self.doc = {"asset": {"version": "2.0"}, "bufferViews": [], "accessors": []}
        pos = [c for k in range(4) for s in range(2) for c in (0.5 * s, 0.75 * k, 0.0)]
        tri = []
        for k in range(3):
            tri += [2 * k, 2 * k + 1, 2 * k + 3, 2 * k, 2 * k + 3, 2 * k + 2]
        joints = [j for v in range(8) for j in (0, 1, 0, 0)]
        weights = [w for v in range(8) for w in (1 - (v // 2) / 3, (v // 2) / 3, 0, 0)]
        P = self.add(struct.pack("<24f", *pos), 5126, "VEC3", 8)
        self.doc["accessors"][P].update({"min": [0, 0, 0], "max": [0.5, 2.25, 0]})
        I = self.add(struct.pack("<18H", *tri), 5123, "SCALAR", 18)
        J = self.add(bytes(joints), 5121, "VEC4", 8)
        W = self.add(struct.pack("<32f", *weights), 5126, "VEC4", 8)
        ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]
        IBM = self.add(struct.pack("<32f", *ibm), 5126, "MAT4", 2)
        T = self.add(struct.pack("<2f", 0, 1), 5126, "SCALAR", 2)
        h = 0.5 ** 0.5
        R = self.add(struct.pack("<8f", 0, 0, 0, 1, 0, 0, h, h), 5126, "VEC4", 2)
        Tr = self.add(struct.pack("<6f", 0, 0, 0, 2, 0, 0), 5126, "VEC3", 2)
        self.doc.update({
            "meshes": [{"name": "strip", "primitives": [
                {"attributes": {"POSITION": P, "JOINTS_0": J, "WEIGHTS_0": W}, "indices": I}]}],
            "nodes": [{"name": "root", "children": [1]}, {"name": "tip", "translation": [0, 1, 0]},
                      {"name": "body", "mesh": 0, "skin": 0}],
            "skins": [{"name": "rig", "joints": [0, 1], "inverseBindMatrices": IBM}],
            "scenes": [{"nodes": [0, 2]}], "scene": 0,
            "animations": [{"name": "bend", "samplers": [
                {"input": T, "output": R, "interpolation": "LINEAR"},
                {"input": T, "output": Tr, "interpolation": "STEP"}], "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}}]}]})

    def view(self, data, stride=0):
        self.bin += b"\0" * (-len(self.bin) % 4)
        v = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            v["byteStride"] = stride
        self.bin += data
        self.doc["bufferViews"].append(v)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, a):
        self.doc["accessors"].append(a)
        return len(self.doc["accessors"]) - 1

    def add(self, data, component, type_, count):
        return self.accessor({"bufferView": self.view(data), "componentType": component, "type": type_,
                              "count": count})

    def prim(self):
        return self.doc["meshes"][0]["primitives"][0]

    def glb(self):
        return glb(self.doc, self.bin)


def write_gltf_cases():
    import json
    g = "gltf/"
    put("valid/strip.glb", GltfDoc().glb())
    d = GltfDoc()
    doc = dict(d.doc)
    doc["buffers"] = [{"byteLength": len(d.bin), "uri": "strip.bin"}]
    put("valid/strip.gltf", json.dumps(doc, indent=1))
    put("valid/strip.bin", d.bin)

    put(g + "empty.glb", b"")
    put(g + "binary_garbage.glb", GARBAGE)
    put(g + "obj_text.glb", TRI3)
    put(g + "bad_json.gltf", '{"asset": {"version": "2.0"}, "nodes": [')
    full = GltfDoc().glb()
    put(g + "truncated.glb", full[:len(full) - 100])
    put(g + "header_only.glb", full[:12])

    def case(name, edit):
        d = GltfDoc()
        edit(d)
        put(g + name, d.glb())

    case("no_skin.glb", lambda d: d.doc["nodes"][2].pop("skin"))
    # Valid glTF that `fastcd run` cannot simulate (tests/malformed/CMakeLists.txt, CLI cases).
    d = GltfDoc()
    d.doc.pop("animations")
    put("gltf_cli/no_animation.glb", d.glb())
    case("no_meshes.glb", lambda d: (d.doc.pop("meshes"), d.doc["nodes"][2].pop("mesh")))
    case("position_past_view.glb", lambda d: d.doc["accessors"][0].update(count=9))
    case("accessor_missing.glb", lambda d: d.prim()["attributes"].update(POSITION=42))
    case("view_past_buffer.glb", lambda d: d.doc["bufferViews"][0].update(byteLength=100000))
    case("stride_too_small.glb", lambda d: d.doc["bufferViews"][0].update(byteStride=8))
    case("index_out_of_range.glb",
         lambda d: d.prim().update(indices=d.add(struct.pack("<3H", 0, 1, 8), 5123, "SCALAR", 3)))
    case("indices_not_triangles.glb",
         lambda d: d.prim().update(indices=d.add(struct.pack("<4H", 0, 1, 2, 3), 5123, "SCALAR", 4)))
    case("nan_position.glb", lambda d: d.prim()["attributes"].update(
        POSITION=d.add(struct.pack("<24f", *([0.0] * 4 + [float("nan")] + [0.0] * 19)), 5126, "VEC3", 8)))
    case("no_position.glb", lambda d: d.prim()["attributes"].pop("POSITION"))
    case("joints_without_weights.glb", lambda d: d.prim()["attributes"].pop("WEIGHTS_0"))
    case("zero_weights.glb", lambda d: d.prim()["attributes"].update(
        WEIGHTS_0=d.add(struct.pack("<32f", *([0.0] * 4 + [1.0, 0, 0, 0] * 7)), 5126, "VEC4", 8)))
    case("joint_out_of_range.glb", lambda d: d.prim()["attributes"].update(
        JOINTS_0=d.add(bytes([0, 1, 0, 0] * 2 + [0, 7, 0, 0] + [0, 1, 0, 0] * 5), 5121, "VEC4", 8)))
    case("weights_wrong_count.glb", lambda d: d.prim()["attributes"].update(
        WEIGHTS_0=d.add(struct.pack("<28f", *([1.0, 0, 0, 0] * 7)), 5126, "VEC4", 7)))
    case("negative_scale_joint.glb", lambda d: d.doc["nodes"][1].update(scale=[1, -1, 1]))
    case("mirrored_joint_matrix.glb", lambda d: d.doc["nodes"][0].update(
        matrix=[-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))
    case("joint_listed_twice.glb", lambda d: d.doc["skins"][0].update(joints=[0, 1, 0]))
    case("joint_missing.glb", lambda d: d.doc["skins"][0].update(joints=[0, 9]))
    case("node_cycle.glb", lambda d: d.doc["nodes"][1].update(children=[0]))
    case("two_parents.glb", lambda d: (d.doc["nodes"][2].update(children=[1])))
    case("ibm_too_few.glb", lambda d: d.doc["skins"][0].update(
        inverseBindMatrices=d.add(struct.pack("<16f", *([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])),
                                  5126, "MAT4", 1)))
    case("ibm_singular.glb", lambda d: d.doc["skins"][0].update(
        inverseBindMatrices=d.add(struct.pack("<32f", *([0.0] * 15 + [1.0]) * 2), 5126, "MAT4", 2)))
    case("ibm_not_affine.glb", lambda d: d.doc["skins"][0].update(
        inverseBindMatrices=d.add(struct.pack("<32f", *([1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * 2)),
                                  5126, "MAT4", 2)))
    case("times_not_increasing.glb", lambda d: d.doc["animations"][0]["samplers"][0].update(
        input=d.add(struct.pack("<2f", 0.5, 0.5), 5126, "SCALAR", 2)))
    case("negative_time.glb", lambda d: d.doc["animations"][0]["samplers"][0].update(
        input=d.add(struct.pack("<2f", -1, 1), 5126, "SCALAR", 2)))
    case("cubic_one_key.glb", lambda d: d.doc["animations"][0]["samplers"][1].update(
        interpolation="CUBICSPLINE", input=d.add(struct.pack("<f", 0), 5126, "SCALAR", 1),
        output=d.add(struct.pack("<9f", *([0.0] * 9)), 5126, "VEC3", 3)))
    case("cubic_wrong_count.glb", lambda d: d.doc["animations"][0]["samplers"][1].update(interpolation="CUBICSPLINE"))
    case("unknown_interpolation.glb", lambda d: d.doc["animations"][0]["samplers"][1].update(interpolation="BEZIER"))
    case("negative_scale_key.glb", lambda d: (
        d.doc["animations"][0]["samplers"][1].update(
            output=d.add(struct.pack("<6f", 1, 1, 1, 1, -1, 1), 5126, "VEC3", 2)),
        d.doc["animations"][0]["channels"][1]["target"].update(path="scale")))
    case("channel_node_missing.glb", lambda d: d.doc["animations"][0]["channels"][0]["target"].update(node=12))
    case("sampler_missing.glb", lambda d: d.doc["animations"][0]["channels"][0].update(sampler=5))
    def matrix_node(d):
        d.doc["nodes"][1].pop("translation")
        d.doc["nodes"][1]["matrix"] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1]

    case("animated_matrix_node.glb", matrix_node)
    case("draco_required.glb", lambda d: d.doc.update(extensionsUsed=["KHR_draco_mesh_compression"],
                                                       extensionsRequired=["KHR_draco_mesh_compression"]))
    case("huge_count_without_view.glb", lambda d: d.prim()["attributes"].update(
        POSITION=d.accessor({"componentType": 5126, "type": "VEC3", "count": 2 ** 40})))

    def sparse(d, indices, count=2):
        a = dict(d.doc["accessors"][0])
        a["sparse"] = {"count": count,
                       "indices": {"bufferView": d.view(bytes(indices)), "componentType": 5121},
                       "values": {"bufferView": d.view(struct.pack("<6f", 1, 2, 3, 4, 5, 6))}}
        d.prim()["attributes"]["POSITION"] = d.accessor(a)

    case("sparse_not_increasing.glb", lambda d: sparse(d, [6, 2]))
    case("sparse_index_out_of_range.glb", lambda d: sparse(d, [2, 9]))
    case("sparse_values_short.glb", lambda d: sparse(d, [1, 2, 3], count=3))


if __name__ == "__main__":
    write_valid()
    write_valid_readers()
    write_obj_cases()
    write_obj2d_cases()
    write_off_cases()
    write_ply_cases()
    write_mesh_cases()
    write_msh_cases()
    write_tetgen_cases()
    write_tgf_cases()
    write_dmat_cases()
    write_pc2_cases()
    write_anim_cases()
    write_npy_cases()
    write_scene_cases()
    write_gltf_cases()
