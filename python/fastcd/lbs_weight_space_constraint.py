"""``from fastcd.lbs_weight_space_constraint import lbs_weight_space_constraint``, as simkit's ``simkit.lbs_weight_space_constraint`` module path."""
from .subspace import lbs_weight_space_constraint

__all__ = ["lbs_weight_space_constraint"]
