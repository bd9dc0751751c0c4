"""``json.dumps(obj, indent=N, default=str)``, the same text, faster: with an indent, the standard
library encodes in Python with a generator per level, which for ``analyze --format json`` on a
long run (one row per rank and step) took longer than the analysis. Here rows are joined
directly, strings and numbers encoded as json's own functions do.

With ``flat_rows=True`` a dict or list holding no container (a row of a table) is written on one
line by json's C encoder instead, which is several times faster again: the same JSON value, laid
out one row per line (what ``analyze --format json`` writes)."""

import json
from json.encoder import c_make_encoder
from json.encoder import encode_basestring_ascii as _string

_INF = float("inf")
_ONE_LINE = json.JSONEncoder(default=str, separators=(", ", ": "))  # no indent: the C encoder
# That C encoder made once: JSONEncoder.encode makes one per call, half the time of a row. A row
# holds no container, so there is no cycle to look for (markers None).
_C_ONE_LINE = c_make_encoder(None, str, _string, None, ": ", ", ", False, False, True) if c_make_encoder else None


def _one_line(o):
    return "".join(_C_ONE_LINE(o, 0)) if _C_ONE_LINE is not None else _ONE_LINE.encode(o)


def _float(f):
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    return float.__repr__(f)


def _key(k):
    if isinstance(k, str):
        return _string(k)
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, float):
        return _string(_float(k))
    if isinstance(k, int):
        return _string(int.__repr__(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


def dumps(obj, indent=1, flat_rows=False):
    """The text of json.dumps(obj, indent=indent, default=str); with flat_rows, every container
    that holds no container is written on one line (the same JSON value)."""
    out = []
    _encode(obj, out, 0, " " * indent, flat_rows)
    return "".join(out)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _is_flat(o):
    for v in (o.values() if isinstance(o, dict) else o):
        # The exact scalar types first: one set lookup, where isinstance tests three classes.
        if type(v) not in _SCALARS and isinstance(v, (list, tuple, dict)):
            return False
    return True


def _encode(o, out, level, step, flat_rows=False):
    if isinstance(o, str):
        out.append(_string(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif flat_rows and isinstance(o, (list, tuple, dict)) and _is_flat(o):
        out.append(_one_line(o))
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = "\n" + step * (level + 1)
        out.append("[")
        first = True
        for v in o:
            out.append(inner if first else "," + inner)
            first = False
            if flat_rows and type(v) is dict and _is_flat(v):  # a table's row, the common case: no call
                out.append(_one_line(v))
            else:
                _encode(v, out, level + 1, step, flat_rows)
        out.append("\n" + step * level + "]")
    elif isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = "\n" + step * (level + 1)
        out.append("{")
        first = True
        for k, v in o.items():
            out.append((inner if first else "," + inner) + _key(k) + ": ")
            first = False
            _encode(v, out, level + 1, step, flat_rows)
        out.append("\n" + step * level + "}")
    else:
        _encode(str(o), out, level, step)  # default=str


def check(obj, indent=1):
    """Whether dumps() gives json.dumps()'s text for obj (for tests)."""
    return dumps(obj, indent) == json.dumps(obj, indent=indent, default=str)
