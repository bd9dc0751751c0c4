import org.mspti.Mstx;
import org.mspti.vnpu.Stream;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/** A Java program on the virtual NPU with no msPTI client of its own: what mspti-trace records. */
public final class TraceJava {
    @SuppressWarnings("try")  // the range is only opened and closed
    public static void main(String[] args) {
        Vnpu.setDevice(0);
        Stream stream = new Stream(0);
        Tensor x = new Tensor(new float[] {1, 2, 3, 4}, new long[] {2, 2});
        for (int i = 0; i < 3; ++i) {
            try (Mstx.Range r = Mstx.range("java step", null)) {
                x = Vnpu.add(x, x, stream);
                stream.synchronize();
            }
        }
        System.out.println("java result: " + java.util.Arrays.toString(x.toHost()));
    }
}
