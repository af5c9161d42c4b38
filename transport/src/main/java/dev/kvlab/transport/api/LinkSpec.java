package dev.kvlab.transport.api;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/**
 * A network link as users write it: {@code [N x]<rate><unit>[@latency]}, e.g. {@code 10gbps},
 * {@code 4x200gbps}, {@code 100mbps}, {@code 8gbps@5us}. Units {@code kbps}, {@code mbps}, {@code gbps},
 * {@code tbps} are bits per second (decimal); {@code N} links are aggregated.
 *
 * @param links             number of parallel links (NICs), >= 1
 * @param bitsPerSecondPerLink line rate of one link
 * @param latency           per-operation latency, or null when not given (users apply their own default)
 */
public record LinkSpec(int links, double bitsPerSecondPerLink, Duration latency) {

    public LinkSpec {
        if (links < 1) throw new IllegalArgumentException("a link needs at least 1 lane, got " + links);
        if (!(bitsPerSecondPerLink > 0) || Double.isInfinite(bitsPerSecondPerLink))
            throw new IllegalArgumentException("link rate must be > 0, got " + bitsPerSecondPerLink);
        if (latency != null && latency.isNegative()) throw new IllegalArgumentException("link latency must be >= 0");
    }

    /** Aggregate payload bandwidth in bytes per second. */
    public double bytesPerSecond() {
        return links * bitsPerSecondPerLink / 8.0;
    }

    public static LinkSpec parse(String text) {
        if (text == null) throw new IllegalArgumentException("link is missing");
        String s = text.strip().toLowerCase(Locale.ROOT);
        Duration latency = null;
        int at = s.indexOf('@');
        if (at >= 0) {
            latency = DurationSpec.parse(s.substring(at + 1));
            s = s.substring(0, at);
        }
        int links = 1;
        int x = s.indexOf('x');
        if (x > 0) {
            try {
                String n = s.substring(0, x).strip();
                if (n.isEmpty() || !n.chars().allMatch(c -> c >= '0' && c <= '9')) throw new NumberFormatException(n);
                links = Integer.parseInt(n);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "not a link: '" + ByteSize.quote(text) + "' (expected e.g. 10gbps, 4x200gbps)");
            }
            s = s.substring(x + 1).strip();
        }
        int i = 0;
        while (i < s.length() && (isAsciiDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        String num = s.substring(0, i);
        String unit = s.substring(i).strip();
        double mult = switch (unit) {
            case "bps" -> 1;
            case "kbps" -> 1e3;
            case "mbps" -> 1e6;
            case "gbps" -> 1e9;
            case "tbps" -> 1e12;
            default ->
                throw new IllegalArgumentException("not a link: '" + ByteSize.quote(text)
                        + "' (unit must be kbps, mbps, gbps or tbps, e.g. 10gbps, 4x200gbps)");
        };
        if (num.isEmpty())
            throw new IllegalArgumentException(
                    "not a link: '" + ByteSize.quote(text) + "' (expected e.g. 10gbps, 4x200gbps)");
        double rate;
        try {
            rate = new BigDecimal(num).doubleValue() * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a link: '" + ByteSize.quote(text) + "'");
        }
        return new LinkSpec(links, rate, latency);
    }

    /** The canonical text form, parseable by {@link #parse(String)}. */
    @Override
    public String toString() {
        String rate;
        double r = bitsPerSecondPerLink;
        if (r >= 1e12 && r % 1e12 == 0) rate = (long) (r / 1e12) + "tbps";
        else if (r >= 1e9 && r % 1e9 == 0) rate = (long) (r / 1e9) + "gbps";
        else if (r >= 1e6 && r % 1e6 == 0) rate = (long) (r / 1e6) + "mbps";
        else if (r >= 1e3 && r % 1e3 == 0) rate = (long) (r / 1e3) + "kbps";
        else rate = BigDecimal.valueOf(r).stripTrailingZeros().toPlainString() + "bps";
        String lat = latency == null ? "" : "@" + DurationSpec.format(latency);
        return (links > 1 ? links + "x" : "") + rate + lat;
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
