package io.polybench.semver;

/**
 * Thrown when a version, pre-release or range string cannot be parsed.
 *
 * <p>The exception remembers the offending input and, where it is known, the zero-based
 * position of the first character that could not be accepted, so that tools can point at
 * the problem.
 */
public class SemverException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String input;
    private final int position;

    public SemverException(String message, String input, int position) {
        super(message);
        this.input = input;
        this.position = position;
    }

    public SemverException(String message, String input) {
        this(message, input, -1);
    }

    /** The text that was being parsed. */
    public String getInput() {
        return input;
    }

    /** Position of the offending character, or {@code -1} when it is not known. */
    public int getPosition() {
        return position;
    }

    @Override
    public String getMessage() {
        StringBuilder text = new StringBuilder(super.getMessage());
        if (input != null) {
            text.append(" in \"").append(input).append('"');
            if (position >= 0) {
                text.append(" at position ").append(position);
            }
        }
        return text.toString();
    }
}
