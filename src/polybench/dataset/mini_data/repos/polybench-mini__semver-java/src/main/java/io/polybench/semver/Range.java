package io.polybench.semver;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A set of versions described by a range expression such as
 * {@code ">=1.2.7 <1.3.0 || 2.x"}.
 *
 * <p>A range is a union of alternatives; each alternative is an intersection of
 * {@link Constraint}s. As in npm, a pre-release version only matches an alternative when
 * one of its constraints names a pre-release of the same {@code major.minor.patch}
 * (so {@code >1.2.3-alpha.3} matches {@code 1.2.3-alpha.7} but not {@code 3.4.5-alpha.9}),
 * unless pre-releases are explicitly included.
 */
public final class Range {

    private final List<List<Constraint>> alternatives;

    Range(List<List<Constraint>> alternatives) {
        List<List<Constraint>> copy = new ArrayList<>(alternatives.size());
        for (List<Constraint> alternative : alternatives) {
            copy.add(List.copyOf(alternative));
        }
        this.alternatives = Collections.unmodifiableList(copy);
    }

    /**
     * Parses a range expression.
     *
     * @throws SemverException if the expression is malformed
     */
    public static Range parse(String expression) {
        Objects.requireNonNull(expression, "expression");
        return new RangeParser(expression).parse();
    }

    /** The alternatives of this range (each an intersection of constraints). */
    public List<List<Constraint>> alternatives() {
        return alternatives;
    }

    /** Whether {@code version} is in this range, pre-releases following the npm rule. */
    public boolean test(Version version) {
        return test(version, false);
    }

    public boolean test(String version) {
        return test(Version.parse(version));
    }

    /**
     * Whether {@code version} is in this range.
     *
     * @param includePreRelease treat pre-release versions like any other version
     */
    public boolean test(Version version, boolean includePreRelease) {
        for (List<Constraint> alternative : alternatives) {
            if (matches(alternative, version, includePreRelease)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(List<Constraint> constraints, Version version, boolean includePreRelease) {
        for (Constraint constraint : constraints) {
            if (!constraint.test(version)) {
                return false;
            }
        }
        if (!version.isPreRelease() || includePreRelease) {
            return true;
        }
        for (Constraint constraint : constraints) {
            Version bound = constraint.version();
            if (bound.isPreRelease()
                    && bound.major() == version.major()
                    && bound.minor() == version.minor()
                    && bound.patch() == version.patch()) {
                return true;
            }
        }
        return false;
    }

    /** The versions of {@code candidates} in this range, in ascending order. */
    public List<Version> filter(Collection<Version> candidates) {
        return candidates.stream().filter(this::test).sorted().collect(Collectors.toList());
    }

    /** The highest version of {@code candidates} in this range. */
    public Optional<Version> maxSatisfying(Collection<Version> candidates) {
        return candidates.stream().filter(this::test).max(Version::compareTo);
    }

    /** The lowest version of {@code candidates} in this range. */
    public Optional<Version> minSatisfying(Collection<Version> candidates) {
        return candidates.stream().filter(this::test).min(Version::compareTo);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof Range && alternatives.equals(((Range) obj).alternatives);
    }

    @Override
    public int hashCode() {
        return alternatives.hashCode();
    }

    /** The normalised expression, e.g. {@code ">=1.2.0 <1.3.0 || >=2.0.0 <3.0.0"}. */
    @Override
    public String toString() {
        return alternatives.stream()
                .map(set -> set.isEmpty()
                        ? "*"
                        : set.stream().map(Constraint::toString).collect(Collectors.joining(" ")))
                .collect(Collectors.joining(" || "));
    }
}
