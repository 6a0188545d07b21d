"""``from fastcd.skinning_eigenmodes import skinning_eigenmodes``, as simkit's ``simkit.skinning_eigenmodes`` module path."""
from .subspace import skinning_eigenmodes

__all__ = ["skinning_eigenmodes"]
