package io.polybench.ini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InterpolatorTest {

    private final Ini ini = Ini.parse(String.join("\n",
            "root = /srv",
            "[app]",
            "home = ${:root}/app",
            "logs = ${home}/logs",
            "price = $$5 per ${unit}",
            "unit = month",
            "[cycle]",
            "a = ${b}",
            "b = ${a}",
            ""));

    @Test
    void referencesInTheSameSection() {
        assertEquals("/srv/app/logs", ini.resolve("app", "logs"));
    }

    @Test
    void referencesToOtherSections() {
        Interpolator interpolator = new Interpolator(ini);
        assertEquals("logs at /srv/app/logs", interpolator.expand("other", "logs at ${app:logs}"));
    }

    @Test
    void doubleDollarIsALiteralDollar() {
        assertEquals("$5 per month", ini.resolve("app", "price"));
        assertEquals("costs $", new Interpolator(ini).expand("app", "costs $"));
    }

    @Test
    void cyclesAreReported() {
        IllegalStateException error = assertThrows(IllegalStateException.class, () -> ini.resolve("cycle", "a"));
        assertTrue(error.getMessage().startsWith("Cyclic reference: cycle:a -> cycle:b -> cycle:a"),
                error.getMessage());
    }

    @Test
    void missingReferencesAreReported() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> new Interpolator(ini).expand("app", "${nope}"));
        assertEquals("Unresolved reference ${app:nope}", error.getMessage());
    }

    @Test
    void unterminatedReference() {
        assertThrows(IllegalStateException.class, () -> new Interpolator(ini).expand("app", "${home"));
    }
}
