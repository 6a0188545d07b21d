"""Shared fixtures: the simkit reference (from $FASTCD_SHARED_DIR) and the tutorial beam."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import fastcd


def _reference_path():
    shared = os.environ.get("FASTCD_SHARED_DIR")
    if not shared:
        pytest.fail("FASTCD_SHARED_DIR is not set (ctest sets it to the project's shared/ folder)")
    path = Path(shared) / "reference" / "tutorial23_beam_simkit.json"
    if not path.is_file():
        pytest.fail(f"simkit reference missing: {path}")
    return path


@pytest.fixture(scope="session")
def ref():
    return json.loads(_reference_path().read_text())


@pytest.fixture(scope="session")
def beam():
    X, T = fastcd.beam()
    X.setflags(write=False)
    T.setflags(write=False)
    return X, T


@pytest.fixture(scope="session")
def full(beam):
    return fastcd.FullCD(*beam)


@pytest.fixture(scope="session")
def red(beam):
    return fastcd.ReducedCD(*beam)


def rel_err(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.linalg.norm(a - b) / np.linalg.norm(b)
