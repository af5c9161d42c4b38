package dev.kvlab.harness.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.gguf.GgufSynth;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvlab calibrate --engine}'s measurement on a tiny synthesized model: the catalog it writes loads, and the
 * roofline built from it gives back the measured prefill and decode times (the model's KV per token as the GGUF says).
 */
class EngineCalibrationTest {

    @TempDir Path dir;

    @Test
    void theCalibratedRooflineReproducesTheMeasuredPrefillAndDecode() throws Exception {
        var lib = RealKvTestSupport.library();
        SynthSpec spec = new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 9, 1024);
        Path gguf = GgufSynth.write(spec, dir.resolve("cal.gguf")).path();
        EngineCalibration c = EngineCalibration.measure(lib, GgufModelInfo.read(gguf), 1, 128, 4);
        assertThat(c.prefillSeconds()).isPositive();
        assertThat(c.decodeSeconds()).isPositive();
        Path file = dir.resolve("engine.yaml");
        Files.writeString(file, c.catalogYaml());
        Catalog cat = Catalog.load(List.of(file));
        var model = cat.model(c.modelSpec().id());
        var hw = cat.hardware(c.hardwareSpec().id());
        KvSizing kv = KvSizing.of(model, Dtype.FP16, 1);
        assertThat(kv.bytesPerTokenAllRanks()).isEqualTo(spec.kvBytesPerToken());
        Roofline r = new Roofline(model, hw, kv);
        assertThat(r.prefillSeconds(128, 0)).isCloseTo(c.prefillSeconds(), within(c.prefillSeconds() * 1e-3));
        assertThat(r.decodeStepSeconds(1, 128)).isCloseTo(c.decodeSeconds(), within(c.decodeSeconds() * 1e-3));
    }
}
