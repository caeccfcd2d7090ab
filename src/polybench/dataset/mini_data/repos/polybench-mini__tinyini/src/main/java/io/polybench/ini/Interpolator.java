package io.polybench.ini;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Expands references inside values: {@code ${key}} refers to a key of the same section,
 * {@code ${section:key}} to a key of another section (the global section is written
 * {@code ${:key}}). {@code $$} stands for a literal dollar sign. References are resolved
 * recursively; cycles and missing keys are reported with an {@link IllegalStateException}.
 */
public final class Interpolator {

    private static final int MAX_DEPTH = 32;

    private final Ini ini;

    public Interpolator(Ini ini) {
        this.ini = ini;
    }

    /** The value of {@code key} in {@code section} with all references expanded. */
    public String resolve(String section, String key) {
        return resolve(section, key, new ArrayDeque<>());
    }

    /** Expands the references in {@code text} as if it were a value of {@code section}. */
    public String expand(String section, String text) {
        return expand(section, text, new ArrayDeque<>());
    }

    private String resolve(String section, String key, Deque<String> stack) {
        String id = section + ":" + key;
        if (stack.contains(id)) {
            throw new IllegalStateException("Cyclic reference: " + String.join(" -> ", stack) + " -> " + id);
        }
        if (stack.size() >= MAX_DEPTH) {
            throw new IllegalStateException("References nested too deeply at " + id);
        }
        String raw = ini.get(section, key);
        if (raw == null) {
            throw new IllegalStateException("Unresolved reference ${" + id + "}");
        }
        stack.addLast(id);
        try {
            return expand(section, raw, stack);
        } finally {
            stack.removeLast();
        }
    }

    private String expand(String section, String text, Deque<String> stack) {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '$' || i + 1 == text.length()) {
                out.append(c);
                i++;
                continue;
            }
            char next = text.charAt(i + 1);
            if (next == '$') {
                out.append('$');
                i += 2;
            } else if (next == '{') {
                int close = text.indexOf('}', i + 2);
                if (close < 0) {
                    throw new IllegalStateException("Unterminated reference in '" + text + "'");
                }
                String reference = text.substring(i + 2, close);
                int colon = reference.indexOf(':');
                String targetSection = colon < 0 ? section : reference.substring(0, colon);
                String targetKey = colon < 0 ? reference : reference.substring(colon + 1);
                out.append(resolve(targetSection, targetKey, stack));
                i = close + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
