"""fastcd.CancelToken: one job's cancellation among several jobs in one process (two bakes in
Blender, each in its own thread). A requested token stops the work inside its `with` block;
other threads' work runs to the end; request_cancel() still stops everything."""
import os
import threading
from pathlib import Path

import pytest

import fastcd


@pytest.fixture
def glb():
    return Path(os.environ["FASTCD_SHARED_DIR"]) / "data" / "khronos-gltf" / "RiggedSimple.glb"


def _load(glb):
    return fastcd.load_scene(glb, solver="fast", modes=4, clusters=8)


def test_a_token_stops_its_own_job_only(glb):
    cancelled, other = fastcd.CancelToken(), fastcd.CancelToken()
    cancelled.request()
    outcome = {}

    def job(name, token):
        try:
            with token:
                outcome[name] = _load(glb)
        except RuntimeError as e:
            outcome[name] = e

    threads = [threading.Thread(target=job, args=("cancelled", cancelled)),
               threading.Thread(target=job, args=("other", other))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert isinstance(outcome["cancelled"], RuntimeError) and "cancelled" in str(outcome["cancelled"])
    assert not isinstance(outcome["other"], Exception), outcome["other"]
    assert cancelled.requested and not other.requested
    _load(glb)  # outside any token: runs


def test_request_cancel_still_stops_token_work_and_scopes_nest(glb):
    outer, inner = fastcd.CancelToken(), fastcd.CancelToken()
    outer.request()
    with outer:
        with inner:  # the innermost token answers
            fastcd.request_cancel()
            try:
                with pytest.raises(RuntimeError, match="cancelled"):
                    _load(glb)
            finally:
                fastcd.clear_cancel()
            _load(glb)
        with pytest.raises(RuntimeError, match="cancelled"):
            _load(glb)


def test_a_with_block_is_left_in_its_own_thread():
    token = fastcd.CancelToken()
    token.__enter__()
    errors = []

    def leave():
        try:
            token.__exit__(None, None, None)
        except ValueError as e:
            errors.append(str(e))
    t = threading.Thread(target=leave)
    t.start()
    t.join()
    assert errors and "thread that entered it" in errors[0]
    token.__exit__(None, None, None)
