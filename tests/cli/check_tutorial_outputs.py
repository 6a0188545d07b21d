"""Checks what `fastcd tutorial` wrote: the trajectories load with numpy and have the documented
shapes (and match simkit's reference positions), the videos decode with ffprobe, the PNGs decode,
and summary.json holds every printed number."""
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np


def png_size_and_decode(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, width, height = 8, b"", None, None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0], f"{path}: bad CRC"
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    assert len(raw) > width * height, f"{path}: truncated image data"
    return width, height


def main(out, reference):
    out = Path(out)
    ref = json.loads(Path(reference).read_text())
    steps, n = 200, 200
    for name in ["states_rig.npy", "states_full.npy", "states_fast.npy"]:
        a = np.load(out / name)
        assert a.dtype == np.float64, (name, a.dtype)
        assert a.shape == (steps, n, 2), (name, a.shape)
        assert np.isfinite(a).all(), name
    full = np.load(out / "states_full.npy")
    red = np.load(out / "states_fast.npy")
    for k in ["10", "40", "120"]:
        rf = np.array(ref["positions_full"][k])
        rr = np.array(ref["positions_reduced"][k])
        ef = np.linalg.norm(full[int(k) - 1] - rf) / np.linalg.norm(rf)
        er = np.linalg.norm(red[int(k) - 1] - rr) / np.linalg.norm(rr)
        assert ef < 1e-8, f"full step {k}: rel err {ef}"
        assert er < 1e-6, f"reduced step {k}: rel err {er}"
    rig = np.load(out / "states_rig.npy")
    # The rig alone is the rest beam translated in x by 3 sin(2 pi i / 80).
    assert abs(rig[0][:, 0].min() + 0.1) < 1e-12 and abs(rig[0][:, 1].max() - 1.0) < 1e-12, "rig rest pose"
    shift = 3.0 * np.sin(2 * np.pi * np.arange(steps) / 80.0)
    assert np.allclose(rig[:, :, 0] - rig[0][None, :, 0], shift[:, None], atol=1e-12), "rig x sweep"
    assert np.allclose(rig[:, :, 1], rig[0][None, :, 1], atol=1e-12), "rig y fixed"
    for name, width in [("rig.mp4", 520), ("full.mp4", 1040), ("compare.mp4", 1560)]:
        probe = subprocess.run(
            ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
             "stream=codec_name,nb_read_frames,width,height", "-of", "json", str(out / name)],
            check=True, capture_output=True, text=True)
        s = json.loads(probe.stdout)["streams"][0]
        assert s["codec_name"] == "h264", (name, s)
        assert int(s["nb_read_frames"]) == steps, (name, s)
        assert (s["width"], s["height"]) == (width, 440), (name, s)
    assert png_size_and_decode(out / "clusters.png")[0] > 100
    assert png_size_and_decode(out / "timing.png")[0] > 100
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mesh"]["vertices"] == 200 and summary["mesh"]["triangles"] == 312
    assert summary["full"]["max_violation"] < 1e-10
    assert summary["fast"]["clusters"] == 20
    assert sorted(summary["fast"]["cluster_counts"]) == ref["cluster_counts_sorted"]
    assert len(summary["sweep"]) == 5 and [r["vertices"] for r in summary["sweep"]] == [200, 490, 800, 1260, 1800]
    for r in summary["sweep"]:
        assert r["full_ms"] > 0 and r["fast_ms"] > 0
    print("tutorial outputs OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
