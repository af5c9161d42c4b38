package dev.kvlab.harness.api.catalog;

import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.workloads.api.TokenCount;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * What {@code kvlab plan} is asked: a model, either {@code model} from the catalog or its dimensions ({@code layers}
 * with {@code kvHeads} and {@code headDim}, or with {@code mlaRank} and {@code ropeDim}; null where not given), the KV
 * {@code dtype} and tensor parallelism {@code tp}, the request and block lengths, a store {@code capacity} (bytes, or
 * tokens of the model: {@code 30Mtok}), optionally a GPU kind {@code hardware} of which {@code memFraction} of HBM holds
 * weights and KV; {@code catalogs} are extra catalog files. {@link #plan} checks and sizes it ({@link KvPlan}), given the
 * catalog ({@code dev.kvlab.harness.Catalogs.plan} reads it from the built-in and {@code catalogs} files).
 */
public record PlanQuery(
        String model,
        Integer layers,
        Integer kvHeads,
        Integer headDim,
        Integer mlaRank,
        Integer ropeDim,
        String dtype,
        int tp,
        long tokens,
        int blockTokens,
        String capacity,
        String hardware,
        double memFraction,
        List<Path> catalogs) {

    /**
     * The plan ({@link KvPlan}: with {@link KvPlan#hbm} when a hardware is named). A value out of
     * range or a bad combination is a {@link BadOptionException} naming the option ({@code --dtype: ...}); an unknown
     * model, a TP the model's heads do not divide or sizes past 64 bits a {@link BadInputException}. {@code catalog} is
     * asked for only when a model or hardware is named.
     */
    public KvPlan plan(Supplier<Catalog> catalog) {
        try {
            return sized(catalog);
        } catch (ArithmeticException e) {
            throw new BadInputException("these sizes do not fit 64 bits (" + e.getMessage() + "): --layers " + layers
                    + " --kv-heads " + kvHeads + " --head-dim " + headDim + " --tokens " + tokens + " --block-tokens "
                    + blockTokens + (model != null ? " --model " + model : ""));
        }
    }

    /**
     * The plan of the shape a GGUF file's header gives ({@code info}; {@code model} and the dimensions must be null):
     * its facts first ({@link GgufModelInfo#facts}, as {@link GgufShape}), then {@link #plan(Supplier)}'s sizes.
     */
    public KvPlan plan(GgufModelInfo info, Supplier<Catalog> catalog) {
        if (info.keyLength() != info.valueLength())
            throw new BadInputException(info.path() + ": K and V head dimensions differ (" + info.keyLength() + " and "
                    + info.valueLength() + "); kvlab plan sizes equal ones");
        KvPlan sized = new PlanQuery(
                        null,
                        info.layers(),
                        info.kvHeads(),
                        info.headDim(),
                        null,
                        null,
                        dtype,
                        tp,
                        tokens,
                        blockTokens,
                        capacity,
                        hardware,
                        memFraction,
                        catalogs)
                .plan(catalog);
        return new KvPlan(GgufShape.of(info.facts(), (ModelShape) sized.model()), sized.sizes(), sized.hbm());
    }

    private KvPlan sized(Supplier<Catalog> source) {
        Dtype dt;
        try {
            dt = Dtype.parse(dtype);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException("--dtype: " + e.getMessage(), e);
        }
        if (tokens < 1 || tokens > (1L << 40)) throw new BadOptionException("--tokens must be 1.." + (1L << 40));
        if (blockTokens < 1 || blockTokens > (1 << 24))
            throw new BadOptionException("--block-tokens must be 1.." + (1 << 24));
        if (!(memFraction > 0 && memFraction <= 1))
            throw new BadOptionException("--kv-memory-fraction must be in (0, 1]");
        if (!TokenCount.isTokens(capacity)) {
            try {
                ByteSize.parse(capacity);
            } catch (IllegalArgumentException e) {
                throw new BadOptionException("--capacity: " + e.getMessage(), e);
            }
        }
        Catalog catalog = (model != null || hardware != null) ? source.get() : null;
        ModelSpec m = model == null ? null : catalog.model(checkedModel());
        KvShape shape = m != null ? m.kvShape() : shape();
        KvSizing kv;
        try {
            kv = new KvSizing(shape, dt, tp);
        } catch (IllegalArgumentException e) {
            throw new BadInputException((e.getMessage().startsWith("tp ") ? "--tp: " : "") + e.getMessage());
        }
        long cap;
        try {
            // tokens of this model's KV, held once (as the store holds it)
            cap = TokenCount.isTokens(capacity)
                    ? Math.multiplyExact(TokenCount.parse(capacity), kv.bytesPerToken())
                    : ByteSize.parse(capacity);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new BadOptionException(
                    "--capacity: " + (e instanceof ArithmeticException ? capacity + " is too large" : e.getMessage()),
                    e);
        }
        HbmFit hbm = null;
        if (hardware != null) {
            HardwareSpec hw = catalog.hardware(hardware);
            if (m == null)
                throw new BadOptionException("--hardware needs --model (the weights decide what is left for KV)");
            hbm = HbmFit.of(m, hw, kv, memFraction, tokens, blockTokens);
        }
        return new KvPlan(ModelShape.of(m, shape), KvSizes.of(dt, kv, tokens, blockTokens, cap), hbm);
    }

    private String checkedModel() {
        if (layers != null || kvHeads != null || headDim != null || mlaRank != null || ropeDim != null)
            throw new BadOptionException(
                    "give either --model or --layers/--kv-heads/--head-dim[/--mla-rank/--rope-dim], not both");
        return model;
    }

    /** The shape the dimensions give (no catalog model). */
    private KvShape shape() {
        if (layers == null)
            throw new BadOptionException(
                    "give --model NAME, or --layers L with --kv-heads H --head-dim D (or --mla-rank R --rope-dim P)");
        if ((mlaRank == null) != (ropeDim == null))
            throw new BadOptionException("--mla-rank and --rope-dim go together");
        try {
            if (mlaRank != null) {
                if (kvHeads != null || headDim != null)
                    throw new BadOptionException(
                            "MLA caches a latent: give --mla-rank/--rope-dim without --kv-heads/--head-dim");
                return KvShape.mla(layers, mlaRank, ropeDim);
            }
            if (kvHeads == null || headDim == null)
                throw new BadOptionException("--layers needs --kv-heads and --head-dim (or --mla-rank and --rope-dim)");
            return KvShape.heads(layers, kvHeads, headDim);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException(e.getMessage(), e);
        }
    }
}
