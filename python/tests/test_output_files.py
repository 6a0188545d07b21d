"""The writers replace only regular files (issue 39): `fastcd.write_obj('/dev/null', ...)` as root
replaced the system's /dev/null with a regular file. Every case here is a private copy in the
test's own folder (mknod of 1:3, mkfifo), never the system's nodes."""
import os
import stat

import numpy as np
import pytest

import fastcd

V = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
F = np.array([[0, 1, 2]])


def writers(path):
    """Each public writer of a whole file, aimed at `path`."""
    return {
        "write_obj": lambda: fastcd.write_obj(path, V, F),
        "write_mesh": lambda: fastcd.write_mesh(path, np.vstack([V, [0, 0, 1]]), np.array([[0, 1, 2, 3]])),
        "write_dmat": lambda: fastcd.write_dmat(path, V),
        "write_pc2": lambda: fastcd.write_pc2(path, [V, V]),
    }


def private_null(tmp_path):
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    return node


@pytest.mark.parametrize("name", sorted(writers("x")))
def test_a_device_node_is_refused_and_kept(tmp_path, name):
    node = private_null(tmp_path)
    with pytest.raises(RuntimeError, match="is a character device, not a regular file"):
        writers(str(node))[name]()
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert sorted(os.listdir(tmp_path)) == ["null"], "a temporary file was left"


@pytest.mark.parametrize("name", sorted(writers("x")))
def test_a_fifo_is_refused_and_kept(tmp_path, name):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError, match="FIFO"):
        writers(str(fifo))[name]()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_a_symbolic_link_to_a_device_is_refused(tmp_path):
    node = private_null(tmp_path)
    link = tmp_path / "out.obj"
    link.symlink_to(node)
    with pytest.raises(RuntimeError, match="symbolic link to a character device"):
        fastcd.write_obj(str(link), V, F)
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)


def test_a_regular_file_is_still_replaced(tmp_path):
    out = tmp_path / "out.obj"
    out.write_text("old\n")
    fastcd.write_obj(str(out), V, F)
    assert out.read_text() != "old\n" and sorted(os.listdir(tmp_path)) == ["out.obj"]
