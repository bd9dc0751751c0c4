import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mspti.KernelData;
import org.mspti.KernelMonitor;
import org.mspti.MarkerData;
import org.mspti.MsptiResult;
import org.mspti.Mstx;
import org.mspti.MstxMonitor;
import org.mspti.RangeMarkerData;
import org.mspti.vnpu.Stream;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/**
 * KernelMonitor and MstxMonitor on the virtual NPU: a small "forward pass" (add, matmul, relu) in
 * an mstx range on a device stream, a few marks (one in a domain that is switched off for a while),
 * and every record printed after stop().
 */
public final class JavaMonitor {
    @SuppressWarnings("try")  // the range is only opened and closed
    public static void main(String[] args) {
        Vnpu.setDevice(0);  // loads the runtime before the monitors start (KERNEL records)

        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        List<MarkerData> marks = new CopyOnWriteArrayList<>();
        List<RangeMarkerData> ranges = new CopyOnWriteArrayList<>();
        try (KernelMonitor kernelMonitor = new KernelMonitor(); MstxMonitor mstxMonitor = new MstxMonitor()) {
            check(kernelMonitor.start(kernels::add));        // callbacks run on the delivery thread
            check(mstxMonitor.start(marks::add, ranges::add));

            Stream stream = new Stream(0);
            Mstx.mark("step 1");
            try (Mstx.Range r = Mstx.range("forward", stream)) {
                Tensor x = new Tensor(new float[] {1, -2, 3, -4}, new long[] {2, 2});
                Tensor w = new Tensor(new float[] {1, 0, 0, 1}, new long[] {2, 2});
                Tensor y = Vnpu.relu(Vnpu.matmul(Vnpu.add(x, x, stream), w, stream), stream);
                stream.synchronize();
                System.out.println("result: " + java.util.Arrays.toString(y.toHost()));
            }
            stream.synchronize();  // the range's device-side end runs on the stream: let it before stop()
            Mstx.Domain io = Mstx.domain("java_sample");
            io.mark("domain mark");
            check(mstxMonitor.disableDomain("java_sample"));
            io.mark("hidden mark");  // not recorded: the domain is off
            check(mstxMonitor.enableDomain("java_sample"));

            check(kernelMonitor.stop());  // returns once every record was delivered
            check(mstxMonitor.stop());
            System.out.println("kernel records: " + kernelMonitor.stats().getDelivered()
                               + ", mstx records: " + mstxMonitor.stats().getDelivered());
        }
        for (KernelData k : kernels) {
            System.out.printf("[KERNEL] %s type=%s device=%d stream=%d duration=%d ns%n", k.getName(), k.getType(),
                              k.getDeviceId(), k.getStreamId(), k.getEnd() - k.getStart());
        }
        for (MarkerData m : marks) {
            System.out.printf("[MARK] %s domain=%s source=%s%n", m.getName(), m.getDomain(),
                              m.getSourceKind() == org.mspti.MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
                                  ? "host" : "device");
        }
        for (RangeMarkerData r : ranges) {
            System.out.printf("[RANGE] %s domain=%s source=%s duration=%d ns%n", r.getName(), r.getDomain(),
                              r.getSourceKind() == org.mspti.MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
                                  ? "host" : "device", r.getEnd() - r.getStart());
        }
    }

    private static void check(MsptiResult result) {
        if (result != MsptiResult.MSPTI_SUCCESS) throw new IllegalStateException(result.toString());
    }
}
