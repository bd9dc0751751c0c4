"""The Python type stubs (.pyi) of the modules generated from the record schema.

Called by generate.py (``outputs()``); written next to the modules they describe, so that mypy and
IDEs see the enums, the record classes with their typed fields, the per-kind monitors and callback
interfaces, and the batch dtypes by name. The hand-written modules of the package have hand-written
stubs in python/ that import these (tests/python/typing checks them against the runtime).
"""


def _doc(text, indent="    "):
    return f'{indent}"""{text}"""'


def gen_enums_pyi(G):
    out = [f'"""Enums of the mspti package (msPTI\'s values, plain ``Enum``).\n\n{G.HEADER}\n"""\n',
           "from enum import Enum\n"]
    for e in G.S.ENUMS:
        out.append(f"\nclass {e.name}(Enum):\n{_doc(e.doc)}\n")
        for n, v, d in e.values:
            out.append(f"    {n} = {v}")
            if d:
                out.append(_doc(d))
        out.append("")
    out.append("\nENUMS: tuple[type[Enum], ...]\n")
    out.append("__all__ = [" + ", ".join(f'"{e.name}"' for e in G.S.ENUMS) + "]\n")
    return "\n".join(out)


def gen_records_pyi(G):
    enums = G.used_enums()
    out = [f'''"""Records handed to monitor callbacks: owned, immutable named tuples.

Fields are typed; ``dataclasses.fields(KernelData)`` lists them (name, type, default, and the
field's doc, unit and msPTI key in ``metadata``), and ``dataclasses.asdict``/``replace`` work on a
record. A record is still a tuple (``_asdict()``, ``_fields``, pickling, hashing); it is not a
dataclass instance for ``__init__`` generation or ``__post_init__``.

{G.HEADER}
"""

import dataclasses
from typing import Any, ClassVar, NamedTuple

from ._enums import {", ".join(enums)}


class _Record:
    """Equality by type and value; the dataclass-style field table of the record class."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
''']
    for r in G.RECORDS:
        fields = f"_{r.name}Fields"
        out.append(f"\nclass {fields}(NamedTuple):")
        for f in r.fields:
            # A field named like a tuple method (CommunicationData.count) shadows it, as at runtime.
            clash = "  # type: ignore[assignment]" if f.name in dir(tuple) else ""
            out.append(f"    {f.name}: {G.py_type(f)} = ...{clash}")
            out.append(_doc(G.text(f)))
        out.append("")
        out.append(f"\nclass {r.name}(_Record, {fields}):\n{_doc(r.doc)}\n")
        keys = [f for f in r.fields if r.keys and f.key and G.base(f) != "object_id"]
        for f in keys:
            out.append(f"    {G.upper(f.name)}: ClassVar[str]")
            out.append(_doc(f'msPTI\'s dictionary key of ``{f.name}``: "{f.key}".'))
        if not keys:
            out.append("    pass")
        out.append("")
    out.append("\nRECORD_CLASSES: dict[str, type[_Record]]")
    out.append("__all__ = [" + ", ".join(f'"{r.name}"' for r in G.RECORDS) + "]\n")
    return "\n".join(out)


def gen_kinds_pyi(G):
    records = ", ".join(r.name for r in G.SIMPLE)
    out = [f'"""The monitors that deliver one record per call, and their callback interfaces.\n\n{G.HEADER}\n"""\n',
           "from typing import Callable, Union\n",
           "from .._enums import MsptiResult",
           f"from ..activity_data import {records}",
           "from .base_monitor import SingleCallbackMonitor\n"]
    for r in G.SIMPLE:
        m = r.monitor
        out.append(f'''
class {m.callback}:
    """The callback interface of {m.name}: subclass it and override ``on_record`` (or pass any callable)."""

    def __init__(self) -> None: ...
    def on_record(self, data: {r.name}) -> None:
        """Called once per {r.name}, on the delivery thread."""


class {m.name}(SingleCallbackMonitor):
    """{m.doc}"""

    def start(self, callback: Union[Callable[[{r.name}], object], {m.callback}]) -> MsptiResult:
        """Starts delivering records: ``callback({r.name})`` per record, on the delivery thread.

        Returns MSPTI_ERROR_INVALID_PARAMETER for a non-callable (logged, naming the value it got).
        """
''')
    out.append("MONITORS: list[str]")
    out.append("CALLBACKS: list[str]")
    names = [r.monitor.name for r in G.SIMPLE] + [r.monitor.callback for r in G.SIMPLE]
    out.append("__all__ = [" + ", ".join(f'"{n}"' for n in names) + "]\n")
    return "\n".join(out)


def gen_layouts_pyi(G):
    return (f'"""msPTI\'s packed record layouts, for numpy batches (mspti.batch).\n\n{G.HEADER}\n"""\n\n'
            "from ._enums import MsptiActivityKind\n\n"
            "LAYOUTS: dict[MsptiActivityKind, tuple[int, list[tuple[str, str, int]]]]\n"
            "STRING_FIELDS: dict[MsptiActivityKind, tuple[str, ...]]\n"
            "DTYPE_NAMES: dict[MsptiActivityKind, str]\n")


def gen_batch_pyi(G):
    """mspti.batch: its hand-written functions, and one dtype constant per kind of the table."""
    names = [f"{r.kind}_DTYPE" for r in G.C_RECORDS]
    dtypes = "\n".join(f"{n}: Optional[np.dtype[np.void]]\n"
                       f'"""numpy dtype of a {r.c_struct} ({r.size} bytes); None without numpy."""'
                       for n, r in zip(names, G.C_RECORDS))
    exported = ", ".join(f'"{n}"' for n in ["DTYPES", *names, "LAYOUTS", "STRING_FIELDS", "resolve_string",
                                            "strings", "make_batch"])
    return f'''"""Batch delivery: blocks of records as numpy structured arrays over msPTI's packed layouts.

A batch is valid only during its callback (used afterwards it raises ValueError). Without numpy it
is a ``memoryview`` of the raw bytes.

{G.HEADER}
"""

from typing import Optional, Union

import numpy as np
import numpy.typing as npt

from ._enums import MsptiActivityKind
from ._layouts import LAYOUTS as LAYOUTS, STRING_FIELDS as STRING_FIELDS

Batch = Union[npt.NDArray[np.void], memoryview]
"""What a batch callback receives: a read-only structured array (with numpy), else a memoryview."""

DTYPES: dict[MsptiActivityKind, np.dtype[np.void]]
"""numpy dtype of each kind's record (empty without numpy)."""

{dtypes}


def resolve_string(address: Union[int, np.integer[npt.NBitBase]]) -> str:
    """The string at an address read from a live batch's string field ('' for 0/NULL)."""


def strings(batch: npt.NDArray[np.void], field: str) -> list[str]:
    """The strings of ``field`` for every record of ``batch`` (read during its callback)."""


def make_batch(kind: int, view: memoryview, count: int) -> Batch:
    """Builds the object a batch callback receives (used by the native module)."""


__all__ = [{exported}]
'''


def outputs(G):
    """Stub path (relative to the generated directory) -> text; ``G`` is the generator module (its
    table and helpers: the one the caller runs, which tests load afresh with a changed table)."""
    return {
        "python/mspti/_enums.pyi": gen_enums_pyi(G),
        "python/mspti/activity_data.pyi": gen_records_pyi(G),
        "python/mspti/_layouts.pyi": gen_layouts_pyi(G),
        "python/mspti/batch.pyi": gen_batch_pyi(G),
        "python/mspti/monitor/_kinds.pyi": gen_kinds_pyi(G),
    }
