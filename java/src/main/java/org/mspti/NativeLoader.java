package org.mspti;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads the JNI libraries of the bindings ({@code libmspti_java.so}, {@code libvnpu_java.so})
 * without {@code java.library.path}. Looked for, in this order:
 * <ol>
 *   <li>the directory in the system property {@code mspti.library.dir}, else the one in the
 *       environment variable {@code MSPTI_LIBRARY_DIR};</li>
 *   <li>next to {@code mspti.jar}, then in {@code ../lib} and {@code ../../lib} from it (the build
 *       tree keeps the jar in {@code build/java} and the libraries in {@code build/lib}; an install
 *       puts the jar in {@code <prefix>/share/java} and the libraries in {@code <prefix>/lib});</li>
 *   <li>inside the jar, under {@code /org/mspti/native/linux-<arch>/}: its {@code libraries.txt}
 *       has one line per JNI library, {@code libX_java.so: dep1 dep2 ...}. On first use every
 *       listed file is extracted to a private temporary directory (owner-only, deleted at exit);
 *       each JNI library is loaded with {@link System#load} after its dependencies, in the listed
 *       order, so that the dynamic linker finds them by their sonames already loaded;</li>
 *   <li>{@code System.loadLibrary} ({@code java.library.path}).</li>
 * </ol>
 * Outside the jar, the JNI libraries find libmspti_monitor.so and libvnpu.so through
 * their RPATH ({@code $ORIGIN}) or the usual dynamic linker search.
 *
 * <p>Which libmspti.so is used (the rule of docs/install.md, "Which libmspti.so is used"; applied
 * here before the JNI library is loaded, and again by libmspti_monitor, which agrees): one already
 * loaded in the process (e.g. {@code LD_PRELOAD}) wins, then the file named by the environment
 * variable {@code MSPTI_LIBRARY}, then the bundled one (the jar's, or the one beside
 * libmspti_monitor.so). A bad {@code MSPTI_LIBRARY} (missing, not a libmspti.so) is an
 * {@link UnsatisfiedLinkError} naming the path.
 */
public final class NativeLoader {
    private static final List<String> LOADED = new ArrayList<>();

    private NativeLoader() {}

    /** Which rule of {@link #libmspti()} chose libmspti.so ({@link #libmsptiPath()}: its file). */
    public enum LibmsptiSource {
        /** Already loaded in the process (LD_PRELOAD, or loaded by other native code). */
        LOADED,
        /** The environment variable MSPTI_LIBRARY. */
        MSPTI_LIBRARY,
        /** The one shipped with the bindings. */
        BUNDLED
    }

    private static LibmsptiSource libmsptiSource;
    private static String libmsptiPath;

    /**
     * Applies the rule once: a libmspti.so mapped in the process, else MSPTI_LIBRARY (loaded here),
     * else the bundled one (loaded with the JNI library). Returns which rule chose it.
     *
     * @throws UnsatisfiedLinkError for a bad MSPTI_LIBRARY, naming the path
     */
    public static synchronized LibmsptiSource libmspti() {
        if (libmsptiSource != null) return libmsptiSource;
        String mapped = mappedLibmspti();
        if (mapped != null) {
            libmsptiPath = mapped;
            return libmsptiSource = LibmsptiSource.LOADED;
        }
        String env = System.getenv("MSPTI_LIBRARY");
        if (env != null && !env.isEmpty()) {
            File file = new File(env);
            if (!file.isFile()) throw new UnsatisfiedLinkError("mspti: MSPTI_LIBRARY=" + env + ": no such file");
            if (!exportsMsptiAbi(file)) {
                throw new UnsatisfiedLinkError("mspti: MSPTI_LIBRARY=" + env
                                               + " is not a libmspti.so (it does not export msptiActivityRegisterCallbacks)");
            }
            try {
                System.load(file.getAbsolutePath());
            } catch (UnsatisfiedLinkError e) {
                UnsatisfiedLinkError error = new UnsatisfiedLinkError("mspti: MSPTI_LIBRARY=" + env + ": cannot be loaded: "
                                                                      + e.getMessage());
                error.initCause(e);
                throw error;
            }
            libmsptiPath = file.getAbsolutePath();
            return libmsptiSource = LibmsptiSource.MSPTI_LIBRARY;
        }
        return libmsptiSource = LibmsptiSource.BUNDLED;
    }

    /** The file of the libmspti.so chosen by {@link #libmspti()}; null for a bundled one not loaded yet. */
    public static synchronized String libmsptiPath() {
        libmspti();
        if (libmsptiPath == null && LOADED.contains("mspti_java")) libmsptiPath = mappedLibmspti();
        return libmsptiPath;
    }

    private static boolean isLibmsptiName(String fileName) {
        return fileName.equals("libmspti.so") || fileName.startsWith("libmspti.so.");
    }

    /** A libmspti.so* mapped in this process (/proc/self/maps), or null. */
    static String mappedLibmspti() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.UTF_8)) {
                int slash = line.indexOf('/');
                if (slash < 0) continue;
                String path = line.substring(slash).trim();
                if (isLibmsptiName(new File(path).getName())) return path;
            }
        } catch (IOException | SecurityException e) {
            // no /proc: nothing known to be loaded
        }
        return null;
    }

    /** Whether the file's dynamic symbol names include msPTI's C ABI (read as bytes: no loading needed). */
    private static boolean exportsMsptiAbi(File file) {
        byte[] needle = "\0msptiActivityRegisterCallbacks\0".getBytes(StandardCharsets.US_ASCII);
        try {
            byte[] bytes = Files.readAllBytes(file.toPath());
            if (bytes.length < 4 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F') return false;
            outer:
            for (int i = 0; i + needle.length <= bytes.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (bytes[i + j] != needle[j]) continue outer;
                }
                return true;
            }
        } catch (IOException | OutOfMemoryError e) {
            return false;
        }
        return false;
    }

    /** Loads {@code lib<name>.so} once. */
    public static synchronized void load(String name) {
        if (LOADED.contains(name)) return;
        if (name.equals("mspti_java")) libmspti();
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

    /** The jar's resource folder of native libraries for this machine. */
    private static String nativeResourceDir() {
        String arch = System.getProperty("os.arch", "");
        if (arch.equals("amd64") || arch.equals("x86_64")) arch = "x86_64";
        return "/org/mspti/native/linux-" + arch + "/";
    }

    private static Path extracted;
    private static final Map<String, List<String>> DEPENDENCIES = new LinkedHashMap<>();

    /** Extracts the jar's native libraries once; false when the jar carries none. */
    private static boolean extractFromJar() throws IOException {
        if (extracted != null) return true;
        String base = nativeResourceDir();
        String list;
        try (InputStream in = NativeLoader.class.getResourceAsStream(base + "libraries.txt")) {
            if (in == null) return false;
            list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path dir = Files.createTempDirectory("mspti-native");  // rwx------ on POSIX file systems
        dir.toFile().deleteOnExit();
        for (String line : list.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String lib = line.substring(0, colon).trim();
            List<String> deps = new ArrayList<>();
            for (String dep : line.substring(colon + 1).trim().split("\\s+")) {
                if (!dep.isEmpty()) deps.add(dep);
            }
            DEPENDENCIES.put(lib, deps);
            List<String> files = new ArrayList<>(deps);
            files.add(lib);
            for (String file : files) {
                Path target = dir.resolve(file);
                if (Files.exists(target)) continue;
                try (InputStream in = NativeLoader.class.getResourceAsStream(base + file)) {
                    if (in == null) throw new IOException("mspti.jar lists " + file + " but does not carry it");
                    Files.copy(in, target);
                }
                target.toFile().deleteOnExit();  // deleted before the directory (reverse order)
            }
        }
        extracted = dir;
        return true;
    }

    private static boolean loadFromJar(String file) {
        try {
            if (!extractFromJar()) return false;
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("mspti: extracting the native libraries of mspti.jar failed: " + e);
        }
        List<String> deps = DEPENDENCIES.get(file);
        if (deps == null) return false;
        for (String dep : deps) {
            // The jar's libmspti.so only when the rule chose the bundled one.
            if (isLibmsptiName(dep) && libmspti() != LibmsptiSource.BUNDLED) continue;
            System.load(extracted.resolve(dep).toString());  // a no-op once loaded
        }
        System.load(extracted.resolve(file).toString());
        return true;
    }
}
