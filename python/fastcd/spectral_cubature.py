"""``from fastcd.spectral_cubature import spectral_cubature``, as simkit's ``simkit.spectral_cubature`` module path."""
from .subspace import spectral_cubature

__all__ = ["spectral_cubature"]
