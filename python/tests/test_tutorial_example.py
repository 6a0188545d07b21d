"""examples/python/tutorial23.py runs (short roll-out, no videos, no sweep) and writes its PNG."""
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "python" / "tutorial23.py"


def test_tutorial23_runs(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    if not SCRIPT.is_file():
        pytest.skip(f"{SCRIPT} not present")
    spec = importlib.util.spec_from_file_location("tutorial23", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--out", str(tmp_path), "--steps", "30", "--no-video", "--no-sweep"]) == 0
    out = capsys.readouterr().out
    assert "mesh: 200 verts, 312 triangles | rig: J is (400, 6) -> 6 DOFs" in out
    assert "subspace B: (400, 60) -> 60 DOFs" in out
    assert "rotation clusters: 20 (vs 312 triangles)" in out
    assert (tmp_path / "23_clusters.png").stat().st_size > 1000
