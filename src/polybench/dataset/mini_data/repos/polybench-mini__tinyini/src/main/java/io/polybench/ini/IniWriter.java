package io.polybench.ini;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Map;

/**
 * Writes an {@link Ini} back as text that {@link IniParser} (with default options) reads
 * into an equal document. The global section comes first, then every non-empty section in
 * order; values that would not survive a round trip as they are get double-quoted.
 */
public final class IniWriter {

    private final String separator;

    public IniWriter() {
        this(" = ");
    }

    /** @param separator what to put between key and value, e.g. {@code "="} or {@code ": "} */
    public IniWriter(String separator) {
        if (!separator.trim().equals("=") && !separator.trim().equals(":")) {
            throw new IllegalArgumentException("Separator must be '=' or ':' with optional spaces");
        }
        this.separator = separator;
    }

    public String write(Ini ini) {
        StringWriter out = new StringWriter();
        write(ini, out);
        return out.toString();
    }

    public void write(Ini ini, Writer out) {
        try {
            boolean first = true;
            for (Section section : ini.sections()) {
                if (section.isEmpty() && section.isGlobal()) {
                    continue;
                }
                if (!first) {
                    out.write('\n');
                }
                first = false;
                if (!section.isGlobal()) {
                    out.write('[' + section.name() + "]\n");
                }
                for (Map.Entry<String, String> entry : section.asMap().entrySet()) {
                    out.write(entry.getKey() + separator + formatValue(entry.getValue()) + '\n');
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value as it must appear in the file. */
    static String formatValue(String value) {
        boolean needsQuotes = value.isEmpty()
                ? false
                : !value.equals(value.strip())
                        || value.charAt(0) == '"'
                        || value.indexOf('\n') >= 0
                        || value.indexOf('\t') >= 0;
        if (!needsQuotes) {
            return value;
        }
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"':
                    quoted.append("\\\"");
                    break;
                case '\\':
                    quoted.append("\\\\");
                    break;
                case '\n':
                    quoted.append("\\n");
                    break;
                case '\t':
                    quoted.append("\\t");
                    break;
                default:
                    quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
