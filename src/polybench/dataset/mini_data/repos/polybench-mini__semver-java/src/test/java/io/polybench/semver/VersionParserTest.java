package io.polybench.semver;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.junit.Test;

public class VersionParserTest {

    private static SemverException strictFailure(String text) {
        try {
            VersionParser.strict().parse(text);
        } catch (SemverException e) {
            return e;
        }
        fail("expected " + text + " to be rejected");
        return null;
    }

    @Test
    public void strictRejectsLeadingZeros() {
        SemverException error = strictFailure("1.02.3");
        assertEquals(2, error.getPosition());
        assertTrue(error.getMessage(), error.getMessage().contains("Leading zeros"));
    }

    @Test
    public void strictRejectsIncompleteVersions() {
        assertEquals(3, strictFailure("1.2").getPosition());
        assertEquals(0, strictFailure("").getPosition());
        assertEquals(0, strictFailure("v1.2.3").getPosition());
    }

    @Test
    public void strictRejectsBadPreReleaseAndBuild() {
        assertEquals(6, strictFailure("1.2.3-").getPosition());
        assertEquals(9, strictFailure("1.2.3-rc.01").getPosition());
        assertEquals(13, strictFailure("1.2.3-beta+a..b").getPosition());
        assertEquals(7, strictFailure("1.2.3-b_1").getPosition());
    }

    @Test
    public void strictRejectsOverflow() {
        assertTrue(strictFailure("1.2.99999999999").getMessage().contains("too large"));
    }

    @Test
    public void looseAcceptsVersionsFromTheWild() {
        VersionParser loose = VersionParser.loose();
        assertEquals(Version.of(1, 2, 3), loose.parse("  v1.2.3 "));
        assertEquals(Version.of(2, 0, 0), loose.parse("V2"));
        assertEquals(Version.of(3, 1, 0), loose.parse("=3.1"));
        assertEquals(Version.of(1, 2, 3), loose.parse("01.002.3"));
        assertEquals("4.0.0-rc.2", loose.parse("v4-rc.2").toString());
    }

    @Test
    public void tryParseNeverThrows() {
        assertFalse(VersionParser.strict().tryParse("not a version").isPresent());
        assertFalse(VersionParser.strict().tryParse(null).isPresent());
        assertEquals(Version.of(1, 0, 0), VersionParser.strict().tryParse("1.0.0").get());
    }
}
