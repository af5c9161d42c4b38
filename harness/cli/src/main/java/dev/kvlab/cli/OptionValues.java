package dev.kvlab.cli;

import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The option values every command writes the same way, converted once: durations ({@code 500ms}, {@code 4s}; every
 * {@link Duration} option, registered by {@link Kvlab#commandLine()}) and byte sizes ({@code 1MiB}; options naming
 * {@link Bytes} as their converter). A bad value is reported as {@code OPTION: reason}, exit 2.
 */
final class OptionValues {

    private OptionValues() {}

    /** A value a converter refused; {@link Kvlab} prefixes the reason with the option's name. */
    static final class Refused extends TypeConversionException {
        private static final long serialVersionUID = 1L;

        Refused(IllegalArgumentException reason) {
            super(reason.getMessage());
            initCause(reason);
        }
    }

    /** A duration ({@link DurationSpec}). */
    static Duration duration(String text) {
        try {
            return DurationSpec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new Refused(e);
        }
    }

    /** A byte size ({@link ByteSize}: {@code 1MiB}, {@code 64GiB}, plain bytes). */
    public static final class Bytes implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            try {
                return ByteSize.parse(text);
            } catch (IllegalArgumentException e) {
                throw new Refused(e);
            }
        }
    }
}
