"""Short, named errors for calls that do not fit a compiled function.

pybind11 answers a call whose arguments do not fit (a wrong type, a missing or extra argument) with
"incompatible function arguments. The following argument types are supported: ... Invoked with:"
and the repr of every argument -- kilobytes for a mesh. :func:`install` wraps every function and
method of ``fastcd._fastcd`` once, at import, so that such a call raises a TypeError of one line
that names the argument and says what it must be::

    Simulation.advance(): p_next must be an array of numbers, got a str

Every other error passes through untouched (the arguments are converted and checked by name in
python/fastcd/_convert.py and python/src/arguments.cpp; this is the net under them).
"""
import functools
import operator
import re

import numpy as np

_MARKERS = ("incompatible function arguments", "incompatible constructor arguments")


def describe(x):
    """What a value is, in a few words (never its repr): "a list of 3 items", "a float64 array of
    shape (4, 2)", "a 10 x 6 scipy.sparse csr matrix", "None"."""
    if x is None:
        return "None"
    if isinstance(x, np.ndarray):
        return f"a {x.dtype} array of shape {x.shape}"
    fmt = getattr(x, "format", None)
    if isinstance(fmt, str) and hasattr(x, "nnz") and hasattr(x, "shape"):
        try:
            return f"a {x.shape[0]} x {x.shape[1]} scipy.sparse {fmt} matrix"
        except Exception:  # a damaged shape
            return f"a scipy.sparse {fmt} matrix"
    name = type(x).__name__
    article = "an" if name[:1] in "aeiou" else "a"
    if isinstance(x, (list, tuple, dict, set)):
        return f"{article} {name} of {len(x)} items"
    if isinstance(x, str) and len(x) <= 40:
        return f"the string {x!r}"
    return f"{article} {name}"


def _split_params(text):
    """'a: int, b: numpy.ndarray[numpy.float64[m, 1]] = None' -> [(name, type, has_default)]."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[(" and 1 or (ch in "])" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    params = []
    for p in parts:
        p = p.strip()
        if not p or p.startswith("*"):
            continue
        name, _, rest = p.partition(":")
        kind, eq, _ = rest.partition(" = ")
        params.append((name.strip(), kind.strip(), bool(eq)))
    return params


def _signatures(message):
    """The parameter lists pybind11 printed (one per overload)."""
    head = message.split("Invoked with:")[0]
    sigs = []
    for line in head.splitlines():
        m = re.match(r"\s*\d+\.\s*[\w.]*\((.*)\)( ->.*)?$", line)
        if m:
            sigs.append([p for p in _split_params(m.group(1)) if p[0] != "self"])
    return sigs


def _wanted(kind):
    """A pybind11 type in the user's words, or None for any value."""
    if kind in ("int",):
        return "an integer"
    if kind == "float":
        return "a number"
    if kind == "str":
        return "a string"
    if kind == "bool":
        return "True or False"
    if kind.startswith("scipy.sparse"):
        return "a scipy.sparse matrix"
    if kind.startswith("numpy.ndarray"):
        return "an array of integers" if "int" in kind else "an array of numbers"
    if kind.startswith(("List[", "Sequence[")) or kind in ("list", "sequence"):
        return "a list"
    if kind in ("dict",) or kind.startswith("Dict["):
        return "a dict"
    m = re.match(r"fastcd\._fastcd\.(\w+)$", kind)
    if m:
        return f"a fastcd.{m.group(1)}"
    return None


def _fits(value, kind):
    """False only when `value` surely cannot be the pybind11 type `kind`."""
    try:
        if kind == "int":
            operator.index(value)
        elif kind == "float":
            if isinstance(value, (str, bytes)) or not hasattr(type(value), "__float__") and not hasattr(
                    type(value), "__index__"):
                return False
        elif kind == "str":
            return isinstance(value, (str, bytes))
        elif kind == "bool":
            return isinstance(value, (bool, np.bool_))
        elif kind.startswith("numpy.ndarray"):
            return np.asarray(value).dtype.kind in "biuf"
        elif kind.startswith(("List[", "Sequence[")) or kind in ("list", "sequence"):
            return isinstance(value, (list, tuple, np.ndarray))
        elif kind == "dict":
            return isinstance(value, dict)
        else:
            m = re.match(r"fastcd\._fastcd\.(\w+)$", kind)
            if m:
                from . import _fastcd
                cls = getattr(_fastcd, m.group(1), None)
                return cls is None or isinstance(value, cls)
        return True
    except Exception:
        return False


def short_message(where, message, args, kwargs):
    """One line saying which argument of `where` does not fit and what it must be."""
    sigs = _signatures(message)
    if len(sigs) == 1:
        params = sigs[0]
        names = [p[0] for p in params]
        shown = ", ".join(n if not d else f"{n}=..." for n, _, d in params)
        if len(args) > len(params):
            return (f"{where}(): takes {len(params)} argument{'s' if len(params) != 1 else ''} ({shown}), "
                    f"got {len(args)}")
        for key in kwargs:
            if key not in names:
                return f"{where}(): has no argument {key!r}; it takes ({shown})"
        given = dict(zip(names, args))
        given.update(kwargs)
        for name, kind, has_default in params:
            if name not in given and not has_default:
                return f"{where}(): the argument {name!r} is missing; it takes ({shown})"
        for name, kind, _ in params:
            if name in given and not _fits(given[name], kind):
                wanted = _wanted(kind) or kind
                return f"{where}(): {name} must be {wanted}, got {describe(given[name])}"
    got = ", ".join([describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()])
    return f"{where}(): these arguments do not fit ({got}); see help({where.split('.')[0]})"


def _shortened(fn, where):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            text = str(e)
            if not text.startswith(tuple(f"{fn.__name__}(): {m}" for m in _MARKERS)):
                raise
            shown = args[1:] if "." in where else args  # a method's first argument is self
            name = where[: -len(".__init__")] if where.endswith(".__init__") else where
            raise TypeError(short_message(name, text, shown, kwargs)) from None
    call.__wrapped_by_fastcd__ = True
    return call


def install(module, overridable=("Rig",)):
    """Wraps every function of `module` and every method (and constructor) of its classes. The
    methods of `overridable` classes stay as they are: pybind11 finds a Python subclass's
    override by comparing against them (a wrapper would read as an override of itself)."""
    for name, obj in list(vars(module).items()):
        if name.startswith("_"):
            continue
        if isinstance(obj, type):
            for attr, member in list(vars(obj).items()):
                if (attr.startswith("__") or name in overridable) and attr != "__init__":
                    continue
                func = getattr(member, "__func__", None)  # pybind11 methods are instancemethods
                if func is not None and type(func).__name__ == "builtin_function_or_method":
                    setattr(obj, attr, _shortened(func, f"{name}.{attr}"))
        elif type(obj).__name__ == "builtin_function_or_method" and not getattr(obj, "__wrapped_by_fastcd__", False):
            setattr(module, name, _shortened(obj, name))
