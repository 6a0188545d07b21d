"""File formats: meshes (OBJ, OFF, PLY, Medit .mesh, Gmsh .msh, TetGen), rigs (TGF), weights and
matrices (DMAT) and point caches (PC2). Every reader names the file and the line or byte of
a problem (ValueError / RuntimeError); every writer writes atomically."""
from pathlib import Path

from . import _convert as cv
from . import _fastcd

__all__ = ["read_obj", "read_obj_2d", "write_obj", "read_off", "read_ply", "write_ply", "read_surface", "read_mesh",
           "write_mesh", "read_msh", "read_tetgen", "read_volume_mesh", "read_tgf", "read_dmat", "write_dmat", "read_pc2",
           "write_pc2"]


def _path(p, name="path"):
    return cv.path(p, name)


def read_obj(path):
    """Wavefront OBJ surface -> (V (n, 3), F (f, 3)); polygons are fan-triangulated."""
    return _fastcd.read_obj(_path(path))


def read_obj_2d(path):
    """Planar OBJ triangle mesh -> (X (n, 2), T (t, 3))."""
    return _fastcd.read_obj_2d(_path(path))


def write_obj(path, V, F):
    """Writes an OBJ surface (every double round-trips exactly)."""
    _fastcd.write_obj(_path(path), cv.float_matrix(V, "V", cols=(2, 3)), cv.index_matrix(F, "F"))


def read_off(path):
    """OFF surface -> (V, F)."""
    return _fastcd.read_off(_path(path))


def read_ply(path):
    """PLY surface (ASCII or binary, either byte order) -> (V (n, 3), F (f, 3), UV, N); polygons
    are fan-triangulated. UV is (n, 2) when the vertices have (s, t), (u, v) or
    (texture_u, texture_v), else (0, 2); N is (n, 3) when they have (nx, ny, nz), else (0, 3)."""
    return _fastcd.read_ply(_path(path))


def write_ply(path, V, F, binary=True):
    """Writes a PLY surface, binary little-endian (default) or ASCII; both round-trip exactly."""
    _fastcd.write_ply(_path(path), cv.float_matrix(V, "V", cols=(2, 3)), cv.index_matrix(F, "F"), bool(binary))


def read_surface(path):
    """Any surface by its extension (.obj, .off or .ply, any case) -> (V (n, 3), F (f, 3))."""
    return _fastcd.read_surface(_path(path))


def read_mesh(path):
    """Medit .mesh -> (X, T, F); F holds the file's triangles (take the surface from T)."""
    return _fastcd.read_mesh(_path(path))


def write_mesh(path, X, T):
    """Writes a Medit .mesh (2D triangles or 3D tetrahedra)."""
    _fastcd.write_mesh(_path(path), cv.float_matrix(X, "X", cols=(2, 3)), cv.index_matrix(T, "T"))


def read_msh(path):
    """Gmsh .msh (2.2 / 4.1, ASCII / binary) -> (X, T, physical tags)."""
    return _fastcd.read_msh(_path(path))


def read_tetgen(node_path, ele_path=None):
    """TetGen .node / .ele -> (X, T); ele_path defaults to the .ele beside the .node."""
    node = Path(_path(node_path, "node_path"))
    ele = _path(ele_path, "ele_path") if ele_path is not None else str(node.with_suffix(".ele"))
    return _fastcd.read_tetgen(str(node), ele)


def read_volume_mesh(path):
    """Any simulation mesh by its extension (.obj 2D, .mesh, .msh, .node) -> (X, T)."""
    return _fastcd.read_volume_mesh(_path(path))


def read_tgf(path):
    """TGF handle graph -> dict with C (joints / handles), E (edges), BE (bones), PE, CE and
    P (point handles), 0-based."""
    return _fastcd.read_tgf(_path(path))


def read_dmat(path):
    """libigl DMAT (ASCII or binary) -> matrix."""
    return _fastcd.read_dmat(_path(path))


def write_dmat(path, W, binary=False):
    """Writes a DMAT matrix (ASCII by default)."""
    _fastcd.write_dmat(_path(path), cv.float_matrix(W, "W", allow_vector=True), bool(binary))


def read_pc2(path):
    """PC2 point cache -> (frames (samples, points, 3) array, start_frame, sample_rate)."""
    import numpy as np
    frames, start, rate = _fastcd.read_pc2(_path(path))
    arr = np.stack(frames) if frames else np.zeros((0, 0, 3))
    return arr, start, rate


def write_pc2(path, frames, start_frame=0.0, sample_rate=1.0):
    """Writes a PC2 point cache from (samples, points, 2 or 3) positions (rounded to float32)."""
    _fastcd.write_pc2(_path(path), [cv.float_matrix(f, "frame", cols=(2, 3)) for f in frames],
                      cv.real(start_frame, "start_frame"), cv.real(sample_rate, "sample_rate"))
