package io.polybench.ini;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Converts raw INI values into Java types.
 *
 * <p>Built in: {@code String}, {@code int}/{@code Integer}, {@code long}/{@code Long},
 * {@code double}/{@code Double}, {@code boolean}/{@code Boolean} ({@code true/false},
 * {@code yes/no}, {@code on/off}, {@code 1/0}), {@link Duration} ({@code 250ms},
 * {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or an ISO-8601 {@code PT...} value) and
 * {@link Path}. Further types can be added with {@link #register}.
 */
public final class ValueConverter {

    private static final Map<Class<?>, Function<String, ?>> converters = new HashMap<>();

    static {
        converters.put(String.class, Function.identity());
        converters.put(Integer.class, ValueConverter::parseInt);
        converters.put(int.class, ValueConverter::parseInt);
        converters.put(Long.class, ValueConverter::parseLong);
        converters.put(long.class, ValueConverter::parseLong);
        converters.put(Double.class, Double::valueOf);
        converters.put(double.class, Double::valueOf);
        converters.put(Boolean.class, ValueConverter::parseBoolean);
        converters.put(boolean.class, ValueConverter::parseBoolean);
        converters.put(Duration.class, ValueConverter::parseDuration);
        converters.put(Path.class, Path::of);
    }

    /** Adds or replaces the converter for {@code type}. */
    public <T> void register(Class<T> type, Function<String, ? extends T> converter) {
        if (type == null || converter == null) {
            throw new IllegalArgumentException("type and converter must not be null");
        }
        converters.put(type, converter);
    }

    /** Whether values can be converted to {@code type}. */
    public boolean supports(Class<?> type) {
        return converters.containsKey(type);
    }

    /**
     * Converts {@code raw} (surrounding whitespace is ignored) to {@code type}.
     *
     * @throws IllegalArgumentException if there is no converter for {@code type} or the
     *     value is not valid for it
     */
    @SuppressWarnings("unchecked")
    public <T> T convert(String raw, Class<T> type) {
        Function<String, ?> converter = converters.get(type);
        if (converter == null) {
            throw new IllegalArgumentException("No converter registered for " + type.getName());
        }
        String value = raw.trim();
        try {
            return (T) converter.apply(value);
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw new IllegalArgumentException(
                    "Cannot convert '" + value + "' to " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    static Integer parseInt(String value) {
        return Integer.decode(value.replace("_", ""));
    }

    static Long parseLong(String value) {
        return Long.decode(value.replace("_", ""));
    }

    static Boolean parseBoolean(String value) {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "true":
            case "yes":
            case "on":
            case "1":
                return Boolean.TRUE;
            case "false":
            case "no":
            case "off":
            case "0":
                return Boolean.FALSE;
            default:
                throw new IllegalArgumentException("not a boolean");
        }
    }

    static Duration parseDuration(String value) {
        if (value.startsWith("P") || value.startsWith("p")) {
            return Duration.parse(value);
        }
        int split = 0;
        while (split < value.length() && Character.isDigit(value.charAt(split))) {
            split++;
        }
        if (split == 0) {
            throw new IllegalArgumentException("missing amount");
        }
        long amount = Long.parseLong(value.substring(0, split));
        String unit = value.substring(split).trim().toLowerCase(Locale.ROOT);
        switch (unit) {
            case "ms":
                return Duration.ofMillis(amount);
            case "s":
            case "":
                return Duration.ofSeconds(amount);
            case "m":
            case "min":
                return Duration.ofMinutes(amount);
            case "h":
                return Duration.ofHours(amount);
            case "d":
                return Duration.ofDays(amount);
            default:
                throw new IllegalArgumentException("unknown unit '" + unit + "'");
        }
    }
}
