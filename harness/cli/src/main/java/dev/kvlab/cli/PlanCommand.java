package dev.kvlab.cli;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.api.catalog.KvPlan;
import dev.kvlab.harness.api.catalog.PlanQuery;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab plan}: KV sizing for a model: bytes per token (once and per TP rank), per request, per GiB, what fits.
 * The model comes from the catalog ({@code --model}), from its dimensions, or from a GGUF file ({@code --gguf}: its
 * header's shape, KV at llama.cpp's default f16 cache unless {@code --dtype} says otherwise).
 */
@Command(
        name = "plan",
        mixinStandardHelpOptions = true,
        description =
                "KV sizing for a model: bytes per token (counted once and per TP rank), per request, tokens per GiB, "
                        + "and what fits a store capacity (and a GPU's HBM with --hardware). --gguf FILE reads the shape from a GGUF "
                        + "model (KV dtype f16, llama.cpp's default, unless --dtype is given).")
public final class PlanCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--model", description = "model from the catalog (e.g. llama-3-8b)")
    String model;

    @Option(names = "--gguf", description = "a GGUF model file (instead of --model or the dimensions)")
    Path gguf;

    @Option(names = "--layers", description = "layers (instead of --model)")
    Integer layers;

    @Option(names = "--kv-heads", description = "KV heads (instead of --model)")
    Integer kvHeads;

    @Option(names = "--head-dim", description = "head dimension (instead of --model)")
    Integer headDim;

    @Option(names = "--mla-rank", description = "MLA latent rank (kv_lora_rank); with --rope-dim")
    Integer mlaRank;

    @Option(names = "--rope-dim", description = "MLA rotary key dimension; with --mla-rank")
    Integer ropeDim;

    @Option(names = "--dtype", defaultValue = "bf16", description = "KV dtype: bf16, fp16, fp8 [${DEFAULT-VALUE}]")
    String dtype;

    @Option(names = "--tp", defaultValue = "1", description = "tensor-parallel degree [${DEFAULT-VALUE}]")
    int tp;

    @Option(names = "--tokens", defaultValue = "4096", description = "request length in tokens [${DEFAULT-VALUE}]")
    long tokens;

    @Option(names = "--block-tokens", defaultValue = "512", description = "tokens per KV block [${DEFAULT-VALUE}]")
    int blockTokens;

    @Option(
            names = "--capacity",
            defaultValue = "1TiB",
            description = "store capacity to plan for: bytes or tokens of the model (30Mtok) [${DEFAULT-VALUE}]")
    String capacity;

    @Option(names = "--hardware", description = "also show what fits the HBM of TP GPUs of this kind")
    String hardware;

    @Option(
            names = "--kv-memory-fraction",
            defaultValue = "0.9",
            description = "share of HBM usable for weights + KV (with --hardware) [${DEFAULT-VALUE}]")
    double memFraction;

    @Option(names = "--catalog", description = "extra catalog YAML file or directory (repeatable)")
    List<Path> catalogs = new ArrayList<>();

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Override
    public Integer call() throws IOException {
        KvPlan out = gguf != null ? planGguf() : Catalogs.plan(query());
        PrintWriter w = spec.commandLine().getOut();
        if (json) w.println(ReportJson.write(out));
        else w.print(out.text());
        w.flush();
        return Kvlab.EXIT_OK;
    }

    /** Plans for the shape read from {@link #gguf}: the GGUF facts first, then the usual sizing. */
    KvPlan planGguf() throws IOException {
        if (model != null || layers != null || kvHeads != null || headDim != null || mlaRank != null || ropeDim != null)
            throw new ParameterException(
                    spec.commandLine(),
                    "give either --gguf FILE or --model NAME or --layers/--kv-heads/--head-dim, not several");
        if (hardware != null)
            throw new ParameterException(
                    spec.commandLine(), "--hardware goes with --model (catalog weights), not --gguf");
        GgufModelInfo info = Gguf.read(gguf);
        if (!spec.commandLine().getParseResult().hasMatchedOption("--dtype")) dtype = "fp16";
        return Catalogs.plan(query(), info);
    }

    /** The options as the library's query. */
    PlanQuery query() {
        return new PlanQuery(
                model,
                layers,
                kvHeads,
                headDim,
                mlaRank,
                ropeDim,
                dtype,
                tp,
                tokens,
                blockTokens,
                capacity,
                hardware,
                memFraction,
                catalogs);
    }
}
