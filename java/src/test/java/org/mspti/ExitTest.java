package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A JVM ending with monitors running (return from main, System.exit, exit from a callback) exits cleanly. */
class ExitTest {
    @ParameterizedTest
    @CsvSource({"return, 0", "exit, 3", "exit-in-callback, 4", "blocked-callback, 0"})
    void theJvmExitsWithRunningMonitors(String mode, int expected) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        String cp = System.getProperty("mspti.test.classpath");
        assertNotNull(cp, "run with -Dmspti.test.classpath=<mspti.jar:mspti-tests.jar>");
        Process p = new ProcessBuilder(java, "-Xcheck:jni", "-cp", cp, "org.mspti.ExitScenario", mode)
                        .redirectErrorStream(true).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "the JVM did not exit: " + out);
        assertEquals(expected, p.exitValue(), out);
        assertTrue(out.contains("main done"), out);
        assertFalse(out.contains("FATAL") || out.contains("SIGSEGV") || out.contains("terminate called"), out);
    }
}
