package dev.kvlab.harness.api.catalog;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.transport.api.LinkSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * What {@code kvlab breakeven} is asked: catalog {@code model} on catalog {@code hardware} (its prefill MFU and HBM
 * bandwidth utilisation overridden where {@code mfu} and {@code bandwidthUtilization} are not null), fetching over
 * {@code link} per GPU a prefix of {@code prefixTokens} followed by {@code suffixTokens}, on an engine of
 * {@code passTokens} tokens per forward pass (0: one pass), at {@code tp} and KV {@code dtype}; {@code catalogs} are
 * extra catalog files. {@link #report} checks and answers it ({@link BreakevenReport}), given the catalog
 * ({@code dev.kvlab.harness.Catalogs.breakeven} reads it from the built-in and {@code catalogs} files).
 */
public record BreakevenQuery(
        String model,
        String hardware,
        String link,
        long prefixTokens,
        int suffixTokens,
        int passTokens,
        int tp,
        String dtype,
        Double mfu,
        Double bandwidthUtilization,
        List<Path> catalogs) {

    /**
     * The {@link BreakevenReport}. A value out of range is a {@link BadOptionException}
     * naming the option ({@code --link: ...}); an unknown model or hardware, or a TP the model's heads do not divide, a
     * {@link BadInputException}. {@code catalog} is asked for once the options are checked.
     */
    public BreakevenReport report(Supplier<Catalog> catalog) {
        LinkSpec l;
        Dtype dt;
        try {
            l = LinkSpec.parse(link);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException("--link: " + e.getMessage(), e);
        }
        try {
            dt = Dtype.parse(dtype);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException("--dtype: " + e.getMessage(), e);
        }
        if (prefixTokens < 1) throw new BadOptionException("--prefix-tokens must be >= 1");
        if (tp < 1) throw new BadOptionException("--tp must be >= 1");
        if (suffixTokens < 0) throw new BadOptionException("--suffix-tokens must be >= 0");
        if (passTokens < 0) throw new BadOptionException("--pass-tokens must be >= 0 (0: one pass)");
        Catalog c = catalog.get();
        ModelSpec m = c.model(model);
        HardwareSpec hw;
        try {
            hw = c.hardware(hardware).withEfficiency(mfu, bandwidthUtilization);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException(e.getMessage(), e);
        }
        KvSizing kv;
        try {
            kv = KvSizing.of(m, dt, tp);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--tp: " + e.getMessage());
        }
        return BreakevenReport.of(
                m, hw, kv, l, prefixTokens, suffixTokens, passTokens == 0 ? Integer.MAX_VALUE : passTokens);
    }
}
