package io.polybench.semver;

import java.util.Objects;

/**
 * An immutable Semantic Versioning 2.0.0 version: {@code MAJOR.MINOR.PATCH[-PRE][+BUILD]}.
 *
 * <p>Ordering ({@link #compareTo}) is semver precedence: build metadata is ignored. To keep
 * {@link #equals} consistent with the ordering, two versions that differ only in their
 * build metadata are equal; use {@link #equalsIncludingBuild} to tell them apart.
 */
public final class Version implements Comparable<Version> {

    private final int major;
    private final int minor;
    private final int patch;
    private final PreRelease preRelease;
    private final String build;

    Version(int major, int minor, int patch, PreRelease preRelease, String build) {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException(
                    "Version numbers must not be negative: " + major + "." + minor + "." + patch);
        }
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.preRelease = Objects.requireNonNull(preRelease, "preRelease");
        this.build = build == null ? "" : build;
    }

    /** A release version without pre-release or build metadata. */
    public static Version of(int major, int minor, int patch) {
        return new Version(major, minor, patch, PreRelease.EMPTY, "");
    }

    /** Parses a strict semver string such as {@code 1.4.0-rc.1+sha.5114f85}. */
    public static Version parse(String text) {
        return VersionParser.strict().parse(text);
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    public int patch() {
        return patch;
    }

    public PreRelease preRelease() {
        return preRelease;
    }

    /** Build metadata without the leading {@code +}; empty when there is none. */
    public String build() {
        return build;
    }

    public boolean isPreRelease() {
        return !preRelease.isEmpty();
    }

    /**
     * Whether the public API is considered stable: major version 1 or higher and not a
     * pre-release (semver section 4).
     */
    public boolean isStable() {
        return major > 0 && !isPreRelease();
    }

    public Version withPreRelease(String identifiers) {
        return new Version(major, minor, patch, PreRelease.parse(identifiers), build);
    }

    public Version withBuild(String metadata) {
        if (metadata != null && !metadata.isEmpty()) {
            VersionParser.validateBuild(metadata, metadata, 0);
        }
        return new Version(major, minor, patch, preRelease, metadata);
    }

    /** The release this pre-release leads up to ({@code 1.2.0-rc.1 -> 1.2.0}). */
    public Version toRelease() {
        return new Version(major, minor, patch, PreRelease.EMPTY, "");
    }

    /** Whether this version satisfies the given range expression. */
    public boolean satisfies(String range) {
        return Range.parse(range).test(this);
    }

    /** Compares two versions by precedence; a shorthand for {@code compareTo(other) > 0}. */
    public boolean isGreaterThan(Version other) {
        return compareTo(other) > 0;
    }

    public boolean isLessThan(Version other) {
        return compareTo(other) < 0;
    }

    @Override
    public int compareTo(Version other) {
        int result = Integer.compare(major, other.major);
        if (result == 0) {
            result = Integer.compare(minor, other.minor);
        }
        if (result == 0) {
            result = Integer.compare(patch, other.patch);
        }
        if (result == 0) {
            result = preRelease.compareTo(other.preRelease);
        }
        return result;
    }

    /** Like {@link #equals} but also compares the build metadata. */
    public boolean equalsIncludingBuild(Version other) {
        return equals(other) && build.equals(other.build);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Version)) {
            return false;
        }
        Version other = (Version) obj;
        return major == other.major
                && minor == other.minor
                && patch == other.patch
                && preRelease.equals(other.preRelease);
    }

    @Override
    public int hashCode() {
        return Objects.hash(major, minor, patch, preRelease);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append(major).append('.').append(minor).append('.').append(patch);
        if (isPreRelease()) {
            text.append('-').append(preRelease);
        }
        if (!build.isEmpty()) {
            text.append('+').append(build);
        }
        return text.toString();
    }
}
