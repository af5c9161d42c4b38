package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Where a run came from: kvlab version, git commit and dirty flag of the source tree ({@code -Dkvlab.home}, else
 * the working directory), the command line with secrets redacted, JVM, OS and CPU.
 *
 * @param kvlabVersion the build's version
 * @param gitCommit    40 hex digits, or {@code unknown}
 * @param gitDirty     tracked files differ from the commit (null when unknown)
 * @param commandLine  {@code kvlab run ...}, secret values replaced by {@code <redacted>}
 */
public record Provenance(String kvlabVersion, String gitCommit, Boolean gitDirty, List<String> commandLine) {

    public static final String REDACTED = "<redacted>";
    private static final Pattern SECRET =
            Pattern.compile("(?i).*(token|password|passwd|secret|credential|api[-_]?key).*");

    public Provenance {
        commandLine = List.copyOf(commandLine);
    }

    /** Captures the environment; {@code args} are the command's arguments after {@code kvlab}. */
    public static Provenance capture(String version, List<String> args) {
        List<String> cl = new ArrayList<>();
        cl.add("kvlab");
        cl.addAll(redact(args));
        Path home = Path.of(System.getProperty("kvlab.home", ".")).toAbsolutePath();
        String commit = git(home, "rev-parse", "HEAD");
        Boolean dirty = null;
        if (commit != null && commit.matches("[0-9a-f]{40}")) {
            String st = git(home, "status", "--porcelain", "--untracked-files=no");
            dirty = st == null ? null : !st.isBlank();
        } else commit = "unknown";
        return new Provenance(version, commit, dirty, cl);
    }

    /**
     * Replaces the value of every option whose name says it is a secret ({@code --influx-token X},
     * {@code --password=X}) and of every {@code --set key=value} whose key does.
     */
    public static List<String> redact(List<String> args) {
        List<String> out = new ArrayList<>();
        boolean nextSecret = false;
        for (String a : args) {
            if (nextSecret) {
                out.add(REDACTED);
                nextSecret = false;
                continue;
            }
            if (a.startsWith("-")) {
                int eq = a.indexOf('=');
                String name = eq < 0 ? a : a.substring(0, eq);
                if (SECRET.matcher(name).matches() && !name.endsWith("-env")) {
                    if (eq < 0) {
                        out.add(a);
                        nextSecret = true;
                    } else out.add(name + "=" + REDACTED);
                    continue;
                }
            } else {
                int eq = a.indexOf('=');
                if (eq > 0 && SECRET.matcher(a.substring(0, eq)).matches()) {
                    out.add(a.substring(0, eq) + "=" + REDACTED);
                    continue;
                }
            }
            out.add(a);
        }
        return out;
    }

    private static String git(Path dir, String... args) {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return null;
            }
            return new String(out, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static ObjectNode jvm() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("name", System.getProperty("java.vm.name"));
        o.put("version", System.getProperty("java.runtime.version"));
        o.put("vendor", System.getProperty("java.vm.vendor"));
        o.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        return o;
    }

    static ObjectNode os() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("name", System.getProperty("os.name"));
        o.put("version", System.getProperty("os.version"));
        o.put("arch", System.getProperty("os.arch"));
        return o;
    }

    static ObjectNode cpu() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        String model = "unknown";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.toLowerCase(Locale.ROOT).startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the model stays unknown
        }
        o.put("model", model);
        o.put("logical_cores", Runtime.getRuntime().availableProcessors());
        return o;
    }
}
