package io.polybench.semver;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

public class VersionTest {

    @Test
    public void parsesAllParts() {
        Version version = Version.parse("1.4.12-rc.1+build.5114f85");
        assertEquals(1, version.major());
        assertEquals(4, version.minor());
        assertEquals(12, version.patch());
        assertEquals(PreRelease.of("rc", "1"), version.preRelease());
        assertEquals("build.5114f85", version.build());
    }

    @Test
    public void toStringRoundTrips() {
        for (String text : Arrays.asList("0.0.0", "1.2.3", "10.20.30-alpha.1", "1.0.0+exp.sha.5114f85",
                "1.0.0-x-y-z.--+build-7")) {
            assertEquals(text, Version.parse(text).toString());
        }
    }

    @Test
    public void ordersByMajorMinorPatch() {
        assertTrue(Version.parse("1.0.0").isLessThan(Version.parse("2.0.0")));
        assertTrue(Version.parse("2.0.0").isLessThan(Version.parse("2.1.0")));
        assertTrue(Version.parse("2.1.0").isLessThan(Version.parse("2.1.1")));
        assertTrue(Version.parse("1.10.0").isGreaterThan(Version.parse("1.9.0")));
    }

    @Test
    public void sortsPreReleasesBeforeTheRelease() {
        List<Version> expected = new ArrayList<>();
        for (String text : Arrays.asList("1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
                "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.3", "1.0.0-rc.1", "1.0.0")) {
            expected.add(Version.parse(text));
        }
        List<Version> shuffled = new ArrayList<>(expected);
        Collections.reverse(shuffled);
        Collections.swap(shuffled, 1, 5);
        Collections.sort(shuffled);
        assertEquals(expected, shuffled);
    }

    @Test
    public void buildMetadataDoesNotAffectPrecedence() {
        Version plain = Version.parse("1.0.0");
        Version withBuild = Version.parse("1.0.0+20130313144700");
        assertEquals(0, plain.compareTo(withBuild));
        assertEquals(plain, withBuild);
        assertEquals(plain.hashCode(), withBuild.hashCode());
        assertFalse(plain.equalsIncludingBuild(withBuild));
    }

    @Test
    public void stabilityFollowsTheSpec() {
        assertFalse(Version.parse("0.9.1").isStable());
        assertFalse(Version.parse("1.0.0-rc.1").isStable());
        assertTrue(Version.parse("1.0.0").isStable());
    }

    @Test
    public void withersReturnNewVersions() {
        Version base = Version.of(2, 3, 4);
        assertEquals("2.3.4-beta.1", base.withPreRelease("beta.1").toString());
        assertEquals("2.3.4+ci.77", base.withBuild("ci.77").toString());
        assertEquals("2.3.4", base.withPreRelease("beta.1").toRelease().toString());
        assertEquals("2.3.4", base.toString());
    }

    @Test(expected = IllegalArgumentException.class)
    public void rejectsNegativeNumbers() {
        Version.of(1, -1, 0);
    }

    @Test
    public void satisfiesRange() {
        assertTrue(Version.parse("1.2.5").satisfies(">=1.2.0 <1.3.0"));
        assertFalse(Version.parse("1.3.0").satisfies(">=1.2.0 <1.3.0"));
    }
}
