package org.mspti;

/**
 * Value -> constant lookups for the record enums, cached (SWIG's swigToEnum copies the constant
 * array on every call; records are built millions of times per second). Unknown values fall back
 * to swigToEnum, which throws IllegalArgumentException.
 */
final class Enums {
    private Enums() {}

    private static final MsptiActivityKind[] KINDS = table(MsptiActivityKind.values(), 64);
    private static final MsptiActivityFlag[] FLAGS = table(MsptiActivityFlag.values(), 64);
    private static final MsptiActivitySourceKind[] SOURCES = table(MsptiActivitySourceKind.values(), 64);
    private static final MsptiCommunicationDataType[] DATA_TYPES = table(MsptiCommunicationDataType.values(), 64);


    @SuppressWarnings("unchecked")
    private static <E extends Enum<E>> E[] table(E[] constants, int size) {
        E[] t = (E[]) java.lang.reflect.Array.newInstance(constants.getClass().getComponentType(), size);
        for (E e : constants) {
            int v = valueOf(e);
            if (v >= 0 && v < size) t[v] = e;
        }
        return t;
    }

    private static int valueOf(Enum<?> e) {
        if (e instanceof MsptiActivityKind) return ((MsptiActivityKind) e).swigValue();
        if (e instanceof MsptiActivityFlag) return ((MsptiActivityFlag) e).swigValue();
        if (e instanceof MsptiActivitySourceKind) return ((MsptiActivitySourceKind) e).swigValue();
        return ((MsptiCommunicationDataType) e).swigValue();
    }

    static MsptiActivityKind kind(int v) {
        MsptiActivityKind e = v >= 0 && v < KINDS.length ? KINDS[v] : null;
        return e != null ? e : MsptiActivityKind.swigToEnum(v);
    }

    static MsptiActivityFlag flag(int v) {
        MsptiActivityFlag e = v >= 0 && v < FLAGS.length ? FLAGS[v] : null;
        return e != null ? e : MsptiActivityFlag.swigToEnum(v);
    }

    static MsptiActivitySourceKind source(int v) {
        MsptiActivitySourceKind e = v >= 0 && v < SOURCES.length ? SOURCES[v] : null;
        return e != null ? e : MsptiActivitySourceKind.swigToEnum(v);
    }

    static MsptiCommunicationDataType dataType(int v) {
        MsptiCommunicationDataType e = v >= 0 && v < DATA_TYPES.length ? DATA_TYPES[v] : null;
        return e != null ? e : MsptiCommunicationDataType.swigToEnum(v);
    }
}
