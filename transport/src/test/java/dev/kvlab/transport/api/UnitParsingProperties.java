package dev.kvlab.transport.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Properties of the unit parsers every CLI option and config goes through: round trips and rejection of junk. */
class UnitParsingProperties {

    // ------------------------------------------------------------------------------------------------ ByteSize

    @Property
    void plainBytesRoundTrip(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long n) {
        assertThat(ByteSize.parse(Long.toString(n))).isEqualTo(n);
        assertThat(ByteSize.parse(n + "B")).isEqualTo(n);
    }

    @Property
    void exactBinaryMultiplesFormatAndParseBack(
            @ForAll @LongRange(min = 0, max = 10_239) long v, @ForAll @IntRange(min = 0, max = 4) int unit) {
        long bytes = v << (10 * unit);
        assertThat(ByteSize.parse(ByteSize.format(bytes))).isEqualTo(bytes);
    }

    @Property
    void formattedSizesReadBackWithinOnePercent(@ForAll @LongRange(min = 1, max = 1L << 50) long bytes) {
        String f = ByteSize.format(bytes); // a human form: "1.50GiB" is exact, "10.01KiB" is rounded
        String unit = f.replaceAll("^[0-9.]+", "");
        double value = Double.parseDouble(f.substring(0, f.length() - unit.length()));
        long scale = ByteSize.parse("1" + unit);
        assertThat(Math.abs(value * scale - bytes)).isLessThanOrEqualTo(bytes * 0.01);
    }

    @Property
    void unitsAreCaseInsensitiveAndScale(
            @ForAll @LongRange(min = 0, max = 1 << 20) long v, @ForAll("binaryUnits") String unit) {
        long mult = switch (unit.toLowerCase()) {
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            default -> 1L << 40;
        };
        assertThat(ByteSize.parse(v + unit)).isEqualTo(v * mult);
        assertThat(ByteSize.parse(v + unit.toUpperCase())).isEqualTo(v * mult);
    }

    @Provide
    Arbitrary<String> binaryUnits() {
        return Arbitraries.of("KiB", "MiB", "GiB", "TiB", "kib", "mib");
    }

    @Property(tries = 2000)
    void sizeParserOnlyEverThrowsIllegalArgument(@ForAll String junk) {
        try {
            assertThat(ByteSize.parse(junk)).isNotNegative();
        } catch (IllegalArgumentException expected) {
            assertThat(expected.getMessage()).isNotBlank().doesNotContain("\n");
        }
    }

    @Example
    void sizeJunkIsRejected() {
        for (String bad : new String[] {
            "",
            " ",
            "MiB",
            "-1",
            "1.5",
            "1e6",
            "12 parsecs",
            "1MiBs",
            "0x10",
            "1,000",
            "٣MiB",
            "9999999999TiB",
            "1.2.3KiB"
        }) assertThatThrownBy(() -> ByteSize.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------------ DurationSpec

    @Property
    void durationsFormatAndParseBack(@ForAll @LongRange(min = 0, max = 1L << 55) long nanos) {
        Duration d = Duration.ofNanos(nanos);
        assertThat(DurationSpec.parse(DurationSpec.format(d))).isEqualTo(d);
    }

    @Property
    void durationUnitsScale(@ForAll @LongRange(min = 0, max = 100_000) long v, @ForAll("durationUnits") String unit) {
        long per = switch (unit) {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
        assertThat(DurationSpec.parse(v + unit).toNanos()).isEqualTo(v * per);
    }

    @Provide
    Arbitrary<String> durationUnits() {
        return Arbitraries.of("ns", "us", "ms", "s", "m", "h");
    }

    @Property(tries = 2000)
    void durationParserOnlyEverThrowsIllegalArgument(@ForAll String junk) {
        try {
            assertThat(DurationSpec.parse(junk).isNegative()).isFalse();
        } catch (IllegalArgumentException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Example
    void durationJunkIsRejected() {
        for (String bad :
                new String[] {"", "4", "s", "-1s", "4 fortnights", "1e3s", "PT4S", "4ss", "٤s", "99999999999999999h"})
            assertThatThrownBy(() -> DurationSpec.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------------ LinkSpec

    @Property
    void linksPrintAndParseBack(
            @ForAll @IntRange(min = 1, max = 64) int links,
            @ForAll @LongRange(min = 1, max = 1_000_000) long rate,
            @ForAll("rateUnits") String unit,
            @ForAll("latencies") Duration latency) {
        LinkSpec l = LinkSpec.parse((links > 1 ? links + "x" : "")
                + rate
                + unit
                + (latency == null ? "" : "@" + DurationSpec.format(latency)));
        LinkSpec back = LinkSpec.parse(l.toString());
        assertThat(back).isEqualTo(l);
        assertThat(back.links()).isEqualTo(links);
        assertThat(back.latency()).isEqualTo(latency);
    }

    @Property
    void fractionalRatesRoundTrip(@ForAll @LongRange(min = 1, max = 1_000_000_000L) long milliBits) {
        LinkSpec l = LinkSpec.parse((milliBits / 1000.0) + "mbps");
        assertThat(LinkSpec.parse(l.toString())).isEqualTo(l);
    }

    @Provide
    Arbitrary<String> rateUnits() {
        return Arbitraries.of("bps", "kbps", "mbps", "gbps", "tbps", "Gbps");
    }

    @Provide
    Arbitrary<Duration> latencies() {
        return Arbitraries.longs()
                .between(0, 10_000_000_000L)
                .map(Duration::ofNanos)
                .injectNull(0.3);
    }

    @Property(tries = 2000)
    void linkParserOnlyEverThrowsIllegalArgument(@ForAll String junk) {
        try {
            assertThat(LinkSpec.parse(junk).bytesPerSecond()).isPositive();
        } catch (IllegalArgumentException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Example
    void linkJunkIsRejected() {
        for (String bad : new String[] {
            "",
            "gbps",
            "10",
            "10gb",
            "0gbps",
            "0x10gbps",
            "x10gbps",
            "-1gbps",
            "10gbps@",
            "10gbps@fast",
            "10gbps@-1s",
            "1e3gbps",
            "ax10gbps",
            "99999999999x1gbps",
            "1e400gbps",
            "٣gbps",
            "10 gbps per link"
        }) assertThatThrownBy(() -> LinkSpec.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }

    @Example
    void linkExamplesFromTheDesign() {
        assertThat(LinkSpec.parse("8gbps").bytesPerSecond()).isEqualTo(1e9);
        assertThat(LinkSpec.parse("4x200gbps").bytesPerSecond()).isEqualTo(1e11);
        assertThat(LinkSpec.parse("4x200gbps@2us").latency()).isEqualTo(Duration.ofNanos(2000));
        assertThat(LinkSpec.parse("4x200gbps@2us").toString()).isEqualTo("4x200gbps@2us");
    }
}
