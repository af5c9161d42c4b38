package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.RequestSplit;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.bundle.CellFiles;
import dev.kvlab.harness.bundle.Durable;
import dev.kvlab.harness.bundle.Manifest;
import dev.kvlab.harness.bundle.PartialBundle;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.bundle.ShardManifest;
import dev.kvlab.harness.bundle.SplitCellMerge;
import dev.kvlab.harness.experiments.internal.capacity.CapacityParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code kvlab merge SHARD... --out DIR}: checks that the shard bundles (each verified first) are shards of the same
 * matrix made by the same kvlab version and that together they hold every run of it exactly once, then writes one
 * ordinary bundle: the runs' directories copied unchanged, and the summary (95% intervals, paired differences),
 * report and manifest (checksums) computed afresh over all of them, as an unsharded run writes them. Because a sim
 * run's files depend only on its config and seed, the merged summary of a sim matrix equals the unsharded one.
 */
public final class BundleMerge {

    private BundleMerge() {}

    /** A shard as read from its bundle. */
    private record Part(Path dir, Path given, JsonNode manifest, ShardManifest.Info info) {}

    /**
     * Merges {@code shards} (bundle directories, already opened) into a new bundle in {@code out}.
     *
     * @param given the paths as the user gave them, for messages (same order as {@code shards})
     * @throws BadInputException when a shard is invalid, not a shard, of another matrix or version, or the runs are not covered exactly once
     */
    public static PartialBundle.Finished merge(
            List<Path> shards, List<Path> given, Path out, Provenance prov, PartialBundle.ReportStep report)
            throws IOException {
        if (shards.isEmpty()) throw new BadInputException("kvlab merge needs at least one shard bundle");
        List<Part> parts = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) parts.add(read(shards.get(i), given.get(i)));
        Part first = parts.getFirst();
        for (Part p : parts.subList(1, parts.size())) same(first, p);
        boolean requests = first.info().split() == ShardSplit.REQUESTS;
        Map<String, Part> owner = requests ? everyShard(parts) : coverage(parts);
        MatrixSpec spec = rebuild(first, owner, requests);
        Instant start = Instant.now();
        for (Part p : parts) {
            Instant s = Instant.parse(p.manifest().path("started_at").asText());
            if (s.isBefore(start)) start = s;
        }
        PartialBundle pb = PartialBundle.create(out, spec, start, prov.commandLine());
        boolean ok = false;
        try {
            if (requests) {
                List<Part> ordered = parts.stream()
                        .sorted(java.util.Comparator.comparingInt(
                                p -> p.info().shard().index()))
                        .toList();
                List<String> labels =
                        ordered.stream().map(p -> p.info().shard().label()).toList();
                for (CellRun r : spec.runs())
                    SplitCellMerge.write(
                            ordered.stream()
                                    .map(p -> CellFiles.dir(p.dir(), r.cell(), r.replicate()))
                                    .toList(),
                            labels,
                            pb.dir(),
                            r.cell(),
                            r.replicate(),
                            r.tree());
            } else {
                for (Part p : parts)
                    for (JsonNode c : p.manifest().path("cells"))
                        for (JsonNode r : c.path("replicates")) {
                            String cell = c.path("cell").asText();
                            int k = r.path("replicate").asInt();
                            copyTree(CellFiles.dir(p.dir(), cell, k), CellFiles.dir(pb.dir(), cell, k));
                        }
            }
            // what the experiment (fixed matrix or capacity search) makes of the runs recorded: all done, in its order
            Experiment experiment = MatrixExperiment.of(spec);
            Experiment.Step step = experiment.step(pb.records());
            if (!step.finished())
                throw new BadInputException("the shards' runs do not finish the experiment: "
                        + step.next().size() + " run(s) still to run, e.g. "
                        + step.next().getFirst().label());
            List<MergeSections.Shard> from = new ArrayList<>();
            for (Part p : parts)
                from.add(new MergeSections.Shard(
                        p.manifest().path("run_id").asText(),
                        p.info().shard().label(),
                        p.info().runs().size(),
                        p.manifest().path(Manifest.SEAL).asText(),
                        p.manifest().path("git").path("commit").asText(),
                        p.manifest().path("started_at").asText(),
                        p.manifest().path("ended_at").asText()));
            Map<String, ManifestSection> sections = new LinkedHashMap<>();
            sections.put("merged_from", new MergeSections.MergedFrom(from));
            if (requests) sections.put(REQUEST_SPLIT, requestSplit(parts));
            PartialBundle.Finished fin = pb.finish(
                    spec,
                    step.done(),
                    experiment.results(pb.records(), pb.runId()),
                    prov,
                    Instant.now(),
                    report,
                    sections);
            ok = true;
            return fin;
        } finally {
            if (!ok) {
                pb.close();
                Durable.deleteTree(
                        pb.dir()); // a failed merge leaves nothing: the shards are still there to merge again
            }
        }
    }

    /** The manifest section of a bundle merged from request-split shards. */
    public static final String REQUEST_SPLIT = "request_split";

    private static MergeSections.RequestSplit requestSplit(List<Part> parts) {
        int n = parts.getFirst().info().shard().count();
        return new MergeSections.RequestSplit(
                n,
                "every cell was driven from " + n
                        + " hosts (request-split shards): host K sent the requests at positions i with i mod "
                        + n
                        + " = K-1 of every cell's stream at their intended times, from the same seed; kvlab merge added their histograms and counts"
                        + " into one cell (docs/bundle-format.md, \"Request-split shards\")",
                "a cold cell's cache is reset and verified by shard 1/" + n + " only; the shards are not synchronised");
    }

    /** A request split: every shard holds a share of every run, so each of 1..N must be there exactly once. */
    private static Map<String, Part> everyShard(List<Part> parts) {
        Map<Integer, Part> byIndex = new TreeMap<>();
        for (Part p : parts) {
            Part twice = byIndex.put(p.info().shard().index(), p);
            if (twice != null)
                throw new BadInputException(
                        "shard " + p.info().shard().label() + " given twice: " + twice.given() + " and " + p.given());
        }
        int n = parts.getFirst().info().shard().count();
        List<String> absent = new ArrayList<>();
        for (int k = 1; k <= n; k++) if (!byIndex.containsKey(k)) absent.add(k + "/" + n);
        if (!absent.isEmpty())
            throw new BadInputException("the cells' requests were split over " + n + " shards; missing shard(s) "
                    + String.join(", ", absent) + ": every request-split shard is needed to add up the cells");
        Map<String, Part> owner = new LinkedHashMap<>();
        for (String r : parts.getFirst().info().allRuns()) owner.put(r, byIndex.get(1));
        return owner;
    }

    private static Part read(Path dir, Path given) {
        List<BundleVerifier.Problem> problems = BundleVerifier.verify(dir);
        if (!problems.isEmpty())
            throw new BadInputException(given + ": not a valid bundle (" + problems.size() + " problem(s), first: "
                    + problems.getFirst() + ")");
        JsonNode m;
        try {
            m = BundleJson.read(dir.resolve(PartialBundle.MANIFEST));
        } catch (IOException e) {
            throw new BadInputException(given + ": cannot read manifest.json: " + e.getMessage());
        }
        ShardManifest.Info info = ShardManifest.read(m);
        if (info == null)
            throw new BadInputException(given
                    + ": not a shard (its manifest has no 'shard' section; shards come from kvlab run --shard K/N)");
        return new Part(dir, given, m, info);
    }

    private static void same(Part a, Part b) {
        if (!a.info().matrixSha256().equals(b.info().matrixSha256()))
            throw new BadInputException(b.given() + " is a shard of another matrix than " + a.given() + " (matrix "
                    + b.info().matrixSha256().substring(0, 12) + " vs "
                    + a.info().matrixSha256().substring(0, 12) + ")");
        String va = a.manifest().path("kvlab_version").asText(),
                vb = b.manifest().path("kvlab_version").asText();
        if (!va.equals(vb))
            throw new BadInputException(b.given() + " was made by kvlab " + vb + ", " + a.given() + " by " + va
                    + ": merge shards of one version");
        if (a.info().split() != b.info().split())
            throw new BadInputException(
                    b.given() + " split the matrix by " + b.info().split().label() + ", " + a.given() + " by "
                            + a.info().split().label() + ": merge shards of one --split");
        if (a.info().shard().count() != b.info().shard().count())
            throw new BadInputException(
                    b.given() + " is shard " + b.info().shard().label() + ", " + a.given() + " shard "
                            + a.info().shard().label() + ": one N for all shards");
        if (!a.info().allRuns().equals(b.info().allRuns())
                || !a.manifest()
                        .path("matrix")
                        .path("resolved")
                        .equals(b.manifest().path("matrix").path("resolved"))
                || !a.manifest().path("inputs").equals(b.manifest().path("inputs")))
            throw new BadInputException(
                    b.given() + " and " + a.given() + " disagree on the matrix's runs, keys or inputs");
    }

    /** Every run of the matrix → the one shard holding it. */
    private static Map<String, Part> coverage(List<Part> parts) {
        Map<Integer, Part> byIndex = new TreeMap<>();
        Map<String, Part> owner = new LinkedHashMap<>();
        for (Part p : parts) {
            Part twice = byIndex.put(p.info().shard().index(), p);
            if (twice != null)
                throw new BadInputException(
                        "shard " + p.info().shard().label() + " given twice: " + twice.given() + " and " + p.given());
            for (String r : p.info().runs()) {
                Part o = owner.put(r, p);
                if (o != null)
                    throw new BadInputException("run " + r + " is in both " + o.given() + " and " + p.given());
            }
        }
        List<String> all = parts.getFirst().info().allRuns();
        List<String> missing = new ArrayList<>();
        for (String r : all) if (!owner.containsKey(r)) missing.add(r);
        if (!missing.isEmpty()) {
            int n = parts.getFirst().info().shard().count();
            List<String> absent = new ArrayList<>();
            for (int k = 1; k <= n; k++) if (!byIndex.containsKey(k)) absent.add(k + "/" + n);
            throw new BadInputException("the shards hold " + owner.size() + " of the matrix's " + all.size()
                    + " runs; missing " + missing.size() + " (first " + missing.getFirst() + "), from shard(s) "
                    + String.join(", ", absent));
        }
        if (owner.size() != all.size()) throw new BadInputException("the shards hold runs the matrix does not have");
        return owner;
    }

    /**
     * The whole matrix, from the shards' manifests. Configs are the recorded trees, not re-bound: merging runs nothing.
     * For a capacity search a searched run's tree is one of its probes' (the search sets the knob itself).
     */
    private static MatrixSpec rebuild(Part any, Map<String, Part> owner, boolean requests) {
        JsonNode mx = any.manifest().path("matrix");
        ObjectNode resolved = (ObjectNode) mx.path("resolved");
        boolean search = ShardManifest.isSearch(any.manifest());
        Map<String, List<String>> factors = new LinkedHashMap<>();
        resolved.path("factors").fields().forEachRemaining(e -> {
            List<String> l = new ArrayList<>();
            e.getValue().forEach(v -> l.add(v.asText()));
            factors.put(e.getKey(), l);
        });
        String knob = search ? resolved.path("capacity").path("knob").asText() : null;
        Map<String, List<CellRun>> runsByCell = new LinkedHashMap<>();
        Map<String, Map<String, String>> cellFactors = new LinkedHashMap<>();
        Map<String, Integer> index = new LinkedHashMap<>();
        for (String label : any.info().allRuns()) {
            int slash = label.lastIndexOf("/r");
            String cell = label.substring(0, slash);
            int k = Integer.parseInt(label.substring(slash + 2));
            index.putIfAbsent(cell, index.size());
            JsonNode c = null, r = null;
            for (JsonNode x : owner.get(label).manifest().path("cells")) {
                if (!cell.equals(ShardManifest.baseCell(x.path("cell").asText(), search))) continue;
                for (JsonNode y : x.path("replicates"))
                    if (y.path("replicate").asInt() == k && r == null) {
                        c = x;
                        r = y;
                    }
            }
            if (r == null)
                throw new BadInputException(owner.get(label).given() + ": its manifest does not describe run " + label);
            Map<String, String> f = new LinkedHashMap<>();
            c.path("factors")
                    .fields()
                    .forEachRemaining(e -> f.put(e.getKey(), e.getValue().asText()));
            if (knob != null && !factors.containsKey(knob)) f.remove(knob); // a probe's load, not a factor of the cell
            cellFactors.putIfAbsent(cell, f);
            ObjectNode tree = requests
                    ? RequestSplit.whole((ObjectNode) r.path("config"))
                    : (ObjectNode) r.path("config").deepCopy();
            runsByCell
                    .computeIfAbsent(cell, x -> new ArrayList<>())
                    .add(new CellRun(
                            cell,
                            index.get(cell),
                            f,
                            k,
                            r.path("seed").asLong(),
                            Mode.parse(r.path("mode").asText(c.path("mode").asText())),
                            search ? bind(tree, owner.get(label).given() + " " + label) : null,
                            tree));
        }
        List<MatrixCell> cells = new ArrayList<>();
        runsByCell.forEach(
                (cell, runs) -> cells.add(new MatrixCell(index.get(cell), cell, cellFactors.get(cell), runs)));
        List<MatrixSpec.Input> inputs = new ArrayList<>();
        for (JsonNode i : any.manifest().path("inputs"))
            inputs.add(new MatrixSpec.Input(
                    i.path("path").asText(),
                    i.path("sha256").asText(),
                    i.path("bytes").asLong()));
        String baseline =
                resolved.path("baseline").isTextual() ? resolved.get("baseline").asText() : null;
        String description = resolved.path("description").isTextual()
                ? resolved.get("description").asText()
                : null;
        Path file = mx.path("file").isTextual() ? Path.of(mx.get("file").asText()) : null;
        CapacitySpec capacity = null;
        if (search) {
            // the block as the manifest resolves it (durations in seconds), read back with the parser's own checks
            ObjectNode block = ((ObjectNode) resolved.get("capacity")).deepCopy();
            for (String[] k : new String[][] {{"min_duration_s", "min_duration"}, {"budget_s", "budget"}})
                if (block.has(k[0])) block.set(k[1], block.remove(k[0]));
            if (block.path("cells").isObject() && block.get("cells").isEmpty())
                block.remove("cells"); // every cell searched
            capacity = CapacityParser.parse(
                    block, ptr -> any.given() + ": manifest.json matrix.resolved" + ptr, factors, factors, cells);
        }
        return new MatrixSpec(
                resolved.path("name").asText(),
                file,
                description,
                factors,
                resolved.path("replicates").asInt(),
                baseline,
                cells,
                inputs,
                any.info().matrixSha256(),
                resolved.deepCopy(),
                capacity);
    }

    /** A search's block is validated against the bound configs (its SLO); a fixed matrix needs none bound. */
    private static dev.kvlab.harness.api.config.RunConfig bind(ObjectNode tree, String where) {
        return dev.kvlab.harness.api.run.ConfigTree.of(tree, "manifest.json of " + where, null)
                .bind();
    }

    private static JsonNode cellEntry(JsonNode manifest, String cell) {
        for (JsonNode c : manifest.path("cells")) if (cell.equals(c.path("cell").asText())) return c;
        throw new BadInputException("a shard's manifest lists run of cell " + cell + " but not the cell");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> w = Files.walk(from)) {
            for (Path p : (Iterable<Path>) w::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
