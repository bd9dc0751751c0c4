"""A minimal Perfetto TrackEvent writer for synthetic test traces (independent of the project's
writer and of mspti_trace.merge): names and categories inline, tracks laid out as docs/trace.md
says (uuid = pid << 32 | n)."""
import struct


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, wt, value):
    key = varint(num << 3 | wt)
    if wt == 0:
        return key + varint(value)
    if wt == 1:
        return key + struct.pack("<Q", value)
    if isinstance(value, str):
        value = value.encode()
    return key + varint(len(value)) + value


def annotation(name, value):
    if isinstance(value, float):
        return field(10, 2, name) + field(5, 1, struct.unpack("<Q", struct.pack("<d", value))[0])
    if isinstance(value, str):
        return field(10, 2, name) + field(6, 2, value)
    return field(10, 2, name) + field(4, 0, value)


class Writer:
    def __init__(self, pid, rank):
        self.pid, self.rank, self.n = pid, rank, 0
        self.packets = []
        self.proc = self._uuid()
        desc = field(1, 0, self.proc) + field(3, 2, field(1, 0, pid) + field(6, 2, f"rank {rank} \u00b7 pid {pid}"))
        self._packet(field(60, 2, desc), flags=1)

    def _uuid(self):
        self.n += 1
        return self.pid << 32 | self.n

    def _packet(self, body, ts=None, flags=2):
        p = body + field(10, 0, self.pid) + field(13, 0, flags)
        if ts is not None:
            p += field(8, 0, ts)
        self.packets.append(p)

    def track(self, name, parent=None):
        uuid = self._uuid()
        self._packet(field(60, 2, field(1, 0, uuid) + field(5, 0, parent or self.proc) + field(2, 2, name)))
        return uuid

    def _event(self, ts, kind, track, name=None, cat=None, args=None, flows=(), counter=None):
        te = field(9, 0, kind) + field(11, 0, track)
        if cat:
            te += field(22, 2, cat)
        if name:
            te += field(23, 2, name)
        for k, v in (args or {}).items():
            te += field(4, 2, annotation(k, v))
        for f in flows:
            te += field(47, 1, f)
        if counter is not None:
            te += field(30, 0, counter)
        self._packet(field(11, 2, te), ts=ts)

    def slice(self, track, name, cat, start, end, args=None, flows=()):
        self._event(start, 1, track, name, cat, args, flows)
        self._event(end, 2, track)

    def instant(self, track, name, cat, ts, args=None):
        self._event(ts, 3, track, name, cat, args)

    def bytes(self):
        return b"".join(field(1, 2, p) for p in self.packets)
