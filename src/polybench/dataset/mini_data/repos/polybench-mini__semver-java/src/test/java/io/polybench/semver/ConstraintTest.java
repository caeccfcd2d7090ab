package io.polybench.semver;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ConstraintTest {

    @Test
    public void parsesOperatorAndVersion() {
        Constraint constraint = Constraint.parse(">= 1.2.0");
        assertEquals(Operator.GTE, constraint.operator());
        assertEquals(Version.of(1, 2, 0), constraint.version());
        assertEquals(">=1.2.0", constraint.toString());
    }

    @Test
    public void missingOperatorMeansEquals() {
        assertEquals(Operator.EQ, Constraint.parse("1.0.0").operator());
    }

    @Test
    public void operatorsCompareAgainstTheBound() {
        Version v = Version.of(1, 5, 0);
        assertTrue(Constraint.parse("<2.0.0").test(v));
        assertTrue(Constraint.parse("<=1.5.0").test(v));
        assertTrue(Constraint.parse(">1.4.9").test(v));
        assertFalse(Constraint.parse(">1.5.0").test(v));
        assertFalse(Constraint.parse("=1.5.1").test(v));
    }

    @Test(expected = SemverException.class)
    public void rejectsUnknownOperator() {
        Constraint.parse("=>1.0.0");
    }
}
