package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

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
                assertTrue(h.getBandwidth() >= 0);
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
}
