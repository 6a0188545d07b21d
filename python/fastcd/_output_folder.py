"""The folder ``fastcd.bake`` writes, handled as ``fastcd run`` handles its ``--out``
(apps/fastcd/output_folder.hpp), so that a bake never overwrites or deletes a user's files and
never leaves a half-written output:

- the target is resolved (symbolic links, '.', '..') and refused when it is an existing file, the
  root, a mount point, or equals or contains the current folder or an input;
- it is locked against a concurrent bake (``flock`` on ``.<name>.lock`` beside it, the lock the
  CLI takes) before it is judged, and judged again just before the commit;
- a non-empty target is replaced only when it holds an earlier bake and nothing else: its
  ``.fastcd-output`` marker lists every file and folder in it. A folder without the marker, or
  with anything the marker does not list, is refused, naming what is foreign;
- the bake is written into a hidden sibling ``.<name>.partial-<pid>``; the commit writes the
  marker there, renames the old target to ``.<name>.old-<pid>``, the stage into place, then
  removes the old one. On an error or Ctrl-C before the commit the stage is removed and the
  target is as it was. Staging folders of dead runs are removed; an old output whose run died
  between the two renames is put back.
"""
import errno
import fcntl
import json
import os
import shutil
from pathlib import Path

MARKER = ".fastcd-output"  # the CLI's kOutputMarker: {"fastcd_output": 1, "entries": [...]}
_NAMED = 5  # names a refusal lists


def _named(names):
    names = sorted(names)
    text = ", ".join(names[:_NAMED])
    return text + " and more" if len(names) > _NAMED else text


def _entry_name(path, name):
    return name + "/" if path.is_dir() and not path.is_symlink() else name


def _some_names(folder):
    names = []
    for entry in os.scandir(folder):
        names.append(_entry_name(Path(entry.path), entry.name))
        if len(names) > 64:
            break
    return _named(names)


def _entries(folder):
    """Every file and folder under `folder`, relative, '/'-separated, sorted (the marker's list)."""
    out = []
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            rel = (Path(root) / name).relative_to(folder).as_posix()
            if rel != MARKER:
                out.append(rel)
    return sorted(out)


def _within(inner, outer):
    return inner == outer or outer in inner.parents


def _not_replaceable(folder):
    """Why `folder` (existing, not empty) is not a bake fastcd may replace: "" when its marker
    lists everything in it."""
    marker = folder / MARKER
    if not marker.exists() and not marker.is_symlink():
        if (folder / "run.json").exists():
            return (f"holds run.json but no {MARKER} marker ({_some_names(folder)}): a bake of an older fastcd, or "
                    "a folder that only looks like one, so fastcd cannot tell what it wrote there; delete it "
                    "yourself if you no longer need anything in it, or choose another out_dir")
        return (f"is not empty ({_some_names(folder)}) and is not a fastcd output (it has no {MARKER} marker); "
                "fastcd replaces only folders it wrote: choose a new or empty out_dir")
    unreadable = ""
    listed = set()
    if marker.is_symlink() or not marker.is_file() or marker.stat().st_size > (64 << 20):
        unreadable = "it is not a small regular file"
    else:
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
            if not isinstance(doc, dict) or doc.get("fastcd_output") != 1 or not isinstance(doc.get("entries"), list):
                unreadable = "it is not the list fastcd writes"
            else:
                listed = {str(e) for e in doc["entries"]}
        except (ValueError, OSError) as e:
            unreadable = "it is not the list fastcd writes" if isinstance(e, ValueError) else str(e)
    if unreadable:
        return (f"has a {MARKER} marker fastcd cannot read ({unreadable}); delete the folder yourself if you no "
                "longer need anything in it, or choose another out_dir")
    foreign = []
    for root, dirs, files in os.walk(folder):
        for name in sorted(dirs) + sorted(files):
            path = Path(root) / name
            rel = path.relative_to(folder).as_posix()
            if rel == MARKER or rel in listed:
                continue
            foreign.append(_entry_name(path, rel))
            if name in dirs:
                dirs.remove(name)  # (not into a foreign folder)
        if len(foreign) > _NAMED:
            break
    if not foreign:
        return ""
    return (f"holds files fastcd did not write ({_named(foreign)}); fastcd replaces only a folder that holds "
            "nothing but an earlier bake: move them elsewhere or choose another out_dir")


def _refusal(target):
    if not target.is_dir() or not any(target.iterdir()):
        return ""
    why = _not_replaceable(target)
    return f"output folder '{target}' {why}" if why else ""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _sync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class OutputFolder:
    """``with OutputFolder(out_dir, inputs) as folder:`` bake into ``folder.stage``, then
    ``folder.commit()``; leaving the block without the commit removes the stage."""

    def __init__(self, out_dir, inputs=()):
        given = str(out_dir)
        if not given:
            raise RuntimeError("out_dir is empty")
        target = Path(os.path.realpath(os.path.abspath(given)))
        if target == Path(target.anchor):
            raise RuntimeError(f"out_dir '{given}' is the root folder; choose a folder for the bake")
        if target.exists() and not target.is_dir():
            raise RuntimeError(f"out_dir '{given}' is an existing file, not a folder; fastcd writes a folder of "
                               "outputs there: choose another out_dir")
        self.given, self.target = given, target
        self._check_inputs(inputs)
        if _within(Path(os.path.realpath(os.getcwd())), target):
            raise RuntimeError(f"out_dir '{given}' is (or contains) the current folder; choose a new folder for the "
                               "bake")
        if target.is_dir() and os.path.ismount(target):
            raise RuntimeError(f"out_dir '{given}' is a mount point (a separate file system, e.g. a container "
                               "volume); fastcd puts a finished bake in place by renaming a folder, which a mount "
                               f"point does not allow: choose a folder inside it, e.g. {target / 'bake'}")
        parent, name, pid = target.parent, target.name, os.getpid()
        parent.mkdir(parents=True, exist_ok=True)
        self.stage = parent / f".{name}.partial-{pid}"
        self._old = parent / f".{name}.old-{pid}"
        self._lock_path = parent / f".{name}.lock"
        self._lock = None
        self._started = self._committed = False
        self._lock = self._take_lock()
        try:
            self._recover()
            why = _refusal(target)
            if why:
                raise RuntimeError(why)
        except BaseException:
            self._unlock()
            raise

    def _check_inputs(self, inputs):
        for given in inputs:
            if not given:
                continue
            path = Path(os.path.realpath(os.path.abspath(str(given))))
            if _within(path, self.target):
                raise RuntimeError(f"out_dir '{self.given}' {'is' if path == self.target else 'contains'} the "
                                   f"input '{given}'; choose an output folder outside the scene's files")

    def _take_lock(self):
        for _ in range(5):
            try:
                fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            except OSError as e:
                raise RuntimeError(f"cannot write in '{self.target.parent}', where fastcd prepares the bake of "
                                   f"'{self.target.name}' before moving it in place ({e.strerror}): choose an "
                                   "out_dir inside a folder you can write") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                who = os.pread(fd, 31, 0).decode(errors="replace")
                os.close(fd)
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    who = f" (pid {who})" if who else ""
                    raise RuntimeError(f"another fastcd run{who} is writing '{self.target}'; wait for it or choose "
                                       "another out_dir") from None
                raise RuntimeError(f"cannot lock '{self._lock_path}': {e.strerror}") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self._lock_path).st_ino
            except OSError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
                return fd
            os.close(fd)  # unlinked under us: try again with the new file
        raise RuntimeError(f"cannot lock '{self._lock_path}': it keeps being replaced")

    def _unlock(self):
        if self._lock is None:
            return
        try:
            os.unlink(self._lock_path)
        except OSError:
            pass
        os.close(self._lock)
        self._lock = None

    def _recover(self):
        """Staging folders of dead runs removed; an old output put back when the target is missing."""
        name = self.target.name
        for entry in list(self.target.parent.iterdir()):
            for prefix, old in ((f".{name}.partial-", False), (f".{name}.old-", True)):
                digits = entry.name[len(prefix):] if entry.name.startswith(prefix) else ""
                if not digits.isdigit() or len(digits) > 9:
                    continue
                pid = int(digits)
                if pid == os.getpid() or _alive(pid):
                    continue
                if not old:
                    shutil.rmtree(entry, ignore_errors=True)
                elif not self.target.exists() and not self.target.is_symlink():
                    os.rename(entry, self.target)
                elif entry.is_dir() and not entry.is_symlink() and not _not_replaceable(entry):
                    shutil.rmtree(entry, ignore_errors=True)

    def __enter__(self):
        return self

    def start(self, inputs=()):
        """Checks the inputs known now and creates the empty stage."""
        self._check_inputs(inputs)
        shutil.rmtree(self.stage, ignore_errors=True)
        self.stage.mkdir()
        self._started = True
        return self.stage

    def commit(self):
        """Writes the marker, judges the target again and moves the stage into place (the
        previous output is removed only after)."""
        marker = {"entries": _entries(self.stage), "fastcd_output": 1}
        tmp = self.stage / (MARKER + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(marker, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, self.stage / MARKER)
        _sync_folder(self.stage)
        why = _refusal(self.target)
        if why:
            kept = self.target.parent / f"{self.target.name}.new-{os.getpid()}"
            try:
                os.rename(self.stage, kept)
            except OSError:
                raise RuntimeError(why) from None
            self._started = False
            raise RuntimeError(f"{why}; the new bake is in '{kept}'")
        replace = self.target.exists() or self.target.is_symlink()
        if replace:
            os.rename(self.target, self._old)
            _sync_folder(self.target.parent)
        try:
            os.rename(self.stage, self.target)
        except BaseException:
            if replace:
                os.rename(self._old, self.target)  # the previous output back
            raise
        self._committed = True
        _sync_folder(self.target.parent)
        if replace:
            shutil.rmtree(self._old, ignore_errors=True)

    def __exit__(self, *exc):
        if self._started and not self._committed:
            shutil.rmtree(self.stage, ignore_errors=True)
        self._unlock()
        return False
