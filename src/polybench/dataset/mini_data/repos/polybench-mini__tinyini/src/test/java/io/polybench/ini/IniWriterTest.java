package io.polybench.ini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IniWriterTest {

    @Test
    void writesGlobalSectionFirstThenSectionsInOrder() {
        Ini ini = new Ini();
        ini.put("server", "host", "example.org");
        ini.put("", "name", "demo");
        ini.put("server", "port", "8080");
        ini.put("client", "retries", "3");
        assertEquals("name = demo\n\n[server]\nhost = example.org\nport = 8080\n\n[client]\nretries = 3\n",
                new IniWriter().write(ini));
    }

    @Test
    void emptyGlobalSectionIsSkipped() {
        Ini ini = new Ini().put("a", "k", "v");
        assertEquals("[a]\nk = v\n", ini.toString());
    }

    @Test
    void customSeparator() {
        Ini ini = new Ini().put("a", "k", "v");
        assertEquals("[a]\nk: v\n", new IniWriter(": ").write(ini));
        assertThrows(IllegalArgumentException.class, () -> new IniWriter(" -> "));
    }

    @Test
    void quotesOnlyWhenNeeded() {
        assertEquals("plain value", IniWriter.formatValue("plain value"));
        assertEquals("", IniWriter.formatValue(""));
        assertEquals("\"  padded\"", IniWriter.formatValue("  padded"));
        assertEquals("\"two\\nlines\"", IniWriter.formatValue("two\nlines"));
        assertEquals("\"\\\"quoted\\\" \"", IniWriter.formatValue("\"quoted\" "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "  leading", "trailing  ", "multi\nline", "tab\there", "\"quoted\"",
        "back\\slash", "a=b:c", "50%"})
    void roundTrip(String value) {
        Ini ini = new Ini().put("s", "key", value);
        Ini reread = Ini.parse(new IniWriter().write(ini));
        assertEquals(value, reread.get("s", "key"));
    }
}
