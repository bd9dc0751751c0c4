package org.mspti;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Run in a child JVM by tests/upstream/test_selection_rule.py: applies NativeLoader's rule for libmspti.so,
 * loads the bindings, starts a KernelMonitor, and prints the rule's answer and every libmspti.so* mapped
 * ("error: ..." for an UnsatisfiedLinkError).
 */
public final class LibmsptiProbe {
    private LibmsptiProbe() {}

    public static void main(String[] args) throws Exception {
        try {
            System.out.println("source: " + NativeLoader.libmspti());
            try (KernelMonitor kernels = new KernelMonitor()) {
                MsptiResult result = kernels.start(k -> {});
                System.out.println("start: " + (result == MsptiResult.MSPTI_SUCCESS ? "OK" : "FAILED " + result));
                kernels.stop();
            }
        } catch (UnsatisfiedLinkError e) {
            System.out.println("error: " + e.getMessage());
        }
        Set<String> mapped = new LinkedHashSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int at = line.indexOf('/');
            if (at < 0) continue;
            String path = line.substring(at).trim();
            String name = Path.of(path).getFileName().toString();
            if (name.equals("libmspti.so") || name.startsWith("libmspti.so.")) mapped.add(path);
        }
        for (String path : mapped) System.out.println("mapped: " + path);
    }
}
