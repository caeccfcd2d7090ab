package io.polybench.semver;

import java.util.Objects;

/** One comparison of a range, such as {@code >=1.2.0}: an operator and a bound. */
public final class Constraint {

    private final Operator operator;
    private final Version version;

    public Constraint(Operator operator, Version version) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.version = Objects.requireNonNull(version, "version");
    }

    /**
     * Parses a single comparison with a complete version, e.g. {@code "<2.0.0"} or
     * {@code "1.4.2"} (no operator means {@code =}).
     */
    public static Constraint parse(String text) {
        String trimmed = text.trim();
        int split = 0;
        while (split < trimmed.length() && "<>=".indexOf(trimmed.charAt(split)) >= 0) {
            split++;
        }
        Operator operator;
        try {
            operator = Operator.fromSymbol(trimmed.substring(0, split));
        } catch (IllegalArgumentException e) {
            throw new SemverException("Unknown operator", text, 0);
        }
        String rest = trimmed.substring(split).trim();
        return new Constraint(operator, VersionParser.loose().parse(rest));
    }

    public Operator operator() {
        return operator;
    }

    public Version version() {
        return version;
    }

    /** Whether {@code candidate} lies on the right side of the bound. */
    public boolean test(Version candidate) {
        return operator.test(candidate.compareTo(version));
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof Constraint)) {
            return false;
        }
        Constraint other = (Constraint) obj;
        return operator == other.operator && version.equals(other.version);
    }

    @Override
    public int hashCode() {
        return Objects.hash(operator, version);
    }

    @Override
    public String toString() {
        return operator.symbol() + version;
    }
}
