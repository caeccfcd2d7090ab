package io.polybench.ini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValueConverterTest {

    private final ValueConverter converter = new ValueConverter();

    @ParameterizedTest
    @CsvSource({"true, true", "YES, true", "on, true", "1, true", "false, false", "No, false", "OFF, false",
        "0, false"})
    void booleans(String raw, boolean expected) {
        assertEquals(expected, converter.convert(raw, Boolean.class));
        assertEquals(expected, converter.convert(raw, boolean.class));
    }

    @ParameterizedTest
    @CsvSource({"250ms, PT0.25S", "30s, PT30S", "45, PT45S", "5m, PT5M", "2h, PT2H", "1d, PT24H", "PT1M30S, PT1M30S"})
    void durations(String raw, String expected) {
        assertEquals(Duration.parse(expected), converter.convert(raw, Duration.class));
    }

    @Test
    void numbers() {
        assertEquals(1_000_000, converter.convert("1_000_000", Integer.class));
        assertEquals(255, converter.convert("0xFF", int.class));
        assertEquals(9_000_000_000L, converter.convert(" 9000000000 ", Long.class));
        assertEquals(0.5, converter.convert("0.5", Double.class));
    }

    @Test
    void paths() {
        assertEquals(Path.of("/srv/app"), converter.convert("/srv/app", Path.class));
    }

    @Test
    void invalidValuesNameTheType() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> converter.convert("maybe", Boolean.class));
        assertTrue(error.getMessage().contains("'maybe'"), error.getMessage());
        assertTrue(error.getMessage().contains("Boolean"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> converter.convert("10 parsecs", Duration.class));
    }

    @Test
    void unsupportedType() {
        assertFalse(converter.supports(UUID.class));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> converter.convert("123e4567-e89b-12d3-a456-426614174000", UUID.class));
        assertEquals("No converter registered for java.util.UUID", error.getMessage());
    }
}
