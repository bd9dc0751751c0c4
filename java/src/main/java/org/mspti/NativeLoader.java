package org.mspti;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the JNI libraries of the bindings ({@code libmspti_java.so}, {@code libvnpu_java.so})
 * without {@code java.library.path}. Looked for, in this order:
 * <ol>
 *   <li>the directory in the system property {@code mspti.library.dir} (or the environment
 *       variable {@code MSPTI_LIBRARY_DIR});</li>
 *   <li>next to {@code mspti.jar}, then in {@code ../lib} and {@code ../../lib} from it (the build
 *       tree keeps the jar in {@code build/java} and the libraries in {@code build/lib}; an install
 *       puts the jar in {@code <prefix>/share/java} and the libraries in {@code <prefix>/lib});</li>
 *   <li>inside the jar, under {@code /org/mspti/native/linux-x86_64/} (extracted to a temporary
 *       directory with the libraries listed in its {@code libraries.txt}, loaded in that order);</li>
 *   <li>{@code System.loadLibrary} ({@code java.library.path}).</li>
 * </ol>
 * The JNI libraries find libmspti.so, libmspti_monitor.so and libvnpu.so through their RPATH
 * ({@code $ORIGIN}) or the usual dynamic linker search.
 */
public final class NativeLoader {
    private static final List<String> LOADED = new ArrayList<>();

    private NativeLoader() {}

    /** Loads {@code lib<name>.so} once. */
    public static synchronized void load(String name) {
        if (LOADED.contains(name)) return;
        String file = System.mapLibraryName(name);
        List<String> tried = new ArrayList<>();
        for (File dir : candidateDirs()) {
            File lib = new File(dir, file);
            tried.add(lib.getPath());
            if (lib.isFile()) {
                System.load(lib.getAbsolutePath());
                LOADED.add(name);
                return;
            }
        }
        if (loadFromJar(file)) {
            LOADED.add(name);
            return;
        }
        try {
            System.loadLibrary(name);
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(
                "mspti: " + file + " not found (tried " + tried + ", the jar's resources and java.library.path); "
                + "set -Dmspti.library.dir=<directory of " + file + ">");
            error.initCause(e);
            throw error;
        }
        LOADED.add(name);
    }

    private static List<File> candidateDirs() {
        List<File> dirs = new ArrayList<>();
        String dir = System.getProperty("mspti.library.dir");
        if (dir == null || dir.isEmpty()) dir = System.getenv("MSPTI_LIBRARY_DIR");
        if (dir != null && !dir.isEmpty()) dirs.add(new File(dir));
        try {
            Path jar = Path.of(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path parent = jar.getParent();
            if (parent != null) {
                dirs.add(parent.toFile());
                dirs.add(parent.resolve("../lib").normalize().toFile());
                dirs.add(parent.resolve("../../lib").normalize().toFile());
            }
        } catch (URISyntaxException | SecurityException | NullPointerException | IllegalArgumentException e) {
            // no code source (unusual class loader): skip
        }
        return dirs;
    }

    private static Path extracted;

    private static boolean loadFromJar(String file) {
        String base = "/org/mspti/native/linux-x86_64/";
        try (InputStream list = NativeLoader.class.getResourceAsStream(base + "libraries.txt")) {
            if (list == null) return false;
            if (extracted == null) {
                Path dir = Files.createTempDirectory("mspti-native");
                dir.toFile().deleteOnExit();
                for (String lib : new String(list.readAllBytes(), "UTF-8").split("\\s+")) {
                    if (lib.isEmpty()) continue;
                    try (InputStream in = NativeLoader.class.getResourceAsStream(base + lib)) {
                        if (in == null) continue;
                        Path target = dir.resolve(lib);
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                        target.toFile().deleteOnExit();
                        if (!lib.contains("_java.")) System.load(target.toString());  // dependencies first
                    }
                }
                extracted = dir;
            }
            Path lib = extracted.resolve(file);
            if (!Files.isRegularFile(lib)) return false;
            System.load(lib.toString());
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
