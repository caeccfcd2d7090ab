package io.polybench.semver;

/** The comparison operators that may precede a version in a range. */
public enum Operator {
    EQ("="),
    LT("<"),
    LTE("<="),
    GT(">"),
    GTE(">=");

    private final String symbol;

    Operator(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** Applies the operator to the result of {@code candidate.compareTo(bound)}. */
    public boolean test(int comparison) {
        switch (this) {
            case EQ:
                return comparison == 0;
            case LT:
                return comparison < 0;
            case LTE:
                return comparison <= 0;
            case GT:
                return comparison > 0;
            case GTE:
                return comparison >= 0;
            default:
                throw new AssertionError(this);
        }
    }

    /** The operator written as {@code symbol}; the empty string means {@link #EQ}. */
    public static Operator fromSymbol(String symbol) {
        if (symbol.isEmpty()) {
            return EQ;
        }
        for (Operator operator : values()) {
            if (operator.symbol.equals(symbol)) {
                return operator;
            }
        }
        throw new IllegalArgumentException("Unknown operator: " + symbol);
    }
}
