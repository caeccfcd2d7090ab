package io.polybench.ini;

import java.util.Objects;

/**
 * How {@link IniParser} reads a document. Instances are immutable; the {@code with...}
 * methods return modified copies.
 *
 * <pre>
 * ParseOptions options = ParseOptions.defaults()
 *         .withCommentChars("#")
 *         .withDuplicateKeys(DuplicateKeys.FAIL);
 * </pre>
 */
public final class ParseOptions {

    /** What to do when a key appears twice in the same section. */
    public enum DuplicateKeys {
        /** The last value wins. */
        OVERWRITE,
        /** Values are joined with a comma, so that {@link Section#getList} returns them all. */
        APPEND,
        /** The document is rejected. */
        FAIL
    }

    private static final ParseOptions DEFAULTS = new ParseOptions(";#", true, true, DuplicateKeys.OVERWRITE);

    private final String commentChars;
    private final boolean inlineComments;
    private final boolean continuationLines;
    private final DuplicateKeys duplicateKeys;

    private ParseOptions(String commentChars, boolean inlineComments, boolean continuationLines,
            DuplicateKeys duplicateKeys) {
        this.commentChars = commentChars;
        this.inlineComments = inlineComments;
        this.continuationLines = continuationLines;
        this.duplicateKeys = duplicateKeys;
    }

    /**
     * Comments start with {@code ;} or {@code #}, also after a value; indented lines
     * continue the previous value; a repeated key overwrites the earlier value.
     */
    public static ParseOptions defaults() {
        return DEFAULTS;
    }

    /** The characters that start a comment. */
    public String commentChars() {
        return commentChars;
    }

    public boolean isCommentChar(char c) {
        return commentChars.indexOf(c) >= 0;
    }

    /** Whether a comment may follow a value on the same line ({@code key = value ; note}). */
    public boolean inlineComments() {
        return inlineComments;
    }

    /** Whether an indented line continues the value of the previous line. */
    public boolean continuationLines() {
        return continuationLines;
    }

    public DuplicateKeys duplicateKeys() {
        return duplicateKeys;
    }

    public ParseOptions withCommentChars(String chars) {
        Objects.requireNonNull(chars, "chars");
        for (char c : chars.toCharArray()) {
            if (c == '=' || c == ':' || c == '[' || c == '"' || Character.isWhitespace(c)) {
                throw new IllegalArgumentException("'" + c + "' cannot start a comment");
            }
        }
        return new ParseOptions(chars, inlineComments, continuationLines, duplicateKeys);
    }

    public ParseOptions withInlineComments(boolean enabled) {
        return new ParseOptions(commentChars, enabled, continuationLines, duplicateKeys);
    }

    public ParseOptions withContinuationLines(boolean enabled) {
        return new ParseOptions(commentChars, inlineComments, enabled, duplicateKeys);
    }

    public ParseOptions withDuplicateKeys(DuplicateKeys policy) {
        return new ParseOptions(commentChars, inlineComments, continuationLines,
                Objects.requireNonNull(policy, "policy"));
    }
}
