"""How error messages show a bad argument: its repr (cut past 80 characters) and its type."""

import reprlib

_shortened = reprlib.Repr()
_shortened.maxother = _shortened.maxstring = 80  # the repr of a huge argument is cut


def describe(value):
    """``'8' (str)``, ``[0, 1, 2, ...] (list)``: what a message says it got."""
    return f"{_shortened.repr(value)} ({type(value).__name__})"
