package dev.kvlab.harness.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.BreakevenQuery;
import dev.kvlab.harness.api.catalog.BreakevenReport;
import dev.kvlab.harness.api.catalog.KvPlan;
import dev.kvlab.harness.api.catalog.ModelShape;
import dev.kvlab.harness.api.catalog.PlanQuery;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.BadOptionException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The queries behind {@code kvlab plan} and {@code kvlab breakeven}, called as a Java user calls them. */
class PlanAndBreakevenQueryTest {

    private static PlanQuery model(String model, String capacity, int tp) {
        return new PlanQuery(
                model, null, null, null, null, null, "bf16", tp, 4096, 512, capacity, null, 0.9, List.of());
    }

    private static PlanQuery dims(Integer layers, Integer kvHeads, Integer headDim, Integer mlaRank, Integer ropeDim) {
        return new PlanQuery(
                null, layers, kvHeads, headDim, mlaRank, ropeDim, "bf16", 1, 4096, 512, "1GiB", null, 0.9, List.of());
    }

    @Test
    void plansACatalogModelAndCapacityInTokens() {
        KvPlan p = model("llama-3-8b", "1GiB", 1).plan(Catalogs::builtIn);
        assertThat(p.sizes().kvBytesPerToken()).isEqualTo(131_072L);
        assertThat(p.sizes().storeRequests()).isEqualTo(2L);
        assertThat(model("llama-3-70b", "3Mtok", 1)
                        .plan(Catalogs::builtIn)
                        .sizes()
                        .storeCapacityBytes())
                .isEqualTo(3_000_000L * 327_680);
    }

    @Test
    void plansBareDimensionsTheSameAsTheModel() {
        KvPlan byDims = dims(32, 8, 128, null, null).plan(Catalogs::builtIn);
        assertThat(byDims.sizes().kvBytesPerToken()).isEqualTo(131_072L);
        assertThat(((ModelShape) byDims.model()).model()).isNull();
        assertThat(dims(61, null, null, 512, 64).plan(Catalogs::builtIn).sizes().kvBytesPerToken())
                .isEqualTo(61L * 576 * 2);
    }

    @Test
    void refusesBadOptionsNamingThem() {
        assertThatThrownBy(() -> dims(32, null, null, null, null).plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("--kv-heads");
        assertThatThrownBy(() -> dims(32, 8, 128, 4, null).plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("go together");
        assertThatThrownBy(() -> dims(2, null, null, 0, 4).plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("MLA rank");
        assertThatThrownBy(() -> model("llama-3-8b", "3Qtok", 1).plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageStartingWith("--capacity");
        assertThatThrownBy(() -> new PlanQuery(
                                "llama-3-8b",
                                32,
                                null,
                                null,
                                null,
                                null,
                                "bf16",
                                1,
                                4096,
                                512,
                                "1GiB",
                                null,
                                0.9,
                                List.of())
                        .plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> new PlanQuery(
                                null, 32, 8, 128, null, null, "bf16", 1, 4096, 512, "1GiB", "h100", 0.9, List.of())
                        .plan(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("--hardware needs --model");
        // not an option's value: the model's shape or the sizes themselves
        assertThatThrownBy(() -> model("qwen2.5-7b", "1GiB", 3).plan(Catalogs::builtIn))
                .isInstanceOf(BadInputException.class)
                .isNotInstanceOf(BadOptionException.class)
                .hasMessageStartingWith("--tp: ");
        assertThatThrownBy(() -> dims(100_000, 100_000, 100_000, null, null).plan(Catalogs::builtIn))
                .isNotInstanceOf(BadOptionException.class)
                .hasMessageContaining("do not fit 64 bits");
    }

    @Test
    void breakevenAnswersAndRefusesBadOptions() {
        BreakevenReport r = new BreakevenQuery(
                        "llama-3-8b", "h100", "100gbps", 4096, 0, 0, 1, "bf16", null, null, List.of())
                .report(Catalogs::builtIn);
        assertThat(r.times().winner()).isIn("fetch", "recompute");
        assertThat(r.times().breakevenPrefixTokens()).isPositive();
        assertThatThrownBy(() -> new BreakevenQuery(
                                "llama-3-8b", "h100", "10xx", 4096, 0, 0, 1, "bf16", null, null, List.of())
                        .report(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageStartingWith("--link: ");
        assertThatThrownBy(() -> new BreakevenQuery(
                                "llama-3-8b", "h100", "10gbps", 4096, 0, 0, 1, "bf16", 7.0, null, List.of())
                        .report(Catalogs::builtIn))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("prefill_mfu");
        assertThatThrownBy(() -> new BreakevenQuery(
                                "llama-3-8b", "nope", "10gbps", 4096, 0, 0, 1, "bf16", null, null, List.of())
                        .report(Catalogs::builtIn))
                .isNotInstanceOf(BadOptionException.class)
                .hasMessageContaining("unknown hardware");
    }
}
