package io.polybench.semver;

/**
 * A version as written inside a range, where trailing numbers may be missing or be the
 * wildcards {@code x}, {@code X} or {@code *}: {@code 1}, {@code 1.2}, {@code 1.2.x},
 * {@code *}. Only a complete version may carry a pre-release.
 */
final class PartialVersion {

    private final Integer major;
    private final Integer minor;
    private final Integer patch;
    private final PreRelease preRelease;

    private PartialVersion(Integer major, Integer minor, Integer patch, PreRelease preRelease) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.preRelease = preRelease;
    }

    /**
     * Parses one partial version. {@code range} is the whole range expression, used for
     * error messages only.
     */
    static PartialVersion parse(String text, String range) {
        String body = text;
        if (body.startsWith("v") || body.startsWith("V")) {
            body = body.substring(1);
        }
        if (body.isEmpty()) {
            throw new SemverException("Missing version", range);
        }
        String pre = "";
        int dash = body.indexOf('-');
        int plus = body.indexOf('+');
        int coreEnd = body.length();
        if (plus >= 0) {
            coreEnd = plus; // build metadata is irrelevant in ranges
        }
        if (dash >= 0 && dash < coreEnd) {
            pre = body.substring(dash + 1, coreEnd);
            coreEnd = dash;
        }
        String[] parts = body.substring(0, coreEnd).split("\\.", -1);
        if (parts.length > 3) {
            throw new SemverException("Too many version components in '" + text + "'", range);
        }
        Integer[] numbers = new Integer[3];
        boolean wildcardSeen = false;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.equals("x") || part.equals("X") || part.equals("*")) {
                wildcardSeen = true;
                continue;
            }
            if (wildcardSeen) {
                throw new SemverException("Number after wildcard in '" + text + "'", range);
            }
            numbers[i] = parseNumber(part, text, range);
        }
        PreRelease preRelease = PreRelease.EMPTY;
        if (!pre.isEmpty()) {
            if (numbers[2] == null) {
                throw new SemverException("Pre-release on an incomplete version '" + text + "'", range);
            }
            preRelease = PreRelease.parse(pre);
        }
        return new PartialVersion(numbers[0], numbers[1], numbers[2], preRelease);
    }

    private static int parseNumber(String part, String text, String range) {
        if (part.isEmpty() || part.length() > 9) {
            throw new SemverException("Invalid version component in '" + text + "'", range);
        }
        for (int i = 0; i < part.length(); i++) {
            if (!Character.isDigit(part.charAt(i))) {
                throw new SemverException("Invalid version component in '" + text + "'", range);
            }
        }
        return Integer.parseInt(part);
    }

    /** {@code *}, {@code x}: any version. */
    boolean isWildcard() {
        return major == null;
    }

    /** All three numbers are present. */
    boolean isComplete() {
        return patch != null;
    }

    Integer major() {
        return major;
    }

    Integer minor() {
        return minor;
    }

    Integer patch() {
        return patch;
    }

    PreRelease preRelease() {
        return preRelease;
    }

    /** The smallest version matched: missing numbers become 0. */
    Version lowerBound() {
        return new Version(
                major == null ? 0 : major,
                minor == null ? 0 : minor,
                patch == null ? 0 : patch,
                preRelease,
                "");
    }

    /**
     * The first version no longer matched by this x-range: {@code 1.x -> 2.0.0},
     * {@code 1.2.x -> 1.3.0}. Complete and wildcard versions have no exclusive upper bound.
     */
    Version upperBoundExclusive() {
        if (isWildcard() || isComplete()) {
            throw new IllegalStateException("No exclusive upper bound for " + this);
        }
        if (minor == null) {
            return Version.of(major + 1, 0, 0);
        }
        return Version.of(major, minor + 1, 0);
    }

    /** This version as a complete {@link Version}; only valid when {@link #isComplete()}. */
    Version toVersion() {
        if (!isComplete()) {
            throw new IllegalStateException("Incomplete version " + this);
        }
        return lowerBound();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append(major == null ? "*" : major.toString());
        if (major != null) {
            text.append('.').append(minor == null ? "x" : minor.toString());
            if (minor != null) {
                text.append('.').append(patch == null ? "x" : patch.toString());
            }
        }
        if (!preRelease.isEmpty()) {
            text.append('-').append(preRelease);
        }
        return text.toString();
    }
}
