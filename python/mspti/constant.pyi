"""Enums of the mspti package, with msPTI's values, and the buffer size limit."""

from ._enums import (MsptiActivityFlag as MsptiActivityFlag, MsptiActivityKind as MsptiActivityKind,
                     MsptiActivitySourceKind as MsptiActivitySourceKind,
                     MsptiCommunicationDataType as MsptiCommunicationDataType, MsptiResult as MsptiResult)

MAX_BUFFER_SIZE_MB: int
"""Largest activity buffer set_buffer_size() accepts, in MB."""
