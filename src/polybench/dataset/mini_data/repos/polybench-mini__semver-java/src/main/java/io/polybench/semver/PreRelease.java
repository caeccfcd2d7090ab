package io.polybench.semver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The pre-release part of a version: the dot-separated identifiers after the {@code -}.
 *
 * <p>Precedence follows section 11 of the Semantic Versioning 2.0.0 specification: a
 * version without pre-release identifiers has higher precedence than one with them;
 * identifiers are compared one by one, numeric identifiers numerically, alphanumeric ones
 * lexically in ASCII order, and numeric identifiers always sort before alphanumeric ones.
 * A larger set of identifiers wins when all preceding identifiers are equal.
 */
public final class PreRelease implements Comparable<PreRelease> {

    /** No pre-release identifiers at all (a normal release). */
    public static final PreRelease EMPTY = new PreRelease(Collections.emptyList());

    private final List<String> identifiers;

    private PreRelease(List<String> identifiers) {
        this.identifiers = identifiers;
    }

    /**
     * Parses the text after the {@code -} of a version, e.g. {@code "rc.1"}.
     *
     * @throws SemverException if an identifier is empty, contains characters other than
     *     {@code [0-9A-Za-z-]}, or is numeric with a leading zero
     */
    public static PreRelease parse(String text) {
        if (text == null || text.isEmpty()) {
            return EMPTY;
        }
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '.') {
                String identifier = text.substring(start, i);
                validate(identifier, text, start);
                parts.add(identifier);
                start = i + 1;
            }
        }
        return new PreRelease(Collections.unmodifiableList(parts));
    }

    /** Builds a pre-release from already separated identifiers. */
    public static PreRelease of(String... identifiers) {
        if (identifiers.length == 0) {
            return EMPTY;
        }
        return parse(String.join(".", identifiers));
    }

    private static void validate(String identifier, String text, int offset) {
        if (identifier.isEmpty()) {
            throw new SemverException("Empty pre-release identifier", text, offset);
        }
        for (int i = 0; i < identifier.length(); i++) {
            char c = identifier.charAt(i);
            boolean allowed = (c >= '0' && c <= '9')
                    || (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || c == '-';
            if (!allowed) {
                throw new SemverException(
                        "Illegal character '" + c + "' in pre-release identifier", text, offset + i);
            }
        }
        if (isNumeric(identifier) && identifier.length() > 1 && identifier.charAt(0) == '0') {
            throw new SemverException(
                    "Numeric pre-release identifier must not have leading zeros", text, offset);
        }
    }

    static boolean isNumeric(String identifier) {
        if (identifier.isEmpty()) {
            return false;
        }
        for (int i = 0; i < identifier.length(); i++) {
            char c = identifier.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    public boolean isEmpty() {
        return identifiers.isEmpty();
    }

    /** The identifiers, in order; the list is unmodifiable. */
    public List<String> identifiers() {
        return identifiers;
    }

    /**
     * The next pre-release: the last numeric identifier is incremented, or {@code .0} is
     * appended when the last identifier is not numeric ({@code alpha -> alpha.0},
     * {@code rc.1 -> rc.2}). The empty pre-release becomes {@code 0}.
     */
    public PreRelease increment() {
        if (isEmpty()) {
            return of("0");
        }
        List<String> next = new ArrayList<>(identifiers);
        int last = next.size() - 1;
        String tail = next.get(last);
        if (isNumeric(tail)) {
            next.set(last, new java.math.BigInteger(tail).add(java.math.BigInteger.ONE).toString());
        } else {
            next.add("0");
        }
        return new PreRelease(Collections.unmodifiableList(next));
    }

    @Override
    public int compareTo(PreRelease other) {
        if (isEmpty() || other.isEmpty()) {
            // A release has higher precedence than any of its pre-releases.
            return Boolean.compare(isEmpty(), other.isEmpty());
        }
        int common = Math.min(identifiers.size(), other.identifiers.size());
        for (int i = 0; i < common; i++) {
            int result = compareIdentifiers(identifiers.get(i), other.identifiers.get(i));
            if (result != 0) {
                return result;
            }
        }
        return Integer.compare(identifiers.size(), other.identifiers.size());
    }

    static int compareIdentifiers(String left, String right) {
        boolean leftNumeric = isNumeric(left);
        boolean rightNumeric = isNumeric(right);
        if (leftNumeric && rightNumeric) {
            return left.compareTo(right);
        }
        if (leftNumeric) {
            return -1;
        }
        if (rightNumeric) {
            return 1;
        }
        return left.compareTo(right);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof PreRelease && identifiers.equals(((PreRelease) obj).identifiers);
    }

    @Override
    public int hashCode() {
        return identifiers.hashCode();
    }

    @Override
    public String toString() {
        return String.join(".", identifiers);
    }
}
