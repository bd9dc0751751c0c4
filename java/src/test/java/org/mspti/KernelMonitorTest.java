package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mspti.vnpu.Stream;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/** KernelMonitor against the virtual NPU: one record per launched kernel, per record and in batches. */
class KernelMonitorTest {
    private final KernelMonitor monitor = new KernelMonitor();

    @BeforeAll
    static void loadTheRuntime() {
        Vnpu.setDevice(0);  // loads libvnpu (global scope) before any monitor starts
    }

    @AfterEach
    void close() {
        monitor.close();
    }

    private static List<String> prefixes(List<KernelData> records) {
        return records.stream().map(k -> k.getName().substring(0, k.getName().indexOf('_'))).toList();
    }

    @Test
    void marksDecodedInJavaEqualThoseOfThePerRecordPath() {
        // A marks-only callback decodes blocks in Java; with a range callback the records come one by
        // one from the native conversion. Both see every host and device mark: field for field equal.
        List<MarkerData> decoded = new CopyOnWriteArrayList<>();
        List<MarkerData> converted = new CopyOnWriteArrayList<>();
        try (MstxMonitor fast = new MstxMonitor(); MstxMonitor slow = new MstxMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, fast.startMarks(decoded::add));
            assertEquals(MsptiResult.MSPTI_SUCCESS, slow.start(converted::add, r -> { }));
            Stream stream = new Stream(2);
            for (int i = 0; i < 5; i++) {
                Mstx.mark("host " + i);
                Mstx.mark("device " + i, stream);
                Mstx.domain("d").mark("domain " + i);
            }
            stream.synchronize();
            fast.stop();
            slow.stop();
        }
        assertEquals(converted, decoded);
        assertTrue(decoded.stream().anyMatch(
            m -> m.getSourceKind() == MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_DEVICE
                 && m.getObjectId().getDeviceId() == 2 && m.getObjectId().getProcessId() == -1), decoded.toString());
        assertTrue(decoded.stream().anyMatch(m -> m.getDomain().equals("d")), decoded.toString());
    }

    @Test
    void recordsMatchTheLaunchedKernels() {
        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(kernels::add));
        Stream stream = new Stream(1);
        Tensor a = new Tensor(new float[] {1, -2, 3, -4}, new long[] {2, 2}, 1);
        Tensor b = new Tensor(new float[] {1, 1, 1, 1}, new long[] {2, 2}, 1);
        Tensor sum = Vnpu.add(a, b, stream);
        Tensor prod = Vnpu.mul(sum, b, stream);
        Tensor mm = Vnpu.matmul(prod, b, stream);
        Tensor r = Vnpu.relu(mm, stream);
        stream.synchronize();
        assertArrayEquals(new float[] {1, 1, 1, 1}, r.toHost());  // ([1,-2,3,-4]+1)*1 @ ones = 1
        monitor.stop();

        assertEquals(List.of("Add", "Mul", "MatMulV3", "Relu"), prefixes(kernels));
        for (KernelData k : kernels) {
            assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL, k.getKind());
            assertEquals(1, k.getDeviceId());
            assertEquals(stream.id(), k.getStreamId());
            assertTrue(k.getEnd() >= k.getStart() && k.getStart() > 0, k.toString());
            assertNotEquals(0, k.getCorrelationId());
        }
        assertEquals("KERNEL_AICORE", kernels.get(2).getType());
        assertEquals("KERNEL_AIVEC", kernels.get(0).getType());
        assertEquals(4, monitor.stats().getDelivered());
    }

    @Test
    void deviceStatsCountABeginAndAnEndPerKernel() {
        DeviceStats before = Monitor.deviceStats();
        assertTrue(before.isAvailable(), before.toString());
        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(kernels::add));
        Stream stream = new Stream(0);
        Tensor a = new Tensor(new float[] {1, 2, 3, 4}, new long[] {2, 2}, 0);
        Tensor r = Vnpu.relu(Vnpu.add(a, a, stream), stream);
        stream.synchronize();
        assertArrayEquals(new float[] {2, 4, 6, 8}, r.toHost());
        monitor.stop();
        DeviceStats after = Monitor.deviceStats();
        assertEquals(2, kernels.size());
        assertEquals(2L * kernels.size(), after.getRecords() - before.getRecords(), after + " after " + before);
        assertTrue(after.getBytes() > before.getBytes(), after.toString());
        assertEquals(before.getUnmatched(), after.getUnmatched());
        assertEquals(before.getMalformed(), after.getMalformed());
    }

    @Test
    void aSubclassAndABatchMonitorSeeTheSameKernels() {
        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        List<String> fromBatch = new CopyOnWriteArrayList<>();
        KernelMonitor batchMonitor = new KernelMonitor();
        try {
            assertEquals(MsptiResult.MSPTI_SUCCESS, batchMonitor.startBatch(new BatchCallback() {
                @Override
                public void onBatch(RecordBatch batch) {
                    assertEquals(RecordBatch.Kernel.SIZE, batch.getStride());
                    for (int i = 0; i < batch.getCount(); i++) {
                        fromBatch.add(batch.getString(i, RecordBatch.Kernel.NAME) + "|"
                                      + batch.getString(i, RecordBatch.Kernel.TYPE) + "|"
                                      + batch.getLong(i, RecordBatch.Kernel.START) + "|"
                                      + batch.getLong(i, RecordBatch.Kernel.END) + "|"
                                      + batch.getInt(i, RecordBatch.Kernel.DEVICE_ID) + "|"
                                      + batch.getInt(i, RecordBatch.Kernel.STREAM_ID) + "|"
                                      + batch.getLong(i, RecordBatch.Kernel.CORRELATION_ID));
                    }
                }
            }));
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(new KernelCallback() {
                @Override
                public void onRecord(KernelData data) {
                    kernels.add(data);
                }
            }));
            Tensor x = new Tensor(new float[] {1, 2, 3}, new long[] {3}, 0);
            for (int i = 0; i < 20; i++) x = Vnpu.add(x, x);
            Vnpu.synchronize();
            monitor.stop();
            batchMonitor.stop();
        } finally {
            batchMonitor.close();
        }
        assertEquals(20, kernels.size());
        assertEquals(kernels.stream().map(k -> k.getName() + "|" + k.getType() + "|" + k.getStart() + "|" + k.getEnd()
                                               + "|" + k.getDeviceId() + "|" + k.getStreamId() + "|"
                                               + k.getCorrelationId()).toList(),
                     fromBatch);
    }

    @Test
    void apiRecordsCarryTheCallerAndJoinTheKernelsTheyLaunched() {
        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        List<ApiData> apis = new CopyOnWriteArrayList<>();
        List<String> fromBatch = new CopyOnWriteArrayList<>();
        try (ApiMonitor apiMonitor = new ApiMonitor(); ApiMonitor batchMonitor = new ApiMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(kernels::add));
            assertEquals(MsptiResult.MSPTI_SUCCESS, apiMonitor.start(apis::add));
            assertEquals(MsptiResult.MSPTI_SUCCESS, batchMonitor.startBatch(batch -> {
                assertEquals(RecordBatch.Api.SIZE, batch.getStride());
                for (int i = 0; i < batch.getCount(); i++) {
                    fromBatch.add(batch.getString(i, RecordBatch.Api.NAME) + "|"
                                  + batch.getLong(i, RecordBatch.Api.CORRELATION_ID) + "|"
                                  + batch.getInt(i, RecordBatch.Api.THREAD_ID));
                }
            }));
            Tensor x = new Tensor(new float[] {1, 2, 3}, new long[] {3}, 0);
            Vnpu.relu(Vnpu.mul(x, x)).toHost();
            monitor.stop();
            apiMonitor.stop();
            batchMonitor.stop();
        }
        assertEquals(List.of("aclnnMul_MulAiCore_Mul", "aclnnRelu_ReluAiCore_Relu"),
                     apis.stream().map(ApiData::getName).toList());
        assertEquals(kernels.stream().map(KernelData::getCorrelationId).toList(),
                     apis.stream().map(ApiData::getCorrelationId).toList());
        for (ApiData a : apis) {
            assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_API, a.getKind());
            assertEquals(ProcessHandle.current().pid(), a.getProcessId());
            assertTrue(a.getThreadId() > 0 && a.getEnd() >= a.getStart() && a.getStart() > 0, a.toString());
        }
        assertEquals(apis.stream().map(a -> a.getName() + "|" + a.getCorrelationId() + "|" + a.getThreadId()).toList(),
                     fromBatch);
    }

    @Test
    void batchesOfTheGeneratedMonitorsExpireWithTheirCallback() {
        List<RecordBatch> kept = new CopyOnWriteArrayList<>();
        List<MsptiActivityKind> kinds = new CopyOnWriteArrayList<>();
        BatchCallback keep = new BatchCallback() {
            @Override
            public void onBatch(RecordBatch batch) {
                kept.add(batch);
                kinds.add(batch.getKind());
            }
        };
        try (ApiMonitor apiMonitor = new ApiMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startBatch(keep));
            assertEquals(MsptiResult.MSPTI_SUCCESS, apiMonitor.startBatch(keep));
            Tensor x = new Tensor(new float[] {1, 2, 3}, new long[] {3}, 0);
            Vnpu.relu(x).toHost();
            monitor.stop();
            apiMonitor.stop();
        }
        assertTrue(kinds.contains(MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL), kinds.toString());
        assertTrue(kinds.contains(MsptiActivityKind.MSPTI_ACTIVITY_KIND_API), kinds.toString());
        for (RecordBatch b : kept) {
            assertFalse(b.isValid());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.getLong(0, 0));
            assertTrue(e.getMessage().contains("after its callback returned"), e.getMessage());
        }
    }

    @Test
    void noRecordsAfterStop() {
        List<KernelData> kernels = new CopyOnWriteArrayList<>();
        monitor.start(kernels::add);
        monitor.stop();
        Tensor x = new Tensor(new float[] {1}, new long[] {1}, 0);
        Vnpu.relu(x).toHost();
        assertTrue(kernels.isEmpty());
    }
}
