package io.polybench.ini;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;

/**
 * Reads INI documents.
 *
 * <pre>
 * ; comment                 # also a comment
 * name = global value       entries before the first header go to the global section
 * [server]
 * host = example.org        ; inline comment (after whitespace)
 * port: 8080                ':' works as a separator too
 * motd = "  padded value "  double quotes keep surrounding spaces; \" \\ \n \t are escapes
 * banner = first line
 *   second line             indented lines continue the previous value
 * </pre>
 */
public final class IniParser {

    private final ParseOptions options;

    public IniParser() {
        this(ParseOptions.defaults());
    }

    public IniParser(ParseOptions options) {
        this.options = options;
    }

    public Ini parse(String text) {
        return parse(new StringReader(text));
    }

    public Ini parse(Reader reader) {
        Ini ini = new Ini();
        Section current = ini.globalSection();
        String lastKey = null;
        BufferedReader lines = reader instanceof BufferedReader ? (BufferedReader) reader : new BufferedReader(reader);
        int lineNo = 0;
        try {
            String line;
            while ((line = lines.readLine()) != null) {
                lineNo++;
                if (lineNo == 1 && line.startsWith("\uFEFF")) {
                    line = line.substring(1); // byte order mark
                }
                String trimmed = line.trim();
                if (trimmed.isEmpty()) {
                    lastKey = null;
                    continue;
                }
                if (options.isCommentChar(trimmed.charAt(0))) {
                    continue;
                }
                if (options.continuationLines() && lastKey != null && Character.isWhitespace(line.charAt(0))) {
                    String previous = current.get(lastKey);
                    current.put(lastKey, previous + "\n" + parseValue(trimmed, lineNo));
                    continue;
                }
                if (trimmed.charAt(0) == '[') {
                    current = ini.section(parseHeader(trimmed, lineNo));
                    lastKey = null;
                    continue;
                }
                lastKey = parseEntry(current, trimmed, lineNo);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ini;
    }

    private String parseHeader(String trimmed, int lineNo) {
        int close = trimmed.indexOf(']');
        if (close < 0) {
            throw new IniParseException("Missing ']' in section header", lineNo);
        }
        String rest = trimmed.substring(close + 1).trim();
        if (!rest.isEmpty() && !(options.inlineComments() && options.isCommentChar(rest.charAt(0)))) {
            throw new IniParseException("Unexpected text after section header: " + rest, lineNo);
        }
        String name = trimmed.substring(1, close).trim();
        if (name.isEmpty()) {
            throw new IniParseException("Empty section name", lineNo);
        }
        return name;
    }

    private String parseEntry(Section section, String trimmed, int lineNo) {
        int separator = -1;
        for (int i = 0; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if (c == '=' || c == ':') {
                separator = i;
                break;
            }
        }
        if (separator < 0) {
            throw new IniParseException("Expected 'key = value' but found: " + trimmed, lineNo);
        }
        String key = trimmed.substring(0, separator).trim();
        if (key.isEmpty()) {
            throw new IniParseException("Missing key before '" + trimmed.charAt(separator) + "'", lineNo);
        }
        String value = parseValue(trimmed.substring(separator + 1), lineNo);
        if (section.contains(key)) {
            switch (options.duplicateKeys()) {
                case FAIL:
                    throw new IniParseException("Duplicate key '" + key + "' in section [" + section.name() + "]", lineNo);
                case APPEND:
                    value = section.get(key) + "," + value;
                    break;
                case OVERWRITE:
                default:
                    break;
            }
        }
        section.put(key, value);
        return key;
    }

    /** Removes an inline comment, surrounding whitespace and quotes from a raw value. */
    String parseValue(String raw, int lineNo) {
        String value = options.inlineComments() ? stripInlineComment(raw) : raw;
        value = value.trim();
        if (value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
            return unescape(value.substring(1, value.length() - 1), lineNo);
        }
        return value;
    }

    private String stripInlineComment(String raw) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (options.isCommentChar(c) && (i == 0 || Character.isWhitespace(raw.charAt(i - 1)))) {
                return raw.substring(0, i);
            }
        }
        return raw;
    }

    private static String unescape(String quoted, int lineNo) {
        StringBuilder out = new StringBuilder(quoted.length());
        for (int i = 0; i < quoted.length(); i++) {
            char c = quoted.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i + 1 == quoted.length()) {
                throw new IniParseException("Dangling '\\' at the end of a quoted value", lineNo);
            }
            char escaped = quoted.charAt(++i);
            switch (escaped) {
                case 'n':
                    out.append('\n');
                    break;
                case 't':
                    out.append('\t');
                    break;
                case '"':
                case '\\':
                    out.append(escaped);
                    break;
                default:
                    out.append('\\').append(escaped);
            }
        }
        return out.toString();
    }
}
