package io.polybench.semver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses range expressions into a {@link Range}.
 *
 * <p>Grammar (a subset of the one used by npm):
 *
 * <pre>
 * range        ::= set ( '||' set )*
 * set          ::= hyphen | term ( ' ' term )*
 * hyphen       ::= partial ' - ' partial
 * term         ::= operator? partial
 * operator     ::= '&lt;' | '&lt;=' | '&gt;' | '&gt;=' | '='
 * partial      ::= 'v'? ( '*' | nr ( '.' nr ( '.' nr pre? )? )? )   nr may be x, X or *
 * </pre>
 */
final class RangeParser {

    /** The operator at the start of a term; spaces after it are tolerated ({@code >= 1.2}). */
    private static final Pattern OPERATOR = Pattern.compile("^(<=|>=|<|>|=)");
    private static final Pattern HYPHEN = Pattern.compile("^(\\S+)\\s+-\\s+(\\S+)$");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private final String input;

    RangeParser(String input) {
        this.input = input;
    }

    Range parse() {
        List<List<Constraint>> alternatives = new ArrayList<>();
        for (String alternative : input.split("\\|\\|", -1)) {
            alternatives.add(parseSet(alternative.trim()));
        }
        return new Range(alternatives);
    }

    private List<Constraint> parseSet(String text) {
        if (text.isEmpty() || text.equals("*") || text.equalsIgnoreCase("x")) {
            return Collections.emptyList(); // matches everything
        }
        Matcher hyphen = HYPHEN.matcher(text);
        if (hyphen.matches()) {
            return parseHyphen(hyphen.group(1), hyphen.group(2));
        }
        List<Constraint> constraints = new ArrayList<>();
        String[] tokens = WHITESPACE.split(text);
        for (int i = 0; i < tokens.length; i++) {
            String term = tokens[i];
            if (isOperatorOnly(term)) {
                if (i + 1 == tokens.length) {
                    throw new SemverException("Operator '" + term + "' without a version", input);
                }
                term = term + tokens[++i];
            }
            constraints.addAll(parseTerm(term));
        }
        return constraints;
    }

    private static boolean isOperatorOnly(String token) {
        Matcher matcher = OPERATOR.matcher(token);
        return matcher.find() && matcher.end() == token.length();
    }

    private List<Constraint> parseHyphen(String from, String to) {
        PartialVersion lower = PartialVersion.parse(from, input);
        PartialVersion upper = PartialVersion.parse(to, input);
        List<Constraint> constraints = new ArrayList<>(2);
        if (!lower.isWildcard()) {
            constraints.add(new Constraint(Operator.GTE, lower.lowerBound()));
        }
        if (upper.isComplete()) {
            constraints.add(new Constraint(Operator.LTE, upper.toVersion()));
        } else if (!upper.isWildcard()) {
            constraints.add(new Constraint(Operator.LT, upper.upperBoundExclusive()));
        }
        return constraints;
    }

    private List<Constraint> parseTerm(String term) {
        Matcher matcher = OPERATOR.matcher(term);
        Operator operator = Operator.EQ;
        String rest = term;
        if (matcher.find()) {
            operator = Operator.fromSymbol(matcher.group(1));
            rest = term.substring(matcher.end());
        }
        PartialVersion partial = PartialVersion.parse(rest, input);
        if (partial.isWildcard()) {
            if (operator == Operator.LT || operator == Operator.GT) {
                throw new SemverException("Range '" + term + "' can never be satisfied", input);
            }
            return Collections.emptyList();
        }
        if (partial.isComplete()) {
            return List.of(new Constraint(operator, partial.toVersion()));
        }
        Version lower = partial.lowerBound();
        Version upper = partial.upperBoundExclusive();
        switch (operator) {
            case EQ:
                return List.of(new Constraint(Operator.GTE, lower), new Constraint(Operator.LT, upper));
            case GTE:
                return List.of(new Constraint(Operator.GTE, lower));
            case GT:
                return List.of(new Constraint(Operator.GTE, upper));
            case LT:
                return List.of(new Constraint(Operator.LT, lower));
            case LTE:
                return List.of(new Constraint(Operator.LT, upper));
            default:
                throw new AssertionError(operator);
        }
    }
}
