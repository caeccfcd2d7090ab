package io.polybench.semver;

import java.util.Optional;

/**
 * Turns text into {@link Version}s.
 *
 * <p>The {@linkplain #strict() strict} parser accepts exactly the grammar of the semver
 * specification. The {@linkplain #loose() loose} parser is meant for versions found in the
 * wild (git tags, file names): it ignores surrounding whitespace, accepts a leading
 * {@code v} or {@code =}, leading zeros in numbers, and missing minor or patch numbers
 * ({@code v2 -> 2.0.0}).
 */
public final class VersionParser {

    private static final VersionParser STRICT = new VersionParser(false);
    private static final VersionParser LOOSE = new VersionParser(true);

    private final boolean loose;

    private VersionParser(boolean loose) {
        this.loose = loose;
    }

    public static VersionParser strict() {
        return STRICT;
    }

    public static VersionParser loose() {
        return LOOSE;
    }

    public boolean isLoose() {
        return loose;
    }

    /** Parses {@code text} or returns empty if it is not a valid version for this parser. */
    public Optional<Version> tryParse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(text));
        } catch (SemverException e) {
            return Optional.empty();
        }
    }

    /**
     * Parses {@code text}.
     *
     * @throws SemverException with the position of the first offending character
     */
    public Version parse(String text) {
        if (text == null) {
            throw new SemverException("Version must not be null", null);
        }
        String input = text;
        int pos = 0;
        int end = input.length();
        if (loose) {
            while (pos < end && Character.isWhitespace(input.charAt(pos))) {
                pos++;
            }
            while (end > pos && Character.isWhitespace(input.charAt(end - 1))) {
                end--;
            }
            if (pos < end && (input.charAt(pos) == 'v' || input.charAt(pos) == 'V'
                    || input.charAt(pos) == '=')) {
                pos++;
            }
        }
        if (pos == end) {
            throw new SemverException("Empty version", input, pos);
        }

        int[] numbers = new int[3];
        for (int part = 0; part < 3; part++) {
            if (part > 0) {
                if (pos < end && input.charAt(pos) == '.') {
                    pos++;
                } else if (loose && (pos == end || input.charAt(pos) == '-' || input.charAt(pos) == '+')) {
                    break; // missing minor/patch default to 0
                } else {
                    throw new SemverException("Expected '.'", input, pos);
                }
            }
            int start = pos;
            while (pos < end && Character.isDigit(input.charAt(pos))) {
                pos++;
            }
            numbers[part] = parseNumber(input, start, pos);
        }

        PreRelease preRelease = PreRelease.EMPTY;
        if (pos < end && input.charAt(pos) == '-') {
            int start = pos + 1;
            int plus = input.indexOf('+', start);
            int stop = plus < 0 || plus > end ? end : plus;
            try {
                preRelease = PreRelease.parse(input.substring(start, stop));
            } catch (SemverException e) {
                int where = e.getPosition() < 0 ? start : start + e.getPosition();
                throw new SemverException("Invalid pre-release", input, where);
            }
            if (preRelease.isEmpty()) {
                throw new SemverException("Empty pre-release", input, start);
            }
            pos = stop;
        }

        String build = "";
        if (pos < end && input.charAt(pos) == '+') {
            build = input.substring(pos + 1, end);
            validateBuild(build, input, pos + 1);
            pos = end;
        }

        if (pos != end) {
            throw new SemverException("Unexpected character '" + input.charAt(pos) + "'", input, pos);
        }
        return new Version(numbers[0], numbers[1], numbers[2], preRelease, build);
    }

    private int parseNumber(String input, int start, int stop) {
        if (start == stop) {
            throw new SemverException("Expected a number", input, start);
        }
        if (!loose && stop - start > 1 && input.charAt(start) == '0') {
            throw new SemverException("Leading zeros are not allowed", input, start);
        }
        long value = 0;
        for (int i = start; i < stop; i++) {
            value = value * 10 + (input.charAt(i) - '0');
            if (value > Integer.MAX_VALUE) {
                throw new SemverException("Number is too large", input, start);
            }
        }
        return (int) value;
    }

    static void validateBuild(String build, String input, int offset) {
        if (build.isEmpty()) {
            throw new SemverException("Empty build metadata", input, offset);
        }
        int identifierStart = 0;
        for (int i = 0; i <= build.length(); i++) {
            if (i == build.length() || build.charAt(i) == '.') {
                if (i == identifierStart) {
                    throw new SemverException("Empty build identifier", input, offset + i);
                }
                identifierStart = i + 1;
                continue;
            }
            char c = build.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-') {
                throw new SemverException("Illegal character '" + c + "' in build metadata", input, offset + i);
            }
        }
    }
}
