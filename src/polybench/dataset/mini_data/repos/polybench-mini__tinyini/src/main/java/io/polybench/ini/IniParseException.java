package io.polybench.ini;

/** A syntax error in an INI document, with the (1-based) line it was found on. */
public class IniParseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int line;

    public IniParseException(String message, int line) {
        super("line " + line + ": " + message);
        this.line = line;
    }

    /** The 1-based line number of the error. */
    public int getLine() {
        return line;
    }
}
