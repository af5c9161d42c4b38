package dev.kvlab.cli;

import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvPlan;
import dev.kvlab.harness.api.catalog.KvShape;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.internal.plan.JsonOutput;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.workloads.api.TokenCount;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "KV sizing for a model: bytes per token (counted once and per TP rank), per request, tokens per GiB, "
                + "and what fits a store capacity (and a GPU's HBM with --hardware). --gguf FILE reads the shape from a GGUF "
                + "model (KV dtype f16, llama.cpp's default, unless --dtype is given).")
public final class PlanCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--model", description = "model from the catalog (e.g. llama-3-8b)") String model;
    @Option(names = "--gguf", description = "a GGUF model file (instead of --model or the dimensions)") Path gguf;
    @Option(names = "--layers", description = "layers (instead of --model)") Integer layers;
    @Option(names = "--kv-heads", description = "KV heads (instead of --model)") Integer kvHeads;
    @Option(names = "--head-dim", description = "head dimension (instead of --model)") Integer headDim;
    @Option(names = "--mla-rank", description = "MLA latent rank (kv_lora_rank); with --rope-dim") Integer mlaRank;
    @Option(names = "--rope-dim", description = "MLA rotary key dimension; with --mla-rank") Integer ropeDim;
    @Option(names = "--dtype", defaultValue = "bf16", description = "KV dtype: bf16, fp16, fp8 [${DEFAULT-VALUE}]") String dtype;
    @Option(names = "--tp", defaultValue = "1", description = "tensor-parallel degree [${DEFAULT-VALUE}]") int tp;
    @Option(names = "--tokens", defaultValue = "4096", description = "request length in tokens [${DEFAULT-VALUE}]") long tokens;
    @Option(names = "--block-tokens", defaultValue = "512", description = "tokens per KV block [${DEFAULT-VALUE}]") int blockTokens;
    @Option(names = "--capacity", defaultValue = "1TiB", description = "store capacity to plan for: bytes or tokens of the model (30Mtok) [${DEFAULT-VALUE}]") String capacity;
    @Option(names = "--hardware", description = "also show what fits the HBM of TP GPUs of this kind") String hardware;
    @Option(names = "--kv-memory-fraction", defaultValue = "0.9",
            description = "share of HBM usable for weights + KV (with --hardware) [${DEFAULT-VALUE}]") double memFraction;
    @Option(names = "--catalog", description = "extra catalog YAML file or directory (repeatable)") List<Path> catalogs = new ArrayList<>();
    @Option(names = "--json", description = "print one JSON object") boolean json;

    @Override
    public Integer call() throws IOException {
        Map<String, Object> out;
        try {
            out = gguf != null ? planGguf() : plan();
        } catch (ArithmeticException e) {
            throw new BadInputException("these sizes do not fit 64 bits (" + e.getMessage() + "): --layers " + layers + " --kv-heads " + kvHeads
                    + " --head-dim " + headDim + " --tokens " + tokens + " --block-tokens " + blockTokens + (model != null ? " --model " + model : ""));
        }
        PrintWriter w = spec.commandLine().getOut();
        if (json) w.println(JsonOutput.write(out));
        else w.print(KvPlan.text(out));
        w.flush();
        return Kvlab.EXIT_OK;
    }

    /** Plans for the shape read from {@link #gguf}: the GGUF facts first, then the usual sizing. */
    Map<String, Object> planGguf() throws IOException {
        if (model != null || layers != null || kvHeads != null || headDim != null || mlaRank != null || ropeDim != null)
            throw new ParameterException(spec.commandLine(), "give either --gguf FILE or --model NAME or --layers/--kv-heads/--head-dim, not several");
        if (hardware != null) throw new ParameterException(spec.commandLine(), "--hardware goes with --model (catalog weights), not --gguf");
        GgufModelInfo info = GgufModelInfo.read(gguf);
        if (info.keyLength() != info.valueLength())
            throw new BadInputException(gguf + ": K and V head dimensions differ (" + info.keyLength() + " and " + info.valueLength() + "); kvlab plan sizes equal ones");
        if (!spec.commandLine().getParseResult().hasMatchedOption("--dtype")) dtype = "fp16";
        layers = info.layers();
        kvHeads = info.kvHeads();
        headDim = info.headDim();
        Map<String, Object> sized = plan();
        Map<String, Object> o = info.facts();
        sized.forEach(o::putIfAbsent);
        return o;
    }

    Map<String, Object> plan() {
        Dtype dt;
        try {
            dt = Dtype.parse(dtype);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--dtype: " + e.getMessage());
        }
        if (tokens < 1 || tokens > (1L << 40)) throw new ParameterException(spec.commandLine(), "--tokens must be 1.." + (1L << 40));
        if (blockTokens < 1 || blockTokens > (1 << 24)) throw new ParameterException(spec.commandLine(), "--block-tokens must be 1.." + (1 << 24));
        if (!(memFraction > 0 && memFraction <= 1)) throw new ParameterException(spec.commandLine(), "--kv-memory-fraction must be in (0, 1]");
        if (!TokenCount.isTokens(capacity)) {
            try {
                ByteSize.parse(capacity);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--capacity: " + e.getMessage());
            }
        }
        Catalog catalog = (model != null || hardware != null) ? Catalog.load(catalogs) : null;
        ModelSpec m = null;
        KvShape shape;
        if (model != null) {
            if (layers != null || kvHeads != null || headDim != null || mlaRank != null || ropeDim != null)
                throw new ParameterException(spec.commandLine(), "give either --model or --layers/--kv-heads/--head-dim[/--mla-rank/--rope-dim], not both");
            m = catalog.model(model);
            shape = m.kvShape();
        } else {
            if (layers == null) throw new ParameterException(spec.commandLine(), "give --model NAME, or --layers L with --kv-heads H --head-dim D (or --mla-rank R --rope-dim P)");
            if ((mlaRank == null) != (ropeDim == null)) throw new ParameterException(spec.commandLine(), "--mla-rank and --rope-dim go together");
            try {
                if (mlaRank != null) {
                    if (kvHeads != null || headDim != null)
                        throw new ParameterException(spec.commandLine(), "MLA caches a latent: give --mla-rank/--rope-dim without --kv-heads/--head-dim");
                    shape = KvShape.mla(layers, mlaRank, ropeDim);
                } else {
                    if (kvHeads == null || headDim == null) throw new ParameterException(spec.commandLine(), "--layers needs --kv-heads and --head-dim (or --mla-rank and --rope-dim)");
                    shape = KvShape.heads(layers, kvHeads, headDim);
                }
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        KvSizing kv;
        try {
            kv = new KvSizing(shape, dt, tp);
        } catch (IllegalArgumentException e) {
            throw new BadInputException((e.getMessage().startsWith("tp ") ? "--tp: " : "") + e.getMessage());
        }
        long cap;
        try {
            // tokens of this model's KV, held once (as the store holds it)
            cap = TokenCount.isTokens(capacity) ? Math.multiplyExact(TokenCount.parse(capacity), kv.bytesPerToken()) : ByteSize.parse(capacity);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new ParameterException(spec.commandLine(), "--capacity: " + (e instanceof ArithmeticException ? capacity + " is too large" : e.getMessage()));
        }
        Map<String, Object> o = KvPlan.sizes(m, shape, dt, kv, tokens, blockTokens, cap);
        if (hardware != null) {
            HardwareSpec hw = catalog.hardware(hardware);
            if (m == null) throw new ParameterException(spec.commandLine(), "--hardware needs --model (the weights decide what is left for KV)");
            o.putAll(KvPlan.hbm(m, hw, kv, memFraction, tokens, blockTokens));
        }
        return o;
    }
}
