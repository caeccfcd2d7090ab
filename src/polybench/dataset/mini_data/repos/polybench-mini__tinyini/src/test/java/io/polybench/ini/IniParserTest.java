package io.polybench.ini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IniParserTest {

    private static Ini parse(String text) {
        return new IniParser().parse(text);
    }

    @Nested
    class Sections {

        @Test
        void entriesBeforeTheFirstHeaderAreGlobal() {
            Ini ini = parse("name = demo\n[server]\nhost = example.org\n");
            assertEquals("demo", ini.globalSection().get("name"));
            assertEquals("example.org", ini.get("server", "host"));
            assertEquals(List.of("server"), List.copyOf(ini.sectionNames()));
        }

        @Test
        void sectionsKeepTheirOrder() {
            Ini ini = parse("[b]\nx=1\n[a]\nx=2\n[c]\nx=3\n");
            assertEquals(List.of("b", "a", "c"), List.copyOf(ini.sectionNames()));
        }

        @Test
        void repeatedHeaderReopensTheSection() {
            Ini ini = parse("[db]\nhost=a\n[cache]\nttl=5\n[db]\nport=5432\n");
            assertEquals(2, ini.section("db").size());
            assertEquals("5432", ini.get("db", "port"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"[db]", "[ db ]", "[db] ; primary", "  [db]"})
        void headerVariants(String header) {
            Ini ini = parse(header + "\nhost = a\n");
            assertEquals("a", ini.get("db", "host"));
        }
    }

    @Nested
    class Entries {

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
            "v=example.org           | example.org",
            "v = example.org         | example.org",
            "v: example.org          | example.org",
            "v =                     | ''",
            "v = http://a/b?c=d      | http://a/b?c=d",
            "v = \"  padded  \"      | '  padded  '",
            "v = \"say \\\"hi\\\"\"      | say \"hi\"",
        })
        void valueForms(String line, String expected) {
            assertEquals(expected, parse(line).globalSection().get("v"));
        }

        @Test
        void escapesInQuotedValues() {
            Ini ini = parse("v = \"tab\\tnew\\nline \\\\ \\q\"\n");
            assertEquals("tab\tnew\nline \\ \\q", ini.globalSection().get("v"));
        }

        @Test
        void keysAreTrimmedButCaseSensitive() {
            Ini ini = parse("  Port   = 1\nport = 2\n");
            assertEquals("1", ini.globalSection().get("Port"));
            assertEquals("2", ini.globalSection().get("port"));
        }

        @Test
        void byteOrderMarkIsIgnored() {
            assertEquals("1", parse("\uFEFFa = 1\n").globalSection().get("a"));
        }
    }

    @Nested
    class Comments {

        @Test
        void fullLineComments() {
            Ini ini = parse("; one\n# two\n  ; indented\n[s]\nk = v\n");
            assertEquals("v", ini.get("s", "k"));
            assertEquals(1, ini.section("s").size());
        }

        @Test
        void inlineCommentNeedsWhitespaceBeforeIt() {
            Ini ini = parse("[s]\na = 1 ; the first\nb = x;y\nc = color#1\n");
            assertEquals("1", ini.get("s", "a"));
            assertEquals("x;y", ini.get("s", "b"));
            assertEquals("color#1", ini.get("s", "c"));
        }

        @Test
        void inlineCommentsCanBeDisabled() {
            IniParser parser = new IniParser(ParseOptions.defaults().withInlineComments(false));
            assertEquals("1 ; kept", parser.parse("a = 1 ; kept\n").globalSection().get("a"));
        }

        @Test
        void customCommentCharacters() {
            IniParser parser = new IniParser(ParseOptions.defaults().withCommentChars("#"));
            Ini ini = parser.parse("; not a comment = really\na = 1 # note\n");
            assertEquals("really", ini.globalSection().get("; not a comment"));
            assertEquals("1", ini.globalSection().get("a"));
        }
    }

    @Nested
    class ContinuationLines {

        @Test
        void indentedLinesContinueTheValue() {
            Ini ini = parse("[motd]\ntext = Welcome\n  to the\n\tserver\nnext = 1\n");
            assertEquals("Welcome\nto the\nserver", ini.get("motd", "text"));
            assertEquals("1", ini.get("motd", "next"));
        }

        @Test
        void blankLineEndsTheValue() {
            assertThrows(IniParseException.class, () -> parse("a = 1\n\n  stray\n"));
        }

        @Test
        void disabledContinuationTreatsIndentedLinesAsEntries() {
            IniParser parser = new IniParser(ParseOptions.defaults().withContinuationLines(false));
            Ini ini = parser.parse("a = 1\n  b = 2\n");
            assertEquals("1", ini.globalSection().get("a"));
            assertEquals("2", ini.globalSection().get("b"));
        }
    }

    @Nested
    class DuplicateKeys {

        private static final String TEXT = "[s]\nk = 1\nk = 2\n";

        @Test
        void overwriteByDefault() {
            assertEquals("2", parse(TEXT).get("s", "k"));
        }

        @Test
        void append() {
            Ini ini = new IniParser(ParseOptions.defaults().withDuplicateKeys(ParseOptions.DuplicateKeys.APPEND))
                    .parse(TEXT);
            assertEquals(List.of("1", "2"), ini.section("s").getList("k"));
        }

        @Test
        void fail() {
            IniParser parser = new IniParser(ParseOptions.defaults().withDuplicateKeys(ParseOptions.DuplicateKeys.FAIL));
            IniParseException error = assertThrows(IniParseException.class, () -> parser.parse(TEXT));
            assertEquals(3, error.getLine());
        }
    }

    @Nested
    class Errors {

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
            "[unclosed                | 1",
            "a = 1\\n[]               | 2",
            "a = 1\\njust words       | 2",
            "= value                  | 1",
            "[s] trailing             | 1",
            "a = \"dangling\\\"       | 1",
        })
        void reportsTheLine(String text, int line) {
            IniParseException error = assertThrows(IniParseException.class, () -> parse(text.replace("\\n", "\n")));
            assertEquals(line, error.getLine());
            assertTrue(error.getMessage().startsWith("line " + line + ": "));
        }

        @Test
        void commentCharactersMustNotClashWithSyntax() {
            assertThrows(IllegalArgumentException.class, () -> ParseOptions.defaults().withCommentChars("="));
            assertFalse(ParseOptions.defaults().withCommentChars("!").isCommentChar('#'));
        }
    }
}
