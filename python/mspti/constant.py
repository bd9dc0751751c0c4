"""Enums of the mspti package, with msPTI's values (checked against the C++ header by the tests).

The enums are generated from the record schema (schema/records.py) into ``mspti._enums``: plain
``Enum`` classes, as in msPTI's package, so members print by name and never equal plain ints.
"""

from ._enums import (MsptiActivityFlag, MsptiActivityKind, MsptiActivitySourceKind,  # noqa: F401
                     MsptiCommunicationDataType, MsptiResult)

MAX_BUFFER_SIZE_MB = 256
"""Largest activity buffer set_buffer_size() accepts, in MB."""
