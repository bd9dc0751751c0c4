"""Names read from trace files: never a traceback for bad bytes.

Our writer escapes marker names that are not valid UTF-8 (``\\xNN`` per bad byte), but a trace
from elsewhere, or a damaged one, may still hold invalid UTF-8. :func:`text` decodes such bytes
with U+FFFD in their place and counts them; :func:`warn_once` tells stderr how many there were.
"""

import sys

_bad = [0]
_warned = [False]


def text(raw):
    """``raw`` (bytes) as str; invalid UTF-8 is replaced (U+FFFD) and counted."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        _bad[0] += 1
        return raw.decode("utf-8", "replace")


def bad_count():
    """How many texts read so far were not valid UTF-8."""
    return _bad[0]


def warn_once(stream=None):
    """Says once on stderr how many names had bad bytes (if any did)."""
    if _bad[0] and not _warned[0]:
        _warned[0] = True
        print(f"mspti-trace: warning: {_bad[0]} name(s) in the trace were not valid UTF-8; "
              "bad bytes are shown as \ufffd", file=stream or sys.stderr)
