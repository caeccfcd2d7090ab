package io.polybench.semver;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

public class PreReleaseTest {

    @Test
    public void parsesDotSeparatedIdentifiers() {
        assertEquals(Arrays.asList("alpha", "1", "x-y"), PreRelease.parse("alpha.1.x-y").identifiers());
        assertTrue(PreRelease.parse("").isEmpty());
    }

    @Test(expected = SemverException.class)
    public void rejectsEmptyIdentifier() {
        PreRelease.parse("alpha..1");
    }

    @Test(expected = SemverException.class)
    public void rejectsLeadingZeroInNumericIdentifier() {
        PreRelease.parse("rc.007");
    }

    @Test
    public void releaseHasHigherPrecedence() {
        assertTrue(PreRelease.EMPTY.compareTo(PreRelease.parse("rc.1")) > 0);
        assertTrue(PreRelease.parse("rc.1").compareTo(PreRelease.EMPTY) < 0);
        assertEquals(0, PreRelease.EMPTY.compareTo(PreRelease.EMPTY));
    }

    @Test
    public void numericIdentifiersSortBeforeAlphanumeric() {
        assertTrue(PreRelease.parse("1").compareTo(PreRelease.parse("alpha")) < 0);
        assertTrue(PreRelease.parse("beta.2").compareTo(PreRelease.parse("beta.x")) < 0);
    }

    @Test
    public void longerSetWinsWhenPrefixIsEqual() {
        assertTrue(PreRelease.parse("alpha").compareTo(PreRelease.parse("alpha.1")) < 0);
        assertTrue(PreRelease.parse("alpha.beta.1").compareTo(PreRelease.parse("alpha.beta")) > 0);
    }

    @Test
    public void alphanumericIdentifiersCompareInAsciiOrder() {
        assertTrue(PreRelease.parse("Beta").compareTo(PreRelease.parse("alpha")) < 0);
        assertTrue(PreRelease.parse("alpha.beta").compareTo(PreRelease.parse("beta")) < 0);
    }

    @Test
    public void incrementBumpsTheLastNumber() {
        assertEquals("rc.2", PreRelease.parse("rc.1").increment().toString());
        assertEquals("alpha.0", PreRelease.parse("alpha").increment().toString());
        assertEquals("0", PreRelease.EMPTY.increment().toString());
        assertEquals("9999999999999999999", PreRelease.parse("9999999999999999998").increment().toString());
    }
}
