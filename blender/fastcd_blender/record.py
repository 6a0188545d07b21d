"""The record of the files a bake wrote, so that Free Bake and a re-bake delete or replace nothing
else: a .blend file received from someone can hold a Mesh Cache modifier named 'fastcd' that
points at any file.

Each bake stores, on its object (the fastcd settings' `bake_record`), every file it wrote: its
path (relative to the .blend file when that is saved, as Blender stores the modifier's path), its
size and SHA-256, and a keyed checksum (HMAC-SHA-256) of its name, size and SHA-256 under a
random key kept in this Blender's configuration folder. The bake's .json beside the cache says the
same of the cache (and the positions), and carries a keyed checksum of its own content: so a bake
whose .blend file was not saved afterwards (the record on the object is lost) can still be
replaced or freed. A file counts as the bake's own only when a keyed checksum vouches for it (a
record from another computer or Blender set-up, or one edited by hand, does not), it is still a
regular file (not a link) and it still has the recorded size and content.
"""
import hashlib
import hmac
import json
import os
import secrets
import stat

import bpy

_VERSION = 1
_KEY_BYTES = 32
_JSON_MAX_BYTES = 1 << 24  # a bake's .json is a few kB: anything larger is not one
_key_cache = None

# Why a file is left alone ("left <files> in place: <why>").
NOT_RECORDED = "fastcd has no record of writing it (the Mesh Cache modifier may come from another .blend file)"
FOREIGN = "recorded by fastcd in another Blender set-up (the .blend file may come from elsewhere)"
NOT_REGULAR = "no longer a regular file (a link, a folder or a device)"
CHANGED = "changed since the bake"


def _read_key(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(_KEY_BYTES + 1)
    except FileNotFoundError:
        return None


def _key():
    """This Blender's record key: made on first use (0600, written whole before it appears), or a
    key for this session alone when the configuration folder cannot be written."""
    global _key_cache
    if _key_cache is None:
        try:
            folder = bpy.utils.user_resource("CONFIG", path="fastcd", create=True)
            path = os.path.join(folder, "bake_record.key")
            key = _read_key(path)
            if key is None or len(key) != _KEY_BYTES:
                tmp = f"{path}.{os.getpid()}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(secrets.token_bytes(_KEY_BYTES))
                    fh.flush()
                    os.fsync(fh.fileno())
                try:
                    if key is None:
                        try:
                            os.link(tmp, path)  # another Blender's key, made at the same moment, wins
                        except FileExistsError:
                            pass
                    else:
                        os.replace(tmp, path)  # a damaged key: earlier records no longer count (files stay)
                finally:
                    if os.path.lexists(tmp):
                        os.unlink(tmp)
                key = _read_key(path)
            if key is None or len(key) != _KEY_BYTES:
                raise OSError(f"cannot read {path}")
        except OSError:
            key = secrets.token_bytes(_KEY_BYTES)
        _key_cache = key
    return _key_cache


def _hmac(text):
    return hmac.new(_key(), text.encode(), hashlib.sha256).hexdigest()


def _mac(name, size, sha256):
    return _hmac(f"fastcd bake record {_VERSION}\0{name}\0{size}\0{sha256}")


def _json_mac(info):
    return _hmac(f"fastcd bake json {_VERSION}\0" + json.dumps(info, sort_keys=True, separators=(",", ":")))


def _read_regular(path, limit=None):
    """(size, SHA-256, the bytes when size <= limit) of the regular file at path, not following a
    link; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        h, kept = hashlib.sha256(), []
        keep = limit is not None and st.st_size <= limit
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
            if keep:
                kept.append(chunk)
    return st.st_size, h.hexdigest(), b"".join(kept) if keep else None


def fingerprint(path):
    """(size, SHA-256) of the regular file at path, not following a link; None for anything else."""
    r = _read_regular(path)
    return r[:2] if r else None


def blender_path(path):
    """path as Blender stores file paths: relative to the .blend file ('//...') once it is saved."""
    return bpy.path.relpath(path) if bpy.data.filepath else path


def resolve(path, library=None):
    return os.path.normpath(bpy.path.abspath(path, library=library))


def entry(path, size=None, sha256=None):
    """The record of a file the bake has just written."""
    if size is None:
        size, sha256 = fingerprint(path)
    return dict(path=blender_path(path), size=size, sha256=sha256, mac=_mac(os.path.basename(path), size, sha256))


def _valid(files):
    fields = (("path", str), ("size", int), ("sha256", str), ("mac", str))
    return [e for e in files if isinstance(e, dict) and all(isinstance(e.get(k), t) for k, t in fields)]


def entries(text):
    """The entries of a stored record; anything malformed counts as nothing recorded."""
    try:
        data = json.loads(text) if text else {}
        files = data.get("files", []) if isinstance(data, dict) else []
    except ValueError:
        return []
    return _valid(files) if isinstance(files, list) else []


def _json_text(body, mac):
    return json.dumps(dict(body, record_mac=mac), indent=1)


def signed_json(info, written):
    """The text of a bake's .json: info, the entries of the files written beside it (by name), and
    a keyed checksum of the whole."""
    body = dict(info, written=[dict(e, path=os.path.basename(e["path"])) for e in written])
    return _json_text(body, _json_mac(body))


def vouched(json_path):
    """The entries a bake's .json vouches for when its keyed checksum checks out: the files it lists
    (beside it) and itself; [] for anything else."""
    r = _read_regular(json_path, limit=_JSON_MAX_BYTES)
    if r is None or r[2] is None:
        return []
    try:
        body = json.loads(r[2])
    except ValueError:
        return []
    if not isinstance(body, dict) or not isinstance(body.get("written"), list):
        return []
    mac = body.pop("record_mac", None)
    if not isinstance(mac, str) or not hmac.compare_digest(mac, _json_mac(body)) or \
            _json_text(body, mac).encode() != r[2]:  # not a byte changed, white space included
        return []
    folder = os.path.dirname(json_path)
    files = [dict(e, path=os.path.join(folder, os.path.basename(e["path"]))) for e in _valid(body["written"])]
    return files + [entry(json_path, r[0], r[1])]


def dumps(files):
    return json.dumps(dict(version=_VERSION, files=files), indent=None, separators=(",", ":"))


def why_not_ours(e, path):
    """None when the file at path is the one entry e recorded (it may be deleted or replaced);
    else why it is not. A missing file is not ours either (nothing to do)."""
    name = os.path.basename(path)
    if name != os.path.basename(e["path"]) or not hmac.compare_digest(e["mac"], _mac(name, e["size"], e["sha256"])):
        return FOREIGN
    fp = fingerprint(path)
    if fp is None:
        return NOT_REGULAR
    if fp != (e["size"], e["sha256"]):
        return CHANGED
    return None


def verdicts(files, library=None):
    """{path: why it is not the bake's own (None: it is)} for every existing file the entries
    name; a file several entries name is the bake's own when one of them vouches for it."""
    out = {}
    for e in files:
        p = resolve(e["path"], library)
        if not os.path.lexists(p) or (p in out and out[p] is None):
            continue
        why = why_not_ours(e, p)
        if p not in out or why is None:
            out[p] = why
    return out
