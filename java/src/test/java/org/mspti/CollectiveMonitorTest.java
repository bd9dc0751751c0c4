package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mspti.vnpu.Vnpu;

/**
 * HcclMonitor and CommunicationMonitor against an in-process all-reduce over 4 virtual devices
 * (HcclCommInitAll, one thread per device). Needs LD_PRELOAD=libmspti.so (HCCL records).
 */
class CollectiveMonitorTest {
    @BeforeAll
    static void loadTheRuntime() {
        Vnpu.deviceCount();
    }

    @Test
    void allReduceGivesHcclAndCommunicationRecordsPerRank() {
        List<HcclData> hccl = new CopyOnWriteArrayList<>();
        List<CommunicationData> comm = new CopyOnWriteArrayList<>();
        try (HcclMonitor hm = new HcclMonitor(); CommunicationMonitor cm = new CommunicationMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, hm.start(hccl::add), Monitor.lastErrorMessage());
            assertEquals(MsptiResult.MSPTI_SUCCESS, cm.start(comm::add));
            int ranks = 4, n = 256;
            float[] data = new float[ranks * n];
            for (int r = 0; r < ranks; r++)
                for (int i = 0; i < n; i++) data[r * n + i] = r + 1;
            float[] out = Vnpu.allReduceSum(ranks, data);
            for (float v : out) assertEquals(10f, v);
            hm.stop();
            cm.stop();

            assertEquals(ranks, hccl.size());
            assertEquals(ranks, comm.size());
            assertEquals(List.of(0L, 1L, 2L, 3L), hccl.stream().map(HcclData::getDeviceId).sorted().toList());
            assertEquals(List.of(0L, 1L, 2L, 3L), comm.stream().map(CommunicationData::getDeviceId).sorted().toList());
            for (HcclData h : hccl) {
                assertEquals("HcclAllReduce", h.getName());
                assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_HCCL, h.getKind());
                assertFalse(h.getCommName().isEmpty());
                assertEquals(hccl.get(0).getCommName(), h.getCommName());
                assertTrue(h.getBandwidth() > 0, "bandwidth " + h.getBandwidth());
                assertTrue(h.getEnd() >= h.getStart());
            }
            for (CommunicationData c : comm) {
                assertEquals("hcom_allReduce_", c.getName());
                assertEquals(n, c.getCount());
                assertEquals(MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_FP32, c.getDataType());
                assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_COMMUNICATION, c.getKind());
                assertFalse(c.getAlgType().isEmpty());
                assertTrue(c.getEnd() >= c.getStart());
            }
        }
    }

    private static float[] allReduceInput(int ranks, int n) {
        float[] data = new float[ranks * n];
        for (int r = 0; r < ranks; r++)
            for (int i = 0; i < n; i++) data[r * n + i] = r + 1;
        return data;
    }

    /** startBatch on both collective monitors: every field read from the batch equals the per-record value. */
    @Test
    void batchesCarryTheSameRecordsAsTheRecordCallbacks() {
        List<HcclData> hccl = new CopyOnWriteArrayList<>();
        List<CommunicationData> comm = new CopyOnWriteArrayList<>();
        List<HcclData> hcclFromBatch = new CopyOnWriteArrayList<>();
        List<CommunicationData> commFromBatch = new CopyOnWriteArrayList<>();
        int ranks = 4, n = 64;
        try (HcclMonitor hm = new HcclMonitor(); CommunicationMonitor cm = new CommunicationMonitor();
             HcclMonitor hb = new HcclMonitor(); CommunicationMonitor cb = new CommunicationMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, hb.startBatch(batch -> {
                assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_HCCL, batch.getKind());
                assertEquals(RecordBatch.Hccl.SIZE, batch.getStride());
                for (int i = 0; i < batch.getCount(); i++) {
                    hcclFromBatch.add(new HcclData(
                        MsptiActivityKind.swigToEnum(batch.getInt(i, RecordBatch.Hccl.KIND)),
                        batch.getLong(i, RecordBatch.Hccl.START), batch.getLong(i, RecordBatch.Hccl.END),
                        Integer.toUnsignedLong(batch.getInt(i, RecordBatch.Hccl.DEVICE_ID)),
                        Integer.toUnsignedLong(batch.getInt(i, RecordBatch.Hccl.STREAM_ID)),
                        batch.getDouble(i, RecordBatch.Hccl.BANDWIDTH),
                        batch.getString(i, RecordBatch.Hccl.NAME), batch.getString(i, RecordBatch.Hccl.COMM_NAME)));
                }
            }), Monitor.lastErrorMessage());
            assertEquals(MsptiResult.MSPTI_SUCCESS, cb.startBatch(batch -> {
                assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_COMMUNICATION, batch.getKind());
                assertEquals(RecordBatch.Communication.SIZE, batch.getStride());
                for (int i = 0; i < batch.getCount(); i++) {
                    commFromBatch.add(new CommunicationData(
                        MsptiActivityKind.swigToEnum(batch.getInt(i, RecordBatch.Communication.KIND)),
                        MsptiCommunicationDataType.swigToEnum(batch.getInt(i, RecordBatch.Communication.DATA_TYPE)),
                        batch.getLong(i, RecordBatch.Communication.COUNT),
                        Integer.toUnsignedLong(batch.getInt(i, RecordBatch.Communication.DEVICE_ID)),
                        Integer.toUnsignedLong(batch.getInt(i, RecordBatch.Communication.STREAM_ID)),
                        batch.getLong(i, RecordBatch.Communication.START),
                        batch.getLong(i, RecordBatch.Communication.END),
                        batch.getString(i, RecordBatch.Communication.ALG_TYPE),
                        batch.getString(i, RecordBatch.Communication.NAME),
                        batch.getString(i, RecordBatch.Communication.COMM_NAME),
                        batch.getLong(i, RecordBatch.Communication.CORRELATION_ID)));
                }
            }));
            assertEquals(MsptiResult.MSPTI_SUCCESS, hm.start(hccl::add));
            assertEquals(MsptiResult.MSPTI_SUCCESS, cm.start(comm::add));
            Vnpu.allReduceSum(ranks, allReduceInput(ranks, n));
            for (Monitor m : new Monitor[] {hm, cm, hb, cb}) assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
        }
        assertEquals(4, hccl.size());
        assertEquals(4, comm.size());
        Comparator<HcclData> byDeviceH = Comparator.comparingLong(HcclData::getDeviceId);
        Comparator<CommunicationData> byDeviceC = Comparator.comparingLong(CommunicationData::getDeviceId);
        assertEquals(hccl.stream().sorted(byDeviceH).toList(), hcclFromBatch.stream().sorted(byDeviceH).toList());
        assertEquals(comm.stream().sorted(byDeviceC).toList(), commFromBatch.stream().sorted(byDeviceC).toList());
        for (CommunicationData c : commFromBatch) {
            assertEquals(n, c.getCount());
            assertEquals(MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_FP32, c.getDataType());
            assertNotEquals(0, c.getCorrelationId());
        }
        for (HcclData h : hcclFromBatch) assertTrue(h.getBandwidth() > 0);
    }
}
