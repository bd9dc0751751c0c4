package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without LD_PRELOAD: the HCCL gate, Mstx.Domain.destroy, and NativeLoader's search order. */
class JavaGapsTest {
    @Test
    void hcclNeedsLdPreloadAndSaysSo() {
        try (HcclMonitor h = new HcclMonitor()) {
            assertEquals(MsptiResult.MSPTI_ERROR_WITHOUT_LD_PRELOAD, h.start(d -> {}));
            assertTrue(Monitor.lastErrorMessage().contains("LD_PRELOAD"), Monitor.lastErrorMessage());
            assertFalse(h.isRunning());
            assertEquals(MsptiResult.MSPTI_ERROR_WITHOUT_LD_PRELOAD, h.startBatch(b -> {}));
            assertFalse(h.isRunning());
        }
        // Communication records come from the device, not the interposer: no gate.
        try (CommunicationMonitor c = new CommunicationMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, c.start(d -> {}));
            assertEquals(MsptiResult.MSPTI_SUCCESS, c.stop());
        }
    }

    @Test
    void aDestroyedDomainRecordsNothing() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (MstxMonitor m = new MstxMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.startMarks(d -> seen.add(d.getName() + "@" + d.getDomain())));
            Mstx.Domain d = Mstx.domain("java_gaps");
            assertTrue(d.isValid());
            d.mark("before");
            d.destroy();
            assertFalse(d.isValid());
            d.mark("after");
            assertEquals(0, d.rangeStart("after"));
            d.destroy();  // twice is harmless
            assertTrue(d.toString().contains("invalid"), d.toString());
            m.stop();
        }
        assertEquals(List.of("before@java_gaps"), seen);
    }

    /** The directory libmspti_java.so was loaded from in this JVM (the build tree's). */
    private static Path loadedLibraryDir() throws Exception {
        Monitor.lastErrorMessage();  // loads the library
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int at = line.indexOf('/');
            if (at >= 0 && line.endsWith("/libmspti_java.so")) return Path.of(line.substring(at)).getParent();
        }
        throw new AssertionError("libmspti_java.so is not mapped");
    }

    private static String probe(Map<String, String> env, String... properties) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        String cp = System.getProperty("mspti.test.classpath");
        assertNotNull(cp, "run with -Dmspti.test.classpath=<mspti.jar:mspti-tests.jar>");
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(List.of(properties));
        cmd.addAll(List.of("-cp", cp, "org.mspti.NativeLoaderProbe"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("MSPTI_LIBRARY_DIR");
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "the probe did not exit: " + out);
        assertEquals(0, p.exitValue(), out);
        return out.trim();
    }

    @Test
    void nativeLoaderLooksInTheConfiguredDirectoryFirst(@TempDir Path tmp) throws Exception {
        Path built = loadedLibraryDir();
        Path fromProperty = Files.createDirectory(tmp.resolve("property"));
        Path fromEnv = Files.createDirectory(tmp.resolve("env"));
        Path empty = Files.createDirectory(tmp.resolve("empty"));
        for (Path dir : List.of(fromProperty, fromEnv))
            for (String lib : List.of("libmspti_java.so", "libmspti_monitor.so", "libmspti.so"))
                Files.copy(built.resolve(lib), dir.resolve(lib), StandardCopyOption.REPLACE_EXISTING);
        String javaLib = "/libmspti_java.so";
        // 1. the property, even when the environment names another directory;
        assertEquals("loaded " + fromProperty.toRealPath() + javaLib,
                     probe(Map.of("MSPTI_LIBRARY_DIR", fromEnv.toString()), "-Dmspti.library.dir=" + fromProperty));
        // 2. the environment variable when there is no property;
        assertEquals("loaded " + fromEnv.toRealPath() + javaLib, probe(Map.of("MSPTI_LIBRARY_DIR", fromEnv.toString())));
        // 3. a configured directory without the library is passed over: next to the jar (../lib here).
        assertEquals("loaded " + built.toRealPath() + javaLib, probe(Map.of(), "-Dmspti.library.dir=" + empty));
        assertEquals("loaded " + built.toRealPath() + javaLib, probe(Map.of()));
    }
}
