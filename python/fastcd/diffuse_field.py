"""``from fastcd.diffuse_field import diffuse_field``, as simkit's ``simkit.diffuse_field`` module path."""
from .geometry import diffuse_field

__all__ = ["diffuse_field"]
