package dev.kvlab.harness.llama.internal;

import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the pinned llama.cpp library is, checked to be that version. Two builds of the same source: the
 * <b>prebuilt</b> npm package (default; a directory holding {@link #LIBRARY} and the package's {@code package.json},
 * its SHA-256 pinned; {@code scripts/llama-lib.sh} installs it in seconds), whose CPU kernels are compiled for
 * generic x86 levels; or, with {@code KVLAB_LLAMA_BUILD=native}, the libraries compiled on this machine with
 * {@code -march=native} from the pinned commit ({@code scripts/llama-lib-native.sh}, minutes once; its
 * {@code kvlab-build.properties} names the commit and flags), as llama-server is built. {@code $KVLAB_LLAMA_LIB}
 * names a directory of either kind.
 *
 * @param dir   the directory with {@code libllama}, {@code libggml*} and {@code package.json} or {@code kvlab-build.properties}
 * @param build {@code prebuilt} or {@code native}
 * @param flags how the libraries were compiled, in words
 */
public record LlamaInstall(Path dir, String build, String flags) {

    /** The prebuilt package's libraries in {@code dir}. */
    public LlamaInstall(Path dir) {
        this(
                dir,
                "prebuilt",
                "npm @node-llama-cpp/linux-x64@" + VERSION
                        + " (generic x86 CPU variants, the best one loaded at run time)");
    }

    /** Which library this is, for a cell's extras and a benchmark's output: build, flags and directory. */
    public String describe() {
        return build + " llama.cpp " + COMMIT + ": " + flags + ", " + dir;
    }

    /** {@code KVLAB_LLAMA_BUILD}: {@code prebuilt} (default) or {@code native}; anything else is refused. */
    static String requestedBuild() {
        String b = System.getenv("KVLAB_LLAMA_BUILD");
        if (b == null || b.isBlank() || b.strip().equals("prebuilt")) return "prebuilt";
        if (b.strip().equals("native")) return "native";
        throw new EngineUnavailableException("KVLAB_LLAMA_BUILD must be prebuilt or native, got '" + b + "'");
    }
    /** The npm package version the bindings are written for ({@code @node-llama-cpp/linux-x64}). */
    public static final String VERSION = "3.21.1";
    /** The llama.cpp commit that package was built from; its headers gave {@code abi.properties}. */
    public static final String COMMIT = "80fb11ac";

    public static final String LIBRARY = "libllama.v0.4.0.so";
    public static final String GGML = "libggml.v0.4.0.so";
    /** SHA-256 of {@link #LIBRARY} in that package (the script checks it too). */
    public static final String LIBRARY_SHA256 = "a1e1a2f1d1261070e33f25eca89700cfcf4b824f6a4113e9bc111c17aefcb52f";

    /** The pinned library, installed if needed; refuses with the reason where it cannot. */
    public static LlamaInstall locate() {
        String env = System.getenv("KVLAB_LLAMA_LIB");
        if (env != null && !env.isBlank()) return verify(Path.of(env));
        return verify(runScript(
                "native".equals(requestedBuild()) ? script().resolveSibling("llama-lib-native.sh") : script()));
    }

    /** {@code dir} if it holds the pinned version (prebuilt or native); otherwise the reason. */
    public static LlamaInstall verify(Path dir) {
        Path lib = dir.resolve(LIBRARY);
        Path props = dir.resolve("kvlab-build.properties");
        if (Files.isRegularFile(props) && !Files.isRegularFile(dir.resolve("package.json")))
            return verifyNative(dir, props, lib);
        if (!Files.isRegularFile(lib))
            throw new EngineUnavailableException(
                    "llama.cpp library: " + lib + " does not exist (scripts/llama-lib.sh installs it)");
        String version = packageVersion(dir.resolve("package.json"));
        if (!VERSION.equals(version))
            throw new EngineUnavailableException("llama.cpp library in " + dir + " is version " + version
                    + " of @node-llama-cpp/linux-x64; kvlab's bindings are written for " + VERSION);
        String sha = sha256(lib);
        if (!LIBRARY_SHA256.equals(sha))
            throw new EngineUnavailableException("llama.cpp library " + lib + " has SHA-256 " + sha + ", the pinned "
                    + VERSION + " has " + LIBRARY_SHA256);
        return new LlamaInstall(dir.toAbsolutePath());
    }

    /** A native build: its properties name the pinned commit (the struct layouts are that commit's headers'). */
    private static LlamaInstall verifyNative(Path dir, Path props, Path lib) {
        if (!Files.exists(lib))
            throw new EngineUnavailableException(
                    "llama.cpp library: " + lib + " does not exist (scripts/llama-lib-native.sh builds it)");
        java.util.Properties p = new java.util.Properties();
        try (InputStream in = Files.newInputStream(props)) {
            p.load(in);
        } catch (IOException e) {
            throw new EngineUnavailableException("llama.cpp library: " + props + " unreadable: " + e.getMessage(), e);
        }
        String commit = p.getProperty("commit", "");
        if (!commit.startsWith(COMMIT))
            throw new EngineUnavailableException("llama.cpp native build in " + dir + " is of commit '" + commit
                    + "'; kvlab's bindings are written for " + COMMIT);
        return new LlamaInstall(
                dir.toAbsolutePath(),
                "native",
                p.getProperty("build", "(flags not recorded)") + " on " + p.getProperty("cpu", "this CPU"));
    }

    static String packageVersion(Path packageJson) {
        try {
            Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]*)\"").matcher(Files.readString(packageJson));
            return m.find() ? m.group(1) : "(none in " + packageJson + ")";
        } catch (IOException e) {
            return "(unknown: " + packageJson + " unreadable)";
        }
    }

    static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new EngineUnavailableException("llama.cpp library " + file + " unreadable: " + e.getMessage(), e);
        }
    }

    /** {@code scripts/llama-lib.sh} under {@code kvlab.home}, or the first one up from the working directory. */
    public static Path script() {
        String home = System.getProperty("kvlab.home");
        if (home != null) return Path.of(home, "scripts", "llama-lib.sh");
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("scripts/llama-lib.sh");
            if (Files.isRegularFile(s)) return s;
        }
        throw new EngineUnavailableException(
                "llama.cpp library: scripts/llama-lib.sh not found (set KVLAB_LLAMA_LIB to its directory)");
    }

    /** Runs a helper script of the project ({@code bash SCRIPT}); the last line it prints, as a path, or the reason. */
    public static Path runScript(Path script) {
        if (!Files.isRegularFile(script))
            throw new EngineUnavailableException("llama.cpp library: " + script + " does not exist");
        Path errFile = null;
        try {
            errFile = Files.createTempFile("kvlab-llama-lib", ".err");
            Process p = new ProcessBuilder("bash", script.toString())
                    .redirectError(errFile.toFile())
                    .start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new EngineUnavailableException("llama.cpp library: " + script + " did not finish in 10 minutes");
            }
            String stdout = new String(out, StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0 || stdout.isEmpty()) {
                String reason = Files.readString(errFile).strip();
                throw new EngineUnavailableException("llama.cpp library cannot be installed: "
                        + (reason.isEmpty() ? script + " exited " + p.exitValue() : lastLine(reason)));
            }
            return Path.of(lastLine(stdout));
        } catch (IOException e) {
            throw new EngineUnavailableException("llama.cpp library: cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineUnavailableException("llama.cpp library: interrupted while installing", e);
        } finally {
            if (errFile != null) {
                try {
                    Files.deleteIfExists(errFile);
                } catch (IOException ignored) {
                    /* a temp file */
                }
            }
        }
    }

    private static String lastLine(String s) {
        int nl = s.lastIndexOf('\n');
        return nl < 0 ? s : s.substring(nl + 1);
    }
}
