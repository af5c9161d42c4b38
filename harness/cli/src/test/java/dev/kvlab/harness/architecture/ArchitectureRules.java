package dev.kvlab.harness.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * The dependency rules of kvlab's code (DESIGN.md, "Modules") over the package dependencies ArchUnit reads from the
 * compiled classes, and a package-cycle finder.
 *
 * <ul>
 *   <li>Modules point one way: {@code harness → store → transport}, {@code harness → workloads}; transport and
 *       workloads stand alone; nothing but the CLI depends on the CLI.</li>
 *   <li>A module is used through its {@code api}, {@code spi} and entry-point package ({@code dev.kvlab.<module>}),
 *       never through another module's {@code internal}.</li>
 *   <li>The harness's Maven modules (docs/architecture.md) point one way: {@code api} at the bottom; {@code core}
 *       (the measured cell and the emulated target), {@code bundle}, {@code metrics} and {@code benchmark} on it;
 *       {@code report} on core and bundle; {@code experiments} on report; each other target on core, seen by
 *       nothing but the CLI and the entry points.</li>
 *   <li>{@code api} sees only {@code api} and {@code spi} packages (its own module's and lower modules'); {@code spi}
 *       never sees {@code internal}. Entry points that build implementations live in the module's root package.</li>
 *   <li>No two packages depend on each other, directly or through others.</li>
 * </ul>
 */
final class ArchitectureRules {

    private ArchitectureRules() {}

    /** One dependency rule: which package may not depend on which (both kvlab packages, never the same one). */
    record Rule(String name, BiPredicate<String, String> forbids) {}

    /** Which harness floors (Maven modules) a floor may use: the dependencies of its pom, itself included. */
    static final Map<String, Set<String>> HARNESS_FLOORS = Map.of(
            "api", Set.of("api"),
            "core", Set.of("api", "core"),
            "bundle", Set.of("api", "bundle"),
            "metrics", Set.of("api", "metrics"),
            "benchmark", Set.of("api", "benchmark"),
            "report", Set.of("api", "core", "bundle", "report"),
            "experiments", Set.of("api", "core", "bundle", "report", "experiments"),
            "target-openai", Set.of("api", "core", "target-openai"),
            "target-llama", Set.of("api", "core", "target-llama"),
            "entry points", Set.of("api", "core", "bundle", "metrics", "benchmark", "report", "experiments", "entry points"));

    static final List<Rule> RULES = List.of(
            new Rule("transport depends on no other kvlab module",
                    (from, to) -> module(from).equals("transport") && !module(to).equals("transport")),
            new Rule("store depends on transport only",
                    (from, to) -> module(from).equals("store") && !Set.of("store", "transport").contains(module(to))),
            new Rule("workloads depends on no other kvlab module",
                    (from, to) -> module(from).equals("workloads") && !module(to).equals("workloads")),
            new Rule("nothing but the CLI depends on the CLI",
                    (from, to) -> !module(from).equals("cli") && module(to).equals("cli")),
            new Rule("a module uses another only through its api, spi and entry points, never its internal",
                    (from, to) -> isInternal(to) && !module(from).equals(module(to))),
            new Rule("the harness's modules point one way: api <- core, bundle, metrics, benchmark; core + bundle <- report <- experiments; core <- each target",
                    (from, to) -> module(from).equals("harness") && module(to).equals("harness")
                            && !HARNESS_FLOORS.get(floor(from)).contains(floor(to))),
            new Rule("api packages see only api and spi packages",
                    (from, to) -> isApi(from) && !isApi(to) && !isSpi(to)),
            new Rule("spi packages never see internal",
                    (from, to) -> isSpi(from) && isInternal(to)));

    /**
     * Every broken rule's dependencies, as {@code "rule: from-package -> to-package"}, sorted; classes outside kvlab
     * and dependencies within one package are not rules' business.
     */
    static SortedSet<String> violations(JavaClasses classes) {
        SortedSet<String> out = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = c.getPackageName();
            if (!from.startsWith("dev.kvlab.")) continue;
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = d.getTargetClass().getPackageName();
                if (!to.startsWith("dev.kvlab.") || to.equals(from)) continue;
                for (Rule r : RULES) if (r.forbids().test(from, to)) out.add(r.name() + ": " + from + " -> " + to);
            }
        }
        return out;
    }

    /** The harness module (floor) a {@code dev.kvlab.harness} package lives in. */
    static String floor(String pkg) {
        String p = pkg.equals("dev.kvlab.harness") ? "" : pkg.substring("dev.kvlab.harness.".length());
        if (p.isEmpty()) return "entry points";
        if (p.startsWith("api.benchmark") || p.startsWith("internal.benchmark")) return "benchmark";
        if (p.startsWith("api.engine") || p.startsWith("internal.llama") || p.startsWith("internal.realkv")) return "target-llama";
        if (p.startsWith("api") || p.startsWith("spi")) return "api";
        if (p.startsWith("internal.openai")) return "target-openai";
        if (p.startsWith("internal.bundle")) return "bundle";
        if (p.startsWith("internal.report")) return "report";
        if (p.startsWith("internal.metrics")) return "metrics";
        if (p.startsWith("internal.capacity") || p.startsWith("internal.matrix")) return "experiments";
        if (p.startsWith("internal.")) return "core";
        return "entry points";
    }

    /** A package's module: its third segment ({@code dev.kvlab.store.api} is in {@code store}). */
    static String module(String pkg) {
        String[] p = pkg.split("\\.");
        return p.length > 2 ? p[2] : pkg;
    }

    private static boolean isApi(String pkg) {
        return has(pkg, "api");
    }

    private static boolean isSpi(String pkg) {
        return has(pkg, "spi");
    }

    private static boolean isInternal(String pkg) {
        return has(pkg, "internal");
    }

    private static boolean has(String pkg, String segment) {
        return pkg.contains("." + segment + ".") || pkg.endsWith("." + segment);
    }

    /**
     * The groups of kvlab packages that depend on each other (strongly connected components of the package graph
     * with more than one package), each sorted, the groups sorted by their first package.
     */
    static List<SortedSet<String>> packageCycles(JavaClasses classes) {
        Map<String, Set<String>> edges = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = c.getPackageName();
            if (!from.startsWith("dev.kvlab")) continue;
            Set<String> out = edges.computeIfAbsent(from, k -> new TreeSet<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = d.getTargetClass().getPackageName();
                if (to.startsWith("dev.kvlab") && !to.equals(from)) out.add(to);
            }
        }
        return new Tarjan(edges).components();
    }

    /** Tarjan's strongly connected components, iterative (no recursion depth limit). */
    private static final class Tarjan {
        private final Map<String, Set<String>> edges;
        private final Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new TreeSet<>();
        private final List<SortedSet<String>> out = new ArrayList<>();
        private int next;

        Tarjan(Map<String, Set<String>> edges) {
            this.edges = edges;
        }

        List<SortedSet<String>> components() {
            for (String v : edges.keySet()) if (!index.containsKey(v)) visit(v);
            out.sort((a, b) -> a.first().compareTo(b.first()));
            return out;
        }

        private void visit(String root) {
            Deque<Map.Entry<String, java.util.Iterator<String>>> work = new ArrayDeque<>();
            open(root, work);
            while (!work.isEmpty()) {
                var top = work.peek();
                String v = top.getKey();
                if (top.getValue().hasNext()) {
                    String w = top.getValue().next();
                    if (!index.containsKey(w)) open(w, work);
                    else if (onStack.contains(w)) low.put(v, Math.min(low.get(v), index.get(w)));
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) close(v);
            }
        }

        private void open(String v, Deque<Map.Entry<String, java.util.Iterator<String>>> work) {
            index.put(v, next);
            low.put(v, next++);
            stack.push(v);
            onStack.add(v);
            work.push(Map.entry(v, edges.getOrDefault(v, Set.of()).iterator()));
        }

        private void close(String v) {
            SortedSet<String> comp = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                comp.add(w);
            } while (!w.equals(v));
            if (comp.size() > 1) out.add(comp);
        }
    }
}
