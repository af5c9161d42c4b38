package dev.kvlab.cli;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.api.catalog.BreakevenQuery;
import dev.kvlab.harness.api.catalog.BreakevenReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvlab breakeven}: is fetching a cached prefix's KV over a link faster than recomputing it? */
@Command(
        name = "breakeven",
        mixinStandardHelpOptions = true,
        description =
                "Recompute vs fetch: the roofline prefill time of a prefix against latency + KV bytes / link bandwidth; "
                        + "prints which wins, the break-even prefix length and the break-even link rate. The link is per GPU "
                        + "(each TP rank fetches its share over its own NICs).")
public final class BreakevenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--model", required = true, description = "model from the catalog")
    String model;

    @Option(names = "--hardware", required = true, description = "GPU from the catalog")
    String hardware;

    @Option(names = "--link", required = true, description = "link per GPU, e.g. 10gbps, 4x200gbps, 100gbps@5us")
    String link;

    @Option(names = "--prefix-tokens", defaultValue = "4096", description = "prefix length [${DEFAULT-VALUE}]")
    long prefixTokens;

    @Option(
            names = "--suffix-tokens",
            defaultValue = "0",
            description = "prompt tokens after the prefix, prefilled in both cases (after the fetched KV, "
                    + "or with the recomputed prefix) [${DEFAULT-VALUE}]")
    int suffixTokens;

    @Option(
            names = "--pass-tokens",
            defaultValue = "0",
            description = "the engine's most tokens per forward pass (llama.cpp: n_batch); 0: a prefill "
                    + "is one pass [${DEFAULT-VALUE}]")
    int passTokens;

    @Option(names = "--tp", defaultValue = "1", description = "tensor-parallel degree [${DEFAULT-VALUE}]")
    int tp;

    @Option(names = "--dtype", defaultValue = "bf16", description = "KV dtype [${DEFAULT-VALUE}]")
    String dtype;

    @Option(names = "--prefill-mfu", description = "override the hardware's prefill MFU")
    Double mfu;

    @Option(names = "--decode-bandwidth-utilization", description = "override the hardware's HBM bandwidth utilisation")
    Double bwUtil;

    @Option(names = "--catalog", description = "extra catalog YAML file or directory (repeatable)")
    List<Path> catalogs = new ArrayList<>();

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Override
    public Integer call() {
        BreakevenReport o = Catalogs.breakeven(new BreakevenQuery(
                model, hardware, link, prefixTokens, suffixTokens, passTokens, tp, dtype, mfu, bwUtil, catalogs));
        PrintWriter w = spec.commandLine().getOut();
        if (json) w.println(ReportJson.write(o));
        else w.print(o.text());
        w.flush();
        return Kvlab.EXIT_OK;
    }
}
