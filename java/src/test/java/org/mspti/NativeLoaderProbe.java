package org.mspti;

import java.nio.file.Files;
import java.nio.file.Path;

/** Run in a child JVM by JavaGapsTest: loads the JNI library, prints the file it came from. */
public final class NativeLoaderProbe {
    private NativeLoaderProbe() {}

    public static void main(String[] args) throws Exception {
        NativeLoader.load("mspti_java");
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int at = line.indexOf('/');
            if (at >= 0 && line.endsWith("/libmspti_java.so")) {
                System.out.println("loaded " + line.substring(at));
                return;
            }
        }
        System.out.println("loaded nothing");
    }
}
