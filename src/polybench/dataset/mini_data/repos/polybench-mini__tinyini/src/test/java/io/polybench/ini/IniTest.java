package io.polybench.ini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IniTest {

    private static final String CONFIG = String.join("\n",
            "; demo configuration",
            "name = demo",
            "",
            "[server]",
            "host = example.org",
            "port = 8080",
            "timeout = 30s",
            "debug = off",
            "",
            "[users]",
            "admins = alice, bob,, carol",
            "");

    @Test
    void typedGetters() {
        Ini ini = Ini.parse(CONFIG);
        assertEquals(8080, ini.get("server", "port", Integer.class));
        assertEquals(Duration.ofSeconds(30), ini.get("server", "timeout", Duration.class));
        assertFalse(ini.get("server", "debug", Boolean.class));
        assertEquals(List.of("alice", "bob", "carol"), ini.section("users").getList("admins"));
    }

    @Test
    void defaultsForMissingKeys() {
        Ini ini = Ini.parse(CONFIG);
        assertEquals(3, ini.get("server", "retries", Integer.class, 3));
        assertEquals(8080, ini.get("server", "port", Integer.class, 1));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> ini.get("server", "retries", Integer.class));
        assertEquals("No value for 'retries' in section [server]", error.getMessage());
    }

    @Test
    void sectionsCanBeQueriedAndRemoved() {
        Ini ini = Ini.parse(CONFIG);
        assertTrue(ini.hasSection("users"));
        assertTrue(ini.findSection("nope").isEmpty());
        assertTrue(ini.removeSection("users"));
        assertEquals(List.of("server"), List.copyOf(ini.sectionNames()));
        assertThrows(IllegalArgumentException.class, () -> ini.removeSection(""));
    }

    @Test
    void customConverter() {
        Ini ini = Ini.parse("[window]\nsize = 640x480\n");
        ini.registerConverter(Dimension.class, Dimension::parse);
        assertTrue(ini.canConvertTo(Dimension.class));
        assertEquals(new Dimension(640, 480), ini.get("window", "size", Dimension.class));
    }

    @Test
    void loadsFilesAsUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("app.ini");
        Files.writeString(file, "[greeting]\ntext = grüß dich\n");
        assertEquals("grüß dich", Ini.load(file).get("greeting", "text"));
    }

    @Test
    void toStringWritesIniText() {
        Ini ini = new Ini().put("a", "k", "v");
        assertEquals("[a]\nk = v\n", ini.toString());
    }

    record Dimension(int width, int height) {
        static Dimension parse(String text) {
            String[] parts = text.split("x");
            return new Dimension(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        }
    }
}
