"""fastcd.io's PLY reader and writer and read_surface: round trips in both encodings, a
big-endian file written by hand (texture coordinates, normals, a skipped element), the
extension dispatch, and errors that name the reader, the file and the problem."""
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import fastcd.io
from fastcd.io import read_ply, read_surface, write_ply

MALFORMED = Path(__file__).resolve().parents[2] / "tests" / "malformed"


def test_ply_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(3)
    V = rng.standard_normal((6, 3)) * 10.0 ** rng.integers(-20, 20, (6, 3))
    F = np.array([[0, 1, 2], [2, 3, 4], [5, 4, 0]])
    for binary in (True, False):
        write_ply(tmp_path / "s.ply", V, F, binary=binary)
        V2, F2, UV, N = read_ply(tmp_path / "s.ply")
        np.testing.assert_array_equal(V2, V)
        np.testing.assert_array_equal(F2, F)
        assert UV.shape == (0, 2) and N.shape == (0, 3)
    # Quads come back fan-triangulated; 2D positions get z = 0; lists and float32 are accepted.
    write_ply(str(tmp_path / "q.ply"), V[:4, :2].astype(np.float32), [[0, 1, 2, 3]], binary=False)
    V3, F3, _, _ = read_ply(tmp_path / "q.ply")
    np.testing.assert_array_equal(F3, [[0, 1, 2], [0, 2, 3]])
    np.testing.assert_array_equal(V3[:, 2], 0.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.ply", "s.ply"]


def test_ply_big_endian_with_uv_normals_and_a_skipped_element(tmp_path):
    head = ("ply\nformat binary_big_endian 1.0\ncomment by hand\nelement vertex 3\n"
            "property double x\nproperty double y\nproperty double z\nproperty float nx\nproperty float ny\n"
            "property float nz\nproperty float s\nproperty float t\nproperty uchar red\n"
            "element face 1\nproperty list uchar uint vertex_indices\n"
            "element edge 1\nproperty list short int vertex_pair\nend_header\n")
    V = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]])
    data = b"".join(struct.pack(">3d5fB", *v, 0.0, 0.0, 1.0, 0.25 * i, 1.0 - 0.25 * i, 200)
                    for i, v in enumerate(V))
    data += struct.pack(">B3I", 3, 2, 0, 1) + struct.pack(">h2i", 2, 0, 1)
    (tmp_path / "be.ply").write_bytes(head.encode() + data)
    V2, F, UV, N = read_ply(tmp_path / "be.ply")
    np.testing.assert_array_equal(V2, V)
    np.testing.assert_array_equal(F, [[2, 0, 1]])
    np.testing.assert_array_equal(UV, [[0.0, 1.0], [0.25, 0.75], [0.5, 0.5]])
    np.testing.assert_array_equal(N, np.tile([0.0, 0.0, 1.0], (3, 1)))


def test_read_surface_dispatches_on_the_extension(tmp_path):
    V = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    F = np.array([[0, 1, 2], [0, 2, 3]])
    fastcd.io.write_obj(tmp_path / "a.obj", V, F)
    write_ply(tmp_path / "a.PLY", V, F)
    (tmp_path / "a.off").write_text("OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n")
    for name in ("a.obj", "a.PLY", "a.off"):
        V2, F2 = read_surface(tmp_path / name)
        np.testing.assert_array_equal(V2, V)
        np.testing.assert_array_equal(F2, F)
    (tmp_path / "a.stl").write_text("solid a\n")
    with pytest.raises(RuntimeError, match=re.escape("read_surface: '%s': unsupported surface format '.stl'"
                                                     % (tmp_path / "a.stl"))):
        read_surface(tmp_path / "a.stl")
    assert {"read_ply", "write_ply", "read_surface"} <= set(fastcd.io.__all__)


def test_ply_errors_name_the_reader_the_file_and_the_problem(tmp_path):
    with pytest.raises(RuntimeError, match=re.escape("read_ply: cannot open")):
        read_ply(tmp_path / "missing.ply")
    (tmp_path / "off.ply").write_text("OFF\n3 1 0\n")
    with pytest.raises(RuntimeError, match=re.escape("line 1: expected 'ply', got 'OFF'")):
        read_ply(tmp_path / "off.ply")
    huge = MALFORMED / "ply" / "huge_vertex_count.ply"
    with pytest.raises(RuntimeError, match=re.escape("vertex count 1000000000000 is out of range")):
        read_ply(huge)
    cloud = MALFORMED / "ply" / "point_cloud.ply"
    with pytest.raises(RuntimeError, match="a point cloud .* is not a surface"):
        read_surface(cloud)
    with pytest.raises(ValueError, match="V must have 2 or 3 columns"):
        write_ply(tmp_path / "bad.ply", np.zeros((3, 4)), [[0, 1, 2]])
    with pytest.raises(ValueError, match=re.escape("write_ply: F(0, 2) = 3 is out of range [0, 3)")):
        write_ply(tmp_path / "bad.ply", np.zeros((3, 3)), [[0, 1, 3]])
    assert not (tmp_path / "bad.ply").exists()
