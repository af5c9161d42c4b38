package dev.kvlab.harness.architecture;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kvlab's main code (every module, tests excluded) keeps the dependency rules of {@link ArchitectureRules} and has no
 * package cycles — except the breaches listed in {@code known-violations.txt}, a ratchet that may only shrink: a new
 * breach fails, and so does a listed one that no longer occurs (delete its line).
 */
class ArchitectureTest {

    private static final String KNOWN = "known-violations.txt";
    private static JavaClasses main;

    @BeforeAll
    static void importMainCode() {
        main = new ClassFileImporter().withImportOption(MainCodeOnly.INSTANCE).importPackages("dev.kvlab");
    }

    @Test
    void everyModuleIsImported() {
        for (String module : List.of("transport", "store", "workloads", "harness", "cli"))
            assertTrue(
                    main.stream()
                            .anyMatch(c ->
                                    ArchitectureRules.module(c.getPackageName()).equals(module)),
                    "no main class of " + module + " imported");
        SortedSet<String> floors = new TreeSet<>();
        for (var c : main)
            if (c.getPackageName().startsWith("dev.kvlab.harness")) floors.add(ArchitectureRules.floor(c));
        assertTrue(
                floors.containsAll(ArchitectureRules.HARNESS_FLOORS.keySet()), "the harness's floors found: " + floors);
        assertTrue(
                floors.containsAll(List.of("targets/openai", "targets/llama", "targets/fixed")),
                "the harness's floors found: " + floors);
    }

    /** Issue 36: a harness class's package names the Maven module its class file comes from (api/spi in harness/api). */
    @Test
    void packagesSayTheirModule() {
        SortedSet<String> wrong = new TreeSet<>();
        for (var c : main) {
            String pkg = c.getPackageName();
            if (!pkg.startsWith("dev.kvlab.harness")) continue;
            String floor = ArchitectureRules.floor(c), named = ArchitectureRules.floorOfPackage(pkg);
            if (!floor.equals(named)
                    && !(floor.startsWith("targets/")
                                    && pkg.startsWith("dev.kvlab.harness." + floor.substring("targets/".length()) + ".")
                            || floor.startsWith("targets/")
                                    && pkg.equals("dev.kvlab.harness." + floor.substring("targets/".length()))))
                wrong.add(pkg + " is in harness/" + floor + " but names " + named);
        }
        assertTrue(wrong.isEmpty(), "packages that do not name their module:\n  " + String.join("\n  ", wrong));
    }

    /** No package is split across two Maven modules (the class files of one package come from one place). */
    @Test
    void noPackageSplitAcrossModules() {
        java.util.Map<String, SortedSet<String>> where = new java.util.TreeMap<>();
        for (var c : main) {
            String src = c.getSource().map(s -> s.getUri().toString()).orElse("?");
            int at = src.indexOf("/target/classes/");
            String module = at >= 0
                    ? src.substring(0, at)
                    : src.contains(".jar!") ? src.substring(0, src.indexOf(".jar!")) : src;
            where.computeIfAbsent(c.getPackageName(), k -> new TreeSet<>()).add(module);
        }
        SortedSet<String> split = new TreeSet<>();
        where.forEach((pkg, modules) -> {
            if (modules.size() > 1) split.add(pkg + " in " + modules);
        });
        assertTrue(split.isEmpty(), "packages split across modules:\n  " + String.join("\n  ", split));
    }

    @Test
    void rulesHoldAndNoPackageCycles() throws IOException {
        SortedSet<String> actual = new TreeSet<>(ArchitectureRules.violations(main));
        for (SortedSet<String> cycle : ArchitectureRules.packageCycles(main))
            actual.add("package cycle: " + String.join(", ", cycle));
        SortedSet<String> known = known();
        SortedSet<String> added = new TreeSet<>(actual), fixed = new TreeSet<>(known);
        added.removeAll(known);
        fixed.removeAll(actual);
        if (added.isEmpty() && fixed.isEmpty()) return;
        StringBuilder m = new StringBuilder();
        if (!added.isEmpty())
            m.append("new breaches of the architecture (fix the code):\n  ")
                    .append(String.join("\n  ", added))
                    .append('\n');
        if (!fixed.isEmpty())
            m.append("fixed, so delete these lines from ")
                    .append(KNOWN)
                    .append(":\n  ")
                    .append(String.join("\n  ", fixed))
                    .append('\n');
        fail(m.toString());
    }

    private static SortedSet<String> known() throws IOException {
        SortedSet<String> out = new TreeSet<>();
        try (InputStream in = ArchitectureTest.class.getResourceAsStream(KNOWN)) {
            if (in == null) return out;
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String l = line.strip();
                if (!l.isEmpty() && !l.startsWith("#")) out.add(l);
            }
        }
        return out;
    }

    /** Leaves out test classes, test jars and the benchmarks, which the rules do not govern (fixtures break them on purpose). */
    enum MainCodeOnly implements ImportOption {
        INSTANCE;

        @Override
        public boolean includes(Location location) {
            return !location.contains("/test-classes/")
                    && !location.contains("-tests.jar")
                    && !location.contains("/bench/target/")
                    && !location.contains("kvlab-bench");
        }
    }
}
