package dev.kvlab.harness.api.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the harness's enum config values are spelled: the constant's name in lower case with {@code -} for {@code _}
 * ({@code LOCAL_ONLY} is {@code local-only}); parsing is case-insensitive and takes {@code _} for {@code -}.
 */
public final class ConfigEnums {

    private ConfigEnums() {}

    /** The config spelling of {@code e}. */
    public static String label(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} spelled {@code s}; {@link IllegalArgumentException} listing the spellings otherwise. */
    public static <E extends Enum<E>> E parse(Class<E> type, String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (E x : type.getEnumConstants()) if (label(x).equals(v)) return x;
        throw new IllegalArgumentException("'" + s + "' is not one of "
                + Arrays.stream(type.getEnumConstants()).map(ConfigEnums::label).collect(Collectors.joining(", ")));
    }
}
