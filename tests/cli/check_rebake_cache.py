"""A re-bake through .fastcd-cache: the first `fastcd run CHARACTER.glb` meshes and precomputes
and keeps both beside the output folder; a second bake with another material reuses the tets
and the fast subspace (and says so), a third with other modes computes a new subspace. Each
bake's caches agree with a bake that used no cache at all.

The cache is trusted by its content, never by its file name (issue 39): an entry of other
settings or of another mesh copied under an entry's name, a truncated, bit-flipped, grown or
6 GiB sparse file is computed again and rewritten with a warning, the bake equal to an uncached
one and the huge file never read; a cache folder that cannot be written (a file where the folder
should be, an immutable folder, a folder another user owns) is a warning, never a failed bake.

    check_rebake_cache.py FASTCD_CLI CHARACTER.glb WORK_DIR    (RiggedFigure.glb beside CHARACTER.glb:
                                                              the other mesh)
"""
import glob
import json
import os
import resource
import shutil
import subprocess
import sys

def bake(cli, glb, out, *args, modes="6", solver="fast", frames="30", user=None, ok=True):
    cmd = [cli, "run", glb, "--solver", solver, "--frames", frames, "--modes", modes, "--clusters", "10", "--no-video",
           "--out", out, *args]
    if user is not None:  # as another user (the folder a cache lives in owned by someone else)
        cmd = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert (r.returncode == 0) == ok, " ".join(cmd) + "\n" + r.stdout + r.stderr
    if not ok:
        return r.stdout + r.stderr, None
    return r.stdout + r.stderr, json.load(open(os.path.join(out, "run.json")))


def pc2(out):
    return open(os.path.join(out, "animation.pc2"), "rb").read()


def entry(cache, kind):
    """The one cache file of `kind` (fast, tets) in `cache`."""
    files = glob.glob(os.path.join(cache, kind + "-*"))
    assert len(files) == 1, files
    return files[0]


def cache_warnings(run):
    return [w for w in run["warnings"] if "cache file" in w or "cache folder" in w or "kept in the cache" in w]


def expect_rebuilt(run, log, *phrases):
    """The bake computed the cache afresh and said why, one warning per damaged entry."""
    warnings = cache_warnings(run)
    for phrase in phrases:
        assert any(phrase in w and ("and the file rewritten" in w) for w in warnings), (phrase, warnings, log)
    assert len(warnings) == len(phrases), warnings


def rebake_reuses_the_cache(cli, glb, work):
    cache = os.path.join(work, ".fastcd-cache")
    log, run = bake(cli, glb, os.path.join(work, "a"))
    assert not run["timings"]["precompute_from_cache"], log
    assert sorted(f[:5] for f in os.listdir(cache)) == ["fast-", "tets-"], os.listdir(cache)
    log, run = bake(cli, glb, os.path.join(work, "b"), "--ym", "6e4")
    assert "from the cache" in log and run["timings"]["precompute_from_cache"], log
    assert run["settings"]["ym"] == 6e4 and len(os.listdir(cache)) == 2  # Pa, as given (not normalised)
    assert not cache_warnings(run), run["warnings"]
    log, run = bake(cli, glb, os.path.join(work, "c"), modes="5")
    assert not run["timings"]["precompute_from_cache"] and len(os.listdir(cache)) == 3, log
    # The cached bake equals a bake without any cache, byte for byte.
    bake(cli, glb, os.path.join(work, "d"), "--ym", "6e4", "--no-cache")
    assert pc2(os.path.join(work, "b")) == pc2(os.path.join(work, "d")), "the cached and the uncached bake differ"


def foreign_and_damaged_entries_are_rebuilt(cli, glb, other_glb, work):
    """Each case puts a wrong file under the name of the default bake's entry; the next default
    bake must equal the uncached one, say the file was rebuilt, and leave a good entry behind."""
    cache = os.path.join(work, ".fastcd-cache")
    bake(cli, glb, os.path.join(work, "ref"), "--no-cache")
    reference = pc2(os.path.join(work, "ref"))
    bake(cli, glb, os.path.join(work, "default"))
    fast, tets = entry(cache, "fast"), entry(cache, "tets")
    good_fast, good_tets = open(fast, "rb").read(), open(tets, "rb").read()
    count = [0]

    def rebake_and_check(*phrases):
        count[0] += 1
        out = os.path.join(work, "rebuilt%d" % count[0])
        log, run = bake(cli, glb, out)
        assert pc2(out) == reference, "a bake through a wrong cache file differs from the uncached bake\n" + log
        expect_rebuilt(run, log, *phrases)
        assert open(fast, "rb").read() == good_fast and open(tets, "rb").read() == good_tets, "not rewritten"
        log, run = bake(cli, glb, out + "-again")  # the rewritten entries are used as they are
        assert run["timings"]["precompute_from_cache"] and not cache_warnings(run), log

    # Entries of other settings or another mesh, copied under the default entries' names.
    bake(cli, glb, os.path.join(work, "leak", "a"), "--leak", "none")
    shutil.copyfile(entry(os.path.join(work, "leak", ".fastcd-cache"), "fast"), fast)
    rebake_and_check("was made for other settings (leak none")
    bake(cli, glb, os.path.join(work, "tetgen", "a"), "--mesher", "tetgen")
    shutil.copyfile(entry(os.path.join(work, "tetgen", ".fastcd-cache"), "tets"), tets)
    rebake_and_check("was made for other settings (mesher tetgen")
    bake(cli, other_glb, os.path.join(work, "other", "a"), solver="full", frames="2")
    shutil.copyfile(entry(os.path.join(work, "other", ".fastcd-cache"), "tets"), tets)
    rebake_and_check("was made for other settings")

    # Cut short, one bit flipped in the payload.
    os.truncate(fast, len(good_fast) - 100)
    with open(tets, "r+b") as f:
        f.seek(len(good_tets) - 50)
        byte = f.read(1)
        f.seek(len(good_tets) - 50)
        f.write(bytes([byte[0] ^ 1]))
    rebake_and_check("is cut short", "does not match its checksum")

    # 6 GiB: a sparse file of zeros, and the real entry grown to that size. Neither is read
    # (the bake's peak memory stays small) and both are rewritten small.
    huge = 6 << 30
    with open(fast, "wb") as f:
        f.truncate(huge)
    os.truncate(tets, huge)
    rebake_and_check("is not a fastcd cache file", "has grown")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kib < 1 << 20, "a bake used %d MiB: a 6 GiB cache file was read" % (peak_kib >> 10)


def an_unwritable_cache_is_a_warning(cli, glb, work):
    bake(cli, glb, os.path.join(work, "ref"), "--no-cache")
    reference = pc2(os.path.join(work, "ref"))

    # A file where the cache folder should be.
    parent = os.path.join(work, "file")
    os.makedirs(parent)
    open(os.path.join(parent, ".fastcd-cache"), "w").write("not a folder\n")
    log, run = bake(cli, glb, os.path.join(parent, "a"))
    assert pc2(os.path.join(parent, "a")) == reference, log
    warnings = cache_warnings(run)
    assert len(warnings) == 1 and "cannot be written" in warnings[0] and "the bake goes on" in warnings[0], warnings

    # A folder another user owns (root's, 0755) with the default bake's entries: that user's
    # default bake reads them; another setting is computed, not kept, and said so.
    parent = os.path.join(work, "foreign")
    bake(cli, glb, os.path.join(parent, "root"))
    nobody = 65534
    os.chown(parent, nobody, nobody)
    log, run = bake(cli, glb, os.path.join(parent, "a"), user=nobody)
    assert run["timings"]["precompute_from_cache"] and not cache_warnings(run), log
    assert pc2(os.path.join(parent, "a")) == reference
    log, run = bake(cli, glb, os.path.join(parent, "b"), modes="5", user=nobody)
    warnings = cache_warnings(run)
    assert len(warnings) == 1 and "cannot be written (Permission denied)" in warnings[0], (warnings, log)

    # An immutable folder (chattr +i affects root too), where the file system supports it.
    parent = os.path.join(work, "immutable")
    bake(cli, glb, os.path.join(parent, "first"))
    cache = os.path.join(parent, ".fastcd-cache")
    if subprocess.run(["chattr", "+i", cache], capture_output=True).returncode != 0:
        print("chattr +i is not supported here: the immutable-folder case is left out")
        return
    try:
        log, run = bake(cli, glb, os.path.join(parent, "a"), modes="5")
        warnings = cache_warnings(run)
        assert len(warnings) == 1 and "cannot be written (Operation not permitted)" in warnings[0], (warnings, log)
        # A damaged entry in it: computed again, the warning says it could not be rewritten.
        subprocess.run(["chattr", "-i", cache], check=True)
        os.truncate(entry(cache, "fast"), os.path.getsize(entry(cache, "fast")) - 100)
        subprocess.run(["chattr", "+i", cache], check=True)
        log, run = bake(cli, glb, os.path.join(parent, "b"))
        assert pc2(os.path.join(parent, "b")) == reference, log
        assert any("is cut short" in w and "could not be rewritten" in w for w in cache_warnings(run)), run["warnings"]
    finally:
        subprocess.run(["chattr", "-i", cache])


def main(cli, glb, work):
    other_glb = os.path.join(os.path.dirname(glb), "RiggedFigure.glb")  # another mesh (its tets)
    if os.path.isdir(work):  # an immutable folder left by a run that was killed
        subprocess.run(["chattr", "-R", "-i", work], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rebake_reuses_the_cache(cli, glb, os.path.join(work, "rebake"))
    foreign_and_damaged_entries_are_rebuilt(cli, glb, other_glb, os.path.join(work, "damaged"))
    an_unwritable_cache_is_a_warning(cli, glb, os.path.join(work, "unwritable"))
    print("re-bake cache OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
