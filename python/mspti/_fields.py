"""Dataclass-style field tables for the record classes (named tuples).

``dataclasses.fields(KernelData)`` then lists each field with its type, its default and, in
``metadata``, its doc (unit included) and msPTI's dictionary key, straight from the record
class; ``dataclasses.asdict(record)`` and ``dataclasses.replace(record, ...)`` work too.
"""

import dataclasses
import typing


def _field(cls, name, hint):
    key = getattr(cls, name.upper(), None)  # KernelData.DEVICE_ID == "deviceId"
    metadata = {"doc": getattr(cls, name).__doc__ or "", "key": key if isinstance(key, str) else None}
    return name, hint, dataclasses.field(default=cls._field_defaults[name], metadata=metadata)


def add_field_tables(classes):
    """Gives each named-tuple record class the table dataclasses.fields() reads."""
    for cls in classes:
        hints = typing.get_type_hints(cls)
        # A throwaway dataclass of the same fields makes the Field objects, whatever the Python
        # version's Field constructor takes.
        table = dataclasses.make_dataclass(cls.__name__, [_field(cls, n, hints[n]) for n in cls._fields],
                                           frozen=True).__dataclass_fields__
        cls.__dataclass_fields__ = table
