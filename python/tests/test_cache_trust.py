"""The caches a load_scene(..., cache_dir=) keeps are trusted by their content, never by their
file names, and are optional (issue 39): an entry of other settings copied under an entry's
name is computed again and the simulation equals an uncached one; a cache folder that cannot be
written is one warning in scene.warnings, never an error."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import fastcd


@pytest.fixture
def glb():
    return Path(os.environ["FASTCD_SHARED_DIR"]) / "data" / "khronos-gltf" / "RiggedSimple.glb"


def roll_out(sim, frames=10):
    for p in sim.scene.poses[:frames]:
        sim.advance(p)
    return sim.positions()


def cache_warnings(sim):
    return [w for w in sim.scene.warnings if "cache" in w]


def test_an_entry_of_other_settings_is_computed_again(glb, tmp_path):
    fresh = roll_out(fastcd.load_scene(glb, solver="fast", modes=4, clusters=8))
    other, cache = tmp_path / "other", tmp_path / "cache"
    fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, leak="none", cache_dir=other)
    fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache)
    entry = next(cache.glob("fast-*"))
    good = entry.read_bytes()
    shutil.copyfile(next(other.glob("fast-*")), entry)
    sim = fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache)
    assert np.array_equal(roll_out(sim), fresh)
    (warning,) = cache_warnings(sim)
    assert "was made for other settings (leak none" in warning and "the file rewritten" in warning, warning
    assert entry.read_bytes() == good
    assert not cache_warnings(fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache))


def test_a_cache_folder_that_cannot_be_written_is_one_warning(glb, tmp_path):
    fresh = roll_out(fastcd.load_scene(glb, solver="fast", modes=4, clusters=8))
    cache = tmp_path / "cache"
    cache.write_text("a file where the folder should be")
    sim = fastcd.load_scene(glb, solver="fast", modes=4, clusters=8, cache_dir=cache)
    assert np.array_equal(roll_out(sim), fresh)
    (warning,) = cache_warnings(sim)  # the tets' and the precompute's: said once
    assert "cannot be written" in warning and "the bake goes on" in warning, warning
