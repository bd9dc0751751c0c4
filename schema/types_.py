"""The field types of the record schema (schema/types_.py: named so as not to hide the standard `types`): one spec per type, read by every emitter of generate.py.

A field's ``t`` in schema/records.py is ``BASE`` or ``BASE:ARG`` (``enum:MsptiActivityFlag``); BASE
names one of TYPES below. Each spec says how the type is laid out in msPTI's C record, what it
becomes in C++, Python and Java, how the JNI layer moves it, and how the trace tool writes it (a
slice argument and a SQLite column). Adding a type is one entry here; no emitter changes.

Templates are str.format strings. Their names:
  {c}     the field's C member path (``ds.deviceId``)      {n}   the field's name (``device_id``)
  {e}     the enum's name (enum and kind types)            {ce}  the C enum's name (``msptiActivityFlag``)
  {v}     the C++ value variable (``d``)                   {x}   a C++ expression of the C member
  {slot}  the JNI slot's byte offset                       {at}  the field's byte offset expression
  {j}     the Java variable
"""


class FieldType:
    """One field type. Attributes left None do not apply (the emitter that needs them never sees the type)."""

    def __init__(self, name, doc, *, c_size, np, c_desc, cpp=None, cpp_default=None, to_cpp=None, py=None,
                 py_default=None, to_py=None, java=None, java_eq="eq", to_slot=None, from_slot=None,
                 from_bytes=None, slots=1, sql="INTEGER", arg="uint", enum=False):
        self.name, self.doc = name, doc
        self.c_size, self.np, self.c_desc = c_size, np, c_desc  # msPTI's C layout
        self.cpp, self.cpp_default, self.to_cpp = cpp, cpp_default, to_cpp  # C++ value type, default, C -> C++
        self.py, self.py_default, self.to_py = py, py_default, to_py  # Python type, default, C++ -> Python
        self.java, self.java_eq = java, java_eq  # Java type; equality: "eq", "objects" or "double"
        self.to_slot, self.from_slot, self.slots = to_slot, from_slot, slots  # JNI RecordDecoder slots
        self.from_bytes = from_bytes  # Java: read from msPTI's bytes in a ByteBuffer b
        self.sql, self.arg = sql, arg  # trace: SQLite column type; slice argument ("uint", "double", "string")
        self.enum = enum  # its Monitor-API type is the enum named by the field's ARG


_INT_SLOT = "    s[{slot}] = static_cast<int64_t>({v}.{n});"

TYPES = {t.name: t for t in [
    FieldType("kind", "int32 msptiActivityKind -> MsptiActivityKind, always the record's kind",
              c_size=4, np="<i4", c_desc="int32 msptiActivityKind", cpp_default=" = {e}::{default}",
              to_cpp="static_cast<MsptiActivityKind>(r.{c})", py_default="{e}.{default}",
              to_py="enum_member(t.enums[k{e}], as_long({v}.{n}))", to_slot=_INT_SLOT,
              from_slot="(int) b.getLong({slot})", from_bytes="Enums.{em}(b.getInt({at}))", enum=True),
    FieldType("enum", "int32 C enum -> enum NAME (one of ENUMS)",
              c_size=4, np="<i4", c_desc="int32 {ce}", cpp_default=" = {e}::{default}",
              to_cpp="static_cast<{e}>(r.{c})", py_default="{e}.{default}",
              to_py="enum_member(t.enums[k{e}], as_long({v}.{n}))", to_slot=_INT_SLOT,
              from_slot="(int) b.getLong({slot})", from_bytes="Enums.{em}(b.getInt({at}))", enum=True),
    FieldType("cenum", "int32 C enum named by ARG that the Monitor API does not mirror (trace-only records)",
              c_size=4, np="<i4", c_desc="int32 {ce}"),
    FieldType("u64", "uint64 -> uint64 (Java long with the same bits)",
              c_size=8, np="<u8", c_desc="uint64", cpp="uint64_t", cpp_default=" = 0", to_cpp="r.{c}",
              py="int", py_default="0", to_py="u64({v}.{n})", java="long", to_slot=_INT_SLOT,
              from_slot="b.getLong({slot})", from_bytes="b.getLong({at})"),
    FieldType("f64", "double",
              c_size=8, np="<f8", c_desc="double", cpp="double", cpp_default=" = 0", to_cpp="r.{c}",
              py="float", py_default="0.0", to_py="PyFloat_FromDouble({v}.{n})", java="double", java_eq="double",
              to_slot="    s[{slot}] = f64_bits({v}.{n});", from_slot="Double.longBitsToDouble(b.getLong({slot}))",
              from_bytes="b.getDouble({at})", sql="REAL", arg="double"),
    FieldType("str", "const char * -> owned string (NULL -> \"\")",
              c_size=8, np="<u8", c_desc="const char *", cpp="std::string", cpp_default="", to_cpp="text(r.{c})",
              py="str", py_default='""', to_py="str({v}.{n})", java="String", java_eq="objects",
              to_slot="    if ((s[{slot}] = dec.string(env, {v}.{n}, {arg})) < 0) return false;",
              from_slot="s[(int) b.getLong({slot})]", arg="string"),
    FieldType("id", "uint32 device/stream id -> int64, 0xFFFFFFFF (none) -> -1",
              c_size=4, np="<u4", c_desc="uint32", cpp="int64_t", cpp_default=" = -1", to_cpp="id_or_none(r.{c})",
              py="int", py_default="-1", to_py="i64({v}.{n})", java="long", to_slot=_INT_SLOT,
              from_slot="b.getLong({slot})", from_bytes="id(b.getInt({at}))"),
    FieldType("u32", "uint32 (process/thread id) -> int64",
              c_size=4, np="<u4", c_desc="uint32", cpp="int64_t", cpp_default=" = -1",
              to_cpp="static_cast<int64_t>(r.{c})", py="int", py_default="-1", to_py="i64({v}.{n})", java="long",
              to_slot=_INT_SLOT, from_slot="b.getLong({slot})", from_bytes="u32(b.getInt({at}))"),
    FieldType("u8", "uint8 flag (trace-only records)", c_size=1, np="<u1", c_desc="uint8"),
    FieldType("i64", "int64 (value types only)",
              c_size=None, np=None, c_desc=None, cpp="int64_t", cpp_default=" = -1", py="int", py_default="-1",
              to_py="i64({v}.{n})", java="long", to_slot=_INT_SLOT, from_slot="b.getLong({slot})"),
    FieldType("object_id", "msptiObjectId union -> MsptiObjectId (host: process/thread, device: device/stream); "
              "its members are the MsptiObjectId record's rows",
              c_size=8, np=None, c_desc="msptiObjectId", cpp="MsptiObjectId", cpp_default="",
              to_cpp="object_id(r)", py="MsptiObjectId", py_default="MsptiObjectId()", to_py="to_python({v}.{n})",
              java="MsptiObjectId", java_eq="objects", slots=4, sql=None, arg=None),
]}
