"""``from fastcd.normalize_and_center import normalize_and_center``, as simkit's ``simkit.normalize_and_center`` module path."""
from .geometry import normalize_and_center

__all__ = ["normalize_and_center"]
