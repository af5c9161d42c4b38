package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * An enum config value ({@link Mode}, {@link Tiers}, {@link Fault}, ...), spelled as the constant's name in lower case
 * with {@code -} for {@code _} ({@code LOCAL_ONLY} is {@code local-only}), which is also its JSON value; parsing is
 * case-insensitive and takes {@code _} for {@code -}. Each enum still declares {@code toString} (an interface cannot)
 * and its {@code @JsonCreator parse(String)} (static methods are not inherited), each a one-line call of this.
 */
public interface ConfigEnum {

    /** The constant's name (every enum has it). */
    String name();

    /** The config spelling. */
    @JsonValue
    default String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} spelled {@code s}; {@link IllegalArgumentException} listing the spellings otherwise. */
    static <E extends Enum<E> & ConfigEnum> E parse(Class<E> type, String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (E x : type.getEnumConstants()) if (x.label().equals(v)) return x;
        throw new IllegalArgumentException("'" + s + "' is not one of "
                + Arrays.stream(type.getEnumConstants()).map(ConfigEnum::label).collect(Collectors.joining(", ")));
    }
}
