package io.polybench.semver;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

public class RangeTest {

    private static List<Version> versions(String... texts) {
        List<Version> result = new ArrayList<>();
        for (String text : texts) {
            result.add(Version.parse(text));
        }
        return result;
    }

    @Test
    public void intersectionOfPrimitives() {
        Range range = Range.parse(">=1.2.7 <1.3.0");
        assertTrue(range.test("1.2.7"));
        assertTrue(range.test("1.2.99"));
        assertFalse(range.test("1.2.6"));
        assertFalse(range.test("1.3.0"));
    }

    @Test
    public void unionOfSets() {
        Range range = Range.parse("1.2.7 || >=1.2.9 <2.0.0");
        assertTrue(range.test("1.2.7"));
        assertFalse(range.test("1.2.8"));
        assertTrue(range.test("1.4.6"));
        assertFalse(range.test("2.0.0"));
    }

    @Test
    public void xRanges() {
        assertEquals(">=1.2.0 <1.3.0", Range.parse("1.2.x").toString());
        assertEquals(">=1.0.0 <2.0.0", Range.parse("1").toString());
        assertEquals(">=1.0.0 <2.0.0", Range.parse("1.*").toString());
        assertEquals("*", Range.parse("*").toString());
        assertEquals("*", Range.parse("").toString());
        assertTrue(Range.parse("1.x").test("1.99.0"));
    }

    @Test
    public void operatorsOnPartialVersions() {
        assertEquals(">=1.3.0", Range.parse(">1.2").toString());
        assertEquals("<1.3.0", Range.parse("<=1.2").toString());
        assertEquals("<1.2.0", Range.parse("<1.2").toString());
        assertEquals(">=1.2.0", Range.parse(">= 1.2").toString());
    }

    @Test
    public void hyphenRanges() {
        assertEquals(">=1.2.3 <=2.3.4", Range.parse("1.2.3 - 2.3.4").toString());
        assertEquals(">=1.2.0 <2.4.0", Range.parse("1.2 - 2.3").toString());
        assertEquals(">=1.0.0 <3.0.0", Range.parse("1 - 2").toString());
    }

    @Test
    public void preReleasesNeedAMatchingTuple() {
        Range range = Range.parse(">1.2.3-alpha.3");
        assertTrue(range.test("1.2.3-alpha.7"));
        assertFalse(range.test("3.4.5-alpha.9"));
        assertTrue(range.test("3.4.5"));
        assertTrue(range.test(Version.parse("3.4.5-alpha.9"), true));
    }

    @Test
    public void maxAndMinSatisfying() {
        List<Version> available = versions("1.2.3", "1.2.4", "1.3.0", "2.0.0-rc.1", "2.0.0", "2.1.5");
        Range range = Range.parse("1.2.x || 2.x");
        assertEquals(Version.parse("2.1.5"), range.maxSatisfying(available).get());
        assertEquals(Version.parse("1.2.3"), range.minSatisfying(available).get());
        assertEquals(versions("1.2.3", "1.2.4", "2.0.0", "2.1.5"), range.filter(available));
        assertFalse(Range.parse(">=3").maxSatisfying(available).isPresent());
    }

    @Test(expected = SemverException.class)
    public void rejectsDanglingOperator() {
        Range.parse(">=1.0.0 <");
    }

    @Test(expected = SemverException.class)
    public void rejectsGarbage() {
        Range.parse("1.2.3.4");
    }

    @Test(expected = SemverException.class)
    public void rejectsUnsatisfiableWildcard() {
        Range.parse("<*");
    }
}
