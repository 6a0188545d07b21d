"""fastcd.bake writes its out_dir as fastcd run writes --out (one rule, the library's
OutputFolder): staged beside it, marked with .fastcd-output and moved into place only when
complete, an earlier bake replaced only with force=True (as --force), so it never overwrites or
deletes a user's files and leaves nothing half-written on an error or Ctrl-C (KeyboardInterrupt)."""
import json
import os
import signal
from pathlib import Path

import pytest

import fastcd

SETTINGS = dict(solver="fast", modes=6, clusters=20, frames=3)


@pytest.fixture
def sphere():
    return Path(os.environ["FASTCD_SHARED_DIR"]) / "data" / "complementary-dynamics-cpp" / "sphere" / "sphere.json"


def snapshot(folder):
    """Every file and folder under `folder` with its bytes (None for folders)."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


def leftovers(parent):
    """Hidden staging, old-output and lock files fastcd may leave beside its outputs."""
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_a_folder_fastcd_did_not_write_is_refused_and_left_alone(sphere, tmp_path):
    out = tmp_path / "mine"
    (out / "sub").mkdir(parents=True)
    (out / "notes.txt").write_text("keep me")
    (out / "sub" / "data.bin").write_bytes(b"\0\1")
    before = snapshot(out)
    with pytest.raises(RuntimeError, match=r"is not empty \(notes.txt, sub/\) and is not a fastcd output"):
        fastcd.bake(sphere, out, **SETTINGS)
    (out / "run.json").write_text("{}")  # looks like a bake, but has no marker
    with pytest.raises(RuntimeError, match="holds run.json but no .fastcd-output marker"):
        fastcd.bake(sphere, out, **SETTINGS)
    (out / "run.json").unlink()
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []
    # An out_dir that is or holds the input is refused too.
    with pytest.raises(RuntimeError, match="contains the input"):
        fastcd.bake(sphere, sphere.parent.parent, **SETTINGS)


def test_a_bake_replaces_its_own_earlier_output_and_nothing_else(sphere, tmp_path):
    out = tmp_path / "out"
    first = fastcd.bake(sphere, out, **SETTINGS)
    marker = json.loads((out / ".fastcd-output").read_text())
    assert marker["fastcd_output"] == 1
    assert marker["entries"] == sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                                       if p.name != ".fastcd-output")
    assert {"run.json", "rest.obj", "animation.pc2", "obj", "obj/frame_00003.obj"} <= set(marker["entries"])
    # Again into the same folder: refused without force=True (Python's words for --force), and
    # the earlier bake left as it was.
    before = snapshot(out)
    with pytest.raises(RuntimeError) as refused:
        fastcd.bake(sphere, out, **dict(SETTINGS, frames=2))
    assert str(refused.value) == (f"output folder '{os.path.realpath(out)}' is not empty: it holds an earlier bake "
                                  "(use force=True to replace it)")
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []
    # With force=True and other settings: the old bake is replaced as a whole.
    second = fastcd.bake(sphere, out, **dict(SETTINGS, frames=2), force=True)
    assert first["frames"] == 3 and second["frames"] == 2
    assert sorted(p.name for p in (out / "obj").iterdir()) == ["frame_00001.obj", "frame_00002.obj"]
    assert leftovers(tmp_path) == []
    # A file the user added makes it theirs: refused, naming it, and kept.
    (out / "extra.txt").write_text("mine")
    before = snapshot(out)
    with pytest.raises(RuntimeError, match=r"holds files fastcd did not write \(extra.txt\); force=True replaces "
                       "only a folder that holds nothing but an earlier bake"):
        fastcd.bake(sphere, out, **SETTINGS, force=True)
    assert snapshot(out) == before
    # What the CLI wrote, fastcd.bake may replace, and the other way round (one marker).
    (out / "extra.txt").unlink()
    fastcd.bake(sphere, out, **SETTINGS, force=True)
    assert leftovers(tmp_path) == []


def test_an_interrupted_bake_leaves_the_previous_output_intact(sphere, tmp_path):
    out = tmp_path / "out"
    fastcd.bake(sphere, out, **SETTINGS)
    before = snapshot(out)
    scene = fastcd.read_scene(sphere)
    sent = []

    def interrupt(work, stage, done, total):  # Ctrl-C as the precompute starts (from the bake's thread)
        if not sent:
            sent.append(stage)
            os.kill(os.getpid(), signal.SIGINT)

    fastcd.set_progress_callback(interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            fastcd.bake(scene, out, **dict(SETTINGS, solver="full", frames=0), force=True)
    finally:
        fastcd.set_progress_callback(None)
    assert sent
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []
    # A bake that fails (here: a bad setting, found after the output folder was prepared) leaves it too.
    with pytest.raises(ValueError, match="solver"):
        fastcd.bake(scene, out, **dict(SETTINGS, solver="medium"), force=True)
    assert snapshot(out) == before
    assert leftovers(tmp_path) == []
    # And the next bake there works.
    fastcd.bake(scene, out, **SETTINGS, force=True)
    assert leftovers(tmp_path) == []
