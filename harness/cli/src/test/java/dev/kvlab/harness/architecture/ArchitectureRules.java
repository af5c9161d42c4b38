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
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *       {@code report} on core and bundle; {@code experiments} on report; each target on api alone (the target SPI), seen by nothing but the CLI and the entry points.</li>
 *   <li>{@code api} sees only {@code api} and {@code spi} packages (its own module's and lower modules'); {@code spi}
 *       never sees {@code internal}. Entry points that build implementations live in the module's root package
 *       ({@code harness/api}'s: {@code dev.kvlab.harness}, its implementation in {@code dev.kvlab.harness.internal.*}).</li>
 *   <li>No two packages depend on each other, directly or through others.</li>
 * </ul>
 */
final class ArchitectureRules {

    private ArchitectureRules() {}

    /**
     * One dependency rule: which class may not depend on which (both in kvlab packages, never the same package), read
     * through their packages and, for the harness's own modules, their floors.
     */
    record Rule(String name, BiPredicate<JavaClass, JavaClass> forbids) {

        /** A rule over the two packages alone. */
        static Rule ofPackages(String name, BiPredicate<String, String> forbids) {
            return new Rule(name, (from, to) -> forbids.test(from.getPackageName(), to.getPackageName()));
        }
    }

    /**
     * Which harness floors (the Maven modules under {@code harness/}, by folder) a floor may use besides itself: the
     * dependencies of its pom. A target module ({@code targets/<kind>}) may use {@link #TARGET_USES}; the CLI all.
     */
    static final Map<String, Set<String>> HARNESS_FLOORS = Map.of(
            "api", Set.of(),
            "core", Set.of("api"),
            "bundle", Set.of("api"),
            "metrics", Set.of("api"),
            "benchmark", Set.of("api"),
            "report", Set.of("api", "core", "bundle"),
            "experiments", Set.of("api", "core", "bundle", "report"));

    /** What a target module ({@code targets/<kind>}) may use besides itself. */
    static final Set<String> TARGET_USES = Set.of("api", "core");

    /**
     * The target modules that sit on the target SPI alone (issue 36): they use {@code api} (its {@code spi} package
     * included) and nothing of core. A target leaves {@link #TARGET_USES} for this set when its last core import is gone.
     */
    static final Set<String> SPI_ONLY_TARGETS = Set.of("targets/openai", "targets/llama", "targets/fixed");

    static final String INTERNAL_RULE =
            "a module uses another only through its api, spi and entry points, never its internal";

    static final String FLOOR_RULE =
            "the harness's modules point one way: api <- core, bundle, metrics, benchmark; core + bundle <- report <- experiments; core <- each target";

    /** The rules, a harness class's floor read through {@code floors}. */
    static List<Rule> rules(Function<JavaClass, String> floors) {
        return List.of(
                Rule.ofPackages(
                        "transport depends on no other kvlab module",
                        (from, to) ->
                                module(from).equals("transport") && !module(to).equals("transport")),
                Rule.ofPackages(
                        "store depends on transport only",
                        (from, to) -> module(from).equals("store")
                                && !Set.of("store", "transport").contains(module(to))),
                Rule.ofPackages(
                        "workloads depends on no other kvlab module",
                        (from, to) ->
                                module(from).equals("workloads") && !module(to).equals("workloads")),
                Rule.ofPackages(
                        "nothing but the CLI depends on the CLI",
                        (from, to) -> !module(from).equals("cli") && module(to).equals("cli")),
                new Rule(
                        INTERNAL_RULE,
                        (from, to) -> isInternal(to.getPackageName())
                                && !component(from, floors).equals(component(to, floors))),
                new Rule(
                        FLOOR_RULE,
                        (from, to) -> module(from.getPackageName()).equals("harness")
                                && module(to.getPackageName()).equals("harness")
                                && !mayUse(floors.apply(from), floors.apply(to))),
                Rule.ofPackages(
                        "api packages see only api and spi packages",
                        (from, to) -> isApi(from) && !isApi(to) && !isSpi(to)),
                Rule.ofPackages("spi packages never see internal", (from, to) -> isSpi(from) && isInternal(to)));
    }

    /**
     * The Maven module a class belongs to, for the internal rule: {@code transport}, {@code store}, {@code workloads},
     * {@code cli}, and each of the harness's modules apart ({@code harness/core}, {@code harness/targets/llama}, ...), so
     * no harness module sees another's {@code internal} either.
     */
    static String component(JavaClass c, Function<JavaClass, String> floors) {
        String m = module(c.getPackageName());
        return m.equals("harness") ? "harness/" + floors.apply(c) : m;
    }

    private static boolean mayUse(String from, String to) {
        if (from.equals(to) || from.equals("cli")) return true;
        if (SPI_ONLY_TARGETS.contains(from)) return to.equals("api");
        if (from.startsWith("targets/")) return TARGET_USES.contains(to);
        Set<String> uses = HARNESS_FLOORS.get(from);
        return uses != null && uses.contains(to);
    }

    /**
     * Every broken rule's dependencies, as {@code "rule: from-package -> to-package"}, sorted; classes outside kvlab
     * and dependencies within one package are not rules' business.
     */
    static SortedSet<String> violations(JavaClasses classes) {
        return violations(classes, ArchitectureRules::floor);
    }

    /** {@link #violations(JavaClasses)} with each harness class's floor given by {@code floors}. */
    static SortedSet<String> violations(JavaClasses classes, Function<JavaClass, String> floors) {
        List<Rule> rules = rules(floors);
        SortedSet<String> out = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = c.getPackageName();
            if (!from.startsWith("dev.kvlab.")) continue;
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass t = d.getTargetClass();
                String to = t.getPackageName();
                if (!to.startsWith("dev.kvlab.") || to.equals(from)) continue;
                for (Rule r : rules) if (r.forbids().test(c, t)) out.add(r.name() + ": " + from + " -> " + to);
            }
        }
        return out;
    }

    private static final Pattern MODULE_FOLDER =
            Pattern.compile("/harness/((?:targets/)?[a-z0-9-]+)/target/(?:classes/|[^/]+\\.jar!)");

    /**
     * A harness class's floor: the folder of the Maven module its compiled class comes from ({@code core},
     * {@code targets/openai}, ...), so a new module or package needs no edit here. A class from elsewhere (a test
     * fixture) is placed by the module its package names: {@link #floorOfPackage}. ArchitectureTest checks that every
     * main class's package names the module its class file comes from.
     */
    static String floor(JavaClass c) {
        String src = c.getSource().map(s -> s.getUri().toString()).orElse("");
        Matcher m = MODULE_FOLDER.matcher(src);
        return m.find() ? m.group(1) : floorOfPackage(c.getPackageName());
    }

    /**
     * The floor a harness package names (issue 36: packages say their module): {@code harness/api} is the harness's
     * base and has its packages' shape ({@code transport}'s, {@code store}'s): its entry-point package is the root
     * {@code dev.kvlab.harness}, its api {@code dev.kvlab.harness.api.*}, its spi {@code .spi}, its implementation
     * {@code .internal.*}; {@code dev.kvlab.harness.<m>.*} is module {@code <m>}'s ({@code core}, {@code bundle}, ..., a
     * target's {@code targets/<m>}); anything else (a test's own package) is placed in the CLI. {@code targets} lists the
     * target modules' names.
     */
    static String floorOfPackage(String pkg, Set<String> targets) {
        String p = pkg.equals("dev.kvlab.harness") ? "" : pkg.substring("dev.kvlab.harness.".length());
        String first = p.contains(".") ? p.substring(0, p.indexOf('.')) : p;
        if (first.isEmpty() || first.equals("api") || first.equals("spi") || first.equals("internal")) return "api";
        if (HARNESS_FLOORS.containsKey(first)) return first;
        if (targets.contains(first)) return "targets/" + first;
        return "cli";
    }

    /** {@link #floorOfPackage(String, Set)} with today's targets ({@link #SPI_ONLY_TARGETS}). */
    static String floorOfPackage(String pkg) {
        Set<String> targets = new TreeSet<>();
        for (String t : SPI_ONLY_TARGETS) targets.add(t.substring("targets/".length()));
        return floorOfPackage(pkg, targets);
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
